"""Tree of Thoughts on the Game of 24, from scratch: judges, beam search, depth-first search.

The puzzle itself -- states, thoughts, the exact oracle, the derivation checker -- is
``game24.py``; this module searches it.

The search (Yao et al., 2023) is: propose every next thought, score each resulting state with an
*evaluator* V(state) in [0, 1], keep the best few (BFS with a beam of width b) or go deep and
backtrack when V falls below a threshold (DFS). Chain-of-thought is the b = 1 special case.

:func:`oracle_evaluator` is a perfect evaluator -- the exact oracle
``game24.state_is_solvable`` as a score. :func:`noisy_evaluator` models a real (LLM) judge by
giving up, deterministically, on a fraction of winnable states: its false negatives are what a
wider beam buys robustness against.

The searches work on ``game24``'s fast state keys and memoised thoughts, and the judges'
scores are memoised per state too: the searches meet the same states again and again.
:func:`clear_caches` forgets all of it (answers never change, only speed).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from numbers import Real
from pathlib import Path

import game24
from checks import (
    require_bool,
    require_float,
    require_instance,
    require_int,
    require_path,
    require_prob,
    require_seed,
    require_sequence,
    require_sequence_of_sequences,
)
from data_paths import BEAM_SWEEP_PATH, read_json
from game24 import (
    TARGET_KEY,
    Key,
    Solution,
    State,
    Step,
    check_derivation,
    demo_puzzles,
    key_is_solvable,
    key_state,
    key_thoughts,
    puzzle_state,
    state_key,
)

__all__ = [
    "oracle_evaluator",
    "noisy_evaluator",
    "stable_unit",
    "bfs_search",
    "bfs_trace",
    "dfs_search",
    "chain_of_thought",
    "load_beam_sweep",
    "solve_rate_sweep",
    "SWEEP_BEAM_WIDTHS",
    "SWEEP_ERROR_RATES",
    "SWEEP_SALT",
    "build_beam_sweep",
    "render_beam_sweep",
    "TREE_PUZZLES",
    "search_trees",
    "demonstrate_tree_of_thoughts",
    "clear_caches",
]

Evaluator = Callable[[State], float]

_MEMOS: list = []  # every memo table in this module, for clear_caches()


def _memo(fn: Callable) -> Callable:
    """``functools.cache``, registered so that :func:`clear_caches` can empty it."""
    memo = cache(fn)
    _MEMOS.append(memo)
    return memo


# --------------------------------------------------------------------------------------------
# The evaluators
# --------------------------------------------------------------------------------------------


class _Verdicts(dict):
    """A judge's memo, ``state key -> score``, filled on first lookup.

    The search holds the table and scores a state it built itself with one dict lookup, with no
    re-validation; callers from outside go through the judge, which validates first.
    """

    def __init__(self, judge: Callable[[Key], float]) -> None:
        super().__init__()
        self.judge = judge
        _MEMOS.append(self)

    def __missing__(self, key: Key) -> float:
        self[key] = score = self.judge(key)
        return score

    def cache_clear(self) -> None:
        self.clear()


_ORACLE_VERDICTS = _Verdicts(lambda key: 1.0 if key_is_solvable(key) else 0.0)
_NOISY_VERDICTS: dict[tuple[float, int], _Verdicts] = {}  # (error_rate, salt) -> its table


def oracle_evaluator(state: Sequence[int | Fraction]) -> float:
    """The perfect state evaluator: 1.0 if 24 is still reachable from ``state``, else 0.0.

    An exhaustive look-ahead (every way the remaining numbers combine), memoised per state.
    """
    return _ORACLE_VERDICTS[state_key(state)]


def _own_judge(evaluate: Callable, verdicts: _Verdicts) -> None:
    """Mark ``evaluate`` as a judge of this module whose scores are ``verdicts``: the search
    then looks states up there instead of calling it (see :func:`_judge`)."""
    evaluate._own_verdicts = (evaluate, verdicts)


_own_judge(oracle_evaluator, _ORACLE_VERDICTS)


def stable_unit(key: str) -> float:
    """A stable pseudo-uniform number in [0, 1) from the text ``key``.

    SHA-256 of the key, first 8 bytes as an integer / 2**64. Unlike Python's per-process
    randomised ``hash``, it is identical on every run and machine.
    """
    if not isinstance(key, str):
        raise TypeError(f"key must be a str, got {type(key).__name__}")
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


@_memo  # one hash per (state, salt), shared by every error rate
def _unit_hash(key: Key, salt: int) -> float:
    """:func:`stable_unit` of the canonical state and ``salt``."""
    return stable_unit(f"{salt}|" + ",".join(str(x) for x in key_state(key)))


def _noisy_verdict(key: Key, rate: float, salt: int) -> float:
    """The oracle, except that a winnable state whose hash falls below ``rate`` is given up."""
    if not key_is_solvable(key):
        return 0.0
    return 0.0 if _unit_hash(key, salt) < rate else 1.0


def noisy_evaluator(error_rate: float, salt: int = 0) -> Evaluator:
    """An imperfect judge: the oracle, plus deterministic *false negatives*.

    On a winnable state it wrongly answers 0.0 when ``u(state, salt) < error_rate``, where ``u`` is
    a SHA-256 hash of the canonical state mapped to [0, 1): about ``error_rate`` of the winnable
    states are given up on. It never calls a dead state winnable (no false positives), and the
    same state always gets the same verdict. ``salt`` picks a different set of mistakes.
    """
    if isinstance(error_rate, bool) or not isinstance(error_rate, Real):
        raise TypeError(f"error_rate must be a number in [0, 1], got {error_rate!r}")
    if not 0.0 <= float(error_rate) <= 1.0:
        raise ValueError(f"error_rate must be in [0, 1], got {error_rate}")
    if isinstance(salt, bool) or not isinstance(salt, int):
        raise TypeError(f"salt must be an int, got {salt!r}")
    rate = float(error_rate)
    verdicts = _NOISY_VERDICTS.get((rate, salt))
    if verdicts is None:  # one table per (rate, salt), shared by every judge made with them
        verdicts = _Verdicts(lambda key: _noisy_verdict(key, rate, salt))
        _NOISY_VERDICTS[(rate, salt)] = verdicts

    def evaluate(state: Sequence[int | Fraction]) -> float:
        return verdicts[state_key(state)]

    evaluate.__name__ = f"noisy_evaluator_{rate}_{salt}"
    _own_judge(evaluate, verdicts)
    return evaluate


def clear_caches() -> None:
    """Forget everything memoised -- the judges' tables, hashes, the beam's merge tables, and
    (``game24.clear_caches``) the thoughts and the oracle's verdicts.

    Answers never depend on the caches, only speed does; the benchmark calls this to time a cold
    start.
    """
    for memo in _MEMOS:
        memo.cache_clear()
    game24.clear_caches()


# --------------------------------------------------------------------------------------------
# Search
# --------------------------------------------------------------------------------------------


def _check_search(numbers: object, beam_width: object, evaluator: object, batch: object):
    """The arguments of a beam search, checked once at the entry point."""
    start = puzzle_state(numbers)
    beam_width = require_int("beam_width", beam_width, low=1)
    if not callable(evaluator):
        raise TypeError(f"evaluator must be callable, got {type(evaluator).__name__}")
    return start, beam_width, require_bool("batch", batch)


def _as_score(value: object) -> float:
    """One score the evaluator returned: a finite real (10**400 or a str is named)."""
    return require_float("evaluator's score", value)


def _judge(evaluator: Callable) -> Callable[[Key], float]:
    """How the search scores one state it built: the module's own judges look the verdict up in
    their table (the very score a call would return, without re-validating the state); any other
    evaluator is called on the Fraction state and its answer checked."""
    own = getattr(evaluator, "_own_verdicts", None)
    if type(own) is tuple and own[0] is evaluator:  # not a wrapper that copied the attribute
        return own[1].__getitem__
    return lambda key: _as_score(evaluator(key_state(key)))


def _score_batch(evaluator: Callable, states: list[State]) -> list[float]:
    """Score a whole level with one call on the list of states (``batch=True``)."""
    # The hook's answer is checked before it is read: a non-sequence, or an endless iterator
    # (read one past the level's size, no further), is named instead of failing inside list().
    scores = require_sequence("evaluator's scores (batch=True)", evaluator(list(states)),
                              max_len=len(states))
    if len(scores) != len(states):
        raise ValueError(
            f"evaluator (batch=True) must return one score per state: "
            f"got {len(scores)} for {len(states)}"
        )
    return [_as_score(s) for s in scores]


@dataclass
class _Level:
    """One judged level of the beam search."""

    origin: dict[Key, tuple[Key, str]]
    """Each distinct child state -> (beam state, thought) that made it, in child order."""
    scores: list[float]
    """The evaluator's score of each child, in the same order."""
    beam: list[Key]
    """The children carried forward, best first."""


@_memo
def _origins(key: Key) -> dict[Key, tuple[Key, str]]:
    """``child -> (key, expr)``: each distinct child state, where it came from and by which
    thought. A child keeps the position of its first proposal and the expr of its latest (the
    beam's merge rule, which ``dict`` insertion gives for free). Shared: never mutate it."""
    return {child: (key, expr) for expr, child in key_thoughts(key)}


def _top(scores: list[float], width: int) -> list[int]:
    """Positions of the ``width`` best scores: a *stable* sort, descending, so ties keep proposal
    order. This tie-breaking is the book's: it is what prints ``9 - 13 = -4; 4 - 10 = -6;
    -6 * -4 = 24`` for (4, 9, 10, 13) with a beam of 5."""
    return sorted(range(len(scores)), key=scores.__getitem__, reverse=True)[:width]


def _beam_search(
    start: Key, beam_widths: Sequence[int], evaluator: Callable, batch: bool
) -> Iterator[tuple[int, list[_Level], int]]:
    """The two judged levels of the BFS, for each of the ascending ``beam_widths`` in turn.

    Level 1 holds the distinct children of the start; level 2 those of level 1's beam (beam
    order, then proposal order). Children that reach the *same* state are merged: a state keeps
    the position of its first proposal but the path of its latest one (``dict.update`` does
    exactly that). Each level scores its distinct states and keeps the top ``b`` (:func:`_top`).

    A wider beam only appends states to level 1's beam, so for each further width level 2 is
    extended rather than redone, and every child is scored once however many widths are asked
    for (:func:`solve_rate_sweep` asks for all of them). Yields ``(b, levels, evaluator calls)``;
    the levels are updated in place for the next width. With ``batch=True`` ask for one width.
    """
    judge = _judge(evaluator)

    def score(children: list[Key]) -> list[float]:
        if batch:
            return _score_batch(evaluator, [key_state(c) for c in children])
        return list(map(judge, children))

    one = _Level(_origins(start), [], [])  # the memo's own dict: read, never updated
    children = list(one.origin)
    one.scores = score(children)
    ranked = [children[i] for i in _top(one.scores, len(children))]
    two = _Level({}, [], [])
    for b in beam_widths:
        for state in ranked[len(one.beam) : b]:  # the states this width adds to level 1's beam
            two.origin.update(_origins(state))
        one.beam = ranked[:b]
        children = list(two.origin)
        two.scores += score(children[len(two.scores) :])
        two.beam = [children[i] for i in _top(two.scores, b)]
        calls = 2 if batch else len(one.scores) + len(two.scores)
        yield b, [one, two], calls


def _path(levels: list[_Level], state: Key) -> list[Step]:
    """The thoughts by which the beam search reached ``state``, a child of its last level."""
    steps = []
    for level in reversed(levels):
        parent, expr = level.origin[state]
        steps.append(Step(expr, key_state(state)))
        state = parent
    return steps[::-1]


@_memo
def _first_win(key: Key) -> str | None:
    """The expr of the first thought (in proposal order) from ``key`` that leaves exactly 24."""
    return next((expr for expr, child in key_thoughts(key) if child == TARGET_KEY), None)


def _solution(start: State, levels: list[_Level], calls: int) -> Solution | None:
    """The last level of the BFS (one number left): nothing is judged -- 24 is checked exactly,
    and the first child in proposal order (beam order, then thought order) equal to 24 wins."""
    for state in levels[-1].beam:
        expr = _first_win(state)
        if expr is not None:
            steps = [*_path(levels, state), Step(expr, key_state(TARGET_KEY))]
            return Solution(tuple(int(x) for x in start), steps, calls)
    return None


def bfs_search(
    numbers: Sequence[int],
    beam_width: int,
    evaluator: Callable,
    *,
    batch: bool = False,
) -> Solution | None:
    """Breadth-first Tree-of-Thoughts search with a beam of width ``beam_width``.

    Each level: propose every thought from every beam state, score each distinct child state
    with ``evaluator`` and carry the top ``beam_width`` forward (a stable sort: ties keep proposal
    order; a state proposed twice keeps its first position and its latest path). After three
    levels one number is left, and the first child equal to exactly 24 is returned (24 is
    checked exactly, not judged); if none is, ``None``.

    ``evaluator(state) -> float`` is called once per child state. With ``batch=True`` it is
    instead called once per level with the *list* of child states and must return a list of
    scores -- for evaluators that compare states against each other (e.g. a vote).
    """
    start, beam_width, batch = _check_search(numbers, beam_width, evaluator, batch)
    _, levels, calls = next(_beam_search(state_key(start), [beam_width], evaluator, batch))
    return _solution(start, levels, calls)


def chain_of_thought(
    numbers: Sequence[int], evaluator: Callable, *, batch: bool = False
) -> Solution | None:
    """Chain-of-thought as search: a greedy chain, i.e. :func:`bfs_search` with beam width 1."""
    return bfs_search(numbers, 1, evaluator, batch=batch)


def _trace_rows(start: Key, levels: list[_Level]) -> list[list[tuple]]:
    """Every node of a beam search, level by level: ``(parent, expr, state, score, kept)``.

    The judged levels list their distinct children; the last level lists every thought of the
    final beam (nothing merged), scored by the exact check, and keeps only the first 24.
    """
    rows: list[list[tuple]] = [[(None, "", start, None, True)]]
    for level in levels:
        kept = set(level.beam)
        rows.append(
            [
                (p, expr, child, score, child in kept)
                for (child, (p, expr)), score in zip(
                    level.origin.items(), level.scores, strict=True
                )
            ]
        )
    last = [(p, expr, child) for p in levels[-1].beam for expr, child in key_thoughts(p)]
    win = next((k for k, row in enumerate(last) if row[2] == TARGET_KEY), None)
    rows.append([(*row, float(row[2] == TARGET_KEY), k == win) for k, row in enumerate(last)])
    return rows


def bfs_trace(
    numbers: Sequence[int],
    beam_width: int,
    evaluator: Callable,
    *,
    batch: bool = False,
) -> dict:
    """Run :func:`bfs_search` and record the whole search tree as JSON-able data for a widget.

    Returns ``{"numbers", "beam_width", "solution", "levels"}``; ``levels[k]`` lists the nodes
    created at depth k (level 0 is the root), each
    ``{"id", "parent", "expr", "state", "score", "kept", "solved", "on_path"}``:
    ``score`` -- the evaluator's score (at the last level: the exact check, 1.0 iff 24);
    ``kept`` -- carried forward in the beam (at the last level: the returned solution);
    ``solved`` -- the node's state is exactly (24,); ``on_path`` -- on the returned derivation.
    Levels 1 and 2 list distinct states only (duplicates merged as in :func:`bfs_search`).
    """
    start, beam_width, batch = _check_search(numbers, beam_width, evaluator, batch)
    _, levels, calls = next(_beam_search(state_key(start), [beam_width], evaluator, batch))
    solution = _solution(start, levels, calls)
    nodes: list[list[dict]] = []
    next_id = 0
    above: dict[Key, int] = {}  # state -> node id, in the level above (its states are distinct)
    for rows in _trace_rows(state_key(start), levels):
        here: dict[Key, int] = {}
        nodes.append([])
        for parent, expr, state, score, kept in rows:
            nodes[-1].append(
                {
                    "id": next_id,
                    "parent": None if parent is None else above[parent],
                    "expr": expr,
                    "state": [str(x) for x in key_state(state)],
                    "score": None if score is None else float(score),
                    "kept": bool(kept),
                    "solved": state == TARGET_KEY,
                    "on_path": False,
                }
            )
            here.setdefault(state, next_id)
            next_id += 1
        above = here
    by_id = {node["id"]: node for level in nodes for node in level}
    node = next((n for n in nodes[-1] if n["kept"]), None)
    while node is not None:  # from the winner back to the root
        node["on_path"] = True
        node = None if node["parent"] is None else by_id[node["parent"]]
    return {
        "numbers": [int(x) for x in start],
        "beam_width": beam_width,
        "solution": None if solution is None else solution.expr,
        "levels": nodes,
    }


def dfs_search(
    numbers: Sequence[int], evaluator: Callable, threshold: float = 0.5
) -> Solution | None:
    """Depth-first Tree-of-Thoughts search with backtracking.

    Try the thoughts in proposal order; a child whose one remaining number is 24 wins at once;
    any other child is explored only if ``evaluator(child) >= threshold``, and if its subtree
    fails the search backtracks to the next thought. Returns the first derivation found, or None.
    """
    start, _, _ = _check_search(numbers, 1, evaluator, False)
    if isinstance(threshold, bool) or not isinstance(threshold, Real):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    if math.isnan(threshold):
        raise ValueError("threshold must not be NaN")
    judge = _judge(evaluator)
    calls = 0

    def visit(state: Key) -> list[Step] | None:
        nonlocal calls
        for expr, child in key_thoughts(state):
            if len(child) == 1:
                if child == TARGET_KEY:
                    return [Step(expr, key_state(child))]
                continue
            calls += 1
            if judge(child) >= threshold:
                found = visit(child)
                if found is not None:
                    return [Step(expr, key_state(child)), *found]
        return None

    path = visit(state_key(start))
    if path is None:
        return None
    return Solution(tuple(int(x) for x in start), path, calls)


# --------------------------------------------------------------------------------------------
# The beam-width sweep
# --------------------------------------------------------------------------------------------


def load_beam_sweep(path: str | Path | None = None) -> dict:
    """The recorded beam-width sweep over every solvable puzzle, ``data/beam_sweep.json``.

    Written by the ``beam_sweep`` job of ``scripts/make_data.py`` from :func:`build_beam_sweep`
    (54,480 searches):
    ``{"beam_widths", "error_rates", "salt", "count", "summary", "puzzles"}``, where ``summary``
    holds :func:`solve_rate_sweep` records over all ``count`` puzzles and ``puzzles[k]["solved"]
    [i][j]`` is 1 if puzzle k was solved at ``error_rates[i]`` and ``beam_widths[j]``.
    """
    if path is None:
        path = BEAM_SWEEP_PATH
    else:
        path = require_path("path", path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise ValueError(f"path {path} holds no beam-sweep record")
    _check_beam_sweep(data, f"path {path}")
    return data


def _check_beam_sweep(data: dict, source: str) -> None:
    """Every field a reader of the sweep uses: the grid, the summary rows, each puzzle's grid."""
    keys = {"beam_widths", "error_rates", "salt", "count", "summary", "puzzles"}
    if not keys <= set(data):
        raise ValueError(f"{source} lacks {sorted(keys - set(data))}: not a beam-sweep record")
    widths, rates = data["beam_widths"], data["error_rates"]
    if not (isinstance(widths, list) and widths and all(type(w) is int and w >= 1 for w in widths)):
        raise ValueError(f"{source}: beam_widths must be a non-empty list of ints >= 1")
    if not (
        isinstance(rates, list)
        and rates
        and all(type(r) in (int, float) and 0 <= r <= 1 for r in rates)
    ):
        raise ValueError(f"{source}: error_rates must be a non-empty list of numbers in [0, 1]")
    count, puzzles, summary = data["count"], data["puzzles"], data["summary"]
    if type(count) is not int or not count or not isinstance(puzzles, list) or len(puzzles) - count:
        raise ValueError(f"{source}: puzzles must be a list of count (>= 1) puzzles")
    if not isinstance(summary, list) or len(summary) != len(widths) * len(rates):
        raise ValueError(f"{source}: summary must hold one row per (error_rate, beam_width)")
    for i, row in enumerate(summary):
        if not isinstance(row, dict) or not {"beam_width", "error_rate", "solve_rate"} <= set(row):
            raise ValueError(f"{source}: summary[{i}] must have beam_width, error_rate, solve_rate")
        rate = row["solve_rate"]
        if type(rate) not in (int, float) or not 0 <= rate <= 1:
            raise ValueError(f"{source}: summary[{i}].solve_rate must be in [0, 1], got {rate!r}")
    for i, p in enumerate(puzzles):
        grid = p.get("solved") if isinstance(p, dict) else None
        if not (
            isinstance(grid, list)
            and len(grid) == len(rates)
            and all(
                isinstance(r, list) and len(r) == len(widths) and all(v in (0, 1) for v in r)
                for r in grid
            )
        ):
            raise ValueError(
                f"{source}: puzzles[{i}].solved must be {len(rates)} rows of "
                f"{len(widths)} 0/1 values"
            )


def solve_rate_sweep(
    puzzles: Sequence[Sequence[int]],
    beam_widths: Sequence[int] = (1, 2, 3, 5, 8),
    error_rates: Sequence[float] = (0.0, 0.3, 0.5, 0.7),
    salt: int = 0,
) -> list[dict]:
    """Solve rate of :func:`bfs_search` for every (error_rate, beam_width) pair.

    ``error_rate`` 0.0 is the oracle (the ceiling); otherwise the judge is
    ``noisy_evaluator(error_rate, salt)``. Returns records
    ``{"beam_width", "error_rate", "solve_rate", "solved", "total"}``; every returned solution is
    also checked with :func:`check_derivation`. A puzzle's searches at the different widths share
    their work (:func:`_beam_search`) but count exactly what separate searches would.
    """
    puzzles = require_sequence_of_sequences("puzzles", puzzles, min_len=1)
    starts = []  # validated once, not once per search: (state, key)
    for i, p in enumerate(puzzles):
        try:
            start = puzzle_state(p)
            starts.append((start, state_key(start)))
        except (TypeError, ValueError) as err:
            raise type(err)(f"puzzles[{i}]: {err}") from None
    beam_widths = [
        require_int("beam_widths", b, low=1) for b in require_sequence("beam_widths", beam_widths)
    ]
    error_rates = [
        require_prob("error_rates", r) for r in require_sequence("error_rates", error_rates)
    ]
    salt = require_int("salt", salt)
    checked: dict[tuple[int, str], bool] = {}  # a derivation found at many widths: parse it once
    records = []
    for rate in error_rates:
        judge = oracle_evaluator if rate == 0 else noisy_evaluator(rate, salt)
        widths = sorted(set(beam_widths))
        solved = dict.fromkeys(widths, 0)
        for k, (start, key) in enumerate(starts):
            for b, levels, calls in _beam_search(key, widths, judge, batch=False):
                sol = _solution(start, levels, calls)
                if sol is None:
                    continue
                if (k, sol.expr) not in checked:
                    checked[(k, sol.expr)] = check_derivation(sol.expr, puzzles[k])
                solved[b] += checked[(k, sol.expr)]
        for b in beam_widths:
            records.append(
                {
                    "beam_width": int(b),
                    "error_rate": float(rate),
                    "solve_rate": solved[b] / len(puzzles),
                    "solved": solved[b],
                    "total": len(puzzles),
                }
            )
    return records


SWEEP_BEAM_WIDTHS = (1, 2, 3, 4, 5, 6, 7, 8)
"""Beam widths of the recorded sweep, ``data/beam_sweep.json``."""
SWEEP_ERROR_RATES = (0.0, 0.3, 0.5, 0.7, 0.9)
"""Judge error rates of the recorded sweep (0.0 is the oracle)."""
SWEEP_SALT = 0
"""The salt of the recorded sweep's noisy judges (:func:`noisy_evaluator`)."""

_SWEEP_SCRIPT = "scripts/make_data.py --jobs beam_sweep"  # the job of data_jobs that writes it
_SWEEP_KEYS = {"generated_by", "salt", "beam_widths", "error_rates", "count", "summary", "puzzles"}


def build_beam_sweep(limit: int | None = None, path: str | Path | None = None) -> dict:
    """What ``data/beam_sweep.json`` holds (see :func:`load_beam_sweep`): the sweep of
    :data:`SWEEP_BEAM_WIDTHS` x :data:`SWEEP_ERROR_RATES` over every solvable puzzle.

    Each puzzle's row comes from :func:`solve_rate_sweep` on that puzzle alone; the summary adds
    the rows up. The full sweep is 54,480 searches (seconds, too slow for a chapter, which reads
    the file); ``limit`` keeps only the first ``limit`` solvable puzzles, in data order (a quick
    look). ``path`` is the universe of puzzles to read (default: the shipped ``data/game24.json``;
    the job graph passes the file its game24 job made). :func:`render_beam_sweep` gives the
    file's text.
    """
    if limit is not None:
        limit = require_int("limit", limit, low=1, high=game24.SOLVABLE_COUNT)
    puzzles = [p["numbers"] for p in game24.load_puzzles(path) if p["solvable"]][:limit]
    rows = []
    for numbers in puzzles:
        records = solve_rate_sweep([numbers], SWEEP_BEAM_WIDTHS, SWEEP_ERROR_RATES, salt=SWEEP_SALT)
        solved = {(r["error_rate"], r["beam_width"]): r["solved"] for r in records}
        rows.append(
            {
                "numbers": numbers,
                "solved": [[solved[(e, b)] for b in SWEEP_BEAM_WIDTHS] for e in SWEEP_ERROR_RATES],
            }
        )
    summary = []
    for i, rate in enumerate(SWEEP_ERROR_RATES):
        for j, width in enumerate(SWEEP_BEAM_WIDTHS):
            count = sum(row["solved"][i][j] for row in rows)
            summary.append(
                {
                    "beam_width": width,
                    "error_rate": rate,
                    "solve_rate": count / len(rows),
                    "solved": count,
                    "total": len(rows),
                }
            )
    return {
        "generated_by": _SWEEP_SCRIPT,
        "salt": SWEEP_SALT,
        "beam_widths": list(SWEEP_BEAM_WIDTHS),
        "error_rates": list(SWEEP_ERROR_RATES),
        "count": len(rows),
        "summary": summary,
        "puzzles": rows,
    }


def render_beam_sweep(sweep: dict) -> str:
    """The text of ``data/beam_sweep.json`` for a :func:`build_beam_sweep`: JSON with sorted
    keys, one summary record and one puzzle per line."""
    sweep = require_instance("sweep", sweep, dict)
    if set(sweep) != _SWEEP_KEYS:
        raise ValueError(f"sweep must be a build_beam_sweep() record, got keys {list(sweep)}")
    fields = []
    for key in sorted(sweep):
        if key in ("summary", "puzzles"):
            lines = ",\n".join(f"    {json.dumps(r, sort_keys=True)}" for r in sweep[key])
            fields.append(f"  {json.dumps(key)}: [\n{lines}\n  ]")
        else:
            fields.append(f"  {json.dumps(key)}: {json.dumps(sweep[key])}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


TREE_PUZZLES = ((4, 9, 10, 13), (3, 3, 8, 8), (2, 3, 7, 7), (2, 5, 5, 13))
"""The puzzles of ``data/search_trees.json``, in the order the tree widget's select lists them."""


def _compact_trace(trace: dict, winnable: dict[Key, int]) -> list[list[list]]:
    """bfs_trace's levels 1-3 as rows [parent, expr, state, score, kept, on_path, winnable].

    ``winnable`` is the oracle's verdict on a row's state (the widget rings a state the judge
    gave up on but that could still reach 24); it memoises verdicts across trees.
    """
    levels = []
    for depth in (1, 2, 3):
        parent_at = {node["id"]: i for i, node in enumerate(trace["levels"][depth - 1])}
        rows = []
        for n in trace["levels"][depth]:
            key = tuple(n["state"])
            if key not in winnable:
                winnable[key] = int(game24.state_is_solvable([Fraction(x) for x in key]))
            rows.append(
                [parent_at[n["parent"]], n["expr"], " ".join(n["state"]), n["score"],
                 int(n["kept"]), int(n["on_path"]), winnable[key]]
            )  # fmt: skip
        levels.append(rows)
    return levels


def search_trees() -> dict:
    """What ``data/search_trees.json`` holds: every tree chapter 10's tree widget can draw.

    For each of :data:`TREE_PUZZLES`, every beam width of :data:`SWEEP_BEAM_WIDTHS` and every
    judge error rate of :data:`SWEEP_ERROR_RATES` (0 is the exact oracle, the others
    ``noisy_evaluator(rate, salt=SWEEP_SALT)``), :func:`bfs_trace` kept compactly: per level 1-3
    one row per thought (:func:`_compact_trace`). 160 trees, about 0.6 MB, which the widget
    fetches rather than the page carrying them inline.
    """
    winnable: dict[Key, int] = {}
    trees = []
    for numbers in TREE_PUZZLES:
        for beam in SWEEP_BEAM_WIDTHS:
            for rate in SWEEP_ERROR_RATES:
                judge = oracle_evaluator if rate == 0 else noisy_evaluator(rate, salt=SWEEP_SALT)
                trace = bfs_trace(list(numbers), beam, judge)
                trees.append(
                    {
                        "puzzle": " ".join(map(str, numbers)),
                        "beam": beam,
                        "error": rate,
                        "solution": trace["solution"],
                        "levels": _compact_trace(trace, winnable),
                    }
                )
    return {"puzzles": [" ".join(map(str, p)) for p in TREE_PUZZLES], "trees": trees}


def demonstrate_tree_of_thoughts(seed: int = 0, verbose: bool = False) -> dict:
    """JSON-able bundle for the chapter: the beam-width sweep on :func:`demo_puzzles` and one
    recorded search tree on (4, 9, 10, 13) under a noisy judge (error rate 0.5)."""
    seed = require_seed("seed", seed)
    puzzles = demo_puzzles(20, seed)
    sweep = solve_rate_sweep(puzzles, salt=seed)
    trace = bfs_trace([4, 9, 10, 13], 3, noisy_evaluator(0.5, seed))
    if verbose:
        rates = sorted({r["error_rate"] for r in sweep})
        widths = sorted({r["beam_width"] for r in sweep})
        print("error_rate " + " ".join(f"b={b:<4}" for b in widths))
        for rate in rates:
            row = {r["beam_width"]: r["solve_rate"] for r in sweep if r["error_rate"] == rate}
            print(f"{rate:>10.1f} " + " ".join(f"{row[b]:<6.2f}" for b in widths))
    return {"puzzles": puzzles, "sweep": sweep, "trace": trace}
