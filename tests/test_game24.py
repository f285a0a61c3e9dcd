"""Tests for code/game24.py: the seed's printed figures, the exact oracle and solver against an
independent brute force over the whole universe of 1820 puzzles, the data file, the state keys,
the parser under hostile input, bad input."""

from __future__ import annotations

import json
import math
import time
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import game24
from conftest import GAME24_UNIVERSE as UNIVERSE
from conftest import game24_level_one_states
from data_paths import GAME24_PATH
from game24 import (
    MAX_DERIVATION_CHARS,
    TARGET_KEY,
    Step,
    apply_step,
    check_derivation,
    demo_puzzles,
    evaluates_to_24,
    is_solvable,
    key_is_solvable,
    key_state,
    key_thoughts,
    load_puzzles,
    parse_step,
    propose_steps,
    puzzle_state,
    solve,
    state_is_solvable,
    state_key,
    to_state,
)

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------
# An independent brute-force solver: expression trees by splitting the multiset in two.
# It shares nothing with propose_steps / _solvable.
# ------------------------------------------------------------------------------------------


@cache
def _values(numbers: tuple[int, ...]) -> frozenset[Fraction]:
    """Every value an expression over the multiset ``numbers`` (each used once) can take."""
    if len(numbers) == 1:
        return frozenset({Fraction(numbers[0])})
    out: set[Fraction] = set()
    n = len(numbers)
    for mask in range(1, 2 ** (n - 1)):  # the last number always on the right: no mirror splits
        left = tuple(numbers[i] for i in range(n) if mask >> i & 1)
        right = tuple(numbers[i] for i in range(n) if not mask >> i & 1)
        for a in _values(left):
            for b in _values(right):
                out.update((a + b, a * b, a - b, b - a))
                if b:
                    out.add(a / b)
                if a:
                    out.add(b / a)
    return frozenset(out)


def brute_force_solvable(numbers: list[int]) -> bool:
    """24 among the values: for each split (A, B) and each value a of A, is the partner b that
    would make ``a op b`` or ``b op a`` equal 24 a value of B?"""
    t = Fraction(24)
    ns = tuple(sorted(numbers))
    n = len(ns)
    for mask in range(1, 2 ** (n - 1)):
        left = _values(tuple(ns[i] for i in range(n) if mask >> i & 1))
        right = _values(tuple(ns[i] for i in range(n) if not mask >> i & 1))
        for a in left:
            partners = [t - a, a - t, a + t]  # a + b, a - b, b - a
            if a:
                partners += [t / a, a / t, t * a]  # a * b, a / b, b / a
            if any(p in right for p in partners):
                return True
    return False


@pytest.fixture(scope="module")
def universe() -> list[dict]:
    """Every puzzle with the oracle's verdict and the reference solver's answer."""
    return [
        {"numbers": numbers, "solvable": is_solvable(numbers), "solve": solve(numbers)}
        for numbers in UNIVERSE
    ]


# ------------------------------------------------------------------------------------------
# The seed's printed figures
# ------------------------------------------------------------------------------------------


def test_seed_thought_generator_prints():
    state = to_state([4, 9, 10, 13])
    moves = propose_steps(state)
    assert len(moves) == 36
    lines = [f"  {s.expr:>16}   ->  {tuple(str(x) for x in s.state)}" for s in moves[:4]]
    assert lines == [
        "        4 + 9 = 13   ->  ('10', '13', '13')",
        "        4 * 9 = 36   ->  ('10', '13', '36')",
        "        4 - 9 = -5   ->  ('-5', '10', '13')",
        "         9 - 4 = 5   ->  ('5', '10', '13')",
    ]


def test_seed_oracle():
    assert is_solvable([4, 9, 10, 13]) is True
    assert is_solvable([1, 1, 1, 1]) is False


def test_seed_solve_hard_puzzle():
    hard = solve([3, 3, 8, 8])
    assert hard.expr == "8 / 3 = 8/3; 3 - 8/3 = 1/3; 8 / 1/3 = 24"
    assert check_derivation(hard.expr, [3, 3, 8, 8])
    assert solve([1, 1, 1, 1]) is None


def test_fractions_print_exactly():
    steps = propose_steps([Fraction(8, 3), 3, 8])
    assert "3 - 8/3 = 1/3" in [s.expr for s in steps]
    assert propose_steps([Fraction(1, 3), 8])[-1].expr == "8 / 1/3 = 24"


# ------------------------------------------------------------------------------------------
# The thought generator
# ------------------------------------------------------------------------------------------


def test_branching_factors_exercise_5():
    assert len(propose_steps(to_state([4, 9, 10, 13]))) == 36
    assert len(propose_steps(to_state([4, 10, 13]))) == 18
    assert len(propose_steps(to_state([4, 10]))) == 6
    assert propose_steps(to_state([24])) == []
    assert 36 * 18 * 6 == 3888  # the full tree's leaves


def test_division_by_zero_is_skipped():
    # (0, 5): 0/5 is fine, 5/0 is not proposed.
    exprs = [s.expr for s in propose_steps([0, 5])]
    assert exprs == ["0 + 5 = 5", "0 * 5 = 0", "0 - 5 = -5", "5 - 0 = 5", "0 / 5 = 0"]
    assert len(propose_steps([0, 0])) == 4


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.fractions(min_value=-30, max_value=30, max_denominator=7), min_size=1, max_size=4)
)
def test_every_thought_parses_back_to_its_state(numbers):
    """Generator and parser agree: each proposed expr, replayed by apply_step, gives its state."""
    state = to_state(numbers)
    zeros = sum(x == 0 for x in state)
    pairs = math.comb(len(state), 2)
    steps = propose_steps(state)
    assert len(steps) <= 6 * pairs
    if zeros == 0:
        assert len(steps) == 6 * pairs
    for step in steps:
        assert isinstance(step, Step)
        assert list(step.state) == sorted(step.state)
        assert apply_step(state, step.expr) == step.state


# ------------------------------------------------------------------------------------------
# The whole universe: the oracle, soundness, completeness, the data file
# ------------------------------------------------------------------------------------------


def test_oracle_matches_independent_brute_force(universe):
    assert len(universe) == 1820
    for row in universe:
        assert row["solvable"] == brute_force_solvable(row["numbers"]), row["numbers"]
    assert sum(row["solvable"] for row in universe) == 1362


def _brute_any(numbers) -> bool:
    """brute_force_solvable for any state size: is 24 among the values of the whole multiset?"""
    return Fraction(24) in _values(tuple(sorted(Fraction(x) for x in numbers)))


def _walk_solvable(state: tuple[Fraction, ...]) -> bool:
    """The oracle's definition, thought by thought: some proposed step leads to a winnable
    state (the module's own solver cuts the numbers in two instead of walking the tree)."""
    if len(state) == 1:
        return state[0] == 24
    return any(_walk_solvable(step.state) for step in propose_steps(state))


def test_oracle_on_inner_states_matches_brute_force():
    """The fast solver (integer pairs, cuts, partners) on every 3-number state a puzzle can lead
    to, and on the 2-number states below a sample of them."""
    states = game24_level_one_states()
    assert len(states) > 15_000
    for state in states:
        assert state_is_solvable(state) == _brute_any(list(state)), state
    for state in states[::50]:
        for step in propose_steps(state):
            assert state_is_solvable(step.state) == _brute_any(list(step.state))
            assert state_is_solvable(step.state) == _walk_solvable(step.state)
        assert state_is_solvable(state) == _walk_solvable(state)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.fractions(min_value=-30, max_value=30, max_denominator=9), min_size=1, max_size=4)
)
def test_oracle_on_any_state_matches_brute_force(numbers):
    """Zeros, negatives and fractions too: the partner rules for x = 0 are the tricky part."""
    assert state_is_solvable(numbers) == _brute_any(numbers)
    if len(numbers) <= 3:
        assert state_is_solvable(numbers) == _walk_solvable(to_state(numbers))


@pytest.mark.parametrize(
    "numbers", [[0, 24], [0, 0, 24], [24, 0], [-24, 0, 0], [0, 1, 24], [0, 0, 0, 0], [24]]
)
def test_oracle_with_zeros(numbers):
    assert state_is_solvable(numbers) == _brute_any(numbers)


def test_soundness_every_solution_checks(universe):
    for row in universe:
        sol = row["solve"]
        if sol is not None:
            assert check_derivation(sol.expr, row["numbers"]), (row["numbers"], sol.expr)
            assert evaluates_to_24(sol.expr)
            assert list(sol.numbers) == row["numbers"]
            assert sol.steps[-1].state == (Fraction(24),)


def test_completeness_solve_solves_exactly_the_solvable(universe):
    for row in universe:
        assert (row["solve"] is not None) == row["solvable"], row["numbers"]


def test_data_file_matches_the_solver(universe):
    text = GAME24_PATH.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["generated_by"] == "scripts/make_data.py --jobs game24"
    assert data["count"] == 1820
    assert data["solvable_count"] == 1362
    assert load_puzzles() == data["puzzles"]
    for row, stored in zip(universe, data["puzzles"], strict=True):
        assert stored["numbers"] == row["numbers"]
        assert stored["solvable"] == row["solvable"]
        expected = None if row["solve"] is None else row["solve"].expr
        assert stored["solution"] == expected
    assert (game24.PUZZLE_COUNT, game24.SOLVABLE_COUNT) == (len(UNIVERSE), 1362)
    # Byte for byte what the script writes.
    assert game24.render_puzzle_dataset(game24.puzzle_dataset()) == text


def test_puzzle_dataset_limit_and_bad_input():
    short = game24.puzzle_dataset(limit=3)
    assert short["count"] == 3 and [p["numbers"] for p in short["puzzles"]] == UNIVERSE[:3]
    assert short["solvable_count"] == 0  # 1 1 1 1, 1 1 1 2 and 1 1 1 3 cannot reach 24
    assert json.loads(game24.render_puzzle_dataset(short)) == short
    for bad, error in ((0, ValueError), (1821, ValueError), (True, TypeError), (2.0, TypeError)):
        with pytest.raises(error, match="limit"):
            game24.puzzle_dataset(limit=bad)
    with pytest.raises(TypeError, match="dataset"):
        game24.render_puzzle_dataset([short])
    with pytest.raises(ValueError, match="dataset"):
        game24.render_puzzle_dataset({**short, "extra": 1})


def test_propose_steps_returns_a_fresh_list():
    steps = propose_steps([4, 9, 10, 13])
    steps.clear()
    assert len(propose_steps([4, 9, 10, 13])) == 36


def test_demo_puzzles_deterministic_and_solvable():
    a, b = demo_puzzles(), demo_puzzles()
    assert a == b and len(a) == 20
    assert all(is_solvable(p) for p in a)
    assert len({tuple(p) for p in a}) == 20
    assert demo_puzzles(seed=1) != a
    with pytest.raises(ValueError, match="n"):
        demo_puzzles(0)
    with pytest.raises(TypeError, match="n"):
        demo_puzzles("20")


# ------------------------------------------------------------------------------------------
# The derivation checker: a parser, never eval
# ------------------------------------------------------------------------------------------


def test_parse_step_reads_fractions_and_signs():
    p = parse_step("8 / 1/3 = 24")
    assert (p.left, p.op, p.right, p.result) == (8, "/", Fraction(1, 3), 24)
    p = parse_step("-6 * -4 = 24")
    assert (p.left, p.op, p.right, p.result) == (-6, "*", -4, 24)
    p = parse_step("4-9=-5")
    assert (p.left, p.op, p.right, p.result) == (4, "-", 9, -5)
    assert parse_step("  3 - 8/3 = 1/3 ").result == Fraction(1, 3)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "4 + 9",
        "4 + 9 = ",
        "4 ^ 9 = 13",
        "4 + + 9 = 13",
        "4 + 9 = 13 = 13",
        "1/0 + 1 = 1",
        "four + 9 = 13",
        "4.5 + 1 = 5.5",
        "4 + 9 = 13;",
        "(4 + 9) = 13",
        "٣ + 1 = 4",
    ],
)
def test_parse_step_rejects_malformed(text):
    with pytest.raises(ValueError, match="step"):
        parse_step(text)


def test_parse_step_type_error():
    with pytest.raises(TypeError, match="step"):
        parse_step(24)


@pytest.mark.parametrize(
    ("derivation", "numbers", "expected"),
    [
        ("9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24", [4, 9, 10, 13], True),
        ("9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24", None, True),
        ("4-10=-6;9-13=-4;-6*-4=24", [4, 9, 10, 13], True),
        ("8 / 3 = 8/3; 3 - 8/3 = 1/3; 8 / 1/3 = 24", [8, 3, 8, 3], True),
        # wrong arithmetic
        ("9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 25", None, False),
        ("9 - 13 = -3; 4 - 10 = -6; -6 * -4 = 24", None, False),
        # a number not in the puzzle / used twice / left over
        ("9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24", [4, 9, 10, 12], False),
        ("9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24", [4, 4, 10, 13], False),
        ("4 * 6 = 24", [4, 6, 1, 1], False),
        ("1 * 1 = 1; 4 * 6 = 24", [4, 6, 1, 1], False),
        ("1 * 1 = 1; 1 * 4 = 4; 4 * 6 = 24", [4, 6, 1, 1], True),
        # a result that is never used, without numbers: two numbers left
        ("1 + 1 = 2; 4 * 6 = 24", None, False),
        # ends on a number other than 24
        ("1 + 1 = 2; 2 * 4 = 8; 8 + 6 = 14", [1, 1, 4, 6], False),
        # division by zero, malformed, empty
        ("4 - 4 = 0; 8 / 0 = 24", None, False),
        ("4 + 9 = 13;", None, False),
        ("", None, False),
        (";;;", None, False),
        ("24", None, False),
        ("__import__('os').system('echo pwned')", None, False),
        ("__import__('os')", [4, 9, 10, 13], False),
        ("4 + 9 = 13; exec('x')", None, False),
    ],
)
def test_check_derivation_cases(derivation, numbers, expected):
    assert check_derivation(derivation, numbers) is expected


def test_check_derivation_enormous_input_is_fast():
    valid = "9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24"
    for text in ("1" * 1_000_000, (valid + "; ") * 30_000, "9" * 999 + " * 1 = " + "9" * 999):
        start = time.perf_counter()
        assert check_derivation(text) is False
        assert evaluates_to_24(text) is False
        assert time.perf_counter() - start < 1.0  # rejected by length: no blow-up
    assert len(valid) < MAX_DERIVATION_CHARS


def test_check_derivation_never_executes_code(monkeypatch):
    """Hostile text stays text: the checker never reaches eval/exec/compile/__import__."""
    import builtins

    def boom(*args, **kwargs):
        raise AssertionError("code execution attempted")

    for name in ("eval", "exec", "compile"):
        monkeypatch.setattr(builtins, name, boom)
    for text in ("__import__('os').system('touch /tmp/pwned')", "eval('1')", "exec('2')"):
        assert check_derivation(text) is False
    source = Path(game24.__file__).read_text(encoding="utf-8")
    assert "eval(" not in source and "exec(" not in source


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_check_derivation_never_raises_on_text(text):
    assert check_derivation(text) in (True, False)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789+-*/=; ", max_size=80))
def test_check_derivation_never_raises_on_near_miss_text(text):
    assert check_derivation(text) in (True, False)
    assert check_derivation(text, [4, 9, 10, 13]) in (True, False)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(UNIVERSE), st.integers(0, 2), st.integers(-3, 3).filter(bool))
def test_tampering_with_a_solution_breaks_it(numbers, index, delta):
    sol = solve(numbers)
    if sol is None:
        return
    steps = [parse_step(s.expr) for s in sol.steps]
    p = steps[index]
    steps[index] = type(p)(p.left, p.op, p.right, p.result + delta)
    text = "; ".join(f"{s.left} {s.op} {s.right} = {s.result}" for s in steps)
    assert check_derivation(text, numbers) is False


def test_check_derivation_type_errors():
    with pytest.raises(TypeError, match="derivation"):
        check_derivation(None)
    with pytest.raises(TypeError, match="derivation"):
        check_derivation(b"4 * 6 = 24")
    with pytest.raises(TypeError, match="derivation"):
        evaluates_to_24(["4 * 6 = 24"])
    with pytest.raises(ValueError, match="numbers"):
        check_derivation("4 * 6 = 24", [4, 6])


# ------------------------------------------------------------------------------------------
# Bad puzzles and arguments
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "numbers", [[1, 2, 3], [1, 2, 3, 4, 5], [], [0, 1, 2, 3], [1, 2, 3, 14], [-1, 2, 3, 4]]
)
def test_bad_puzzle_value_error(numbers):
    for fn in (is_solvable, puzzle_state, solve):
        with pytest.raises(ValueError, match="numbers"):
            fn(numbers)


@pytest.mark.parametrize(
    "numbers",
    [[1, 2, 3, "4"], [True, 2, 3, 4], [1.0, 2, 3, 4], "1234", None, 1234, [Fraction(1), 2, 3, 4]],
)
def test_bad_puzzle_type_error(numbers):
    for fn in (is_solvable, puzzle_state, solve):
        with pytest.raises(TypeError, match="numbers"):
            fn(numbers)


def test_bad_state_errors():
    with pytest.raises(TypeError, match="state"):
        propose_steps([1.5, 2])
    with pytest.raises(ValueError, match="state"):
        propose_steps([1, 2, 3, 4, 5])
    with pytest.raises(TypeError, match="numbers"):
        to_state("4 9 10 13")
    with pytest.raises(ValueError, match="state"):
        apply_step([4, 9, 10, 13], "4 + 5 = 9")  # 5 is not available
    with pytest.raises(ValueError, match="step"):
        apply_step([4, 9, 10, 13], "4 + 9 = 14")


# ------------------------------------------------------------------------------------------
# State keys: the fast form the search walks
# ------------------------------------------------------------------------------------------


def test_state_key_and_key_state_are_inverse():
    assert state_key([13, Fraction(8, 3)]) == ((8, 3), (13, 1))
    assert state_key([Fraction(-6, 4), 0]) == ((-3, 2), (0, 1))
    assert key_state(((8, 3), (13, 1))) == (Fraction(8, 3), Fraction(13))
    assert key_state(TARGET_KEY) == (Fraction(24),)
    for state in game24_level_one_states()[::97]:
        assert key_state(state_key(state)) == state


def test_key_functions_agree_with_the_state_functions():
    for state in game24_level_one_states()[::41]:
        key = state_key(state)
        assert key_is_solvable(key) == state_is_solvable(state)
        steps = propose_steps(state)
        assert [expr for expr, _ in key_thoughts(key)] == [s.expr for s in steps]
        assert [key_state(child) for _, child in key_thoughts(key)] == [s.state for s in steps]
    assert key_is_solvable(TARGET_KEY) and not key_is_solvable(((23, 1),))
    assert key_thoughts(TARGET_KEY) == ()


@pytest.mark.parametrize(
    ("key", "err"),
    [
        ("x", TypeError),
        (None, TypeError),
        ([(1, 1)], TypeError),  # a list, not a tuple
        (([1, 1],), TypeError),  # unhashable inside
        (((1.5, 2),), TypeError),
        ((), ValueError),
        (((1, 1),) * 5, ValueError),
        (((2, 4),), ValueError),  # not in lowest terms
        (((1, -2),), ValueError),  # negative denominator
        (((1, 0),), ValueError),
        (((13, 1), (8, 3)), ValueError),  # not sorted by value
    ],
)
def test_key_functions_refuse_what_is_not_a_key(key, err):
    for fn in (key_state, key_thoughts, key_is_solvable):
        with pytest.raises(err, match="key"):
            fn(key)


def test_a_key_is_checked_once_then_looked_up():
    """The memo is the check: a bad key is never stored, so it is refused every time."""
    game24.clear_caches()
    with pytest.raises(ValueError, match="key"):
        key_is_solvable(((2, 4),))
    with pytest.raises(ValueError, match="key"):
        key_is_solvable(((2, 4),))
    assert ((2, 4),) not in game24._VERDICTS
    assert key_is_solvable(((1, 3), (8, 1))) is True
    assert ((1, 3), (8, 1)) in game24._VERDICTS


def _memo_sizes() -> list[int]:
    return [m.cache_info().currsize if hasattr(m, "cache_info") else len(m) for m in game24._MEMOS]


def test_clear_caches_empties_every_memo_and_keeps_answers():
    def answers():
        return (
            [is_solvable(p) for p in UNIVERSE[::40]],
            solve([3, 3, 8, 8]),
            [s.expr for s in propose_steps([Fraction(8, 3), 3, 8])],
            key_thoughts(((1, 3), (8, 1))),
        )

    before = answers()
    assert all(_memo_sizes())
    game24.clear_caches()
    assert sum(_memo_sizes()) == 0
    assert answers() == before
