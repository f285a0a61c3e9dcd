"""Two tiny reasoners of one size: one that knows one route to an answer, one that knows three.

Chapter 2's real reasoner (``data/tiny_reasoner.json``) is trained on left-to-right chains
only, so the only diversity sampling can add to its chains is slips. The *multi-path* reasoner
here (``data/tiny_reasoner_multipath.json``) has the same architecture, parameter count,
vocabulary, steps, batch, learning-rate schedule and seed policy, but each of its training
traces follows one of ``arithmetic_task.ROUTES``, drawn uniformly, and announces it with its
first token; the prompt never names a route, so the model picks one when it samples.

This module holds what the job graph (``data_jobs``) calls to make both reasoners' files:

* ``train_reasoner(seed, routes=...)`` -> (model, training record): chapter 2's recipe, with the
  multi-path batches when ``routes`` is given and the single-path chains when it is None;
* ``checkpoint_metrics`` -> the metrics a shipped checkpoint records (its greedy accuracy on the
  fixed held-out list, which a test reproduces exactly);
* ``sample_routed`` / ``greedy_by_route``: chains, and chains with the route forced;
* the statistics of the evaluation (``error_correlation``, ``route_error_correlation``,
  ``wrong_agreement``, ``vote_ceiling``) and ``evaluate(...)`` -> the dict recorded as
  ``data/multipath_eval.json``.

pass@k and cons@k come from ``evaluation`` (one implementation for the whole book); intervals
are ``evaluation.bootstrap_interval``'s 95% percentile bootstrap over problems.
"""

from __future__ import annotations

import math
import os
import platform
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

from arithmetic_task import (
    MAX_BATCH,
    ROUTE_TOKENS,
    ROUTES,
    answer_of,
    first_slip,
    grade,
    held_out_problems,
    make_batch,
    make_route_batch,
    prompt_of,
    require_problems,
    require_routes,
    route_of,
)
from checks import (
    MAX_SEED,
    require_bool,
    require_callable,
    require_float,
    require_instance,
    require_int,
    require_optional_float,
    require_path,
    require_prob,
    require_rows,
    require_seed,
    require_sequence,
    require_sequence_of_sequences,
    require_str,
)
from data_paths import (
    MULTIPATH_EVAL_PATH,
    MULTIPATH_PATH,
    TINY_REASONER_EVAL_PATH,
    TINY_REASONER_PATH,
    read_json,
)
from evaluation import MAX_CELLS, MAX_VOTES, bootstrap_interval, cons_at_k_counts, pass_at_k
from reasoning import extract_answer, majority_vote, plurality_vote_prob, vote_distribution
from tiny_gpt import (
    MAX_ROWS,
    MAX_STEPS,
    TinyGPT,
    TinyGPTConfig,
    accuracy,
    count_parameters,
    load_checkpoint,
    sample,
    sample_chains,
)
from tiny_gpt import train as train_lm

__all__ = [
    "GREEDY_PROBLEMS",
    "MODEL_LABELS",
    "GREEDY_SEED",
    "checkpoint_metrics",
    "comparison_rows",
    "load_multipath_eval",
    "load_multipath_reasoner",
    "load_tiny_reasoner",
    "load_tiny_reasoner_eval",
    "error_correlation",
    "evaluate",
    "evaluate_reasoner",
    "greedy_by_route",
    "powers_of_two",
    "route_error_correlation",
    "sample_routed",
    "summarize_chains",
    "train_reasoner",
    "vote_ceiling",
    "vote_curve_rows",
    "wrong_agreement",
]

#: The fixed held-out list a checkpoint's greedy accuracy is recorded on (as for chapter 2's).
GREEDY_PROBLEMS, GREEDY_SEED = 500, 2024
SAMPLED_PROBLEMS, SAMPLED_N, SAMPLED_SEED = 200, 32, 7


# ---------------------------------------------------------------------------------------------
# Argument checks (the public functions check once; the private ones they call trust them)
# ---------------------------------------------------------------------------------------------


def _require_model(name: str, model: object) -> TinyGPT:
    return require_instance(name, model, TinyGPT)


def _require_mapping(name: str, value: object) -> Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping, got {type(value).__name__}")
    return value


def _require_tally(name: str, tally: object) -> Mapping:
    """A mapping of anything to a count (an int >= 0), e.g. route -> chains."""
    for key, count in _require_mapping(name, tally).items():
        require_int(f"{name}[{key!r}]", count, low=0)
    return tally


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


def train_reasoner(
    seed: int = 0,
    routes: Sequence[str] | None = ROUTES,
    *,
    steps: int = 800,
    batch_size: int = 128,
    lr: float = 3e-3,
    min_lr: float = 1e-4,
    warmup: int = 30,
    slip_share: float = 0.45,
    config: TinyGPTConfig | None = None,
    log_every: int = 0,
) -> tuple[TinyGPT, dict]:
    """Train a tiny reasoner from scratch; return it and its training record.

    The defaults are chapter 2's recipe (``data_jobs``' ``tiny_reasoner`` job): weights seeded
    with ``seed``, data with ``seed + 1``, 800 AdamW steps of 128 traces, 45% of them with one
    slip. ``routes`` chooses the traces: a tuple of ``ROUTES`` gives multi-path traces (route
    uniform over the tuple, announced by the chain's first token), ``None`` the single-path
    left-to-right chains of the shipped reasoner. The thread count is the caller's
    (``torch.set_num_threads``); it is recorded, since it decides the bits.
    """
    seed = require_seed("seed", seed)
    if routes is not None:
        routes = tuple(require_routes("routes", routes))
    steps = require_int("steps", steps, low=1, high=MAX_STEPS)
    # A batch is a (batch_size, context) tensor pair: arithmetic_task's cap on one batch.
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    warmup = require_int("warmup", warmup, low=0, high=MAX_STEPS)
    slip_share = require_prob("slip_share", slip_share)
    if config is None:
        config = TinyGPTConfig()
    elif not isinstance(config, TinyGPTConfig):
        raise TypeError(f"config must be a TinyGPTConfig or None, got {type(config).__name__}")
    # lr, min_lr and log_every go to tiny_gpt.train unchanged, which checks them under these
    # names before its first step; checking them here as well would be the same check twice.
    model = TinyGPT(config, seed=seed)
    data_rng = random.Random(seed + 1)

    def batches() -> tuple[torch.Tensor, torch.Tensor]:
        if routes is None:
            return make_batch(data_rng, batch_size, slip_share, config.context)
        return make_route_batch(data_rng, batch_size, slip_share, config.context, routes)

    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    losses = train_lm(
        model,
        batches,
        steps=steps,
        lr=lr,
        min_lr=min_lr,
        warmup=min(warmup, steps),
        log_every=log_every,
    )
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    tail = max(1, min(20, steps // 5))
    # The single-path record has no "routes" key: it is the shipped data/tiny_reasoner.json's.
    record = {
        **({"routes": list(routes)} if routes is not None else {}),
        "steps": steps,
        "batch_size": batch_size,
        "lr": lr,
        "min_lr": min_lr,
        "warmup": warmup,
        "slip_share": slip_share,
        "seed": seed,
        "threads": torch.get_num_threads(),
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "first_loss": round(sum(losses[:tail]) / tail, 4),
        "final_loss": round(sum(losses[-tail:]) / tail, 4),
        "parameters": count_parameters(model),
        "torch": torch.__version__,
        "machine": platform.machine(),
    }
    return model, record


def checkpoint_metrics(model: TinyGPT, *, routes: bool = True) -> dict:
    """The metrics a checkpoint records (both tiny reasoners' shipped files hold these).

    Greedy accuracy on the fixed list (500 held-out problems, seed 2024, batches of 512; a
    test reproduces it exactly), per-sample accuracy at T = 0.7 and 1.0 (200 problems x 32),
    and, with ``routes`` (a route-announcing model), the share of greedy chains on each route.
    """
    _require_model("model", model)
    announced = require_bool("routes", routes)
    greedy_set = held_out_problems(GREEDY_PROBLEMS, seed=GREEDY_SEED)
    greedy_chains = sample_chains(model, greedy_set, 1, 0.0, batch_size=512)
    sampled_set = held_out_problems(SAMPLED_PROBLEMS, seed=SAMPLED_SEED)
    per_sample = {
        str(t): accuracy(
            sampled_set,
            sample_chains(model, sampled_set, SAMPLED_N, t, seed=SAMPLED_SEED, batch_size=512),
        )
        for t in (0.7, 1.0)
    }
    routes = [route_of(cs[0]) for cs in greedy_chains]
    greedy = {
        "accuracy": accuracy(greedy_set, greedy_chains),
        "problems": GREEDY_PROBLEMS,
        "problem_seed": GREEDY_SEED,
        "batch_size": 512,
    }
    if announced:  # the single-path reasoner's file records no shares
        greedy["route_share"] = {str(r): routes.count(r) / len(routes) for r in (*ROUTES, None)}
    return {
        "greedy": greedy,
        "per_sample": {
            "accuracy": per_sample,
            "problems": SAMPLED_PROBLEMS,
            "problem_seed": SAMPLED_SEED,
            "samples_per_problem": SAMPLED_N,
            "sample_seed": SAMPLED_SEED,
            "top_p": 1.0,
        },
    }


# ---------------------------------------------------------------------------------------------
# Sampling
# ---------------------------------------------------------------------------------------------


def sample_routed(
    model: TinyGPT,
    problems: Sequence[str],
    n: int,
    temperature: float,
    seed: int,
    batch_size: int = 512,
) -> list[list[str]]:
    """``tiny_gpt.sample_chains``: ``n`` chains per problem (the route is the model's choice)."""
    return sample_chains(model, problems, n, temperature, seed=seed, batch_size=batch_size)


def greedy_by_route(
    model: TinyGPT, problems: Sequence[str], batch_size: int = 512
) -> dict[str, list[str]]:
    """The greedy chain of every problem along every route, the route token forced.

    The prompt is the problem, ``=``, the route's token and ``;`` (what the model would have
    written had it chosen that route); each returned chain includes that prefix.
    """
    _require_model("model", model)
    problems = require_problems("problems", problems, min_len=1)
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_ROWS)
    return _greedy_by_route(model, problems, batch_size)


def _greedy_by_route(model: TinyGPT, problems: list[str], batch_size: int) -> dict[str, list[str]]:
    out = {}
    for route in ROUTES:
        prefix = ROUTE_TOKENS[route] + ";"
        prompts = [prompt_of(p) + prefix for p in problems]
        chains: list[str] = []
        for start in range(0, len(prompts), batch_size):
            chains += sample(model, prompts[start : start + batch_size], 0.0).completions
        out[route] = [prefix + c for c in chains]
    return out


# ---------------------------------------------------------------------------------------------
# Statistics of many chains per problem
# ---------------------------------------------------------------------------------------------


def error_correlation(wrong: Sequence[int], n: Sequence[int] | int) -> float:
    """Correlation of the errors of two distinct chains of one problem (intra-class).

    ``wrong[i]`` of the ``n[i]`` chains of problem i are wrong (``n`` one count for every
    problem, or one per problem). With e_j the 0/1 error of chain j, p the overall error rate
    and E[e_j e_k] the chance that two distinct chains of a random problem are both wrong, the
    correlation is (E[e_j e_k] - p^2) / (p (1 - p)): 0 when errors strike every problem alike
    (each chain an independent coin), 1 when a problem's chains are all right or all wrong.
    Problems are weighted equally. NaN when p is 0 or 1.
    """
    wrong = require_sequence("wrong", wrong, min_len=1)
    wrong = [require_int(f"wrong[{i}]", w, low=0) for i, w in enumerate(wrong)]
    if isinstance(n, (str, bytes)) or not isinstance(n, Iterable):
        n = require_int("n", n, low=2)
        sizes = [n] * len(wrong)
    else:
        n = require_sequence("n", n, min_len=1)
        if len(n) not in (1, len(wrong)):
            raise ValueError(
                f"n must hold one count or one per problem ({len(wrong)}), got {len(n)}"
            )
        n = [require_int(f"n[{i}]", m, low=2) for i, m in enumerate(n)]
        sizes = n * len(wrong) if len(n) == 1 else n
    for i, (w, m) in enumerate(zip(wrong, sizes, strict=True)):
        if w > m:
            raise ValueError(f"wrong[{i}] must be <= its n ({m}), got {w}")
    return _error_correlation(wrong, n)


def _error_correlation(wrong: Sequence[int], n: Sequence[int] | int) -> float:
    w = np.asarray(wrong, dtype=float)
    m = np.broadcast_to(np.asarray(n, dtype=float), w.shape)
    p = float(np.mean(w / m))
    both = float(np.mean(w * (w - 1) / (m * (m - 1))))
    return (both - p * p) / (p * (1 - p)) if 0 < p < 1 else math.nan


def route_error_correlation(
    wrong: Sequence[Mapping[str, int]], count: Sequence[Mapping[str, int]]
) -> dict[str, float]:
    """Error correlation of two chains of one problem on the *same* route vs *different* routes.

    ``wrong[i][r]`` of the ``count[i][r]`` chains of problem i took route r and were wrong.
    Pairs of distinct chains are pooled over problems within each kind (same route, different
    routes); each kind's both-wrong rate is set against the overall error rate as in
    ``error_correlation``. Lower across routes than within one means the routes fail on
    different problems: the diversity a vote can use. A kind with no pair, or an error rate of
    0 or 1, gives NaN.
    """
    wrong = require_sequence("wrong", wrong, min_len=1)
    count = require_sequence("count", count)
    if len(count) != len(wrong):
        raise ValueError(
            f"count must hold one tally per problem, as wrong does ({len(wrong)}), got {len(count)}"
        )
    for i, (w, c) in enumerate(zip(wrong, count, strict=True)):
        _require_tally(f"count[{i}]", c)
        for route, x in _require_tally(f"wrong[{i}]", w).items():
            if x > c.get(route, 0):
                raise ValueError(
                    f"wrong[{i}][{route!r}] must be <= count[{i}][{route!r}] "
                    f"({c.get(route, 0)}), got {x}"
                )
    if not any(sum(c.values()) for c in count):
        raise ValueError("count must hold at least one chain")
    return _route_error_correlation(wrong, count)


def _route_error_correlation(
    wrong: Sequence[Mapping[str, int]], count: Sequence[Mapping[str, int]]
) -> dict[str, float]:
    tot_w = sum(sum(w.values()) for w in wrong)
    tot_n = sum(sum(c.values()) for c in count)
    p = tot_w / tot_n
    same_both = same_pairs = cross_both = cross_pairs = 0.0
    for w, c in zip(wrong, count, strict=True):
        ws, cs = sum(w.values()), sum(c.values())
        s_both = sum(w.get(r, 0) * (w.get(r, 0) - 1) for r in c)
        s_pairs = sum(c[r] * (c[r] - 1) for r in c)
        same_both += s_both
        same_pairs += s_pairs
        cross_both += ws * (ws - 1) - s_both
        cross_pairs += cs * (cs - 1) - s_pairs

    def corr(both: float, pairs: float) -> float:
        if pairs == 0 or not 0 < p < 1:
            return math.nan
        return (both / pairs - p * p) / (p * (1 - p))

    return {"same_route": corr(same_both, same_pairs), "cross_route": corr(cross_both, cross_pairs)}


def wrong_agreement(counts: Mapping[str | None, int], correct: str) -> float | None:
    """Chance that two distinct wrong chains of a problem give the *same* wrong answer.

    1/D when the wrong votes split evenly over D answers; None with fewer than two wrong chains.
    Unreadable chains (answer None) are wrong and agree with no one.
    """
    for answer in _require_tally("counts", counts):
        if answer is not None and not isinstance(answer, str):
            raise TypeError(f"counts keys must be answers (str) or None, got {answer!r}")
    return _wrong_agreement(counts, require_str("correct", correct))


def _wrong_agreement(counts: Mapping[str | None, int], correct: str) -> float | None:
    wrong = {a: c for a, c in counts.items() if a != correct}
    total = sum(wrong.values())
    if total < 2:
        return None
    same = sum(c * (c - 1) for a, c in wrong.items() if a is not None)
    return same / (total * (total - 1))


def vote_ceiling(mean_accuracy: float, correlation: float, threshold: float = 0.5) -> float:
    """Share of problems a vote of infinitely many chains gets right, predicted from two numbers.

    Model each problem's per-chain accuracy q as Beta-distributed with the measured mean and
    the measured error correlation rho (for a Beta, rho = 1 / (a + b + 1)), and count a problem
    right when q > ``threshold`` (0.5 when the wrong answers could all collude; lower when they
    scatter). With rho = 0 every problem has q = mean, so the ceiling is 1 or 0; as rho grows,
    more problems fall below the threshold whatever the number of votes.
    """
    mean = require_float(
        "mean_accuracy", mean_accuracy, low=0.0, high=1.0, low_open=True, high_open=True
    )
    rho = require_float("correlation", correlation, low=0.0, high=1.0, high_open=True)
    threshold = require_float("threshold", threshold, low=0.0, high=1.0)
    if rho == 0:
        return float(mean > threshold)
    total = 1 / rho - 1
    return 1.0 - _beta_cdf(threshold, mean * total, (1 - mean) * total)


def _beta_cdf(x: float, a: float, b: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction (Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only on this side
        return 1.0 - _beta_cdf(1 - x, b, a)
    log_front = a * math.log(x) + b * math.log1p(-x) - math.log(a)
    log_front -= math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(log_front) * f


def powers_of_two(n: int) -> list[int]:
    """1, 2, 4, ... up to n (n itself included when it is not a power of two)."""
    n = require_int("n", n, low=1)
    ks = [1]
    while ks[-1] * 2 <= n:
        ks.append(ks[-1] * 2)
    return ks if ks[-1] == n else [*ks, n]


def _finite(x: float, digits: int = 4) -> float | None:
    """``x`` rounded, or None when it is NaN (JSON has no NaN; the browser reads these files)."""
    return None if math.isnan(x) else round(x, digits)


def _interval(values: np.ndarray, rng: np.random.Generator, num_bootstrap: int) -> dict:
    lo, hi = bootstrap_interval(values, rng, num_bootstrap)
    return {"value": round(float(values.mean()), 6), "lo": round(lo, 6), "hi": round(hi, 6)}


def summarize_chains(
    problems: Sequence[str],
    chains: Sequence[Sequence[str]],
    ks: Sequence[int],
    rng: np.random.Generator,
    num_bootstrap: int,
) -> dict:
    """Every statistic the evaluation records for one model at one temperature.

    pass@k and cons@k (``evaluation``'s unbiased and exact estimators) for each k with 95%
    bootstrap intervals; the share of problems whose modal answer is wrong; the top wrong
    answer's share of the wrong votes; the chance two wrong chains agree; the error
    correlation of two chains of one problem; and, per route, the share of chains, their
    accuracy, and the vote within the route against the vote of as many chains of any route.

    Every problem needs the same number n of chains, 2 <= n <= ``evaluation.MAX_VOTES`` (the
    error correlation needs two; cons@k's exact count is capped there), and each k is in [1, n].
    """
    problems = require_problems("problems", problems, min_len=1)
    chains = require_sequence_of_sequences("chains", chains)
    if len(chains) != len(problems):
        raise ValueError(
            f"chains must hold one list per problem, got {len(chains)} lists "
            f"for {len(problems)} problems"
        )
    n = len(chains[0])
    if not 2 <= n <= MAX_VOTES:
        raise ValueError(f"chains[0] must hold 2 to {MAX_VOTES} chains, got {n}")
    for i, cs in enumerate(chains):
        if len(cs) != n:
            raise ValueError(
                f"chains[{i}] must hold as many chains as chains[0] ({n}), got {len(cs)}"
            )
        for j, chain in enumerate(cs):
            require_str(f"chains[{i}][{j}]", chain)
    ks = require_sequence("ks", ks)
    ks = [require_int(f"ks[{i}]", k, low=1, high=n) for i, k in enumerate(ks)]
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    num_bootstrap = _require_num_bootstrap(num_bootstrap, len(problems))
    return _summarize_chains(problems, chains, ks, rng, num_bootstrap)


def _require_num_bootstrap(num_bootstrap: object, num_problems: int) -> int:
    num_bootstrap = require_int("num_bootstrap", num_bootstrap, low=1)
    if num_bootstrap * num_problems > MAX_CELLS:  # evaluation.bootstrap_interval's cap
        raise ValueError(f"num_bootstrap x len(problems) must be <= {MAX_CELLS}")
    return num_bootstrap


class _Scored(NamedTuple):
    """One problem's chains, scored: what both evaluations read of them."""

    votes: list[str | None]  # each chain's answer (None: unreadable)
    right: list[bool]  # each chain graded by arithmetic_task.grade
    counts: dict[str, int]  # the readable answers' tally
    none: int  # unreadable chains
    correct: int  # right chains
    pass_k: dict[int, float]  # pass@k (unbiased) for each k
    cons_k: dict[int, float]  # cons@k (exact) for each k
    top_wrong: float | None  # the commonest wrong answer's share of the wrong votes


def _score_problem(problem: str, answer: str, chains: Sequence[str], ks: list[int]) -> _Scored:
    """Grade and tally one problem's n chains; pass@k and cons@k at each k (k <= n)."""
    n = len(chains)
    votes = [extract_answer(c) for c in chains]
    right = [grade(problem, c) == 1.0 for c in chains]
    counts = vote_distribution(votes)
    num_none = sum(v is None for v in votes)
    c = sum(right)
    wrong = [count for a, count in counts.items() if a != answer]
    return _Scored(
        votes,
        right,
        counts,
        num_none,
        c,
        {k: pass_at_k(n, c, k) for k in ks},
        {k: cons_at_k_counts(counts, answer, k, num_none) for k in ks},
        max(wrong) / sum(wrong) if wrong else None,
    )


def _summarize_chains(
    problems: list[str],
    chains: Sequence[Sequence[str]],
    ks: list[int],
    rng: np.random.Generator,
    num_bootstrap: int,
) -> dict:
    answers = [answer_of(p) for p in problems]
    n_problems = len(problems)
    pass_k = {k: np.zeros(n_problems) for k in ks}
    cons_k = {k: np.zeros(n_problems) for k in ks}
    correct, modal_wrong, top_wrong, agree = [], [], [], []
    route_wrong, route_count = [], []
    within = {r: [] for r in ROUTES}
    across = {r: [] for r in ROUTES}
    for i, (problem, cs) in enumerate(zip(problems, chains, strict=True)):
        scored = _score_problem(problem, answers[i], cs, ks)
        votes, right, counts, num_none = scored.votes, scored.right, scored.counts, scored.none
        for k in ks:
            pass_k[k][i], cons_k[k][i] = scored.pass_k[k], scored.cons_k[k]
        correct.append(scored.correct)
        modal_wrong.append(majority_vote(votes) != answers[i])
        if scored.top_wrong is not None:
            top_wrong.append(scored.top_wrong)
        all_counts = dict(counts)
        if num_none:
            all_counts[None] = num_none
        a = _wrong_agreement(all_counts, answers[i])
        if a is not None:
            agree.append(a)
        routes = [route_of(ch) for ch in cs]
        w_r, c_r = {}, {}
        for route, ok in zip(routes, right, strict=True):
            key = str(route)
            c_r[key] = c_r.get(key, 0) + 1
            w_r[key] = w_r.get(key, 0) + (not ok)
        route_wrong.append(w_r)
        route_count.append(c_r)
        for route in ROUTES:
            mine = [v for v, r in zip(votes, routes, strict=True) if r == route]
            if len(mine) >= 1:
                m_counts = vote_distribution(mine)
                m_none = sum(v is None for v in mine)
                within[route].append(cons_at_k_counts(m_counts, answers[i], len(mine), m_none))
                across[route].append(cons_at_k_counts(counts, answers[i], len(mine), num_none))
    correct_arr = np.array(correct, dtype=float)
    n = len(chains[0])
    out = {
        "pass@k": {str(k): _interval(pass_k[k], rng, num_bootstrap) for k in ks},
        "cons@k": {str(k): _interval(cons_k[k], rng, num_bootstrap) for k in ks},
        "per_sample": _interval(correct_arr / n, rng, num_bootstrap),
        "modal_wrong": _interval(np.array(modal_wrong, dtype=float), rng, num_bootstrap),
        "top_wrong_share": round(float(np.mean(top_wrong)), 4) if top_wrong else None,
        "wrong_agreement": round(float(np.mean(agree)), 4) if agree else None,
        "error_correlation": _finite(_error_correlation([n - c for c in correct], n)),
        "routes": {},
        "correct": [int(c) for c in correct],
    }
    total = sum(sum(c.values()) for c in route_count)
    for key in (*ROUTES, "None"):
        chosen = sum(c.get(key, 0) for c in route_count)
        if chosen == 0:
            continue
        entry = {
            "share": round(chosen / total, 4),
            "accuracy": round(1 - sum(w.get(key, 0) for w in route_wrong) / chosen, 4),
        }
        if key in within and within[key]:
            entry["vote_within"] = round(float(np.mean(within[key])), 4)
            entry["vote_across_same_n"] = round(float(np.mean(across[key])), 4)
            entry["problems"] = len(within[key])
        out["routes"][key] = entry
    if len(out["routes"]) > 1:
        out["route_error_correlation"] = {
            k: _finite(v) for k, v in _route_error_correlation(route_wrong, route_count).items()
        }
    return out


def evaluate(
    models: Mapping[str, TinyGPT],
    problems: Sequence[str],
    samples: int = 128,
    temperatures: Sequence[float] = (0.5, 0.7, 1.0),
    seed: int = 0,
    num_bootstrap: int = 1000,
    batch_size: int = 512,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Greedy and sampled evaluation of several models on the same problems; a JSON-ready dict.

    For each model: greedy accuracy (with interval), the greedy chain's route, greedy along each
    route forced; then at each temperature ``samples`` chains per problem, summarised by
    ``summarize_chains``. The sample seed of (model m, temperature t) is ``seed + 1 + t_index``,
    the same for every model, and the bootstrap draws come from one generator seeded ``seed``,
    so the record is reproducible with the same thread count. ``progress`` (e.g. ``print``)
    hears a line after each model's sampling at each temperature.

    Sizes are capped before any chain is drawn: ``samples`` at ``evaluation.MAX_VOTES`` (the
    exact cons@k), ``samples x len(problems)`` at ``tiny_gpt.MAX_ROWS`` chains per call,
    ``num_bootstrap x len(problems)`` at ``evaluation.MAX_CELLS``.
    """
    models = _require_mapping("models", models)
    if not models:
        raise ValueError("models must hold at least one model")
    for name, model in models.items():
        if not isinstance(name, str):
            raise TypeError(f"models must be keyed by name (str), got key {name!r}")
        _require_model(f"models[{name!r}]", model)
    problems = require_problems("problems", problems, min_len=1)
    samples = require_int("samples", samples, low=2, high=MAX_VOTES)
    if samples * len(problems) > MAX_ROWS:
        raise ValueError(f"samples x len(problems) must be <= {MAX_ROWS} chains")
    temperatures = require_sequence("temperatures", temperatures)
    for i, temperature in enumerate(temperatures):
        # Checked, not converted: the record's keys are str(temperature) as given.
        require_float(f"temperatures[{i}]", temperature, low=0.0)
    if len({str(t) for t in temperatures}) != len(temperatures):
        raise ValueError(f"temperatures must be distinct, got {temperatures}")
    seed = require_seed("seed", seed)
    if seed + len(temperatures) > MAX_SEED:  # temperature i samples with seed + 1 + i
        raise ValueError(f"seed must be <= {MAX_SEED - len(temperatures)}, got {seed}")
    num_bootstrap = _require_num_bootstrap(num_bootstrap, len(problems))
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_ROWS)
    if progress is not None:
        require_callable("progress", progress)
    ks = powers_of_two(samples)
    rng = np.random.default_rng(seed)
    out: dict = {
        "problems": problems,
        "samples": samples,
        "ks": ks,
        "temperatures": list(temperatures),
        "seed": seed,
        "bootstrap": num_bootstrap,
        "threads": torch.get_num_threads(),
        "models": {},
    }
    for name, model in models.items():
        record: dict = {"timing": {}}
        start = time.perf_counter()
        greedy = sample_chains(model, problems, 1, 0.0, batch_size=batch_size)
        right = np.array([grade(p, cs[0]) for p, cs in zip(problems, greedy, strict=True)])
        record["timing"]["greedy_seconds"] = round(time.perf_counter() - start, 2)
        record["greedy"] = _interval(right, rng, num_bootstrap)
        record["greedy_right"] = [int(x) for x in right]
        greedy_routes = [str(route_of(cs[0])) for cs in greedy]
        record["greedy_route_share"] = {
            r: round(greedy_routes.count(r) / len(problems), 4) for r in sorted(set(greedy_routes))
        }
        if any(r != "None" for r in greedy_routes):
            forced = _greedy_by_route(model, problems, batch_size)
            forced_right = {
                r: np.array([grade(p, c) for p, c in zip(problems, cs, strict=True)])
                for r, cs in forced.items()
            }
            record["greedy_by_route"] = {
                r: _interval(v, rng, num_bootstrap) for r, v in forced_right.items()
            }
            stacked = np.stack([forced_right[r] for r in ROUTES])
            record["greedy_any_route"] = round(float(stacked.max(axis=0).mean()), 4)
            record["greedy_route_agreement"] = round(
                float((stacked.min(axis=0) == stacked.max(axis=0)).mean()), 4
            )
        record["sampled"] = {}
        for t_index, temperature in enumerate(temperatures):
            start = time.perf_counter()
            chains = sample_routed(
                model, problems, samples, temperature, seed + 1 + t_index, batch_size
            )
            seconds = time.perf_counter() - start
            summary = _summarize_chains(problems, chains, ks, rng, num_bootstrap)
            summary["seconds"] = round(seconds, 2)
            summary["chains_per_second"] = round(len(problems) * samples / seconds, 1)
            record["sampled"][str(temperature)] = summary
            if progress is not None:
                progress(f"{name} T={temperature}: {summary['chains_per_second']} chains/s")
        out["models"][name] = record
    return out


# The single-path reasoner's own evaluation (data/tiny_reasoner_eval.json, chapters 2 and 3).
EVAL_TEMPERATURES = (0.7, 1.0)
VOTE_TEMPERATURE, VOTE_MAX_N, SIMULATED_D = 1.0, 41, 4


def _curve_rows(
    temperature: float,
    metric: str,
    per_problem: dict[int, np.ndarray],
    rng: np.random.Generator,
    num_bootstrap: int,
    intervals: dict[bytes, tuple[float, float]],
) -> list[dict]:
    """One record per k: the mean over problems and its 95% bootstrap interval.

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


def _chain_record(problem: str, chain: str) -> dict:
    """A chain as the chapter shows it: its text, answer, verdict and first slip."""
    return {
        "chain": chain,
        "answer": extract_answer(chain),
        "right": grade(problem, chain) == 1.0,
        "slip": first_slip(problem, chain),
    }


def _pick_examples(problems: list[str], chains: list[list[str]], count: int) -> list[dict]:
    """Problems whose first 15 chains include 4 to 7 slips and whose vote is still right."""
    examples = []
    for problem, cs in zip(problems, chains, strict=True):
        records = [_chain_record(problem, c) for c in cs[:15]]
        wrong = sum(not r["right"] for r in records)
        vote = majority_vote([r["answer"] for r in records])
        if 4 <= wrong <= 7 and vote == answer_of(problem):
            examples.append(
                {"problem": problem, "answer": answer_of(problem), "vote": vote, "chains": records}
            )
        if len(examples) == count:
            break
    return examples


def _vote_curve(
    problems: list[str], chains: list[list[str]], correct: list[int], rng, num_bootstrap: int
) -> list[dict]:
    """cons@n of the first n chains for n = 1..41, beside chapter 2's simulated reasoner fed
    each problem's own accuracy c_i / n with its wrong answers over D = 4 values."""
    n = len(chains[0])
    answers = [answer_of(p) for p in problems]
    tallies = [
        (vote_distribution(v), sum(a is None for a in v))
        for v in ([extract_answer(c) for c in cs] for cs in chains)
    ]
    rows = []
    for size in range(1, min(VOTE_MAX_N, n) + 1):
        values = np.array(
            [
                cons_at_k_counts(counts, answers[i], size, num_none)
                for i, (counts, num_none) in enumerate(tallies)
            ]
        )
        lo, hi = bootstrap_interval(values, rng, num_bootstrap)
        simulated = {c: plurality_vote_prob(c / n, size, SIMULATED_D) for c in set(correct)}
        rows.append(
            {
                "n": size,
                "value": round(float(values.mean()), 6),
                "lo": round(lo, 6),
                "hi": round(hi, 6),
                "simulated_per_problem": round(float(np.mean([simulated[c] for c in correct])), 6),
            }
        )
    return rows


def evaluate_reasoner(
    model: TinyGPT,
    checkpoint: Mapping,
    problems: int = GREEDY_PROBLEMS,
    samples: int = 128,
    seed: int = 0,
    num_bootstrap: int = 1000,
    batch_size: int = 512,
    examples: int = 4,
) -> dict:
    """The single-path reasoner on real samples: what ``data/tiny_reasoner_eval.json`` holds.

    On the first ``problems`` of the held-out list its checkpoint's greedy accuracy is recorded
    on, one greedy chain and ``samples`` chains per problem at T = 0.7 and 1.0, each graded by
    ``arithmetic_task.grade``: ``curves`` (pass@k and cons@k for k = 1, 2, 4, ... with 95%
    bootstrap intervals; greedy's are its accuracy at every k), ``vote_curve`` (cons@n at T =
    1.0 beside the simulated reasoner), ``diversity`` (distinct answers, unreadable chains, how
    often the right answer is present and is the mode, the top wrong answer's share),
    ``per_problem`` counts and a few ``examples`` of chains that slip under a right vote.
    ``checkpoint`` is ``{"json": file name, "sha256": ..., "metrics": ...}`` (the checkpoint's
    header). Every draw is seeded; ``timing`` holds the wall seconds.
    """
    _require_model("model", model)
    checkpoint = _require_mapping("checkpoint", checkpoint)
    for key in ("json", "sha256"):
        if key not in checkpoint:
            raise ValueError(f"checkpoint must hold {key!r} (the checkpoint's file name, hash)")
        require_str(f"checkpoint[{key!r}]", checkpoint[key])
    problems = require_int("problems", problems, low=1, high=MAX_ROWS)
    samples = require_int("samples", samples, low=1, high=MAX_VOTES)
    if samples * problems > MAX_ROWS:
        raise ValueError(f"samples x problems must be <= {MAX_ROWS} chains")
    seed = require_seed("seed", seed)
    if seed + len(EVAL_TEMPERATURES) > MAX_SEED:  # temperature i samples with seed + 1 + i
        raise ValueError(f"seed must be <= {MAX_SEED - len(EVAL_TEMPERATURES)}, got {seed}")
    num_bootstrap = _require_num_bootstrap(num_bootstrap, problems)
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_ROWS)
    examples = require_int("examples", examples, low=0, high=problems)
    problem_seed = checkpoint.get("metrics", {}).get("greedy", {}).get("problem_seed", GREEDY_SEED)
    problem_list = held_out_problems(problems, seed=problem_seed)
    answers = [answer_of(p) for p in problem_list]
    ks = powers_of_two(samples)
    rng = np.random.default_rng(seed)
    intervals: dict[bytes, tuple[float, float]] = {}
    out: dict = {
        "checkpoint": {"json": checkpoint["json"], "sha256": checkpoint["sha256"]},
        "problems": problems,
        "problem_seed": problem_seed,
        "samples": samples,
        "ks": ks,
        "seed": seed,
        "bootstrap": num_bootstrap,
        "top_p": 1.0,
        "curves": [],
        "diversity": [],
        "per_problem": {"problem": problem_list},
        "timing": {},
    }
    start = time.perf_counter()
    greedy = sample_chains(model, problem_list, 1, 0.0, batch_size=batch_size)
    greedy_right = np.array([grade(p, cs[0]) for p, cs in zip(problem_list, greedy, strict=True)])
    out["per_problem"]["greedy_right"] = [int(x) for x in greedy_right]
    for metric in ("pass@k", "cons@k"):
        per_k = {k: greedy_right for k in ks}
        out["curves"] += _curve_rows(0.0, metric, per_k, rng, num_bootstrap, intervals)
    out["timing"]["greedy_seconds"] = round(time.perf_counter() - start, 2)
    vote_chains: list[list[str]] = []
    for t_index, temperature in enumerate(EVAL_TEMPERATURES):
        start = time.perf_counter()
        chains = sample_chains(
            model, problem_list, samples, temperature, seed=seed + 1 + t_index,
            batch_size=batch_size,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        out["timing"][str(temperature)] = {
            "seconds": round(seconds, 2),
            "chains_per_second": round(problems * samples / seconds, 1),
        }
        pass_k = {k: np.zeros(problems) for k in ks}
        cons_k = {k: np.zeros(problems) for k in ks}
        correct, distinct, unreadable, mode_right, top_wrong = [], [], [], [], []
        for i, (problem, cs) in enumerate(zip(problem_list, chains, strict=True)):
            scored = _score_problem(problem, answers[i], cs, ks)
            for k in ks:
                pass_k[k][i], cons_k[k][i] = scored.pass_k[k], scored.cons_k[k]
            correct.append(scored.correct)
            distinct.append(len(scored.counts))
            unreadable.append(scored.none / samples)
            mode_right.append(majority_vote(scored.votes) == answers[i])
            if scored.top_wrong is not None:
                top_wrong.append(scored.top_wrong)
        for metric, per_k in (("pass@k", pass_k), ("cons@k", cons_k)):
            out["curves"] += _curve_rows(temperature, metric, per_k, rng, num_bootstrap, intervals)
        out["per_problem"][f"correct_{temperature}"] = correct
        out["diversity"].append(
            {
                "temperature": temperature,
                "distinct_answers": round(float(np.mean(distinct)), 3),
                "unreadable": round(float(np.mean(unreadable)), 4),
                "right_present": round(float(np.mean(np.array(correct) > 0)), 4),
                "right_is_mode": round(float(np.mean(mode_right)), 4),
                "top_wrong_share": round(float(np.mean(top_wrong)), 4) if top_wrong else 0.0,
            }
        )
        if temperature == VOTE_TEMPERATURE:
            vote_chains = chains
    greedy_share = round(float(greedy_right.mean()), 4)
    out["diversity"].insert(
        0,
        {
            "temperature": 0.0,
            "distinct_answers": 1.0,
            "unreadable": round(float(np.mean([extract_answer(c[0]) is None for c in greedy])), 4),
            "right_present": greedy_share,
            "right_is_mode": greedy_share,
            "top_wrong_share": 1.0,
        },
    )
    start = time.perf_counter()
    vote_correct = out["per_problem"][f"correct_{VOTE_TEMPERATURE}"]
    rows = _vote_curve(problem_list, vote_chains, vote_correct, rng, num_bootstrap)
    out["vote_curve"] = {"temperature": VOTE_TEMPERATURE, "simulated_D": SIMULATED_D, "rows": rows}
    out["timing"]["vote_curve_seconds"] = round(time.perf_counter() - start, 2)
    out["examples"] = _pick_examples(problem_list, vote_chains, examples)
    out["example_temperature"] = VOTE_TEMPERATURE
    return out


MODEL_LABELS = {"single": "single-path (one route)", "multi": "multi-path (three routes)"}


def _field(mapping: Mapping, key: str, where: str) -> object:
    if key not in mapping:
        raise ValueError(f"{where} has no {key!r} (is it evaluate()'s record?)")
    return mapping[key]


def _key_number(where: str, key: object, kind: type) -> None:
    """A record's key that must read as a number (a temperature "0.7", a k "128")."""
    try:
        value = kind(key) if isinstance(key, str) else None
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        raise ValueError(f"{where} must be keyed by {kind.__name__} text such as '1', got {key!r}")


def _require_record(record: object) -> Mapping:
    """``record`` as ``evaluate`` returns it (``data/multipath_eval.json``): the fields that
    ``vote_curve_rows`` and ``comparison_rows`` read, each of the right kind."""
    record = _require_mapping("record", record)
    ks = require_sequence("record['ks']", _field(record, "ks", "record"), min_len=1)
    for i, k in enumerate(ks):
        require_int(f"record['ks'][{i}]", k, low=1)
    models = _require_mapping("record['models']", _field(record, "models", "record"))
    for name, rec in models.items():
        require_str("record['models'] keys", name)
        where = f"record['models'][{name!r}]"
        rec = _require_mapping(where, rec)
        greedy = _require_mapping(f"{where}['greedy']", _field(rec, "greedy", where))
        require_float(f"{where}['greedy']['value']", _field(greedy, "value", f"{where}['greedy']"))
        sampled = _require_mapping(f"{where}['sampled']", _field(rec, "sampled", where))
        for t, s in sampled.items():
            _key_number(f"{where}['sampled']", t, float)
            at = f"{where}['sampled'][{t!r}]"
            s = _require_mapping(at, s)
            for stat in ("cons@k", "pass@k"):
                table = _require_mapping(f"{at}[{stat!r}]", _field(s, stat, at))
                _field(table, str(ks[-1]), f"{at}[{stat!r}]")  # the largest k, compared
                for k, interval in table.items():
                    _key_number(f"{at}[{stat!r}]", k, int)
                    cell = _require_mapping(f"{at}[{stat!r}][{k!r}]", interval)
                    for part in ("value", "lo", "hi"):
                        label = f"{at}[{stat!r}][{k!r}][{part!r}]"
                        require_float(label, _field(cell, part, f"{at}[{stat!r}][{k!r}]"))
            for stat in ("per_sample", "modal_wrong"):
                cell = _require_mapping(f"{at}[{stat!r}]", _field(s, stat, at))
                require_float(f"{at}[{stat!r}]['value']", _field(cell, "value", f"{at}[{stat!r}]"))
            # None where a statistic is undefined (JSON has no NaN).
            for stat in ("top_wrong_share", "wrong_agreement", "error_correlation"):
                require_optional_float(f"{at}[{stat!r}]", _field(s, stat, at))
            by_route = s.get("route_error_correlation")
            if by_route is not None:
                by_route = _require_mapping(f"{at}['route_error_correlation']", by_route)
                for kind in ("same_route", "cross_route"):
                    require_optional_float(
                        f"{at}['route_error_correlation'][{kind!r}]",
                        _field(by_route, kind, f"{at}['route_error_correlation']"),
                    )
    return record


def vote_curve_rows(record: Mapping) -> tuple[list[dict], list[dict]]:
    """``data/multipath_eval.json`` reshaped for the vote-curve widget (``vote_routes.js``).

    Returns ``(rows, models)``: one row per (model, temperature, k) with cons@k and its
    interval, and one entry per model with its label, greedy accuracy and, per temperature,
    the error correlation of two chains (and for a route-announcing model, of two chains on
    the same route and on different routes).
    """
    record = _require_record(record)
    rows, models = [], []
    for name, rec in record["models"].items():
        entry = {
            "model": name,
            "label": MODEL_LABELS.get(name, name),
            "greedy": rec["greedy"]["value"],
            "correlation": {},
            "same_route": None,
            "cross_route": None,
        }
        for t, summary in rec["sampled"].items():
            entry["correlation"][t] = summary["error_correlation"]
            by_route = summary.get("route_error_correlation")
            if by_route is not None:
                entry["same_route"] = {**(entry["same_route"] or {}), t: by_route["same_route"]}
                entry["cross_route"] = {**(entry["cross_route"] or {}), t: by_route["cross_route"]}
            for k, v in summary["cons@k"].items():
                rows.append({"model": name, "temperature": float(t), "k": int(k), **v})
        models.append(entry)
    return rows, models


def comparison_rows(record: Mapping, temperatures: Sequence[float] | None = None) -> list[dict]:
    """One row per (model, temperature) of ``data/multipath_eval.json``: the side-by-side table.

    Columns: greedy accuracy, per-sample accuracy, cons@K and pass@K at the largest K, the
    share of problems whose modal answer is wrong, the top wrong answer's share of the wrong
    votes, the chance that two wrong chains agree, and the error correlation of two chains.
    ``temperatures`` (all when None) chooses which of the record's temperatures to show.
    """
    record = _require_record(record)
    if temperatures is not None:
        temperatures = require_sequence("temperatures", temperatures)
        for i, temperature in enumerate(temperatures):
            require_float(f"temperatures[{i}]", temperature)
    big = str(record["ks"][-1])
    rows = []
    for name, rec in record["models"].items():
        for t, s in rec["sampled"].items():
            if temperatures is not None and float(t) not in temperatures:
                continue
            rows.append(
                {
                    "model": MODEL_LABELS.get(name, name),
                    "temperature": float(t),
                    "greedy": rec["greedy"]["value"],
                    "per-sample": s["per_sample"]["value"],
                    f"cons@{big}": s["cons@k"][big]["value"],
                    f"pass@{big}": s["pass@k"][big]["value"],
                    "modal answer wrong": s["modal_wrong"]["value"],
                    "top wrong share": s["top_wrong_share"],
                    "two wrong agree": s["wrong_agreement"],
                    "error correlation": s["error_correlation"],
                }
            )
    return rows


# --------------------------------------------------------------------------- the shipped files


def load_tiny_reasoner() -> tuple[TinyGPT, dict]:
    """Chapter 2's single-path reasoner as shipped (``data/tiny_reasoner.json`` and its ``.bin``):
    the model and its header (config, training record, metrics). ``tiny_gpt.load_checkpoint``
    checks the weights against the header's SHA-256."""
    return load_checkpoint(TINY_REASONER_PATH)


def load_multipath_reasoner() -> tuple[TinyGPT, dict]:
    """The three-route reasoner as shipped (``data/tiny_reasoner_multipath.json`` and its
    ``.bin``): the model and its header, the weights checked as :func:`load_tiny_reasoner`'s."""
    return load_checkpoint(MULTIPATH_PATH)


def load_multipath_eval(path: Path = MULTIPATH_EVAL_PATH) -> dict:
    """``data/multipath_eval.json``: both reasoners measured on the same held-out problems
    (``evaluate``'s record), each field the chapters read checked, a bad one named by file and
    place."""
    path = require_path("path", path)
    record = read_json(path)
    try:
        _require_record(record)
        require_sequence("record['problems']", _field(record, "problems", "record"), min_len=1)
        require_int("record['samples']", _field(record, "samples", "record"), low=1)
    except (TypeError, ValueError) as err:
        raise ValueError(f"path {path}: {err}") from None
    return record


def load_tiny_reasoner_eval(path: Path = TINY_REASONER_EVAL_PATH) -> dict:
    """``data/tiny_reasoner_eval.json``: the single-path reasoner's real samples graded (pass@k
    and cons@k curves, the vote curve, diversity, per-problem counts, examples), each field the
    chapters read checked, a bad one named by file and place."""
    path = require_path("path", path)
    record = read_json(path)
    where = f"path {path}"
    if not isinstance(record, dict):
        raise ValueError(f"{where} holds {type(record).__name__}, not a JSON object")
    keys = ("problems", "samples", "ks", "curves", "diversity", "vote_curve", "per_problem",
            "examples")
    missing = [k for k in keys if k not in record]
    if missing:
        raise ValueError(f"{where} has no {missing}: not a tiny-reasoner evaluation")
    problems = require_int(f"{where}: problems", record["problems"], low=1)
    require_int(f"{where}: samples", record["samples"], low=1)
    for i, k in enumerate(require_sequence(f"{where}: ks", record["ks"], min_len=1)):
        require_int(f"{where}: ks[{i}]", k, low=1)
    require_rows(f"{where}: curves", record["curves"], ("temperature", "k", "value", "lo", "hi"))
    require_rows(f"{where}: diversity", record["diversity"],
                 ("temperature", "distinct_answers", "unreadable", "right_present",
                  "right_is_mode"), optional=("top_wrong_share",))
    vote = record["vote_curve"]
    if not isinstance(vote, dict) or "rows" not in vote or "simulated_D" not in vote:
        raise ValueError(f"{where}: vote_curve must be an object with 'rows' and 'simulated_D'")
    require_int(f"{where}: vote_curve.simulated_D", vote["simulated_D"], low=1)
    require_rows(f"{where}: vote_curve.rows", vote["rows"],
                 ("n", "value", "lo", "hi", "simulated_per_problem"))
    per_problem = record["per_problem"]
    if not isinstance(per_problem, dict) or "problem" not in per_problem:
        raise ValueError(f"{where}: per_problem must be an object with a 'problem' column")
    for column, values in per_problem.items():
        if len(require_sequence(f"{where}: per_problem.{column}", values)) != problems:
            raise ValueError(f"{where}: per_problem.{column} must hold {problems} values")
    for i, example in enumerate(require_sequence(f"{where}: examples", record["examples"],
                                                 min_len=1)):
        if not isinstance(example, dict) or not {"problem", "answer", "chains"} <= set(example):
            raise ValueError(f"{where}: examples[{i}] must hold 'problem', 'answer', 'chains'")
    return record
