"""Tree of Thoughts on the Game of 24, from scratch, with exact arithmetic.

Game of 24: given four numbers, combine them with + - * / (each used exactly once) to make 24.

- A *state* is the multiset of numbers still in play, kept as a sorted tuple of
  ``fractions.Fraction`` so that ``8 / 3`` stays exactly ``8/3`` and never drifts.
- A *thought* (a :class:`Step`) combines two numbers of the state into one.
- Three thoughts take four numbers to one; the puzzle is won if that number is exactly 24.

The search (Yao et al., 2023) is: propose every next thought, score each resulting state with an
*evaluator* V(state) in [0, 1], keep the best few (BFS with a beam of width b) or go deep and
backtrack when V falls below a threshold (DFS). Chain-of-thought is the b = 1 special case.

The exact oracle :func:`state_is_solvable` is a perfect evaluator -- it answers by running the
whole search internally. :func:`noisy_evaluator` models a real (LLM) judge by giving up,
deterministically, on a fraction of winnable states: its false negatives are what a wider beam
buys robustness against.

Derivations are plain text, ``"9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24"``, and are checked by
a small hand-written parser (:func:`parse_step`, :func:`check_derivation`) -- never ``eval``.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from numbers import Real
from pathlib import Path

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


# --------------------------------------------------------------------------------------------
# States and thoughts
# --------------------------------------------------------------------------------------------


def _to_state(numbers: Sequence[int | Fraction], name: str = "numbers") -> State:
    """Canonical state: the numbers as a sorted tuple of Fractions (a multiset).

    Accepts 1 to 4 numbers, each an ``int`` or a ``Fraction`` (``bool``, ``float`` and ``str``
    are refused: floats are not exact). Raises ``TypeError`` / ``ValueError`` naming the argument
    (``name``).
    """
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
    return _to_state(numbers)


def _fmt(x: Fraction) -> str:
    """``Fraction(8, 3) -> '8/3'``, ``Fraction(-4) -> '-4'``."""
    return str(x)


@dataclass(frozen=True)
class Step:
    """One thought: ``expr`` such as ``"4 + 9 = 13"`` and the ``state`` it leaves behind."""

    expr: str
    state: State


def _combine(a: Fraction, b: Fraction) -> list[tuple[Fraction, str, Fraction, Fraction]]:
    """The six moves on a pair, in the book's order: a+b, a*b, a-b, b-a, a/b, b/a.

    Each move is ``(left, op, right, result)``; a division by zero is skipped.
    """
    moves = [(a, "+", b, a + b), (a, "*", b, a * b), (a, "-", b, a - b), (b, "-", a, b - a)]
    if b != 0:
        moves.append((a, "/", b, a / b))
    if a != 0:
        moves.append((b, "/", a, b / a))
    return moves


def _moves(state: State) -> list[tuple[Fraction, str, Fraction, Fraction, State]]:
    """Every legal move from ``state``: for each pair i < j (state order), the six combinations.

    Returns ``(left, op, right, result, new_state)`` with ``new_state`` sorted.
    """
    out = []
    n = len(state)
    for i in range(n):
        for j in range(i + 1, n):
            rest = state[:i] + state[i + 1 : j] + state[j + 1 :]
            for left, op, right, value in _combine(state[i], state[j]):
                out.append((left, op, right, value, tuple(sorted(rest + (value,)))))
    return out


def propose_steps(state: Sequence[int | Fraction]) -> list[Step]:
    """The thought generator: every legal next move from ``state``, in a fixed order.

    For each pair ``(a, b)`` at positions i < j of the (sorted) state, in this order:
    ``a + b``, ``a * b``, ``a - b``, ``b - a``, ``a / b``, ``b / a`` (divisions by zero skipped).
    A 4-number state with no zeros therefore has 6 pairs x 6 = 36 thoughts.
    """
    canon = _to_state(state, "state")
    return [
        Step(f"{_fmt(left)} {op} {_fmt(right)} = {_fmt(value)}", new_state)
        for left, op, right, value, new_state in _moves(canon)
    ]


def apply_step(state: Sequence[int | Fraction], step: str) -> State:
    """Apply a written step ``"a op b = c"`` to ``state`` and return the new state.

    Raises ``ValueError`` (naming ``step``) if the step is malformed, its arithmetic is not exact,
    or its operands are not both available in the multiset ``state``.
    """
    canon = list(_to_state(state, "state"))
    parsed = parse_step(step)
    if apply_op(parsed.left, parsed.op, parsed.right) != parsed.result:
        raise ValueError(f"step arithmetic is wrong: {step!r}")
    for operand in (parsed.left, parsed.right):
        if operand not in canon:
            raise ValueError(f"step uses {_fmt(operand)}, which is not available in the state")
        canon.remove(operand)
    return tuple(sorted([*canon, parsed.result]))


# --------------------------------------------------------------------------------------------
# The oracle and the evaluators
# --------------------------------------------------------------------------------------------


@cache  # functools.cache == lru_cache(maxsize=None), keyed on the canonical state
def _solvable(state: State) -> bool:
    """Exhaustive, memoised: can the canonical ``state`` still reach exactly 24?"""
    if len(state) == 1:
        return state[0] == TARGET
    return any(_solvable(move[4]) for move in _moves(state))


def state_is_solvable(state: Sequence[int | Fraction]) -> bool:
    """The exact oracle on any Game-of-24 state (1 to 4 ints/Fractions): is 24 still reachable?"""
    return _solvable(_to_state(state, "state"))


def is_solvable(numbers: Sequence[int]) -> bool:
    """Is the puzzle ``numbers`` (four integers in 1..13) solvable? Exhaustive and memoised."""
    return _solvable(puzzle_state(numbers))


def oracle_evaluator(state: Sequence[int | Fraction]) -> float:
    """The perfect state evaluator: 1.0 if 24 is still reachable from ``state``, else 0.0.

    An exhaustive look-ahead (it runs the whole remaining search), memoised per state.
    """
    return 1.0 if state_is_solvable(state) else 0.0


def stable_unit(key: str) -> float:
    """A stable pseudo-uniform number in [0, 1) from the text ``key``.

    SHA-256 of the key, first 8 bytes as an integer / 2**64. Unlike Python's per-process
    randomised ``hash``, it is identical on every run and machine.
    """
    if not isinstance(key, str):
        raise TypeError(f"key must be a str, got {type(key).__name__}")
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def _unit_hash(state: State, salt: int) -> float:
    """:func:`stable_unit` of the canonical state and ``salt``."""
    return stable_unit(f"{salt}|" + ",".join(_fmt(x) for x in state))


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

    def evaluate(state: Sequence[int | Fraction]) -> float:
        canon = _to_state(state, "state")
        if not _solvable(canon):
            return 0.0
        return 0.0 if _unit_hash(canon, salt) < rate else 1.0

    evaluate.__name__ = f"noisy_evaluator_{rate}_{salt}"
    return evaluate


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

    @property
    def expr(self) -> str:
        """The derivation as text, steps joined by ``"; "``."""
        return "; ".join(step.expr for step in self.steps)


def _check_evaluator(evaluator: object) -> None:
    if not callable(evaluator):
        raise TypeError(f"evaluator must be callable, got {type(evaluator).__name__}")


def _check_beam_width(beam_width: object) -> int:
    if isinstance(beam_width, bool) or not isinstance(beam_width, int):
        raise TypeError(f"beam_width must be an int, got {beam_width!r}")
    if beam_width < 1:
        raise ValueError(f"beam_width must be >= 1, got {beam_width}")
    return beam_width


def _as_score(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"evaluator must return a number, got {value!r}")
    if not math.isfinite(float(value)):
        raise ValueError(f"evaluator must return a finite number, got {value!r}")
    return float(value)


def _score_all(evaluator: Callable, states: list[State], batch: bool) -> list[float]:
    """Score the candidate states: one call per state, or one call on the whole list."""
    if not batch:
        return [_as_score(evaluator(s)) for s in states]
    scores = list(evaluator(list(states)))
    if len(scores) != len(states):
        raise ValueError(
            f"evaluator (batch=True) must return one score per state: "
            f"got {len(scores)} for {len(states)}"
        )
    return [_as_score(s) for s in scores]


@dataclass
class _Node:
    id: int
    parent: int | None
    step: Step | None
    state: State
    path: tuple[Step, ...]
    score: float | None = None
    kept: bool = False


def _beam_search(
    numbers: Sequence[int], beam_width: int, evaluator: Callable, batch: bool
) -> tuple[Solution | None, list[list[_Node]]]:
    """The BFS core shared by :func:`bfs_search` and :func:`bfs_trace`.

    Levels 1 and 2 (the beam levels): expand every beam state (beam order, then proposal order).
    Children that reach the *same* state are merged -- with ``merged[state] = child``, so a state
    keeps the position of its first proposal but the path of its latest one. Score each distinct
    state, sort by score descending with a *stable* sort (ties keep that order) and keep the top
    ``beam_width``. This tie-breaking is the book's: it is what prints
    ``9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24`` for (4, 9, 10, 13) with a beam of 5.

    Level 3 (one number left): nothing is judged -- 24 is checked exactly, and the first child
    in proposal order equal to 24 is the solution (its recorded score is that exact check).
    """
    start = puzzle_state(numbers)
    _check_beam_width(beam_width)
    _check_evaluator(evaluator)
    root = _Node(0, None, None, start, (), None, True)
    levels: list[list[_Node]] = [[root]]
    beam = [root]
    next_id = 1
    calls = 0
    for depth in range(1, len(start)):
        last = depth == len(start) - 1
        proposals = [(parent, step) for parent in beam for step in propose_steps(parent.state)]
        if not last:
            merged: dict[State, tuple[_Node, Step]] = {}
            for parent, step in proposals:
                merged[step.state] = (parent, step)  # first position, latest path
            proposals = list(merged.values())
        children = []
        for parent, step in proposals:
            children.append(_Node(next_id, parent.id, step, step.state, parent.path + (step,)))
            next_id += 1
        levels.append(children)
        if last:
            for child in children:
                child.score = 1.0 if child.state == (TARGET,) else 0.0
            winner = next((c for c in children if c.score == 1.0), None)
            if winner is None:
                return None, levels
            winner.kept = True
            return Solution(tuple(int(x) for x in start), list(winner.path), calls), levels
        scores = _score_all(evaluator, [c.state for c in children], batch)
        calls += 1 if batch else len(children)
        for child, score in zip(children, scores, strict=True):
            child.score = score
        beam = sorted(children, key=lambda c: -c.score)[:beam_width]  # stable sort
        for child in beam:
            child.kept = True
    return None, levels  # pragma: no cover - the loop always returns at the last level


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
    solution, _ = _beam_search(numbers, beam_width, evaluator, batch)
    return solution


def chain_of_thought(
    numbers: Sequence[int], evaluator: Callable, *, batch: bool = False
) -> Solution | None:
    """Chain-of-thought as search: a greedy chain, i.e. :func:`bfs_search` with beam width 1."""
    return bfs_search(numbers, 1, evaluator, batch=batch)


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
    solution, levels = _beam_search(numbers, beam_width, evaluator, batch)
    on_path: set[int] = set()
    if solution is not None:
        by_id = {node.id: node for level in levels for node in level}
        node = next(n for n in levels[-1] if n.kept)
        while node is not None:
            on_path.add(node.id)
            node = by_id.get(node.parent) if node.parent is not None else None
    return {
        "numbers": [int(x) for x in levels[0][0].state],
        "beam_width": beam_width,
        "solution": None if solution is None else solution.expr,
        "levels": [
            [
                {
                    "id": node.id,
                    "parent": node.parent,
                    "expr": "" if node.step is None else node.step.expr,
                    "state": [_fmt(x) for x in node.state],
                    "score": None if node.score is None else float(node.score),
                    "kept": bool(node.kept),
                    "solved": node.state == (TARGET,),
                    "on_path": node.id in on_path,
                }
                for node in level
            ]
            for level in levels
        ],
    }


def dfs_search(
    numbers: Sequence[int], evaluator: Callable, threshold: float = 0.5
) -> Solution | None:
    """Depth-first Tree-of-Thoughts search with backtracking.

    Try the thoughts in proposal order; a child whose one remaining number is 24 wins at once;
    any other child is explored only if ``evaluator(child) >= threshold``, and if its subtree
    fails the search backtracks to the next thought. Returns the first derivation found, or None.
    """
    start = puzzle_state(numbers)
    _check_evaluator(evaluator)
    if isinstance(threshold, bool) or not isinstance(threshold, Real):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    calls = 0

    def visit(state: State, path: tuple[Step, ...]) -> tuple[Step, ...] | None:
        nonlocal calls
        for step in propose_steps(state):
            if len(step.state) == 1:
                if step.state[0] == TARGET:
                    return path + (step,)
                continue
            calls += 1
            if _as_score(evaluator(step.state)) >= threshold:
                found = visit(step.state, path + (step,))
                if found is not None:
                    return found
        return None

    path = visit(start, ())
    if path is None:
        return None
    return Solution(tuple(int(x) for x in start), list(path), calls)


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
    """Exact ``left op right`` for op in ``+ - * /``; ``None`` for a division by zero."""
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
    with open(DATA_PATH if path is None else Path(path), encoding="utf-8") as fh:
        return json.load(fh)["puzzles"]


def load_beam_sweep(path: str | Path | None = None) -> dict:
    """The recorded beam-width sweep over every solvable puzzle, ``data/beam_sweep.json``.

    Written by ``scripts/make_beam_sweep.py`` (minutes of search, too slow for a chapter):
    ``{"beam_widths", "error_rates", "salt", "count", "summary", "puzzles"}``, where ``summary``
    holds :func:`solve_rate_sweep` records over all ``count`` puzzles and ``puzzles[k]["solved"]
    [i][j]`` is 1 if puzzle k was solved at ``error_rates[i]`` and ``beam_widths[j]``.
    """
    with open(BEAM_SWEEP_PATH if path is None else Path(path), encoding="utf-8") as fh:
        return json.load(fh)


def demo_puzzles(n: int = 20, seed: int = 0) -> list[list[int]]:
    """``n`` solvable puzzles drawn without replacement by ``random.Random(seed)`` from the data,
    returned in the data's (sorted) order."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an int, got {n!r}")
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
    also checked with :func:`check_derivation`.
    """
    puzzles = [list(p) for p in puzzles]
    if not puzzles:
        raise ValueError("puzzles must not be empty")
    for p in puzzles:
        puzzle_state(p)
    records = []
    for rate in error_rates:
        judge = oracle_evaluator if rate == 0 else noisy_evaluator(rate, salt)
        for b in beam_widths:
            solved = 0
            for p in puzzles:
                sol = bfs_search(p, b, judge)
                if sol is not None and check_derivation(sol.expr, p):
                    solved += 1
            records.append(
                {
                    "beam_width": int(b),
                    "error_rate": float(rate),
                    "solve_rate": solved / len(puzzles),
                    "solved": solved,
                    "total": len(puzzles),
                }
            )
    return records


def demonstrate_tree_of_thoughts(seed: int = 0, verbose: bool = False) -> dict:
    """JSON-able bundle for the chapter: the beam-width sweep on :func:`demo_puzzles` and one
    recorded search tree on (4, 9, 10, 13) under a noisy judge (error rate 0.5)."""
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
