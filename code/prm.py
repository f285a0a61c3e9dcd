"""Process vs. outcome reward models, from scratch, on an exact arithmetic playground.

A *solution* is a linear chain of steps ``"a op b = c"``. Each step has an exact validity oracle:

- its arithmetic checks out (``Fraction``, parsed by hand -- never ``eval``), and
- it is *connected*: its first operand equals the previous step's result (the first step is free).

The perfect process reward model (PRM) is that oracle, one reward per step; the outcome reward
model (ORM) reads only the last line and asks whether it equals the target (Lightman et al.,
2023, *Let's Verify Step by Step*). To rank whole solutions the per-step scores p_1..p_T are
collapsed by

    s_product = prod_i p_i,   s_min = min_i p_i,   s_mean = (1/T) sum_i p_i,   s_last = p_T.

Math-Shepherd (Wang et al., 2023) labels steps without humans by Monte-Carlo rollouts:

    y_HE = 1[ exists j: a_j = a* ],      y_SE = (1/N) sum_j 1[ a_j = a* ].

On Game of 24 the hard estimate over exhaustive rollouts *is* ``game24``'s exact oracle
``state_is_solvable``: a value on a partial solution.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from numbers import Real

from checks import require_int, require_seed
from game24 import (
    Key,
    ParsedStep,
    apply_op,
    apply_step,
    exact_step,
    key_thoughts,
    parse_step,
    propose_steps,
    puzzle_state,
    state_is_solvable,
    state_key,
    to_state,
)
from reasoning import majority_vote, weighted_vote
from tree_of_thoughts import stable_unit

__all__ = [
    "AGGREGATIONS",
    "ParsedStep",
    "parse_step",
    "step_is_valid",
    "step_rewards",
    "prm_score",
    "orm_score",
    "first_error_index",
    "soft_step_rewards",
    "aggregation_examples",
    "generate_candidate_pool",
    "is_fully_valid",
    "rerank_curves",
    "demonstrate_prm",
    "prm_weighted_vote",
    "hard_estimate",
    "soft_estimate",
    "rollout_outcomes",
    "math_shepherd_labels",
]

MAX_POOL = 1_000_000  # candidates generated in one call
MAX_TRIALS = 1_000_000  # best-of-N draws per curve point
AGGREGATIONS = ("min", "product", "mean", "last")
KINDS = ("valid", "flawed", "wrong")
KIND_WEIGHTS = (0.25, 0.35, 0.40)
"""Archetype probabilities of :func:`generate_candidate_pool` (valid, flawed, wrong)."""


# --------------------------------------------------------------------------------------------
# The step oracle: a perfect PRM
# --------------------------------------------------------------------------------------------


def _check_chain(chain: object, name: str = "chain") -> list[str]:
    """A chain is a non-empty list/tuple of step strings (``name`` is the caller's argument)."""
    if isinstance(chain, (str, bytes)) or not isinstance(chain, Sequence):
        raise TypeError(f"{name} must be a list of step strings, got {type(chain).__name__}")
    if len(chain) == 0:
        raise ValueError(f"{name} must contain at least one step")
    for step in chain:
        if not isinstance(step, str):
            raise TypeError(f"chain must contain only str steps, got {type(step).__name__}")
    return list(chain)


def _check_number(value: object, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise TypeError(f"{name} must be an int or a Fraction, got {value!r}")
    return Fraction(value)


def step_is_valid(step: str, prev_result: int | Fraction | None = None) -> bool:
    """The exact step oracle: ``step`` parses, its arithmetic is exact, and it is connected.

    Connected means its first operand equals ``prev_result`` (the previous step's stated result);
    with ``prev_result=None`` (the first step) any first operand is allowed. A malformed step is
    simply invalid (``False``); a non-str ``step`` raises ``TypeError``.
    """
    if not isinstance(step, str):
        raise TypeError(f"step must be a str, got {type(step).__name__}")
    prev = None if prev_result is None else _check_number(prev_result, "prev_result")
    parsed = exact_step(step)
    if parsed is None:
        return False
    return prev is None or parsed.left == prev


def _stated_result(step: str) -> Fraction | None:
    """The ``c`` a step claims, or None if the step does not parse."""
    try:
        return parse_step(step).result
    except ValueError:
        return None


def step_rewards(chain: Sequence[str]) -> list[int]:
    """The perfect PRM: one 0/1 reward per step of ``chain`` (see :func:`step_is_valid`).

    Each step is checked against the previous step's *stated* result, so a step that builds on a
    wrong number is itself fine -- only the step that made the error scores 0. A step after an
    unreadable one cannot be shown connected and scores 0 too.
    """
    steps = _check_chain(chain)
    rewards = []
    prev: Fraction | None = None
    for i, step in enumerate(steps):
        if i > 0 and prev is None:
            rewards.append(0)
        else:
            rewards.append(int(step_is_valid(step, prev)))
        prev = _stated_result(step)
    return rewards


def _as_scores(chain_or_scores: object) -> list[float]:
    """Step scores from a chain (via :func:`step_rewards`) or from a list of numbers in [0, 1]."""
    if isinstance(chain_or_scores, (str, bytes)) or not isinstance(chain_or_scores, Sequence):
        raise TypeError(
            "chain_or_scores must be a list of steps or of scores, "
            f"got {type(chain_or_scores).__name__}"
        )
    if len(chain_or_scores) == 0:
        raise ValueError("chain_or_scores must not be empty")
    if all(isinstance(x, str) for x in chain_or_scores):
        return [float(r) for r in step_rewards(chain_or_scores)]
    scores = []
    for x in chain_or_scores:
        if isinstance(x, bool) or not isinstance(x, Real):
            raise TypeError(f"chain_or_scores must hold only steps or only numbers, got {x!r}")
        if not 0 <= x <= 1:  # compared before float(): float(10**400) raises OverflowError
            shown = x if not isinstance(x, int) or abs(x) < 10**30 else "a huge int"
            raise ValueError(f"chain_or_scores scores must be in [0, 1], got {shown}")
        scores.append(float(x))
    return scores


def prm_score(chain_or_scores: Sequence[str] | Sequence[float], agg: str = "min") -> float:
    """Collapse per-step scores into one solution score.

    ``chain_or_scores`` is a chain (scored by the perfect PRM, :func:`step_rewards`) or a list of
    per-step probabilities. ``agg``: ``"min"`` (weakest link), ``"product"`` (P(all steps
    correct), the paper's choice), ``"mean"`` or ``"last"`` (the two that forgive a bad step).
    """
    if agg not in AGGREGATIONS:
        raise ValueError(f"agg must be one of {AGGREGATIONS}, got {agg!r}")
    scores = _as_scores(chain_or_scores)
    if agg == "min":
        return float(min(scores))
    if agg == "product":
        return float(math.prod(scores))
    if agg == "mean":
        return float(sum(scores) / len(scores))
    return float(scores[-1])


def orm_score(chain: Sequence[str], target: int | Fraction) -> float:
    """The outcome reward model: 1.0 iff the last line's stated result equals ``target``.

    Reads the final line only -- it never looks at how the chain got there (an unreadable last
    line scores 0.0).
    """
    steps = _check_chain(chain)
    goal = _check_number(target, "target")
    return 1.0 if _stated_result(steps[-1]) == goal else 0.0


def first_error_index(chain: Sequence[str]) -> int | None:
    """Index of the first step the perfect PRM rejects, or None if every step is valid."""
    for i, reward in enumerate(step_rewards(chain)):
        if reward == 0:
            return i
    return None


# --------------------------------------------------------------------------------------------
# A soft PRM, so that the aggregations differ
# --------------------------------------------------------------------------------------------


def _is_shaky(step: str) -> bool:
    """A valid step a real PRM is less sure of: a division, or a fractional number involved."""
    parsed = parse_step(step)
    numbers = (parsed.left, parsed.right, parsed.result)
    return parsed.op == "/" or any(x.denominator != 1 for x in numbers)


def soft_step_rewards(chain: Sequence[str], seed: int = 0) -> list[float]:
    """A deterministic stand-in for a learned PRM's per-step probabilities.

    Built on the oracle, with a spread from ``u`` = SHA-256 of (``seed``, position, step) in
    [0, 1): a valid step scores ``0.85 + 0.14 u`` (in [0.85, 0.99)), a valid but *shaky* step --
    a division or a fraction in play -- ``0.55 + 0.2 u``, an invalid step ``0.05 + 0.25 u``.
    Rounded to 3 decimals. Same chain and seed, same scores, on every run.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {seed!r}")
    steps = _check_chain(chain)
    scores = []
    for i, (step, reward) in enumerate(zip(steps, step_rewards(steps), strict=True)):
        u = stable_unit(f"soft-prm|{seed}|{i}|{step}")
        if reward == 0:
            p = 0.05 + 0.25 * u
        elif _is_shaky(step):
            p = 0.55 + 0.20 * u
        else:
            p = 0.85 + 0.14 * u
        scores.append(round(p, 3))
    return scores


_EXAMPLE_CHAINS = {
    "All steps valid": ["3 * 4 = 12", "12 + 8 = 20", "20 + 4 = 24"],
    "One bad step (compensated)": ["2 * 3 = 6", "6 + 6 = 13", "13 - 1 = 12", "12 * 2 = 24"],
    "Two shaky middle steps": ["5 + 1 = 6", "6 / 4 = 3/2", "3/2 * 8 = 12", "12 * 2 = 24"],
    "Long valid chain": [
        "2 + 3 = 5",
        "5 * 4 = 20",
        "20 - 8 = 12",
        "12 + 6 = 18",
        "18 - 9 = 9",
        "9 + 15 = 24",
    ],
    "Bad last step": ["3 * 4 = 12", "12 + 8 = 20", "20 + 5 = 24"],
}


def aggregation_examples(seed: int = 0) -> list[dict]:
    """A few named chains with their soft step scores and all four aggregations (for a widget).

    Each record: ``{"name", "steps", "rewards", "scores", "min", "product", "mean", "last",
    "orm"}`` -- ``rewards`` from the exact oracle, ``scores`` from :func:`soft_step_rewards`,
    ``orm`` the outcome score against 24. All values are plain floats / ints / strings.
    """
    records = []
    for name, steps in _EXAMPLE_CHAINS.items():
        scores = soft_step_rewards(steps, seed)
        record: dict = {
            "name": name,
            "steps": list(steps),
            "rewards": step_rewards(steps),
            "scores": scores,
        }
        for agg in AGGREGATIONS:
            record[agg] = round(prm_score(scores, agg), 4)
        record["orm"] = orm_score(steps, 24)
        records.append(record)
    return records


# --------------------------------------------------------------------------------------------
# Reranking best-of-N: PRM vs. ORM vs. majority vote
# --------------------------------------------------------------------------------------------


def _step_text(left: Fraction, op: str, right: Fraction, result: Fraction) -> str:
    return f"{left} {op} {right} = {result}"


def _random_move(rng: random.Random, value: Fraction) -> tuple[str, Fraction]:
    """A random middle step ``value op b`` with b in 1..13, keeping results whole and modest."""
    while True:
        op = rng.choice("+-*/")
        b = Fraction(rng.randint(1, 13))
        result = apply_op(value, op, b)
        if result is not None and result.denominator == 1 and 1 <= result <= 60:
            return op, b


def _closing_move(rng: random.Random, value: Fraction, target: Fraction) -> tuple[str, Fraction]:
    """A valid last step taking ``value`` exactly to ``target``."""
    options = []
    if target > value:
        options.append(("+", target - value))
    if value > target:
        options.append(("-", value - target))
    if value != 0 and (target / value).denominator == 1 and 2 <= target / value <= 13:
        options.append(("*", target / value))
    if target != 0 and (value / target).denominator == 1 and 2 <= value / target <= 13:
        options.append(("/", value / target))
    if not options:  # value == target
        options.append(("*", Fraction(1)))
    return rng.choice(options)


def _slip(rng: random.Random) -> Fraction:
    """A small arithmetic slip: a nonzero offset in -3..3."""
    return Fraction(rng.choice([-3, -2, -1, 1, 2, 3]))


def _make_candidate(rng: random.Random, kind: str, target: Fraction) -> dict:
    """One candidate of archetype ``kind``: a linear chain of 3 to 5 steps.

    A valid plan is drawn first (random middle moves, then a move closing exactly on ``target``)
    and replayed from the start number:

    - valid: replayed as is -- every step exact and connected, the answer is ``target``;
    - flawed: one middle step states a wrong result (a slip of +-1..3), the chain carries on
      from the wrong number and its last step is re-chosen to close on ``target`` anyway -- a
      compensating error, right answer;
    - wrong: one step (any, the last included) slips and the remaining moves are replayed
      unchanged; each move ``v -> v op b`` (b != 0) is one-to-one, so the answer cannot be
      ``target``.
    """
    length = rng.randint(3, 5)
    start = Fraction(rng.randint(1, 13))
    slip_at = rng.randrange(length - 1) if kind == "flawed" else rng.randrange(length)
    plan = []
    value = start
    for _ in range(length - 1):
        op, b = _random_move(rng, value)
        plan.append((op, b))
        value = apply_op(value, op, b)
    plan.append(_closing_move(rng, value, target))
    steps = []
    value = start
    for i, (op, b) in enumerate(plan):
        if kind == "flawed" and i == length - 1:
            op, b = _closing_move(rng, value, target)
        result = apply_op(value, op, b)
        if kind != "valid" and i == slip_at:
            result += _slip(rng)
        steps.append(_step_text(value, op, b, result))
        value = result
    return {"steps": steps, "answer": str(value), "kind": kind}


def generate_candidate_pool(n: int, target: int | Fraction = 24, seed: int = 0) -> list[dict]:
    """``n`` candidate solutions for "reach ``target``", mixing three archetypes.

    Each candidate is ``{"steps": [...], "answer": str, "kind": "valid" | "flawed" | "wrong"}``
    (``answer`` is the final stated result as a string, e.g. ``"24"`` or ``"47/2"``). The kind is
    drawn with probabilities :data:`KIND_WEIGHTS` = (0.25, 0.35, 0.40) from
    ``random.Random(seed)`` -- the only source of randomness.
    """
    n = require_int("n", n, low=1, high=MAX_POOL)
    goal = _check_number(target, "target")
    rng = random.Random(require_seed("seed", seed))
    pool = []
    for _ in range(n):
        kind = rng.choices(KINDS, weights=KIND_WEIGHTS)[0]
        pool.append(_make_candidate(rng, kind, goal))
    return pool


def is_fully_valid(candidate: dict, target: int | Fraction = 24) -> bool:
    """Right answer *and* sound reasoning: every step valid (PRM) and the answer is ``target``."""
    if not isinstance(candidate, dict) or "steps" not in candidate:
        raise TypeError(
            "candidate must be a dict with a 'steps' list (a generate_candidate_pool entry)"
        )
    steps = _check_chain(candidate["steps"], "candidate['steps']")
    return prm_score(steps, "min") == 1.0 and orm_score(steps, target) == 1.0


def _check_pool(pool: object) -> list[dict]:
    if isinstance(pool, (str, bytes)) or not isinstance(pool, Sequence):
        raise TypeError(f"pool must be a list of candidate dicts, got {type(pool).__name__}")
    if len(pool) == 0:
        raise ValueError("pool must not be empty")
    for c in pool:
        if not isinstance(c, dict) or "steps" not in c or "answer" not in c:
            raise TypeError("pool must hold dicts with 'steps' and 'answer' keys")
    return list(pool)


def rerank_curves(
    pool: Sequence[dict],
    ns: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    trials: int = 300,
    seed: int = 0,
    target: int | Fraction = 24,
) -> dict:
    """Best-of-N reranking: how often does each strategy select a fully valid solution?

    For every N in ``ns`` and each of ``trials`` trials, draw N distinct candidates from ``pool``
    with ``random.Random(seed)`` and let each strategy pick one:

    - ``prm``: highest ``prm_score(steps, "min")`` (the perfect PRM);
    - ``orm``: highest ``orm_score(steps, target)`` -- every right-answer candidate ties at 1.0;
    - ``majority``: the answer chosen by ``reasoning.majority_vote``, then one of its voters.

    Ties (and the voter) are broken uniformly at random with the same generator -- which is why
    ORM and majority plateau: they cannot tell a valid chain from a lucky flawed one. Returns
    ``{"n": [...], "prm": [...], "orm": [...], "majority": [...]}`` (fractions of trials).
    """
    candidates = _check_pool(pool)
    trials = require_int("trials", trials, low=1, high=MAX_TRIALS)
    seed = require_seed("seed", seed)
    if isinstance(ns, (str, bytes)) or not isinstance(ns, Sequence):
        raise TypeError(f"ns must be a sequence of ints, got {type(ns).__name__}")
    for n in ns:
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"ns must hold ints, got {n!r}")
        if not 1 <= n <= len(candidates):
            raise ValueError(f"ns must be in 1..{len(candidates)} (the pool size), got {n}")
    prm = [prm_score(c["steps"], "min") for c in candidates]
    orm = [orm_score(c["steps"], target) for c in candidates]
    answers = [c["answer"] for c in candidates]
    good = [is_fully_valid(c, target) for c in candidates]
    rng = random.Random(seed)

    def best(indices: list[int], scores: list[float]) -> int:
        top = max(scores[i] for i in indices)
        return rng.choice([i for i in indices if scores[i] == top])

    curves: dict[str, list] = {"n": [], "prm": [], "orm": [], "majority": []}
    for n in ns:
        hits = {"prm": 0, "orm": 0, "majority": 0}
        for _ in range(trials):
            drawn = rng.sample(range(len(candidates)), n)
            hits["prm"] += good[best(drawn, prm)]
            hits["orm"] += good[best(drawn, orm)]
            winner = majority_vote([answers[i] for i in drawn])
            hits["majority"] += good[rng.choice([i for i in drawn if answers[i] == winner])]
        curves["n"].append(int(n))
        for key, count in hits.items():
            curves[key].append(count / trials)
    return curves


def demonstrate_prm(
    seed: int = 0,
    pool_size: int = 400,
    trials: int = 300,
    ns: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    target: int | Fraction = 24,
    verbose: bool = False,
) -> dict:
    """The reranking experiment in miniature, as JSON-able data.

    A pool of ``pool_size`` candidates (:func:`generate_candidate_pool`) and the best-of-N
    curves (:func:`rerank_curves`), both from ``seed``. Returns ``{"pool_mix": {"valid",
    "flawed", "wrong"}, "curves": {"n", "prm", "orm", "majority"}, "pool_size", "trials"}``.
    """
    pool_size = require_int("pool_size", pool_size, low=1, high=MAX_POOL)
    trials = require_int("trials", trials, low=1, high=MAX_TRIALS)
    seed = require_seed("seed", seed)
    pool = generate_candidate_pool(pool_size, target, seed)
    mix = {kind: sum(c["kind"] == kind for c in pool) for kind in KINDS}
    curves = rerank_curves(pool, ns, trials, seed, target)
    if verbose:
        print("pool mix:", mix)
        print(f"\n{'N':>3}  {'PRM':>6}  {'ORM':>6}  {'majority':>8}")
        for i, n in enumerate(curves["n"]):
            print(
                f"{n:>3}  {curves['prm'][i]:>6.3f}  {curves['orm'][i]:>6.3f}  "
                f"{curves['majority'][i]:>8.3f}"
            )
    return {"pool_mix": mix, "curves": curves, "pool_size": pool_size, "trials": trials}


def prm_weighted_vote(pool: Sequence[dict], agg: str = "min") -> str | None:
    """A verifier-weighted vote: each candidate votes for its ``answer`` with weight
    ``prm_score(steps, agg)``; the answer with the most weight wins.

    This is the book's ``reasoning.weighted_vote`` with the PRM as the verifier, so ties
    (all-zero weights included) go to the answer that appeared first. With ``agg="min"`` and the
    perfect PRM a flawed chain carries no weight at all.
    """
    candidates = _check_pool(pool)
    answers = [c["answer"] for c in candidates]
    return weighted_vote(answers, [prm_score(c["steps"], agg) for c in candidates])


# --------------------------------------------------------------------------------------------
# Math-Shepherd: labelling steps by rollouts
# --------------------------------------------------------------------------------------------


def _check_rollouts(rollouts: object) -> list[bool]:
    if isinstance(rollouts, (str, bytes)) or not isinstance(rollouts, Sequence):
        raise TypeError(f"rollouts must be a list of bools, got {type(rollouts).__name__}")
    if len(rollouts) == 0:
        raise ValueError("rollouts must not be empty")
    for r in rollouts:
        if not isinstance(r, bool):
            raise TypeError(f"rollouts must contain only bools, got {r!r}")
    return list(rollouts)


def hard_estimate(rollouts: Sequence[bool]) -> int:
    """Math-Shepherd hard estimate: 1 if any rollout reached the right answer, else 0."""
    return int(any(_check_rollouts(rollouts)))


def soft_estimate(rollouts: Sequence[bool]) -> float:
    """Math-Shepherd soft estimate: the fraction of rollouts that reached the right answer."""
    outcomes = _check_rollouts(rollouts)
    return sum(outcomes) / len(outcomes)


_TWENTY_FOUR = ((24, 1),)  # the state key of the single number 24


@lru_cache(maxsize=65_536)
def _all_leaves(key: Key) -> tuple[bool, ...]:
    """Outcome of every complete move sequence from the state ``key`` (memoised).

    It walks ``key_thoughts``, the fast form of ``propose_steps`` (the same moves in the same
    order, as exact integer keys): building every ``Step`` and its Fractions took 0.3 s of
    chapter 11's render for the same leaves.
    """
    if len(key) == 1:
        return (key == _TWENTY_FOUR,)
    return tuple(leaf for _, child in key_thoughts(key) for leaf in _all_leaves(child))


def rollout_outcomes(
    state: Sequence[int | Fraction], n: int | None = None, seed: int = 0
) -> list[bool]:
    """Complete a Game-of-24 ``state`` and report, per completion, whether it reached 24.

    ``n=None``: exhaustive -- every sequence of remaining moves (3888 from four numbers).
    ``n`` an int: ``n`` random completions, each move drawn uniformly by ``random.Random(seed)``.
    """
    canon = to_state(state, "state")
    if n is None:
        return list(_all_leaves(state_key(canon)))
    n = require_int("n", n, low=1, high=MAX_TRIALS)
    rng = random.Random(require_seed("seed", seed))
    outcomes = []
    for _ in range(n):
        current = canon
        while len(current) > 1:
            current = rng.choice(propose_steps(current)).state
        outcomes.append(current[0] == 24)
    return outcomes


def math_shepherd_labels(
    steps: Sequence[str] | str,
    numbers: Sequence[int],
    n_rollouts: int | None = None,
    seed: int = 0,
) -> list[dict]:
    """Label each prefix ``steps[:i+1]`` of a Game-of-24 derivation by rollouts (no humans).

    ``steps`` is a list of ``"a op b = c"`` steps (or one ``"; "``-joined string) starting from
    the puzzle ``numbers``. For each prefix: apply it, roll out the remaining numbers
    (:func:`rollout_outcomes`, exhaustive if ``n_rollouts`` is None) and record
    ``{"step", "state", "he", "se", "solvable"}``. With exhaustive rollouts ``he`` equals
    ``solvable`` -- ``game24.state_is_solvable``: HE *is* the search oracle. A step that
    is not legal from the current state (bad arithmetic, operand not available) gets
    ``he = 0, se = 0.0, state = None``, and so does every step after it.
    """
    if isinstance(steps, str):
        steps = steps.split(";")
    step_list = _check_chain(steps, "steps")
    state: tuple[Fraction, ...] | None = puzzle_state(numbers)
    labels = []
    for i, step in enumerate(step_list):
        if state is not None:
            try:
                state = apply_step(state, step)
            except ValueError:
                state = None
        if state is None:
            labels.append(
                {"step": step.strip(), "state": None, "he": 0, "se": 0.0, "solvable": False}
            )
            continue
        outcomes = rollout_outcomes(state, n_rollouts, seed + i)
        labels.append(
            {
                "step": step.strip(),
                "state": [str(x) for x in state],
                "he": hard_estimate(outcomes),
                "se": soft_estimate(outcomes),
                "solvable": state_is_solvable(state),
            }
        )
    return labels
