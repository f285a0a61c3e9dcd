"""Evaluate the single-path and the multi-path tiny reasoners side by side.

    python scripts/eval_multipath.py                     # writes data/multipath_eval.json
    python scripts/eval_multipath.py --problems 20 --samples 8 --out /tmp/e.json
    python scripts/eval_multipath.py --temperatures 0.5 0.7 1.0 --out /tmp/all.json

Both models on the same held-out problems (the first ``--problems`` of the list each
checkpoint's greedy accuracy is recorded on), ``--samples`` chains per problem at each
temperature, every chain graded by ``arithmetic_task.grade``. The statistics are
``tiny_reasoners.evaluate``'s; the sampling runs on one thread (``--threads``), so the same
seed and thread count write the same file, byte for byte. Wall times are recorded with the
machine's load average: on a shared machine they are pessimistic.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

from arithmetic_task import held_out_problems
from data_paths import MULTIPATH_EVAL_PATH, MULTIPATH_PATH, TINY_REASONER_PATH
from tiny_gpt import load_checkpoint
from tiny_reasoners import GREEDY_SEED, evaluate


def main(argv: list[str] | None = None) -> dict:
    """Load both checkpoints, evaluate, write the JSON; return it."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--problems", type=int, default=500)
    p.add_argument("--samples", type=int, default=128)
    # 500 x 128 chains per model and temperature: about 6 minutes each on one idle core.
    p.add_argument("--temperatures", type=float, nargs="+", default=[0.5, 0.7, 1.0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--single", type=Path, default=TINY_REASONER_PATH)
    p.add_argument("--multi", type=Path, default=MULTIPATH_PATH)
    p.add_argument("--out", type=Path, default=MULTIPATH_EVAL_PATH)
    p.add_argument("--no-timing", action="store_true", help="leave wall times out (to diff runs)")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    models, checkpoints = {}, {}
    for name, path in (("single", args.single), ("multi", args.multi)):
        model, meta = load_checkpoint(path)
        models[name] = model
        checkpoints[name] = {"json": path.name, "sha256": meta["sha256"]}
    problems = held_out_problems(args.problems, seed=GREEDY_SEED)
    load_before, start = os.getloadavg()[0], time.perf_counter()
    out = evaluate(models, problems, args.samples, args.temperatures, args.seed, args.bootstrap)
    out["checkpoints"] = checkpoints
    out["problem_seed"] = GREEDY_SEED
    if args.no_timing:
        for record in out["models"].values():
            record.pop("timing")
            for summary in record["sampled"].values():
                summary.pop("seconds")
                summary.pop("chains_per_second")
    else:
        out["timing"] = {
            "seconds": round(time.perf_counter() - start, 1),
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    for name, record in out["models"].items():
        print(f"{name}: greedy {record['greedy']['value']:.3f}")
        for t, s in record["sampled"].items():
            last = str(out["ks"][-1])
            print(
                f"  T={t}: per-sample {s['per_sample']['value']:.3f}  cons@{last} "
                f"{s['cons@k'][last]['value']:.3f}  pass@{last} {s['pass@k'][last]['value']:.3f}"
                f"  modal wrong {s['modal_wrong']['value']:.3f}  rho {s['error_correlation']}"
                f"  top-wrong {s['top_wrong_share']}  routes {s['routes']}"
            )
    print(f"wrote {args.out}")
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
