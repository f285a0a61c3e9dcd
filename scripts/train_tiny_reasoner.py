"""Train the book's tiny reasoner and ship it as data/tiny_reasoner.{json,bin}.

    python scripts/train_tiny_reasoner.py                   # the shipped checkpoint
    python scripts/train_tiny_reasoner.py --steps 20 --n-layer 1 --n-embd 32 --out /tmp/t.json

Trains a character-level GPT (``tiny_gpt.TinyGPT``) on left-to-right arithmetic chains from
``arithmetic_task``, a share ``--slip-share`` of them with one slip, then writes the fp16
checkpoint and records, measured on the *saved* (fp16) weights:

* the held-out greedy accuracy on a fixed list of problems (``held_out_problems``), which
  ``tests/test_tiny_reasoner_checkpoint.py`` requires the shipped file to reproduce exactly;
* the per-sample accuracy at temperatures 0.7 and 1.0;
* the training time (wall clock and CPU, with the machine's load average before and after: on
  a shared machine the wall clock is pessimistic), steps, batch size, seed, slip share, loss.

Every random draw is seeded: the weights from ``--seed``, the data from ``--seed + 1``, the
evaluation samples from fixed seeds. Run with the same thread count to reproduce bit for bit.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

import torch

from arithmetic_task import held_out_problems, make_batch
from tiny_gpt import (
    TinyGPT,
    TinyGPTConfig,
    accuracy,
    count_parameters,
    load_checkpoint,
    sample_chains,
    save_checkpoint,
    train,
)

ROOT = Path(__file__).resolve().parents[1]
GREEDY_PROBLEMS, GREEDY_SEED = 500, 2024
SAMPLED_PROBLEMS, SAMPLED_N, SAMPLED_SEED = 200, 32, 7


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; the defaults train the shipped checkpoint."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=800)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--min-lr", type=float, default=1e-4)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--slip-share", type=float, default=0.45)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-embd", type=int, default=128)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--context", type=int, default=64)
    p.add_argument("--greedy-problems", type=int, default=GREEDY_PROBLEMS)
    p.add_argument("--sampled-problems", type=int, default=SAMPLED_PROBLEMS)
    p.add_argument("--sampled-n", type=int, default=SAMPLED_N)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--out", type=Path, default=ROOT / "data" / "tiny_reasoner.json")
    return p.parse_args(argv)


def measure(model: TinyGPT, args: argparse.Namespace) -> dict:
    """Held-out greedy and per-sample accuracies of ``model`` (the recorded metrics)."""
    greedy_set = held_out_problems(args.greedy_problems, seed=GREEDY_SEED)
    greedy = accuracy(greedy_set, sample_chains(model, greedy_set, 1, 0.0, batch_size=512))
    sampled_set = held_out_problems(args.sampled_problems, seed=SAMPLED_SEED)
    per_sample = {}
    for temperature in (0.7, 1.0):
        chains = sample_chains(
            model, sampled_set, args.sampled_n, temperature, seed=SAMPLED_SEED, batch_size=512
        )
        per_sample[str(temperature)] = accuracy(sampled_set, chains)
    return {
        "greedy": {
            "accuracy": greedy,
            "problems": args.greedy_problems,
            "problem_seed": GREEDY_SEED,
            "batch_size": 512,
        },
        "per_sample": {
            "accuracy": per_sample,
            "problems": args.sampled_problems,
            "problem_seed": SAMPLED_SEED,
            "samples_per_problem": args.sampled_n,
            "sample_seed": SAMPLED_SEED,
            "top_p": 1.0,
        },
    }


def main(argv: list[str] | None = None) -> dict:
    """Train, save, reload and measure; return the checkpoint's JSON record."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    config = TinyGPTConfig(
        context=args.context, n_layer=args.n_layer, n_embd=args.n_embd, n_head=args.n_head
    )
    model = TinyGPT(config, seed=args.seed)
    print(f"TinyGPT {config.to_dict()}: {count_parameters(model):,} parameters")
    data_rng = random.Random(args.seed + 1)

    def batches() -> tuple[torch.Tensor, torch.Tensor]:
        return make_batch(data_rng, args.batch_size, args.slip_share, config.context)

    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    losses = train(
        model,
        batches,
        steps=args.steps,
        lr=args.lr,
        min_lr=args.min_lr,
        warmup=min(args.warmup, args.steps),
        log_every=args.log_every,
    )
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    tail = max(1, min(20, args.steps // 5))
    training = {
        "steps": args.steps,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "min_lr": args.min_lr,
        "warmup": args.warmup,
        "slip_share": args.slip_share,
        "seed": args.seed,
        "threads": args.threads,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "first_loss": round(sum(losses[:tail]) / tail, 4),
        "final_loss": round(sum(losses[-tail:]) / tail, 4),
        "parameters": count_parameters(model),
        "torch": torch.__version__,
        "machine": platform.machine(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(model, args.out, training=training)
    shipped, _ = load_checkpoint(args.out)  # measure what was written: the fp16 weights
    metrics = measure(shipped, args)
    meta = save_checkpoint(shipped, args.out, metrics=metrics, training=training)
    print(
        f"trained {args.steps} steps in {seconds:.1f}s; loss {training['first_loss']} -> "
        f"{training['final_loss']}"
    )
    print(
        f"held-out greedy accuracy {metrics['greedy']['accuracy']:.3f}; per-sample "
        + ", ".join(f"T={t}: {a:.3f}" for t, a in metrics["per_sample"]["accuracy"].items())
    )
    print(f"wrote {args.out} and {args.out.with_suffix('.bin').name} ({meta['bytes']:,} bytes)")
    return meta


if __name__ == "__main__":
    main(sys.argv[1:])
