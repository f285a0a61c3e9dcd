"""Train the multi-path tiny reasoner; write data/tiny_reasoner_multipath.{json,bin}.

    python scripts/train_multipath_reasoner.py                # the shipped checkpoint
    python scripts/train_multipath_reasoner.py --steps 20 --out /tmp/m.json

Chapter 2's recipe (same architecture, 800 steps of 128 traces, seed 0 for the weights and 1
for the data, 2 threads), but every trace follows one of three routes, drawn uniformly and
announced by its first token (``arithmetic_task.ROUTES``); the prompt names no route. The
logic is ``tiny_reasoners.train_reasoner`` and ``checkpoint_metrics``; this script only
saves, reloads the fp16 file and records what the saved weights measure.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from arithmetic_task import ROUTES
from data_paths import MULTIPATH_PATH
from tiny_gpt import TinyGPTConfig, load_checkpoint, save_checkpoint
from tiny_reasoners import checkpoint_metrics, train_reasoner


def main(argv: list[str] | None = None) -> dict:
    """Train, save, reload, measure; return the checkpoint's JSON record."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=800)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-embd", type=int, default=128)
    p.add_argument("--routes", nargs="+", default=list(ROUTES), choices=ROUTES)
    p.add_argument("--out", type=Path, default=MULTIPATH_PATH)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    config = TinyGPTConfig(n_layer=args.n_layer, n_embd=args.n_embd)
    model, training = train_reasoner(
        args.seed, args.routes, steps=args.steps, config=config, log_every=50
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(model, args.out, training=training)
    shipped, _ = load_checkpoint(args.out)  # measure what was written: the fp16 weights
    meta = save_checkpoint(
        shipped, args.out, metrics=checkpoint_metrics(shipped), training=training
    )
    print(f"trained {args.steps} steps in {training['seconds']}s (load {training['load_average']})")
    print(f"metrics {meta['metrics']}")
    print(f"wrote {args.out} ({meta['bytes']:,} bytes)")
    return meta


if __name__ == "__main__":
    main(sys.argv[1:])
