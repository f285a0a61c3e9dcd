"""The DeepSeek-R1 recipe at laptop scale: pre-train, cold start, RL, rejection sampling, distil.

The stages of chapter 12, each a few lines over the book's other modules:

* **Stage 0, the base.** `pretrain_base` trains a TinyGPT on a *web-like mix* (`PRETRAIN_MIX`):
  chains of thought that often slip, some re-checked steps, and a share of bare answers
  (`####N` with no working). The base knows what the text looks like, not how to be right.
* **Stage 1, cold start.** `cold_start_set` writes a small, clean, curated set (right chains in the
  house style) and `sft` fine-tunes on it briefly: format and style, not new skill.
* **Stage 2, reasoning RL.** `rl_reasoner.train_rl` (GRPO and its successors).
* **Stage 3, rejection sampling + SFT.** `rejection_sample` draws many chains per problem and keeps
  those a program verifies (right answer, well-formed); `sft` trains the base on them.
* **Stage 4, RL again** from the stage 3 model.
* **Distillation.** `sft` of a smaller base on a teacher's verified chains, against RL on it.

`evaluate` measures any of these models the same way: per-problem counts of right samples on
held-out problems, pass@k with the unbiased estimator, length and thinking-mode shares.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from numbers import Real

import numpy as np
import torch

from arithmetic_task import (
    add_rechecks,
    batch_of,
    format_reward,
    grade,
    make_batch,
    prompt_of,
    random_problem,
    recheck_count,
    require_problems,
    thinking_mode,
    write_chain,
)
from checks import (
    require_float,
    require_instance,
    require_int,
    require_prob,
    require_seed,
    require_sequence,
)
from data_paths import R1_COLD_START_PATH
from evaluation import bootstrap_interval, pass_at_k
from tiny_gpt import TinyGPT, TinyGPTConfig, load_checkpoint, sample, train

#: Stage 0's pre-training text: 45% of chains slip once, steps are re-checked at random, and
#: 30% of the lines state a bare answer with no thinking at all.
PRETRAIN_MIX = {"slip_share": 0.45, "recheck_share": 0.3, "answer_only_share": 0.3}
# Size caps: past these a call would run for hours or allocate gigabytes (chapter 12's runs use
# a few thousand pairs and samples, 800 steps, batches of 128).
MAX_STEPS = 1_000_000
MAX_BATCH = 100_000
MAX_PAIRS = 10_000_000
MAX_CONTEXT = 4096

#: The share of steps re-checked in the curated cold-start chains (the house style).
COLD_START_RECHECK = 0.3


def pretrain_base(
    n_layer: int = 4, steps: int = 800, batch_size: int = 128, seed: int = 0, lr: float = 3e-3
) -> tuple[TinyGPT, list[float]]:
    """Stage 0: a TinyGPT with `n_layer` layers trained from scratch on `PRETRAIN_MIX`.

    Weights from `seed`, data from `seed + 1` (as `scripts/train_tiny_reasoner.py` does).
    """
    require_int("n_layer", n_layer, low=1)
    steps = require_int("steps", steps, low=1, high=MAX_STEPS)
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    seed = require_seed("seed", seed)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    model = TinyGPT(TinyGPTConfig(n_layer=n_layer), seed=seed)
    rng = random.Random(seed + 1)
    context = model.config.context
    losses = train(
        model,
        lambda: make_batch(rng, batch_size, context=context, **PRETRAIN_MIX),
        steps=steps,
        lr=lr,
    )
    return model, losses


def cold_start_set(
    n: int, seed: int = 0, recheck_share: float = COLD_START_RECHECK, context: int = 64
) -> list[tuple[str, str]]:
    """Stage 1's curated data: `n` train problems, each with its *right* chain in house style.

    No slips and no bare answers; steps are re-checked with probability `recheck_share`, so the
    cold start teaches the format and the habit of checking, not arithmetic the base lacks.
    """
    rng = random.Random(require_seed("seed", seed))
    n = require_int("n", n, low=1, high=MAX_PAIRS)
    recheck_share = require_prob("recheck_share", recheck_share)
    context = require_int("context", context, low=16, high=MAX_CONTEXT)
    pairs = []
    for _ in range(n):
        problem = random_problem(rng, "train")
        room = context - len(problem) - 2
        pairs.append((problem, add_rechecks(write_chain(problem), rng, recheck_share, room)))
    return pairs


def sft(
    model: TinyGPT,
    pairs: Sequence[tuple[str, str]],
    steps: int,
    batch_size: int = 64,
    lr: float = 3e-4,
    seed: int = 0,
) -> list[float]:
    """Supervised fine-tuning on `(problem, completion)` pairs; returns the loss of each step.

    Each step draws `batch_size` pairs with replacement (seeded) and takes one AdamW step of the
    next-token loss on the completion only. The schedule is `tiny_gpt.train`'s, with a short
    warm-up and a cosine decay to a tenth of `lr`.
    """
    require_instance("model", model, TinyGPT)
    pairs = require_sequence("pairs", pairs, min_len=1)
    steps = require_int("steps", steps, low=1, high=MAX_STEPS)
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    rng = random.Random(require_seed("seed", seed))
    context = model.config.context
    for i, pair in enumerate(pairs):  # every pair, here: a bad one must not fail mid-training
        try:
            batch_of([pair], context)
        except (TypeError, ValueError) as err:
            raise type(err)(f"pairs[{i}]: {err}") from None

    def batches():
        return batch_of([rng.choice(pairs) for _ in range(batch_size)], context)

    return train(model, batches, steps=steps, lr=lr, min_lr=lr / 10, warmup=min(10, steps))


@torch.no_grad()
def sample_many(
    model: TinyGPT,
    problems: Sequence[str],
    n: int,
    temperature: float = 1.0,
    seed: int = 0,
    batch: int = 1024,
) -> Iterator[tuple[str, str, int]]:
    """`n` seeded samples for each problem, in batches: yields (problem, completion, tokens).

    One `torch.Generator` seeded with `seed` drives every draw, so the same call gives the same
    chains; `rejection_sample` and `evaluate` both sample through it.
    """
    problems, n, temperature, seed, batch = _check_sampling(
        model, problems, n, temperature, seed, batch
    )
    return _sample_many(model, problems, n, temperature, seed, batch)


def _check_sampling(model, problems, n, temperature, seed, batch, n_name="n"):
    """The arguments shared by sample_many, rejection_sample and evaluate, checked once."""
    require_instance("model", model, TinyGPT)
    problems = require_problems("problems", problems)
    n = require_int(n_name, n, low=1, high=MAX_PAIRS)
    if n * len(problems) > MAX_PAIRS:
        raise ValueError(f"{n_name} x len(problems) must be <= {MAX_PAIRS} samples")
    temperature = require_float("temperature", temperature, low=0.0)
    seed = require_seed("seed", seed)
    batch = require_int("batch", batch, low=1, high=MAX_BATCH)
    return problems, n, temperature, seed, batch


@torch.no_grad()
def _sample_many(model, problems, n, temperature, seed, batch):
    generator = torch.Generator().manual_seed(seed)
    flat = [p for p in problems for _ in range(n)]
    for start in range(0, len(flat), batch):
        chunk = flat[start : start + batch]
        out = sample(model, [prompt_of(p) for p in chunk], temperature, generator=generator)
        lengths = out.mask.sum(dim=1).tolist()
        yield from zip(chunk, out.completions, lengths, strict=True)


def rejection_sample(
    model: TinyGPT,
    problems: Sequence[str],
    samples_per_problem: int,
    temperature: float = 1.0,
    seed: int = 0,
    batch: int = 1024,
) -> tuple[list[tuple[str, str]], dict[str, float]]:
    """Stage 3's data: sample chains, keep the verified ones (right answer *and* well-formed).

    Exact duplicates of a kept chain for the same problem are dropped. Returns the kept pairs
    and statistics: samples drawn, share right, share kept, distinct problems covered.
    """
    problems, n, temperature, seed, batch = _check_sampling(
        model, problems, samples_per_problem, temperature, seed, batch, "samples_per_problem"
    )
    kept: dict[tuple[str, str], None] = {}
    right = drawn = 0
    for p, c, _ in _sample_many(model, problems, n, temperature, seed, batch):
        drawn += 1
        ok = grade(p, c) == 1.0
        right += ok
        if ok and format_reward(c) == 1.0:
            kept.setdefault((p, c))
    pairs = list(kept)
    stats = {
        "samples": float(drawn),
        "right_share": right / max(1, drawn),
        "kept": float(len(pairs)),
        "problems_covered": float(len({p for p, _ in pairs})),
    }
    return pairs, stats


def evaluate(
    model: TinyGPT,
    problems: Sequence[str],
    n: int,
    temperature: float = 1.0,
    seed: int = 0,
    ks: Sequence[int] = (1, 2, 4, 8, 16, 32, 64, 128),
    batch: int = 1024,
    num_bootstrap: int = 1000,
) -> dict:
    """Sample `n` chains for each problem and summarise them.

    Returns `counts` (right samples per problem), `pass_at_k` {k: mean unbiased pass@k} for the
    ks <= n with a 95% bootstrap interval over problems (`pass_at_k_ci`), and the mean length in
    tokens of right and wrong chains, the share of each thinking mode and the mean re-checks.
    """
    problems, n, temperature, seed, batch = _check_sampling(
        model, problems, n, temperature, seed, batch
    )
    ks = [require_int("ks", k, low=1) for k in require_sequence("ks", ks)]
    num_bootstrap = require_int("num_bootstrap", num_bootstrap, low=1, high=MAX_PAIRS)
    right = np.zeros(len(problems) * n)
    length = np.zeros(len(problems) * n)
    modes = {"chain": 0, "answer_only": 0, "malformed": 0}
    rechecks = 0
    for i, (p, c, tokens) in enumerate(_sample_many(model, problems, n, temperature, seed, batch)):
        right[i] = grade(p, c)
        length[i] = tokens
        modes[thinking_mode(c)] += 1
        rechecks += recheck_count(c)
    counts = right.reshape(len(problems), n).sum(axis=1).astype(int)
    rng = np.random.default_rng(seed)
    table, ci = {}, {}
    for k in (k for k in ks if k <= n):
        per_problem = np.array([pass_at_k(n, int(c), k) for c in counts])
        table[k] = float(per_problem.mean())
        ci[k] = [float(x) for x in bootstrap_interval(per_problem, rng, num_bootstrap)]
    total = len(right)
    return {
        "problems": len(problems),
        "samples_per_problem": n,
        "temperature": temperature,
        "counts": counts.tolist(),
        "pass_at_k": table,
        "pass_at_k_ci": ci,
        "length_right": float(length[right == 1].mean()) if (right == 1).any() else None,
        "length_wrong": float(length[right == 0].mean()) if (right == 0).any() else None,
        "length": float(length.mean()),
        "mode_share": {m: v / total for m, v in modes.items()},
        "rechecks": rechecks / total,
    }


def smooth(values: Sequence[float | None], window: int) -> list[float | None]:
    """Trailing moving average: point i is the mean of the finite values in the last `window`.

    Missing values (None, NaN) are skipped; a window holding none gives None. Chapter 12 smooths
    per-step training statistics with it (`widgets/r1_pipeline_math.js` mirrors it).
    """
    values = require_sequence("values", values)
    for v in values:  # None and NaN both mark a gap
        if v is not None and (isinstance(v, bool) or not isinstance(v, Real)):
            raise TypeError(f"values must hold numbers or None, got {type(v).__name__}")
    window = require_int("window", window, low=1)
    out: list[float | None] = []
    for i in range(len(values)):
        seen = [
            float(v)
            for v in values[max(0, i - window + 1) : i + 1]
            if v is not None and np.isfinite(v)
        ]
        out.append(sum(seen) / len(seen) if seen else None)
    return out


def load_cold_start() -> tuple[TinyGPT, dict]:
    """Stage 1's cold-start model as shipped (``data/r1_cold_start.json`` and its ``.bin``), the
    model the RL stages and the page's trainer start from: the model and its header, the weights
    checked against the header's SHA-256 by ``tiny_gpt.load_checkpoint``."""
    return load_checkpoint(R1_COLD_START_PATH)
