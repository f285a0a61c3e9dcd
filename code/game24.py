"""The Game of 24, from scratch, with exact arithmetic: states, thoughts, the exact solver, the
derivation checker and the shipped puzzles. The search over it is ``tree_of_thoughts.py``.

Game of 24: given four numbers, combine them with + - * / (each used exactly once) to make 24.

- A *state* is the multiset of numbers still in play, kept as a sorted tuple of
  ``fractions.Fraction`` so that ``8 / 3`` stays exactly ``8/3`` and never drifts.
- A *thought* (a :class:`Step`) combines two numbers of the state into one.
- Three thoughts take four numbers to one; the puzzle is won if that number is exactly 24.

:func:`state_is_solvable` answers exactly whether 24 can still be reached, by trying every way
the remaining numbers can be combined; :func:`solve` follows it to one derivation.

Inside, a number is an exact integer pair ``(numerator, denominator)`` in lowest terms (what a
Fraction keeps, without its per-operation cost) and a state is a :data:`Key`, its numbers as such
pairs. A state's thoughts and its verdict are memoised: a search meets the same states again and
again. The ``key_*`` functions hand that fast form to the search (``tree_of_thoughts``); each
checks a key the first time it sees it. :func:`clear_caches` forgets every memo (answers never
change, only speed).

Derivations are plain text, ``"9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24"``, and are checked by
a small hand-written parser (:func:`parse_step`, :func:`check_derivation`) -- never ``eval``.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from numbers import Rational
from pathlib import Path

from checks import (
    require_arg_name,
    require_instance,
    require_int,
    require_path,
    require_seed,
    require_str,
)
from data_paths import GAME24_PATH, read_json

__all__ = [
    "TARGET",
    "TARGET_KEY",
    "MAX_DERIVATION_CHARS",
    "Step",
    "Solution",
    "ParsedStep",
    "to_state",
    "puzzle_state",
    "propose_steps",
    "apply_step",
    "apply_op",
    "state_key",
    "key_state",
    "key_thoughts",
    "key_is_solvable",
    "state_is_solvable",
    "is_solvable",
    "solve",
    "parse_step",
    "exact_step",
    "check_derivation",
    "evaluates_to_24",
    "load_puzzles",
    "PUZZLE_COUNT",
    "SOLVABLE_COUNT",
    "puzzle_dataset",
    "render_puzzle_dataset",
    "demo_puzzles",
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

Num = tuple[int, int]
"""An exact number inside the module: ``(n, d)`` is n/d in lowest terms with d > 0."""
Key = tuple[Num, ...]
"""A canonical state in the fast form: its numbers as :data:`Num` s, sorted by value."""
TARGET_KEY: Key = ((24, 1),)
"""The won state, (24,), as a :data:`Key`."""

_MEMOS: list = []  # every memo table in the module, for clear_caches()


def _memo(fn: Callable) -> Callable:
    """``functools.cache``, registered so that :func:`clear_caches` can empty it."""
    memo = cache(fn)
    _MEMOS.append(memo)
    return memo


def _check_key(key: object) -> Key:
    """``key`` itself if it is a :data:`Key`: a tuple of 1 to 4 ``(n, d)`` int pairs in lowest
    terms with d > 0, sorted by value. Otherwise ``TypeError`` / ``ValueError`` naming ``key``."""
    if not isinstance(key, tuple):
        raise TypeError(f"key must be a tuple of (n, d) pairs, got {type(key).__name__}")
    if not 1 <= len(key) <= _MAX_STATE_SIZE:
        raise ValueError(f"key must hold 1 to {_MAX_STATE_SIZE} numbers, got {len(key)}")
    for x in key:
        if not (
            isinstance(x, tuple)
            and len(x) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in x)
        ):
            raise TypeError(f"key must hold (n, d) pairs of ints, got a {type(x).__name__}")
        if x[1] <= 0 or math.gcd(*x) != 1:
            raise ValueError("key must hold numbers in lowest terms with a denominator > 0")
    # p/q <= r/s exactly when ps <= rq, because both denominators are positive
    if any(p * s > r * q for (p, q), (r, s) in itertools.pairwise(key)):
        raise ValueError("key must list its numbers sorted by value")
    return key


class _KeyMemo(dict):
    """A memo ``key -> value`` behind a public ``key_*`` function: a key is checked the first
    time it is looked up (a miss) and never again, so a hit costs one dict lookup."""

    def __init__(self, compute: Callable[[Key], object]) -> None:
        super().__init__()
        self.compute = compute
        _MEMOS.append(self)

    def __missing__(self, key: Key) -> object:
        self[key] = value = self.compute(_check_key(key))
        return value

    def lookup(self, key: object) -> object:
        """``self[key]``; an unhashable ``key`` (never a valid one) is refused by name."""
        try:
            return self[key]
        except TypeError:
            _check_key(key)  # raises, naming key, unless the TypeError came from compute
            raise

    def cache_clear(self) -> None:
        self.clear()


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


def state_key(state: Sequence[int | Fraction]) -> Key:
    """The fast form of a state (1 to 4 ints/Fractions): ``[13, Fraction(8, 3)] -> ((8, 3),
    (13, 1))``, its numbers as exact ``(numerator, denominator)`` pairs sorted by value.

    Raises ``TypeError`` / ``ValueError`` naming ``state``. :func:`key_state` is its inverse.
    """
    return _key(to_state(state, "state"))


_STATES = _KeyMemo(lambda key: tuple(Fraction(n, d) for n, d in key))


def key_state(key: Key) -> State:
    """The public form of a state :data:`Key`: the sorted tuple of Fractions. Memoised.

    Raises ``TypeError`` / ``ValueError`` naming ``key`` if it is not a :data:`Key`.
    """
    return _STATES.lookup(key)


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


def _thoughts(key: Key) -> tuple[tuple[str, Key], ...]:
    """Every legal move from a state, as ``(expr, child key)``, in :func:`propose_steps` order."""
    out = []
    for i, j in itertools.combinations(range(len(key)), 2):
        rest = key[:i] + key[i + 1 : j] + key[j + 1 :]
        for left, op, right, value in _combine(key[i], key[j]):
            out.append((f"{_fmt(left)} {op} {_fmt(right)} = {_fmt(value)}", _insert(rest, value)))
    return tuple(out)


_THOUGHTS = _KeyMemo(_thoughts)


def key_thoughts(key: Key) -> tuple[tuple[str, Key], ...]:
    """Every legal move from the state ``key``, as ``(expr, child key)`` pairs, in
    :func:`propose_steps` order: what a search walks. Memoised, since a search visits the same
    states over and over: each state's thoughts are worked out (and formatted) once.

    Raises ``TypeError`` / ``ValueError`` naming ``key`` if it is not a :data:`Key`.
    """
    return _THOUGHTS.lookup(key)


@_memo
def _steps(key: Key) -> tuple[Step, ...]:
    """The thoughts of a state as :class:`Step` s (a tuple, so the memo cannot be mutated)."""
    return tuple(Step(expr, _STATES[child]) for expr, child in _THOUGHTS[key])


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
# The exact oracle
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


def _reaches_24(key: Key) -> bool:
    """Can the state ``key`` still reach exactly 24? Exhaustive (over cuts)."""
    if len(key) == 1:
        return key == TARGET_KEY
    return any(
        not _partners(a).isdisjoint(_values(rest))
        for part, rest in _cuts(key)
        for a in _values(part)
    )


_VERDICTS = _KeyMemo(_reaches_24)  # keyed on the canonical state


def key_is_solvable(key: Key) -> bool:
    """The exact oracle on a state :data:`Key`: is 24 still reachable? Exhaustive, memoised.

    Raises ``TypeError`` / ``ValueError`` naming ``key`` if it is not a :data:`Key`.
    """
    return _VERDICTS.lookup(key)


def state_is_solvable(state: Sequence[int | Fraction]) -> bool:
    """The exact oracle on any Game-of-24 state (1 to 4 ints/Fractions): is 24 still reachable?"""
    return _VERDICTS[_key(to_state(state, "state"))]


def is_solvable(numbers: Sequence[int]) -> bool:
    """Is the puzzle ``numbers`` (four integers in 1..13) solvable? Exhaustive and memoised."""
    return _VERDICTS[_key(puzzle_state(numbers))]


# --------------------------------------------------------------------------------------------
# The exact solver
#
# With a perfect oracle a depth-first search never has to back up: from a winnable state some
# thought leads to a winnable state, so the first such thought (in proposal order) is always
# a right one. ``tree_of_thoughts.dfs_search`` guided by its oracle judge returns exactly this
# derivation, and asks the oracle about exactly the same states.
# --------------------------------------------------------------------------------------------


@dataclass
class Solution:
    """A derivation that reaches 24: the starting ``numbers`` and the three :class:`Step` s."""

    numbers: tuple[int, ...]
    steps: list[Step] = field(default_factory=list)
    evaluations: int = 0
    """How many states the solver or search asked its judge about (a proxy for test-time
    compute)."""

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


def solve(numbers: Sequence[int]) -> Solution | None:
    """The reference solver: one derivation of the puzzle ``numbers``, or None if it has none.

    At each state take the first thought, in proposal order, whose state is still winnable (or
    is exactly 24). ``evaluations`` counts the unfinished states the oracle was asked about, as
    a depth-first search with the oracle as its judge would. Raises naming ``numbers``.
    """
    start = puzzle_state(numbers)
    key = _key(start)
    if not _VERDICTS[key]:
        return None
    steps, asked = [], 0
    while len(key) > 1:
        for expr, child in _THOUGHTS[key]:  # a winnable state has a winnable child
            asked += len(child) > 1  # a finished state is checked, not judged
            if _VERDICTS[child]:
                steps.append(Step(expr, _STATES[child]))
                break
        key = child
    return Solution(tuple(int(x) for x in start), steps, asked)


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


def exact_step(step: str) -> ParsedStep | None:
    """``step`` parsed, if it parses and its arithmetic is exact (``a op b`` really is ``c``);
    ``None`` otherwise. The one test of a single step that the derivation checker and the
    process-reward oracle (``prm.step_is_valid``) share."""
    if not isinstance(step, str):
        raise TypeError(f"step must be a str, got {type(step).__name__}")
    try:
        parsed = parse_step(step)
    except ValueError:
        return None
    return parsed if apply_op(parsed.left, parsed.op, parsed.right) == parsed.result else None


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
        step = exact_step(text)
        if step is None:
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
# The puzzles
# --------------------------------------------------------------------------------------------


def load_puzzles(path: str | Path | None = None) -> list[dict]:
    """The shipped universe of puzzles, ``data/game24.json`` (written by the ``game24`` job of
    ``scripts/make_data.py``): a list of ``{"numbers", "solvable", "solution"}``."""
    source = _data_path("path", path, GAME24_PATH)
    data = read_json(source)
    if not isinstance(data, dict) or not isinstance(data.get("puzzles"), list):
        raise ValueError(f"path {source} holds no 'puzzles' list")
    puzzles = data["puzzles"]
    if not puzzles:
        raise ValueError(f"path {source}: puzzles is empty")
    for i, p in enumerate(puzzles):  # every item, so a caller never meets a hollow one later
        where = f"path {source}: puzzles[{i}]"
        if not isinstance(p, dict) or set(p) != {"numbers", "solvable", "solution"}:
            raise ValueError(f"{where} must have exactly the keys numbers, solvable, solution")
        numbers, solvable, solution = p["numbers"], p["solvable"], p["solution"]
        if not (
            isinstance(numbers, list)
            and len(numbers) == 4
            and all(type(x) is int and 1 <= x <= 13 for x in numbers)
        ):
            raise ValueError(f"{where}.numbers must be four ints in 1..13, got {numbers!r:.60}")
        if not isinstance(solvable, bool):
            raise ValueError(f"{where}.solvable must be a bool, got {solvable!r:.40}")
        if solvable != isinstance(solution, str) or not (solution is None or solution):
            raise ValueError(
                f"{where}.solution must be a derivation when solvable and null otherwise, "
                f"got {solution!r:.60}"
            )
    return puzzles


def _data_path(name: str, path: object, default: Path) -> Path:
    if path is None:
        return default
    return require_path(name, path)


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


PUZZLE_COUNT = math.comb(_PUZZLE_MAX - _PUZZLE_MIN + _PUZZLE_SIZE, _PUZZLE_SIZE)
"""Puzzles in the universe: multisets of four numbers from 1 to 13, C(13 + 4 - 1, 4) = 1820."""

SOLVABLE_COUNT = 1362
"""How many of them reach 24 (the known count); :func:`puzzle_dataset` refuses to disagree."""

_DATA_SCRIPT = "scripts/make_data.py --jobs game24"  # the job of data_jobs that writes it


def puzzle_dataset(limit: int | None = None) -> dict:
    """What ``data/game24.json`` holds: every puzzle, in lexicographic order, with its verdict.

    Each puzzle is recorded with :func:`is_solvable` (the exhaustive oracle) and one derivation
    from :func:`solve`, or ``None``: ``{"generated_by", "count", "solvable_count", "puzzles"}``.
    The solver and the oracle must agree and every derivation must pass
    :func:`check_derivation`, and the full universe must hold :data:`SOLVABLE_COUNT` solvable
    puzzles; otherwise ``RuntimeError``. ``limit`` keeps only the first ``limit`` puzzles (a
    quick look; the file holds all :data:`PUZZLE_COUNT`). :func:`render_puzzle_dataset` gives
    the file's text.
    """
    if limit is not None:
        limit = require_int("limit", limit, low=1, high=PUZZLE_COUNT)
    universe = itertools.combinations_with_replacement(
        range(_PUZZLE_MIN, _PUZZLE_MAX + 1), _PUZZLE_SIZE
    )
    puzzles = []
    for combo in itertools.islice(universe, limit):
        numbers = list(combo)
        solution = solve(numbers)
        solvable = is_solvable(numbers)
        if (solution is not None) != solvable:
            raise RuntimeError(f"solver and oracle disagree on {numbers}")
        if solution is not None and not check_derivation(solution.expr, numbers):
            raise RuntimeError(f"unsound derivation for {numbers}: {solution.expr}")
        puzzles.append(
            {
                "numbers": numbers,
                "solvable": solvable,
                "solution": None if solution is None else solution.expr,
            }
        )
    solvable_count = sum(p["solvable"] for p in puzzles)
    if limit is None and solvable_count != SOLVABLE_COUNT:
        raise RuntimeError(f"expected {SOLVABLE_COUNT} solvable puzzles, found {solvable_count}")
    return {
        "generated_by": _DATA_SCRIPT,
        "count": len(puzzles),
        "solvable_count": solvable_count,
        "puzzles": puzzles,
    }


def render_puzzle_dataset(dataset: dict) -> str:
    """The text of ``data/game24.json`` for a :func:`puzzle_dataset`: JSON with sorted keys,
    kept compact and diff-friendly, one puzzle per line."""
    dataset = require_instance("dataset", dataset, dict)
    if set(dataset) != {"generated_by", "count", "solvable_count", "puzzles"}:
        raise ValueError(f"dataset must be a puzzle_dataset() record, got keys {list(dataset)}")
    fields = []
    for key in sorted(dataset):
        if key == "puzzles":
            rows = ",\n".join(f"    {json.dumps(p, sort_keys=True)}" for p in dataset[key])
            fields.append(f'  "puzzles": [\n{rows}\n  ]')
        else:
            fields.append(f"  {json.dumps(key)}: {json.dumps(dataset[key])}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def clear_caches() -> None:
    """Forget everything memoised -- thoughts, states, oracle verdicts, value sets.

    Answers never depend on the caches, only speed does; the benchmark calls
    ``tree_of_thoughts.clear_caches`` (which calls this) to time a cold start.
    """
    for memo in _MEMOS:
        memo.cache_clear()
