"""Print chapter 11's speed figures (a report, not a test).

    python scripts/bench_r1.py              # recorded run times + chapter 11 from a cold kernel
    python scripts/bench_r1.py --live 20    # also time 20 live GRPO steps on 2 threads

1. Every recorded job in data/r1_runs.json (written by scripts/run_r1.py): wall and CPU seconds,
   threads, and for RL runs the training time without the held-out check-ups. The issue's floor
   is 5 minutes per RL run on 2 cores; the runs were made two at a time, one thread each.
2. Chapter 11 executed in a fresh Jupyter kernel from the recorded data (floor: 20 s).
3. Optionally, `--live N`: N RL steps of GRPO (16 prompts x 16 chains) from the shipped
   cold-start model (data/r1_cold_start.json) on 2 threads, and the projected time of a
   recorded run's RL_STEPS steps.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # booktools, the book's tooling package
sys.path.insert(0, str(ROOT / "code"))


def recorded() -> None:
    from data_paths import R1_RUNS_PATH

    doc = json.loads(R1_RUNS_PATH.read_text())
    print(f"  {'job':<20} {'kind':<9} {'wall s':>8} {'cpu s':>8} {'train s':>8}  threads")
    rl_train = []
    for name, run in doc["runs"].items():
        t = run["timing"]
        train = t.get("train_seconds")
        if run["kind"] == "rl":
            rl_train.append(train)
        print(
            f"  {name:<20} {run['kind']:<9} {t['wall_seconds']:8.1f} {t['cpu_seconds']:8.1f} "
            f"{'' if train is None else f'{train:8.1f}':>8}  {t['threads']}"
        )
    if rl_train:
        steps = doc["settings"]["rl_steps"]
        print(
            f"  RL runs: {len(rl_train)}, {steps} steps each; training time "
            f"min {min(rl_train):.0f} s, max {max(rl_train):.0f} s (floor 300 s per run)"
        )


def chapter() -> None:
    from booktools.harness.kernel import run_chapter

    run = run_chapter(ROOT / "chapters" / "11-r1-pipeline.qmd")
    print(f"  chapter 11 from a cold kernel: {run.seconds:.2f} s (floor 20 s)")


def live(steps: int) -> None:
    import torch
    from run_r1 import RL_STEPS

    from r1_pipeline import load_cold_start
    from rl_reasoner import RLConfig, train_rl

    torch.set_num_threads(2)
    model = load_cold_start()[0]
    t = time.perf_counter()
    train_rl(model, RLConfig.preset("grpo"), steps, seed=0)
    per_step = (time.perf_counter() - t) / steps
    print(
        f"  live GRPO, 2 threads: {per_step:.2f} s a step; {RL_STEPS} steps would take "
        f"{per_step * RL_STEPS:.0f} s (floor 300 s)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--live", type=int, default=0, help="also time this many live GRPO steps")
    p.add_argument("--no-chapter", action="store_true")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT / "scripts"))
    print("recorded jobs (scripts/run_r1.py):")
    recorded()
    if not args.no_chapter:
        chapter()
    if args.live:
        live(args.live)


if __name__ == "__main__":
    main()
