"""Make data/: every file in it is a job of one graph (`data_jobs.graph`), run here or on Ray.

    python scripts/make_data.py                          # every job not yet recorded, on Ray
    python scripts/make_data.py --jobs game24 beam_sweep # these jobs, and what they need
    python scripts/make_data.py --jobs rl_gspo_s0 r1_runs --alone   # no Ray: one by one here
    python scripts/make_data.py --address auto           # on the Ray cluster this machine is in
    python scripts/make_data.py --check                  # the cheap jobs rerun, against data/
    python scripts/make_data.py --check --jobs tiny_reasoner_eval

Each job's record goes to runs/records/ and its files to runs/files/<job>/ as soon as it
finishes (`job_graph.Store`); a recorded job is never recomputed, so an interrupted run resumes.
Then the files of the jobs that write data/ are copied there (`data_jobs.write_data`).

`--check` writes nothing: it reruns the named jobs (default: `data_jobs.CHEAP`) from the files
data/ ships and prints, per file, "same", "same but timings" or "DIFFERENT"; exit 1 on any
difference. r1_other_machine's input, the first edition's records, is read from git history.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))

from data_jobs import CHEAP, FIRST_EDITION_REV, check, graph, write_data  # noqa: E402
from data_paths import R1_RUNS_PATH  # noqa: E402
from job_graph import Store, StoreError, main_exit_code, pending, run_alone, run_graph  # noqa: E402
from r1_experiments import Settings  # noqa: E402

RUNS = ROOT / "runs"


def first_edition() -> dict:
    """data/r1_runs.json as git holds it at FIRST_EDITION_REV (r1_other_machine's input)."""
    text = subprocess.run(
        ["git", "show", f"{FIRST_EDITION_REV}:data/r1_runs.json"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return json.loads(text)


def _expected_seconds() -> dict[str, float]:
    """Wall times of the recorded runs, for the progress line's estimate."""
    if not R1_RUNS_PATH.exists():
        return {}
    runs = json.loads(R1_RUNS_PATH.read_text())["runs"]
    return {n: r["timing"]["wall_seconds"] for n, r in runs.items() if "timing" in r}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", nargs="*", help="these jobs and what they need (default: all)")
    p.add_argument("--check", action="store_true", help="rerun jobs and compare with data/")
    p.add_argument("--alone", action="store_true", help="no Ray: run the jobs one by one here")
    p.add_argument("--address", help="a Ray cluster to join (e.g. auto); default: start one here")
    p.add_argument("--workers", type=int, help="CPUs of the local Ray (default: all cores)")
    args = p.parse_args(argv)
    settings, store = Settings(), Store(RUNS)
    jobs = graph(settings)
    selected = args.jobs or (list(CHEAP) if args.check else list(jobs))
    unknown = [n for n in selected if n not in jobs]
    if unknown:
        p.error(f"unknown jobs {unknown}; the graph has {sorted(jobs)}")
    needed = selected if args.check else pending(jobs, store, selected)
    if "r1_other_machine" in needed:
        jobs = graph(settings, first_edition=first_edition())
    if args.check:
        verdicts = check(jobs, selected, store)  # R1 runs a job needs come from runs/
        different = sorted(f for f, v in verdicts.items() if not v.startswith("same"))
        print(f"{len(verdicts) - len(different)} of {len(verdicts)} files as data/ ships them")
        return 1 if different else 0
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
    except StoreError as err:  # a full disk or an unwritable runs/
        print(f"error: {err}. Finished records are kept; fix this and run again.", file=sys.stderr)
        return 2
    write_data(store, dict.fromkeys([*needed, *selected]))
    return main_exit_code(failed)


if __name__ == "__main__":
    sys.exit(main())
