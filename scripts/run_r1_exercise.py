"""Record chapter 11's exercise 3 (a few RL steps on eight training problems) in data/.

    python scripts/run_r1_exercise.py            # writes data/r1_exercise3.json (about 15 s)

Chapter 2's reasoner trains on eight problems alone for four Dr. GRPO steps (8 chains a problem,
learning rate 3e-4), and pass@1 on those eight problems is measured before and after with 32
seeded samples each. Everything is seeded; the training runs on two threads, as the chapter ran
it before this record existed, so the same machine reproduces the same figures. The chapter
reads the record instead of training on every render.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))
OUT = ROOT / "data" / "r1_exercise3.json"

SETTINGS = {
    "objective": "dr_grpo",
    "problems": 8,
    "problem_seed": 21,
    "steps": 4,
    "group_size": 8,
    "lr": 3e-4,
    "train_seed": 0,
    "eval_samples": 32,
    "eval_seed": 3,
    "threads": 2,
}


def run() -> dict:
    """Train and evaluate as exercise 3 asks; return the record."""
    import torch

    from arithmetic_task import random_problem
    from r1_pipeline import evaluate
    from rl_reasoner import RLConfig, train_rl
    from tiny_gpt import load_checkpoint

    s = SETTINGS
    torch.set_num_threads(s["threads"])
    model = load_checkpoint(ROOT / "data" / "tiny_reasoner.json")[0]
    pool_rng = random.Random(s["problem_seed"])
    pool = tuple(random_problem(pool_rng, "train") for _ in range(s["problems"]))
    start = time.perf_counter()
    before = evaluate(model, pool, s["eval_samples"], seed=s["eval_seed"], ks=(1,))
    cfg = RLConfig.preset(
        s["objective"],
        prompts_per_step=s["problems"],
        group_size=s["group_size"],
        lr=s["lr"],
        problem_pool=pool,
    )
    steps = train_rl(model, cfg, steps=s["steps"], seed=s["train_seed"])
    after = evaluate(model, pool, s["eval_samples"], seed=s["eval_seed"], ks=(1,))
    return {
        "settings": s,
        "problems": list(pool),
        "pass_at_1_before": before["pass_at_k"][1],
        "pass_at_1_after": after["pass_at_k"][1],
        "counts_before": list(before["counts"]),
        "counts_after": list(after["counts"]),
        "train_steps": steps,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "machine": {"python": platform.python_version(), "torch": torch.__version__},
    }


def main(argv: list[str] | None = None) -> None:
    """Run the exercise and write its record."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    out = parser.parse_args(argv).out
    record = run()
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(
        f"pass@1 on the 8 training problems: {record['pass_at_1_before']:.3f} -> "
        f"{record['pass_at_1_after']:.3f} ({record['wall_seconds']} s);"
        f" wrote {out}"
    )


if __name__ == "__main__":
    main()
