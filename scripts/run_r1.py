"""Run chapter 11's experiments (and the tiny reasoners' recorded files) as a job graph on Ray.

    python scripts/run_r1.py                       # every R1 job not yet recorded, on this machine
    python scripts/run_r1.py --jobs rl_grpo_s0 rl_dr_grpo_s0
    python scripts/run_r1.py --jobs tiny_reasoner multipath_reasoner multipath_eval
    python scripts/run_r1.py --address auto        # on the Ray cluster this machine belongs to
    python scripts/run_r1.py --assemble            # only rebuild data/ from runs/

The graph, its settings and its jobs are `r1_experiments.graph()`; the scheduler is
`job_graph.run_graph`. Each job's record goes to runs/records/ and its files (checkpoints) to
runs/files/<job>/; a recorded job is never recomputed, so an interrupted run resumes. Then:

- data/r1_runs.json gathers every R1 record (chapter 11 reads it) and data/r1_cold_start.*
  ships the stage-1 model;
- a script job's files (the two tiny reasoners, their evaluations, r1_exercise3.json) are
  copied into data/.

Every job runs seeded on its declared thread count (one for the R1 jobs), so the same machine
writes the same records however many workers run them, on Ray or alone (`--alone`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))

from job_graph import Store, StoreError, main_exit_code, run_alone, run_graph  # noqa: E402
from r1_experiments import SCRIPT_JOBS, Settings, graph  # noqa: E402

RUNS = ROOT / "runs"
OUT = ROOT / "data" / "r1_runs.json"
COLD_OUT = ROOT / "data" / "r1_cold_start.json"


def _round(x, digits: int = 4):
    """Round floats for a compact file; NaN (no chain of that kind in a batch) becomes null."""
    if isinstance(x, float):
        return None if x != x else round(x, digits)
    if isinstance(x, dict):
        return {k: _round(v, digits) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v, digits) for v in x]
    return x


def settings_record(s: Settings) -> dict:
    """The settings block of data/r1_runs.json."""
    return {
        "rl_steps": s.rl_steps,
        "eval_every": s.eval_every,
        "curve_samples": s.curve_samples,
        "final_samples": {str(k): v for k, v in s.final_samples.items()},
        "eval_problems": s.eval_problems,
        "eval_seed": s.eval_seed,
        "cold_start": s.cold_start,
        "rejection": s.rejection,
        "sft_large": s.sft_large,
        "budgets": list(s.budgets),
    }


def assemble(store: Store, s: Settings) -> None:
    """Write data/ from the recorded jobs: r1_runs.json, the cold-start model, script files."""
    from r1_experiments import model_of
    from tiny_gpt import save_checkpoint

    r1 = [n for n in graph(s) if n not in SCRIPT_JOBS]
    if all(store.done(n) for n in r1):
        records = {}
        for name in sorted(r1):
            record = store.load(name).record
            if record["kind"] == "rejection":  # a sample of the kept chains, not all of them
                record = {**record, "pairs": record["pairs"][:24]}
            if name.startswith("rerun_"):  # compared step by step and by its summary only
                final = {k: v for k, v in record["final"].items() if k != "counts"}
                record = {**record, "final": final}
            records[name] = _round(record)
        doc = {"settings": settings_record(s), "runs": records}
        OUT.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        cold = store.load("cold")
        training = {k: cold.record[k] for k in ("start", "data", "examples", "steps")}
        training |= {k: cold.record[k] for k in ("batch_size", "lr")}
        metrics = {"pass_at_1": cold.record["final"]["pass_at_k"]["1"]}
        metrics["problems"] = s.eval_problems
        save_checkpoint(model_of(cold), COLD_OUT, metrics=metrics, training=training)
        print(f"wrote {OUT.relative_to(ROOT)} ({len(records)} records) and {COLD_OUT.name}")
    else:
        missing = [n for n in r1 if not store.done(n)]
        print(f"data/r1_runs.json not rebuilt: {len(missing)} R1 jobs unrecorded ({missing[:4]}…)")
    for name in SCRIPT_JOBS:
        if store.done(name):
            for file_name in store.load(name).files:
                shutil.copyfile(store.root / "files" / name / file_name, ROOT / "data" / file_name)
            print(f"copied {name}'s files into data/")


def _expected_seconds() -> dict[str, float]:
    """Wall times of the recorded runs, for the progress line's estimate."""
    if not OUT.exists():
        return {}
    runs = json.loads(OUT.read_text())["runs"]
    return {n: r["timing"]["wall_seconds"] for n, r in runs.items() if "timing" in r}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", nargs="*", help="run these jobs and what they need (default: R1's)")
    p.add_argument("--address", help="a Ray cluster to join (e.g. auto); default: start one here")
    p.add_argument("--workers", type=int, help="CPUs of the local Ray (default: all cores)")
    p.add_argument("--alone", action="store_true", help="no Ray: run the jobs one by one here")
    p.add_argument("--assemble", action="store_true", help="only rebuild data/ from runs/")
    args = p.parse_args(argv)
    settings, store = Settings(), Store(RUNS)
    jobs = graph(settings)
    selected = args.jobs or [n for n in jobs if n not in SCRIPT_JOBS]
    failed: dict[str, str] = {}
    if not args.assemble:
        try:
            if args.alone:
                failed = run_alone(jobs, store, selected)
            else:
                failed = run_graph(
                    jobs,
                    store,
                    selected,
                    address=args.address,
                    workers=args.workers,
                    expected_seconds=_expected_seconds(),
                )
        except StoreError as err:  # a full disk or an unwritable runs/: nothing to assemble
            print(
                f"error: {err}. Finished records are kept; fix this and run again.", file=sys.stderr
            )
            return 2
    assemble(store, settings)
    return main_exit_code(failed)


if __name__ == "__main__":
    sys.exit(main())
