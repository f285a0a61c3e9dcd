"""Tree of Thoughts on the Game of 24, from scratch, with exact arithmetic.

Game of 24: given four numbers, combine them with + - * / (each used exactly once) to make 24.

- A *state* is the multiset of numbers still in play, kept as a sorted tuple of
  ``fractions.Fraction`` so that ``8 / 3`` stays exactly ``8/3`` and never drifts.
- A *thought* (a :class:`Step`) combines two numbers of the state into one.
- Three thoughts take four numbers to one; the puzzle is won if that number is exactly 24.

The search (Yao et al., 2023) is: propose every next thought, score each resulting state with an
*evaluator* V(state) in [0, 1], keep the best few (BFS with a beam of width b) or go deep and
backtrack when V falls below a threshold (DFS). Chain-of-thought is the b = 1 special case.

The exact oracle :func:`state_is_solvable` is a perfect evaluator -- it answers by trying,
exhaustively, every way the remaining numbers can still be combined. :func:`noisy_evaluator`
models a real (LLM) judge by giving up, deterministically, on a fraction of winnable states: its
false negatives are what a wider beam buys robustness against.

Inside, a number is an exact integer pair ``(numerator, denominator)`` in lowest terms (what a
Fraction keeps, without its per-operation cost), and every state's thoughts, oracle verdict and
judge scores are memoised: the searches meet the same states again and again.
:func:`clear_caches` forgets all of it (answers never change, only speed).

Derivations are plain text, ``"9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24"``, and are checked by
a small hand-written parser (:func:`parse_step`, :func:`check_derivation`) -- never ``eval``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from numbers import Rational, Real
from pathlib import Path

from checks import (
    require_arg_name,
    require_bool,
    require_int,
    require_prob,
    require_seed,
    require_sequence,
    require_sequence_of_sequences,
    require_str,
)

__all__ = [
    "TARGET",
    "MAX_DERIVATION_CHARS",
    "Step",
    "Solution",
    "ParsedStep",
    "propose_steps",
    "apply_step",
    "apply_op",
    "puzzle_state",
    "stable_unit",
    "state_is_solvable",
    "is_solvable",
    "oracle_evaluator",
    "noisy_evaluator",
    "bfs_search",
    "bfs_trace",
    "dfs_search",
    "chain_of_thought",
    "solve",
    "parse_step",
    "check_derivation",
    "evaluates_to_24",
    "load_puzzles",
    "load_beam_sweep",
    "demo_puzzles",
    "solve_rate_sweep",
    "demonstrate_tree_of_thoughts",
    "clear_caches",
]

TARGET = Fraction(24)
"""The number every puzzle must reach."""

MAX_DERIVATION_CHARS = 2_000
"""Longest derivation text :func:`check_derivation` will read; longer input is rejected (False)
before any parsing. A real three-step derivation is well under 100 characters."""

_MAX_LITERAL_DIGITS = 40  # digits allowed in one integer part of a number literal
_MAX_STATE_SIZE = 4
_PUZZLE_SIZE = 4
_PUZZLE_MIN, _PUZZLE_MAX = 1, 13
_OPS = ("+", "*", "-", "/")

State = tuple[Fraction, ...]
Evaluator = Callable[[State], float]
DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "game24.json"
BEAM_SWEEP_PATH = DATA_PATH.parent / "beam_sweep.json"

Num = tuple[int, int]
"""An exact number inside the module: ``(n, d)`` is n/d in lowest terms with d > 0."""
Key = tuple[Num, ...]
"""A canonical state inside the module: its numbers as :data:`Num` s, sorted by value."""
_WIN: Key = ((24, 1),)

_MEMOS: list = []  # every memo table in the module, for clear_caches()


def _memo(fn: Callable) -> Callable:
    """``functools.cache``, registered so that :func:`clear_caches` can empty it."""
    memo = cache(fn)
    _MEMOS.append(memo)
    return memo


# --------------------------------------------------------------------------------------------
# States and thoughts
# --------------------------------------------------------------------------------------------


def to_state(numbers: Sequence[int | Fraction], name: str = "numbers") -> State:
    """Canonical state: the numbers as a sorted tuple of Fractions (a multiset).

    Accepts 1 to 4 numbers, each an ``int`` or a ``Fraction`` (``bool``, ``float`` and ``str``
    are refused: floats are not exact). Raises ``TypeError`` / ``ValueError`` naming the argument
    (``name``).
    """
    require_arg_name("name", name)
    if isinstance(numbers, (str, bytes)) or not isinstance(numbers, Sequence):
        raise TypeError(
            f"{name} must be a list or tuple of ints/Fractions, got {type(numbers).__name__}"
        )
    if not 1 <= len(numbers) <= _MAX_STATE_SIZE:
        raise ValueError(f"{name} must hold 1 to {_MAX_STATE_SIZE} numbers, got {len(numbers)}")
    for x in numbers:
        if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
            raise TypeError(f"{name} must contain ints or Fractions, got {x!r}")
    return tuple(sorted(Fraction(x) for x in numbers))


def puzzle_state(numbers: Sequence[int]) -> State:
    """Validate a starting puzzle -- exactly four integers in 1..13 -- and canonicalise it.

    Raises ``TypeError`` / ``ValueError`` naming ``numbers``.
    """
    if isinstance(numbers, (str, bytes)) or not isinstance(numbers, Sequence):
        raise TypeError(f"numbers must be a list or tuple of 4 ints, got {type(numbers).__name__}")
    if len(numbers) != _PUZZLE_SIZE:
        raise ValueError(f"numbers must be exactly {_PUZZLE_SIZE} integers, got {len(numbers)}")
    for x in numbers:
        if isinstance(x, bool) or not isinstance(x, int):
            raise TypeError(f"numbers must contain ints, got {x!r}")
        if not _PUZZLE_MIN <= x <= _PUZZLE_MAX:
            raise ValueError(f"numbers must be in {_PUZZLE_MIN}..{_PUZZLE_MAX}, got {x}")
    return to_state(numbers)


def _key(state: State) -> Key:
    """A canonical state as exact integer pairs: ``(8/3, 13) -> ((8, 3), (13, 1))``."""
    return tuple((x.numerator, x.denominator) for x in state)


@_memo
def _state_of(key: Key) -> State:
    """The public form of a state key: the sorted tuple of Fractions."""
    return tuple(Fraction(n, d) for n, d in key)


def _fmt(x: Num) -> str:
    """``(8, 3) -> '8/3'``, ``(-4, 1) -> '-4'``: exactly ``str(Fraction(n, d))``."""
    n, d = x
    return str(n) if d == 1 else f"{n}/{d}"


def _num(n: int, d: int) -> Num:
    """The number n/d (d != 0) in lowest terms with d > 0, the form a Fraction keeps."""
    g = math.gcd(n, d)
    return (n // g, d // g) if d > 0 else (-n // g, -d // g)


@dataclass(frozen=True)
class Step:
    """One thought: ``expr`` such as ``"4 + 9 = 13"`` and the ``state`` it leaves behind."""

    expr: str
    state: State

    def __post_init__(self) -> None:
        require_str("expr", self.expr)
        if to_state(self.state, "state") != self.state:
            raise ValueError(f"state must be a sorted tuple of Fractions, got {self.state!r}")


def _combine(a: Num, b: Num) -> list[tuple[Num, str, Num, Num]]:
    """The six moves on a pair, in the book's order: a+b, a*b, a-b, b-a, a/b, b/a.

    Each move is ``(left, op, right, result)``; a division by zero is skipped. With a = p/q and
    b = r/s: a + b = (ps + rq)/qs, a - b = (ps - rq)/qs, a * b = pr/qs, a / b = ps/qr.
    """
    (p, q), (r, s) = a, b
    ps, rq, qs = p * s, r * q, q * s
    moves = [
        (a, "+", b, _num(ps + rq, qs)),
        (a, "*", b, _num(p * r, qs)),
        (a, "-", b, _num(ps - rq, qs)),
        (b, "-", a, _num(rq - ps, qs)),
    ]
    if r != 0:
        moves.append((a, "/", b, _num(ps, q * r)))
    if p != 0:
        moves.append((b, "/", a, _num(rq, s * p)))
    return moves


def _insert(rest: Key, x: Num) -> Key:
    """``rest`` (sorted by value) with ``x`` added in value order: a canonical state key.

    p/q < r/s exactly when ps < rq, because both denominators are positive.
    """
    n, d = x
    i = 0
    while i < len(rest) and rest[i][0] * d < n * rest[i][1]:
        i += 1
    return rest[:i] + (x,) + rest[i:]


@_memo
def _thoughts(key: Key) -> tuple[tuple[str, Key], ...]:
    """Every legal move from a state, as ``(expr, child key)``, in :func:`propose_steps` order.

    Memoised: the searches visit the same states over and over, so each state's thoughts are
    worked out (and formatted) once.
    """
    out = []
    for i, j in itertools.combinations(range(len(key)), 2):
        rest = key[:i] + key[i + 1 : j] + key[j + 1 :]
        for left, op, right, value in _combine(key[i], key[j]):
            out.append((f"{_fmt(left)} {op} {_fmt(right)} = {_fmt(value)}", _insert(rest, value)))
    return tuple(out)


@_memo
def _origins(key: Key) -> dict[Key, tuple[Key, str]]:
    """``child -> (key, expr)``: each distinct child state, where it came from and by which
    thought. A child keeps the position of its first proposal and the expr of its latest (the
    beam's merge rule, which ``dict`` insertion gives for free). Shared: never mutate it."""
    return {child: (key, expr) for expr, child in _thoughts(key)}


@_memo
def _steps(key: Key) -> tuple[Step, ...]:
    """The thoughts of a state as :class:`Step` s (a tuple, so the memo cannot be mutated)."""
    return tuple(Step(expr, _state_of(child)) for expr, child in _thoughts(key))


def propose_steps(state: Sequence[int | Fraction]) -> list[Step]:
    """The thought generator: every legal next move from ``state``, in a fixed order.

    For each pair ``(a, b)`` at positions i < j of the (sorted) state, in this order:
    ``a + b``, ``a * b``, ``a - b``, ``b - a``, ``a / b``, ``b / a`` (divisions by zero skipped).
    A 4-number state with no zeros therefore has 6 pairs x 6 = 36 thoughts.
    """
    return list(_steps(_key(to_state(state, "state"))))


def apply_step(state: Sequence[int | Fraction], step: str) -> State:
    """Apply a written step ``"a op b = c"`` to ``state`` and return the new state.

    Raises ``ValueError`` (naming ``step``) if the step is malformed, its arithmetic is not exact,
    or its operands are not both available in the multiset ``state``.
    """
    canon = list(to_state(state, "state"))
    parsed = parse_step(step)
    if apply_op(parsed.left, parsed.op, parsed.right) != parsed.result:
        raise ValueError(f"step arithmetic is wrong: {step!r}")
    for operand in (parsed.left, parsed.right):
        if operand not in canon:
            raise ValueError(f"step uses {operand}, which is not available in the state")
        canon.remove(operand)
    return tuple(sorted([*canon, parsed.result]))


# --------------------------------------------------------------------------------------------
# The oracle and the evaluators
#
# A sequence of thoughts builds an expression over the state's numbers, each used once, and
# every such expression is some sequence of thoughts. So 24 is reachable iff some cut of the
# numbers into two parts has a value a of one part and b of the other with a op b = 24, that
# is, b is one of a's six *partners*. Checking cuts against memoised value sets (there are only
# 455 triples of 1..13) is far cheaper than walking the 36 x 18 x 6 tree of thoughts, and
# decides exactly the same thing.
# --------------------------------------------------------------------------------------------


def _cuts(key: Key) -> Iterator[tuple[Key, Key]]:
    """Every way to cut the numbers in two, the smaller part first. An even cut keeps ``key[0]``
    in the first part, so that no cut is listed twice. Parts keep the key's (value) order."""
    n = len(key)
    for size in range(1, n // 2 + 1):
        for part in itertools.combinations(range(n), size):
            if 2 * size < n or part[0] == 0:
                rest = tuple(key[i] for i in range(n) if i not in part)
                yield tuple(key[i] for i in part), rest


@_memo
def _values(key: Key) -> frozenset[Num]:
    """Every value an expression over the numbers of ``key`` (each used once) can take."""
    if len(key) == 1:
        return frozenset(key)
    return frozenset(
        move[3]
        for part, rest in _cuts(key)
        for a in _values(part)
        for b in _values(rest)
        for move in _combine(a, b)
    )


@_memo
def _partners(x: Num) -> frozenset[Num]:
    """The numbers v for which a move on (x, v) gives exactly 24.

    From x + v, x - v and v - x: 24 - x, x - 24, 24 + x; from x * v, x / v and v / x (none of
    them can be 24 when x = 0): 24 / x, x / 24 and 24 x.
    """
    n, d = x
    out = {_num(24 * d - n, d), _num(n - 24 * d, d), _num(24 * d + n, d)}
    if n != 0:
        out.update((_num(24 * d, n), _num(n, 24 * d), _num(24 * n, d)))
    return frozenset(out)


@_memo  # keyed on the canonical state
def _reaches_24(key: Key) -> bool:
    """Can the state ``key`` still reach exactly 24? Exhaustive (over cuts), memoised."""
    if len(key) == 1:
        return key == _WIN
    return any(
        not _partners(a).isdisjoint(_values(rest))
        for part, rest in _cuts(key)
        for a in _values(part)
    )


def state_is_solvable(state: Sequence[int | Fraction]) -> bool:
    """The exact oracle on any Game-of-24 state (1 to 4 ints/Fractions): is 24 still reachable?"""
    return _reaches_24(_key(to_state(state, "state")))


def is_solvable(numbers: Sequence[int]) -> bool:
    """Is the puzzle ``numbers`` (four integers in 1..13) solvable? Exhaustive and memoised."""
    return _reaches_24(_key(puzzle_state(numbers)))


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


_ORACLE_VERDICTS = _Verdicts(lambda key: 1.0 if _reaches_24(key) else 0.0)
_NOISY_VERDICTS: dict[tuple[float, int], _Verdicts] = {}  # (error_rate, salt) -> its table


def oracle_evaluator(state: Sequence[int | Fraction]) -> float:
    """The perfect state evaluator: 1.0 if 24 is still reachable from ``state``, else 0.0.

    An exhaustive look-ahead (every way the remaining numbers combine), memoised per state.
    """
    return _ORACLE_VERDICTS[_key(to_state(state, "state"))]


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
    return stable_unit(f"{salt}|" + ",".join(_fmt(x) for x in key))


def _noisy_verdict(key: Key, rate: float, salt: int) -> float:
    """The oracle, except that a winnable state whose hash falls below ``rate`` is given up."""
    if not _reaches_24(key):
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
        return verdicts[_key(to_state(state, "state"))]

    evaluate.__name__ = f"noisy_evaluator_{rate}_{salt}"
    _own_judge(evaluate, verdicts)
    return evaluate


def clear_caches() -> None:
    """Forget everything memoised -- thoughts, oracle verdicts, hashes, the judges' tables.

    Answers never depend on the caches, only speed does; the benchmark calls this to time a cold
    start.
    """
    for memo in _MEMOS:
        memo.cache_clear()


# --------------------------------------------------------------------------------------------
# Search
# --------------------------------------------------------------------------------------------


@dataclass
class Solution:
    """A derivation that reaches 24: the starting ``numbers`` and the three :class:`Step` s."""

    numbers: tuple[int, ...]
    steps: list[Step] = field(default_factory=list)
    evaluations: int = 0
    """How many times the search called its evaluator (a proxy for test-time compute)."""

    def __post_init__(self) -> None:
        if not isinstance(self.numbers, tuple):
            raise TypeError(f"numbers must be a tuple of ints, got {type(self.numbers).__name__}")
        puzzle_state(self.numbers)
        if not isinstance(self.steps, list) or not all(isinstance(s, Step) for s in self.steps):
            raise TypeError("steps must be a list of Step")
        require_int("evaluations", self.evaluations, low=0)

    @property
    def expr(self) -> str:
        """The derivation as text, steps joined by ``"; "``."""
        return "; ".join(step.expr for step in self.steps)


def _check_search(numbers: object, beam_width: object, evaluator: object, batch: object):
    """The arguments of a beam search, checked once at the entry point."""
    start = puzzle_state(numbers)
    beam_width = require_int("beam_width", beam_width, low=1)
    if not callable(evaluator):
        raise TypeError(f"evaluator must be callable, got {type(evaluator).__name__}")
    return start, beam_width, require_bool("batch", batch)


def _as_score(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"evaluator must return a number, got {value!r}")
    if not math.isfinite(float(value)):
        raise ValueError(f"evaluator must return a finite number, got {value!r}")
    return float(value)


def _judge(evaluator: Callable) -> Callable[[Key], float]:
    """How the search scores one state it built: the module's own judges look the verdict up in
    their table (the very score a call would return, without re-validating the state); any other
    evaluator is called on the Fraction state and its answer checked."""
    own = getattr(evaluator, "_own_verdicts", None)
    if type(own) is tuple and own[0] is evaluator:  # not a wrapper that copied the attribute
        return own[1].__getitem__
    return lambda key: _as_score(evaluator(_state_of(key)))


def _score_batch(evaluator: Callable, states: list[State]) -> list[float]:
    """Score a whole level with one call on the list of states (``batch=True``)."""
    scores = list(evaluator(list(states)))
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
            return _score_batch(evaluator, [_state_of(c) for c in children])
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
        steps.append(Step(expr, _state_of(state)))
        state = parent
    return steps[::-1]


@_memo
def _first_win(key: Key) -> str | None:
    """The expr of the first thought (in proposal order) from ``key`` that leaves exactly 24."""
    return next((expr for expr, child in _thoughts(key) if child == _WIN), None)


def _solution(start: State, levels: list[_Level], calls: int) -> Solution | None:
    """The last level of the BFS (one number left): nothing is judged -- 24 is checked exactly,
    and the first child in proposal order (beam order, then thought order) equal to 24 wins."""
    for state in levels[-1].beam:
        expr = _first_win(state)
        if expr is not None:
            steps = [*_path(levels, state), Step(expr, _state_of(_WIN))]
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
    _, levels, calls = next(_beam_search(_key(start), [beam_width], evaluator, batch))
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
    last = [(p, expr, child) for p in levels[-1].beam for expr, child in _thoughts(p)]
    win = next((k for k, row in enumerate(last) if row[2] == _WIN), None)
    rows.append([(*row, float(row[2] == _WIN), k == win) for k, row in enumerate(last)])
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
    _, levels, calls = next(_beam_search(_key(start), [beam_width], evaluator, batch))
    solution = _solution(start, levels, calls)
    nodes: list[list[dict]] = []
    next_id = 0
    above: dict[Key, int] = {}  # state -> node id, in the level above (its states are distinct)
    for rows in _trace_rows(_key(start), levels):
        here: dict[Key, int] = {}
        nodes.append([])
        for parent, expr, state, score, kept in rows:
            nodes[-1].append(
                {
                    "id": next_id,
                    "parent": None if parent is None else above[parent],
                    "expr": expr,
                    "state": [_fmt(x) for x in state],
                    "score": None if score is None else float(score),
                    "kept": bool(kept),
                    "solved": state == _WIN,
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
        for expr, child in _thoughts(state):
            if len(child) == 1:
                if child == _WIN:
                    return [Step(expr, _state_of(child))]
                continue
            calls += 1
            if judge(child) >= threshold:
                found = visit(child)
                if found is not None:
                    return [Step(expr, _state_of(child)), *found]
        return None

    path = visit(_key(start))
    if path is None:
        return None
    return Solution(tuple(int(x) for x in start), path, calls)


def solve(numbers: Sequence[int]) -> Solution | None:
    """The reference solver: DFS guided by the exact oracle (never backtracks needlessly)."""
    return dfs_search(numbers, oracle_evaluator)


# --------------------------------------------------------------------------------------------
# Checking a derivation: a small parser, never eval
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedStep:
    """A parsed step ``left op right = result`` with exact Fraction operands."""

    left: Fraction
    op: str
    right: Fraction
    result: Fraction

    def __post_init__(self) -> None:
        for name in ("left", "right", "result"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, Rational):
                raise TypeError(f"{name} must be an int or Fraction, got {type(value).__name__}")
        if not isinstance(self.op, str) or self.op not in _OPS:
            raise ValueError(f"op must be one of {_OPS}, got {self.op!r}")


class _Scanner:
    """A character-level scanner for one step, ``NUMBER OP NUMBER '=' NUMBER``.

    A NUMBER literal is ``-?DIGITS`` or ``-?DIGITS/DIGITS`` with no spaces inside, so in
    ``8 / 1/3`` the spaced ``/`` is the operator and ``1/3`` the operand. In operator position a
    ``-`` is always the operator, so ``4-9`` and ``4 - 9`` both read as a subtraction.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def _digits(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789":
            self.pos += 1
        digits = self.text[start : self.pos]
        if not digits:
            raise ValueError(f"expected digits at column {start} in step {self.text!r}")
        if len(digits) > _MAX_LITERAL_DIGITS:
            raise ValueError(f"number literal too long in step {self.text!r}")
        return digits

    def number(self) -> Fraction:
        self._skip_space()
        negative = self.pos < len(self.text) and self.text[self.pos] == "-"
        if negative:
            self.pos += 1
        numerator = int(self._digits())
        denominator = 1
        if self.pos < len(self.text) and self.text[self.pos] == "/":
            self.pos += 1
            denominator = int(self._digits())
            if denominator == 0:
                raise ValueError(f"zero denominator in step {self.text!r}")
        value = Fraction(numerator, denominator)
        return -value if negative else value

    def symbol(self, allowed: str) -> str:
        self._skip_space()
        if self.pos >= len(self.text) or self.text[self.pos] not in allowed:
            raise ValueError(f"expected one of {allowed!r} at column {self.pos} in {self.text!r}")
        self.pos += 1
        return self.text[self.pos - 1]

    def end(self) -> None:
        self._skip_space()
        if self.pos != len(self.text):
            raise ValueError(f"unexpected text at column {self.pos} in step {self.text!r}")


def parse_step(step: str) -> ParsedStep:
    """Parse one written step ``"a op b = c"`` (op one of + - * /) into exact Fractions.

    Numbers may be negative (``-4``) or fractions (``8/3``). Only parses; does not check the
    arithmetic. Raises ``TypeError`` if ``step`` is not a str and ``ValueError`` naming ``step``
    if it is malformed.
    """
    if not isinstance(step, str):
        raise TypeError(f"step must be a str, got {type(step).__name__}")
    if len(step) > MAX_DERIVATION_CHARS:
        raise ValueError(f"step must be at most {MAX_DERIVATION_CHARS} characters")
    scanner = _Scanner(step.strip())
    try:
        left = scanner.number()
        op = scanner.symbol("+-*/")
        right = scanner.number()
        scanner.symbol("=")
        result = scanner.number()
        scanner.end()
    except ValueError as err:
        raise ValueError(f"step is malformed: {err}") from None
    return ParsedStep(left, op, right, result)


def apply_op(left: Fraction, op: str, right: Fraction) -> Fraction | None:
    """Exact ``left op right`` for op in ``+ - * /``; ``None`` for a division by zero.

    ``left`` and ``right`` are exact numbers (``int`` or ``Fraction``): ``apply_op("2", "+",
    "2")`` is refused, not ``"22"``.
    """
    for name, value in (("left", left), ("right", right)):
        if isinstance(value, bool) or not isinstance(value, Rational):
            raise TypeError(f"{name} must be an int or Fraction, got {type(value).__name__}")
    if not isinstance(op, str):
        raise TypeError(f"op must be one of {_OPS}, got {type(op).__name__}")
    if op not in _OPS:
        raise ValueError(f"op must be one of {_OPS}, got {op!r}")
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if right == 0:
        return None
    return left / right


def check_derivation(derivation: str, numbers: Sequence[int] | None = None) -> bool:
    """Is ``derivation`` a correct Game-of-24 solution? Parsed and checked exactly, never eval'd.

    The derivation is steps ``"a op b = c"`` separated by ``;``. It is correct iff every step
    parses, its arithmetic is exact (Fractions; division by zero fails), its two operands are
    available in the current multiset, and the derivation ends with exactly one number, 24.

    With ``numbers`` (a puzzle: four integers in 1..13) the starting multiset is that puzzle, so
    each starting number is used exactly once. Without it, the starting numbers are inferred: an
    operand not produced by an earlier (still unused) step result is a starting number.

    Anything malformed, hostile or longer than :data:`MAX_DERIVATION_CHARS` gives ``False``; only
    a non-str ``derivation`` (``TypeError``) or an invalid ``numbers`` raises.
    """
    if not isinstance(derivation, str):
        raise TypeError(f"derivation must be a str, got {type(derivation).__name__}")
    pool = None if numbers is None else list(puzzle_state(numbers))
    if len(derivation) > MAX_DERIVATION_CHARS:
        return False
    texts = derivation.split(";")
    if not derivation.strip():
        return False
    produced: list[Fraction] = []  # results of earlier steps not yet consumed
    for text in texts:
        try:
            step = parse_step(text)
        except ValueError:
            return False
        if apply_op(step.left, step.op, step.right) != step.result:
            return False
        for operand in (step.left, step.right):
            if pool is not None:
                if operand not in pool:
                    return False
                pool.remove(operand)
            elif operand in produced:
                produced.remove(operand)
            # else: an inferred starting number
        if pool is not None:
            pool.append(step.result)
        else:
            produced.append(step.result)
    final = pool if pool is not None else produced
    return final == [TARGET]


def evaluates_to_24(derivation: str) -> bool:
    """Does the text derivation land on exactly 24? :func:`check_derivation`, numbers inferred."""
    return check_derivation(derivation)


# --------------------------------------------------------------------------------------------
# Puzzles and the beam-width sweep
# --------------------------------------------------------------------------------------------


def load_puzzles(path: str | Path | None = None) -> list[dict]:
    """The shipped universe of puzzles, ``data/game24.json`` (written by
    ``scripts/make_game24_data.py``): a list of ``{"numbers", "solvable", "solution"}``."""
    data = _read_json(_data_path("path", path, DATA_PATH))
    if not isinstance(data, dict) or not isinstance(data.get("puzzles"), list):
        raise ValueError(f"path {path} holds no 'puzzles' list")
    return data["puzzles"]


def _read_json(path: Path):
    with open(path, encoding="utf-8") as fh:
        try:
            return json.load(fh)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
            raise ValueError(f"path {path} is not a JSON file: {err}") from None


def _data_path(name: str, path: object, default: Path) -> Path:
    if path is None:
        return default
    if not isinstance(path, (str, Path)):
        raise TypeError(f"{name} must be a str, Path or None, got {type(path).__name__}")
    return Path(path)


def load_beam_sweep(path: str | Path | None = None) -> dict:
    """The recorded beam-width sweep over every solvable puzzle, ``data/beam_sweep.json``.

    Written by ``scripts/make_beam_sweep.py`` (54,480 searches, too slow for a chapter):
    ``{"beam_widths", "error_rates", "salt", "count", "summary", "puzzles"}``, where ``summary``
    holds :func:`solve_rate_sweep` records over all ``count`` puzzles and ``puzzles[k]["solved"]
    [i][j]`` is 1 if puzzle k was solved at ``error_rates[i]`` and ``beam_widths[j]``.
    """
    data = _read_json(_data_path("path", path, BEAM_SWEEP_PATH))
    if not isinstance(data, dict):
        raise ValueError(f"path {path} holds no beam-sweep record")
    return data


def demo_puzzles(n: int = 20, seed: int = 0) -> list[list[int]]:
    """``n`` solvable puzzles drawn without replacement by ``random.Random(seed)`` from the data,
    returned in the data's (sorted) order."""
    n = require_int("n", n)
    seed = require_seed("seed", seed)
    solvable = [p["numbers"] for p in load_puzzles() if p["solvable"]]
    if not 1 <= n <= len(solvable):
        raise ValueError(f"n must be in 1..{len(solvable)}, got {n}")
    picked = sorted(random.Random(seed).sample(range(len(solvable)), n))
    return [list(solvable[i]) for i in picked]


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
    starts = []  # validated once, not once per search
    for i, p in enumerate(puzzles):
        try:
            starts.append(puzzle_state(p))
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
        for k, start in enumerate(starts):
            for b, levels, calls in _beam_search(_key(start), widths, judge, batch=False):
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
