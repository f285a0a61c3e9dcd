"""Evaluate the shipped tiny reasoner on real samples; write data/tiny_reasoner_eval.json.

    python scripts/eval_tiny_reasoner.py                          # the shipped JSON
    python scripts/eval_tiny_reasoner.py --problems 20 --samples 16 --out /tmp/e.json

On ``--problems`` held-out problems (the first ones of the list the checkpoint's greedy
accuracy is recorded on), draw ``--samples`` chains per problem at T = 0.7 and T = 1.0 and one
greedy chain, grade every chain with the book's reward (``arithmetic_task.grade``), and record:

* ``curves``: pass@k (``evaluation.pass_at_k``, unbiased) and cons@k (``evaluation.
  cons_at_k_counts``, exact) for k = 1, 2, 4, ..., up to the sample count, each with a 95%
  bootstrap interval over problems (``evaluation``'s bootstrap). Greedy decoding writes the
  same chain every time, so its pass@k = cons@k = its accuracy for every k.
* ``vote_curve``: accuracy of the majority vote of n chains at T = 1.0 for n = 1..41 (cons@n),
  for chapter 2's comparison with the simulated reasoner, beside that simulation fed each
  problem's own per-sample accuracy (``reasoning.plurality_vote_prob`` with D = 4).
* ``diversity``: per temperature, the mean number of distinct answers among the samples, the
  share of unreadable chains, how often the right answer is present / is the mode, and the
  share of the wrong votes that the most common wrong answer takes (0.25 if they split evenly
  four ways).
* ``per_problem``: each problem's greedy correctness and correct counts, which the shortened
  test run compares against.
* ``examples``: a few real chains at T = 1.0 with their answers and first slips, chosen where
  some chains slip and the vote still lands on the right answer.

Every draw is seeded; the record includes the sampling speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from arithmetic_task import answer_of, first_slip, grade, held_out_problems
from evaluation import bootstrap_interval, cons_at_k_counts, pass_at_k
from reasoning import extract_answer, majority_vote, plurality_vote_prob, vote_distribution
from tiny_gpt import load_checkpoint, sample_chains

ROOT = Path(__file__).resolve().parents[1]
TEMPERATURES = (0.7, 1.0)
VOTE_TEMPERATURE, VOTE_MAX_N, SIMULATED_D = 1.0, 41, 4


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; the defaults write the shipped JSON."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--checkpoint", type=Path, default=ROOT / "data" / "tiny_reasoner.json")
    p.add_argument("--problems", type=int, default=500)
    p.add_argument("--samples", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--examples", type=int, default=4)
    p.add_argument("--out", type=Path, default=ROOT / "data" / "tiny_reasoner_eval.json")
    return p.parse_args(argv)


def powers_of_two(n: int) -> list[int]:
    """1, 2, 4, ... up to n (n itself included when it is not a power of two)."""
    ks = [1]
    while ks[-1] * 2 <= n:
        ks.append(ks[-1] * 2)
    return ks if ks[-1] == n else [*ks, n]


def curve_rows(
    temperature: float,
    metric: str,
    per_problem: dict[int, np.ndarray],
    rng: np.random.Generator,
    num_bootstrap: int,
    intervals: dict[bytes, tuple[float, float]],
) -> list[dict]:
    """One record per k: the benchmark mean and its 95% bootstrap interval over problems.

    ``intervals`` remembers the interval of every per-problem vector already resampled, so
    equal vectors (greedy at every k, pass@1 and cons@1) get one interval, not several.
    """
    rows = []
    for k, values in per_problem.items():
        key = values.tobytes()
        if key not in intervals:
            intervals[key] = bootstrap_interval(values, rng, num_bootstrap)
        lo, hi = intervals[key]
        rows.append(
            {
                "temperature": temperature,
                "metric": metric,
                "k": k,
                "value": round(float(values.mean()), 6),
                "lo": round(lo, 6),
                "hi": round(hi, 6),
            }
        )
    return rows


def chain_record(problem: str, chain: str) -> dict:
    """A chain as the chapter shows it: its text, answer, verdict and first slip."""
    return {
        "chain": chain,
        "answer": extract_answer(chain),
        "right": grade(problem, chain) == 1.0,
        "slip": first_slip(problem, chain),
    }


def pick_examples(problems: list[str], chains: list[list[str]], count: int) -> list[dict]:
    """Problems whose first 15 chains include slips and whose vote is still right."""
    examples = []
    for problem, cs in zip(problems, chains, strict=True):
        shown = cs[:15]
        records = [chain_record(problem, c) for c in shown]
        wrong = sum(not r["right"] for r in records)
        vote = majority_vote([r["answer"] for r in records])
        if 4 <= wrong <= 7 and vote == answer_of(problem):
            examples.append(
                {"problem": problem, "answer": answer_of(problem), "vote": vote, "chains": records}
            )
        if len(examples) == count:
            break
    return examples


def main(argv: list[str] | None = None) -> dict:
    """Sample, score and write the JSON; return it."""
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    model, meta = load_checkpoint(args.checkpoint)
    greedy_meta = meta["metrics"].get("greedy", {})
    problem_seed = greedy_meta.get("problem_seed", 2024)
    problems = held_out_problems(args.problems, seed=problem_seed)
    answers = [answer_of(p) for p in problems]
    n = args.samples
    ks = powers_of_two(n)
    rng = np.random.default_rng(args.seed)
    intervals: dict[bytes, tuple[float, float]] = {}
    out: dict = {
        "checkpoint": {"json": args.checkpoint.name, "sha256": meta["sha256"]},
        "problems": args.problems,
        "problem_seed": problem_seed,
        "samples": n,
        "ks": ks,
        "seed": args.seed,
        "bootstrap": args.bootstrap,
        "top_p": 1.0,
        "curves": [],
        "diversity": [],
        "per_problem": {"problem": problems},
        "timing": {},
    }

    start = time.perf_counter()
    greedy = sample_chains(model, problems, 1, 0.0, batch_size=args.batch_size)
    greedy_right = np.array([grade(p, cs[0]) for p, cs in zip(problems, greedy, strict=True)])
    out["per_problem"]["greedy_right"] = [int(x) for x in greedy_right]
    for metric in ("pass@k", "cons@k"):
        out["curves"] += curve_rows(
            0.0, metric, {k: greedy_right for k in ks}, rng, args.bootstrap, intervals
        )
    out["timing"]["greedy_seconds"] = round(time.perf_counter() - start, 2)

    vote_chains = None
    for t_index, temperature in enumerate(TEMPERATURES):
        start = time.perf_counter()
        chains = sample_chains(
            model,
            problems,
            n,
            temperature,
            seed=args.seed + 1 + t_index,
            batch_size=args.batch_size,
        )
        seconds = time.perf_counter() - start
        out["timing"][str(temperature)] = {
            "seconds": round(seconds, 2),
            "chains_per_second": round(len(problems) * n / seconds, 1),
        }
        pass_k = {k: np.zeros(len(problems)) for k in ks}
        cons_k = {k: np.zeros(len(problems)) for k in ks}
        correct_counts, distinct, unreadable, mode_right, top_wrong = [], [], [], [], []
        for i, (problem, cs) in enumerate(zip(problems, chains, strict=True)):
            votes = [extract_answer(c) for c in cs]
            c = int(sum(grade(problem, chain) for chain in cs))
            counts = vote_distribution(votes)
            num_none = sum(v is None for v in votes)
            for k in ks:
                pass_k[k][i] = pass_at_k(n, c, k)
                cons_k[k][i] = cons_at_k_counts(counts, answers[i], k, num_none)
            correct_counts.append(c)
            distinct.append(len(counts))
            unreadable.append(num_none / n)
            mode_right.append(majority_vote(votes) == answers[i])
            wrong = [count for answer, count in counts.items() if answer != answers[i]]
            if wrong:  # how much of the wrong vote the most common wrong answer takes
                top_wrong.append(max(wrong) / sum(wrong))
        out["curves"] += curve_rows(temperature, "pass@k", pass_k, rng, args.bootstrap, intervals)
        out["curves"] += curve_rows(temperature, "cons@k", cons_k, rng, args.bootstrap, intervals)
        out["per_problem"][f"correct_{temperature}"] = correct_counts
        out["diversity"].append(
            {
                "temperature": temperature,
                "distinct_answers": round(float(np.mean(distinct)), 3),
                "unreadable": round(float(np.mean(unreadable)), 4),
                "right_present": round(float(np.mean(np.array(correct_counts) > 0)), 4),
                "right_is_mode": round(float(np.mean(mode_right)), 4),
                "top_wrong_share": round(float(np.mean(top_wrong)), 4) if top_wrong else 0.0,
            }
        )
        if temperature == VOTE_TEMPERATURE:
            vote_chains = chains
    out["diversity"].insert(
        0,
        {
            "temperature": 0.0,
            "distinct_answers": 1.0,
            "unreadable": round(float(np.mean([extract_answer(c[0]) is None for c in greedy])), 4),
            "right_present": round(float(greedy_right.mean()), 4),
            "right_is_mode": round(float(greedy_right.mean()), 4),
            "top_wrong_share": 1.0,
        },
    )

    start = time.perf_counter()
    vote_rows = []
    vote_correct = out["per_problem"][f"correct_{VOTE_TEMPERATURE}"]
    tallies = [
        (vote_distribution(v), sum(a is None for a in v))
        for v in ([extract_answer(c) for c in cs] for cs in vote_chains)
    ]
    for size in range(1, min(VOTE_MAX_N, n) + 1):
        values = np.array(
            [
                cons_at_k_counts(counts, answers[i], size, num_none)
                for i, (counts, num_none) in enumerate(tallies)
            ]
        )
        lo, hi = bootstrap_interval(values, rng, args.bootstrap)
        # The simulated reasoner of chapter 2 fed each problem's own accuracy c_i / n, with its
        # wrong answers scattered over D = 4 values (one slip moves the answer by +-1 or +-2).
        simulated = {c: plurality_vote_prob(c / n, size, SIMULATED_D) for c in set(vote_correct)}
        vote_rows.append(
            {
                "n": size,
                "value": round(float(values.mean()), 6),
                "lo": round(lo, 6),
                "hi": round(hi, 6),
                "simulated_per_problem": round(
                    float(np.mean([simulated[c] for c in vote_correct])), 6
                ),
            }
        )
    out["vote_curve"] = {
        "temperature": VOTE_TEMPERATURE,
        "simulated_D": SIMULATED_D,
        "rows": vote_rows,
    }
    out["timing"]["vote_curve_seconds"] = round(time.perf_counter() - start, 2)
    out["examples"] = pick_examples(problems, vote_chains, args.examples)
    out["example_temperature"] = VOTE_TEMPERATURE

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    summary = {(r["temperature"], r["metric"], r["k"]): r["value"] for r in out["curves"]}
    for temperature in (0.0, *TEMPERATURES):
        print(
            f"T={temperature}: pass@1 {summary[(temperature, 'pass@k', 1)]:.3f}  "
            f"pass@{n} {summary[(temperature, 'pass@k', n)]:.3f}  "
            f"cons@{n} {summary[(temperature, 'cons@k', n)]:.3f}"
        )
    print(f"timing {out['timing']}")
    print(f"wrote {args.out}")
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
