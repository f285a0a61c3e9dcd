"""Run chapter 11's experiments on the tiny reasoner and record them in data/r1_runs.json.

    python scripts/run_r1.py                 # every job not yet done, two at a time
    python scripts/run_r1.py --jobs rl_grpo_s0 rl_dr_grpo_s0
    python scripts/run_r1.py --assemble      # only rebuild data/r1_runs.json from runs/records

The jobs form the R1 pipeline (`r1_pipeline`) and the objective comparison (`rl_reasoner`):

    base4 ─► cold ─► rl_<objective>_s<seed>  (grpo, dr_grpo, dapo, gspo, cispo; seeds 0, 1)
      │                 └─ rl_grpo_s0 ─► rs (rejection sampling) ─► stage3 ─► stage4_s0
      └────► zero_s<seed>  (R1-Zero: RL straight from the base)
    base2 ─► distill (SFT on rs's verified teacher chains)      vs  student_rl_s<seed>
    budget  (accuracy vs thinking budget, chapter 2's reasoner and the RL-trained one)

Each job writes its checkpoint to runs/ckpt/ and its record (settings, per-step statistics,
held-out evaluations, wall and CPU seconds) to runs/records/, and is skipped if its record
exists, so an interrupted run resumes. Every job runs on one thread and is seeded: the same
machine and thread count reproduce it bit for bit. Held-out evaluations all use the same 500
problems (`held_out_problems(500, seed=2024)`) and sampling seed, at temperature 1.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "runs"
OUT = ROOT / "data" / "r1_runs.json"
COLD_OUT = ROOT / "data" / "r1_cold_start.json"

RL_STEPS = 80  # RL steps per run (16 prompts x 16 chains each)
EVAL_EVERY = 20  # held-out check-ups during a run: 500 problems x 8 samples
CURVE_SAMPLES = 8
FINAL_SAMPLES = {0: 128, 1: 32}  # per problem, for seed 0 and for seed 1 runs
EVAL_PROBLEMS, EVAL_SEED = 500, 2024
COLD_START = {"examples": 512, "steps": 40, "batch_size": 32, "lr": 3e-4}
REJECTION = {"problems": 2000, "samples_per_problem": 8, "problem_seed": 11}
SFT_LARGE = {"steps": 300, "batch_size": 64, "lr": 1e-3}  # stage 3 and distillation
BUDGETS = [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48]
OBJECTIVES = ("grpo", "dr_grpo", "dapo", "gspo", "cispo")
SEEDS = (0, 1)


def _setup() -> None:
    import torch

    torch.set_num_threads(1)
    sys.path.insert(0, str(ROOT / "code"))


def _held_out() -> list[str]:
    from arithmetic_task import held_out_problems

    return held_out_problems(EVAL_PROBLEMS, seed=EVAL_SEED)


def _summary(ev: dict) -> dict:
    """An evaluation without its per-problem counts (for curves)."""
    return {k: v for k, v in ev.items() if k != "counts"}


def _load(name: str):
    from tiny_gpt import load_checkpoint

    path = ROOT / "data" / "tiny_reasoner.json" if name == "ch2" else RUNS / "ckpt" / f"{name}.json"
    return load_checkpoint(path)[0]


def _write(name: str, record: dict, model=None) -> None:
    from tiny_gpt import save_checkpoint

    if model is not None:
        save_checkpoint(model, RUNS / "ckpt" / f"{name}.json")
    (RUNS / "records" / f"{name}.json").write_text(json.dumps(record))


class _Clock:
    """Wall and CPU seconds of a job."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        self.load = os.getloadavg()[0]
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu

    def record(self) -> dict:
        return {
            "wall_seconds": round(self.wall, 1),
            "cpu_seconds": round(self.cpu, 1),
            "threads": 1,
            "load_before": round(self.load, 2),
        }


# ---------------------------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------------------------


def job_pretrain(name: str, n_layer: int) -> None:
    """Stage 0. A base trained earlier by the same call (runs/pretrain/<name>.json) is reused."""
    from r1_pipeline import PRETRAIN_MIX, evaluate, pretrain_base

    done = RUNS / "pretrain" / f"{name}.json"
    if done.exists() and (RUNS / "ckpt" / f"{name}.json").exists():
        model, saved = _load(name), json.loads(done.read_text())
        losses, timing = saved["losses"], saved["timing"]
    else:
        with _Clock() as clock:
            model, losses = pretrain_base(n_layer=n_layer, steps=800, batch_size=128, seed=0)
        timing = clock.record()
    final = evaluate(model, _held_out(), 128, seed=EVAL_SEED)
    _write(
        name,
        {
            "kind": "pretrain",
            "n_layer": n_layer,
            "mix": PRETRAIN_MIX,
            "steps": 800,
            "loss_tail": sum(losses[-50:]) / 50,
            "final": final,
            "timing": timing,
        },
        model,
    )


def job_sft(name: str, start: str, data: str, steps: int, batch_size: int, lr: float) -> None:
    from r1_pipeline import cold_start_set, evaluate, sft

    model = _load(start)
    if data == "cold_start":
        pairs = cold_start_set(COLD_START["examples"], seed=0)
    else:
        saved = json.loads((RUNS / "records" / f"{data}.json").read_text())
        pairs = [tuple(p) for p in saved["pairs"]]
    with _Clock() as clock:
        losses = sft(model, pairs, steps=steps, batch_size=batch_size, lr=lr, seed=0)
    final = evaluate(model, _held_out(), 128, seed=EVAL_SEED)
    record = {
        "kind": "sft",
        "start": start,
        "data": data,
        "examples": len(pairs),
        "steps": steps,
        "batch_size": batch_size,
        "lr": lr,
        "losses": [round(x, 4) for x in losses],
        "final": final,
        "timing": clock.record(),
    }
    _write(name, record, model)


def job_rl(name: str, start: str, objective: str, seed: int) -> None:
    from r1_pipeline import evaluate
    from rl_reasoner import RLConfig, config_dict, train_rl

    model = _load(start)
    held = _held_out()
    cfg = RLConfig.preset(objective)
    curve = [{"step": 0, **_summary(evaluate(model, held, CURVE_SAMPLES, seed=EVAL_SEED))}]
    eval_seconds = 0.0

    def callback(step, m, row):
        nonlocal eval_seconds
        if step % EVAL_EVERY == 0:
            t = time.perf_counter()
            point = evaluate(m, held, CURVE_SAMPLES, seed=EVAL_SEED)
            curve.append({"step": step, **_summary(point)})
            eval_seconds += time.perf_counter() - t

    with _Clock() as clock:
        history = train_rl(model, cfg, RL_STEPS, seed=seed, callback=callback)
    final = evaluate(model, held, FINAL_SAMPLES[seed], seed=EVAL_SEED)
    timing = clock.record()
    timing["train_seconds"] = round(clock.wall - eval_seconds, 1)
    record = {
        "kind": "rl",
        "start": start,
        "objective": objective,
        "seed": seed,
        "steps": RL_STEPS,
        "config": config_dict(cfg),
        "history": history,
        "curve": curve,
        "final": final,
        "timing": timing,
    }
    _write(name, record, model)


def job_rejection(name: str, teacher: str) -> None:
    from arithmetic_task import random_problem
    from r1_pipeline import rejection_sample

    rng = random.Random(REJECTION["problem_seed"])
    problems = [random_problem(rng, "train") for _ in range(REJECTION["problems"])]
    with _Clock() as clock:
        pairs, stats = rejection_sample(
            _load(teacher), problems, REJECTION["samples_per_problem"], seed=0
        )
    _write(
        name,
        {
            "kind": "rejection",
            "teacher": teacher,
            **REJECTION,
            "stats": stats,
            "pairs": pairs,
            "timing": clock.record(),
        },
    )


def job_budget(name: str, models: tuple[str, ...]) -> None:
    from budget import accuracy_vs_budget

    held = _held_out()
    rows = []
    with _Clock() as clock:
        for model_name in models:
            model = _load(model_name)
            for mode in ("cut", "extend"):
                for row in accuracy_vs_budget(model, held, BUDGETS, mode=mode):
                    rows.append({"model": model_name, **row})
    _write(name, {"kind": "budget", "models": list(models), "rows": rows, "timing": clock.record()})


def jobs() -> dict[str, tuple[tuple[str, ...], str, tuple]]:
    """name -> (dependencies, job function name, arguments)."""
    table: dict[str, tuple[tuple[str, ...], str, tuple]] = {
        "base4": ((), "job_pretrain", ("base4", 4)),
        "base2": ((), "job_pretrain", ("base2", 2)),
        "cold": (
            ("base4",),
            "job_sft",
            (
                "cold",
                "base4",
                "cold_start",
                COLD_START["steps"],
                COLD_START["batch_size"],
                COLD_START["lr"],
            ),
        ),
        "rs": (("rl_grpo_s0",), "job_rejection", ("rs", "rl_grpo_s0")),
        "stage3": (("rs", "base4"), "job_sft", ("stage3", "base4", "rs", *SFT_LARGE.values())),
        "stage4_s0": (("stage3",), "job_rl", ("stage4_s0", "stage3", "grpo", 0)),
        "distill": (("rs", "base2"), "job_sft", ("distill", "base2", "rs", *SFT_LARGE.values())),
        "budget": (("rl_grpo_s0",), "job_budget", ("budget", ("ch2", "cold", "rl_grpo_s0"))),
    }
    for seed in SEEDS:
        for objective in OBJECTIVES:
            name = f"rl_{objective}_s{seed}"
            table[name] = (("cold",), "job_rl", (name, "cold", objective, seed))
        table[f"zero_s{seed}"] = (("base4",), "job_rl", (f"zero_s{seed}", "base4", "grpo", seed))
        table[f"student_rl_s{seed}"] = (
            ("base2",),
            "job_rl",
            (f"student_rl_s{seed}", "base2", "grpo", seed),
        )
    return table


def _run(fn_name: str, args: tuple) -> str:
    _setup()
    globals()[fn_name](*args)
    return args[0]


def _done(name: str) -> bool:
    return (RUNS / "records" / f"{name}.json").exists()


def run_all(selected: list[str] | None, workers: int) -> None:
    table = jobs()
    todo = [n for n in (selected or table) if not _done(n)]
    running: dict = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        while todo or running:
            ready = [n for n in todo if all(_done(d) for d in table[n][0])]
            for name in ready[: workers - len(running)]:
                todo.remove(name)
                running[pool.submit(_run, table[name][1], table[name][2])] = name
                print(f"{time.strftime('%H:%M:%S')} start {name}", flush=True)
            if not running:
                raise RuntimeError(f"jobs {todo} wait on dependencies that are not selected")
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                name = running.pop(future)
                future.result()  # re-raise a job's error here
                print(f"{time.strftime('%H:%M:%S')} done  {name}", flush=True)


# ---------------------------------------------------------------------------------------------
# Assemble data/r1_runs.json
# ---------------------------------------------------------------------------------------------


def _round(x, digits: int = 4):
    """Round floats for a compact file; NaN (no chain of that kind in a batch) becomes null."""
    if isinstance(x, float):
        return None if x != x else round(x, digits)
    if isinstance(x, dict):
        return {k: _round(v, digits) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v, digits) for v in x]
    return x


def assemble() -> dict:
    """Gather every record into one JSON document (rejection-sampled chains left out)."""
    records = {}
    for path in sorted((RUNS / "records").glob("*.json")):
        record = json.loads(path.read_text())
        if record["kind"] == "rejection":
            record = {**record, "pairs": record["pairs"][:24]}  # a sample of the kept chains
        records[path.stem] = _round(record)
    doc = {
        "settings": {
            "rl_steps": RL_STEPS,
            "eval_every": EVAL_EVERY,
            "curve_samples": CURVE_SAMPLES,
            "final_samples": {str(k): v for k, v in FINAL_SAMPLES.items()},
            "eval_problems": EVAL_PROBLEMS,
            "eval_seed": EVAL_SEED,
            "cold_start": COLD_START,
            "rejection": REJECTION,
            "sft_large": SFT_LARGE,
            "budgets": BUDGETS,
        },
        "runs": records,
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    _ship_cold_start()
    return doc


def _ship_cold_start() -> None:
    """Ship the stage 1 model as data/r1_cold_start.{json,bin}: readers can start RL from it."""
    from tiny_gpt import save_checkpoint

    record = json.loads((RUNS / "records" / "cold.json").read_text())
    training = {k: record[k] for k in ("start", "data", "examples", "steps", "batch_size", "lr")}
    metrics = {"pass_at_1": record["final"]["pass_at_k"]["1"], "problems": EVAL_PROBLEMS}
    save_checkpoint(_load("cold"), COLD_OUT, metrics=metrics, training=training)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", nargs="*", help="run only these jobs (default: all)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--assemble", action="store_true", help="only rebuild data/r1_runs.json")
    args = p.parse_args(argv)
    _setup()
    (RUNS / "ckpt").mkdir(parents=True, exist_ok=True)
    (RUNS / "records").mkdir(parents=True, exist_ok=True)
    if not args.assemble:
        run_all(args.jobs, args.workers)
    doc = assemble()
    print(f"wrote {OUT.relative_to(ROOT)}: {len(doc['runs'])} records")


if __name__ == "__main__":
    main()
