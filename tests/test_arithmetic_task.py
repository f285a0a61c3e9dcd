"""The task's routes: each route's chain verifies, the routes differ in their steps, slips are
carried, and the single-path format is untouched."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from arithmetic_task import (
    ANSWER_MARKER,
    BOS,
    ROUTE_TOKENS,
    ROUTES,
    answer_of,
    decode,
    first_route_slip,
    format_reward,
    grade,
    make_batch,
    make_route_batch,
    make_route_trace,
    random_problem,
    recheck_count,
    route_of,
    thinking_ledger,
    thinking_mode,
    write_chain,
    write_route_chain,
)
from reasoning import solve_chain


def all_problems(num_operands: int):
    for digits in itertools.product(range(10), repeat=num_operands):
        for ops in itertools.product("+-", repeat=num_operands - 1):
            yield str(digits[0]) + "".join(o + str(d) for o, d in zip(ops, digits[1:], strict=True))


def test_worked_examples():
    assert write_route_chain("7+5-3-6+7", "left") == "1;7+5=12;12-3=9;9-6=3;3+7=10;####10"
    assert write_route_chain("7+5-3-6+7", "signs") == "2;7+5=12;12+7=19;3+6=9;19-9=10;####10"
    assert write_route_chain("7+5-3-6+7", "pairs") == "3;5-3=2;6-7=-1;7+2=9;9+1=10;####10"
    # A pair led by "-" is subtracted whole; a negative right operand folds its sign in.
    assert write_route_chain("3-8-2+9", "pairs") == "3;3-8=-5;2-9=-7;-5+7=2;####2"
    assert write_route_chain("4-5-8-6-1", "signs") == "2;5+8=13;13+6=19;19+1=20;4-20=-16;####-16"


@pytest.mark.parametrize("num_operands", [3, 4])
def test_every_route_of_every_problem_verifies(num_operands):
    """Exhaustive over 3- and 4-operand problems (22,000); 5 operands are sampled below."""
    for problem in all_problems(num_operands):
        for route in ROUTES:
            chain = write_route_chain(problem, route)
            assert grade(problem, chain) == 1.0, (problem, route, chain)
            assert route_of(chain) == route
            assert first_route_slip(problem, chain) is None
            assert len(chain.split(";")) == num_operands + 1  # token, n - 1 steps, answer


def test_five_operand_routes_verify_and_fit_the_context():
    rng = random.Random(3)
    for _ in range(3000):
        problem = random_problem(rng, rng.choice(["train", "held_out"]))
        for route in ROUTES:
            chain = write_route_chain(problem, route, None)
            assert grade(problem, chain) == 1.0
            # BOS, prompt, chain and EOS within the model's 64-token context plus one.
            assert len(BOS + problem + "=" + chain) + 1 <= 65


def test_left_route_is_the_single_path_chain():
    for problem in ["7+5-3-6+7", "0-9-9-9-9", "1+2+3"]:
        assert write_route_chain(problem, "left") == "1;" + write_chain(problem)
        assert write_route_chain(problem, "left") == "1;" + solve_chain(problem)


def test_routes_differ_in_their_steps():
    """The routes write different steps: all three differ on most 4-operand problems (the
    signs route equals the left one only when every "-" comes after every "+"), pairs differs
    from left on all but a handful, and each route writes steps no other route ever writes."""
    steps = {r: set() for r in ROUTES}
    three = pairs_is_left = signs_is_left = total = 0
    for problem in all_problems(4):
        chains = {r: tuple(write_route_chain(problem, r).split(";")[1:-1]) for r in ROUTES}
        for r, c in chains.items():
            steps[r].update(c)
        total += 1
        three += len(set(chains.values())) == 3
        pairs_is_left += chains["pairs"] == chains["left"]
        signs_is_left += chains["signs"] == chains["left"]
    assert three / total > 0.6
    assert pairs_is_left / total < 0.001
    assert signs_is_left / total == 0.25  # "+ then -" sign patterns: 2 of the 8
    for r in ROUTES:
        others = set().union(*(steps[o] for o in ROUTES if o != r))
        assert len(steps[r] - others) > 50, r
    # The left route's right operand is always one digit; signs ends on two sums.
    assert all(re.fullmatch(r"-?[0-9]+[+-][0-9]=-?[0-9]+", s) for s in steps["left"])
    assert any(re.fullmatch(r"-?[0-9]+[+-][0-9]{2}=-?[0-9]+", s) for s in steps["signs"])
    assert write_route_chain("9+8-7-6", "signs").split(";")[-2] == "17-13=4"


def test_a_slip_is_carried_and_graded_wrong():
    chain = write_route_chain("7+5-3-6+7", "signs", 2, 1)
    assert chain == "2;7+5=12;12+7=19;3+6=10;19-10=9;####9"
    assert grade("7+5-3-6+7", chain) == 0.0
    assert first_route_slip("7+5-3-6+7", chain) == 2
    # A slip that makes a sum negative folds its sign into the next step.
    assert write_route_chain("5-0-1", "signs", 0, -2) == "2;0+1=-1;5+1=6;####6"
    assert first_route_slip("5-0-1", "1;5-0=5;5-1=4;####5") == 2
    assert first_route_slip("5-0-1", "5-0=5;5-1=4;####4") == 0  # no route announced
    with pytest.raises(ValueError, match="slip_step"):
        write_route_chain("7+5-3", "left", 2, 1)
    with pytest.raises(ValueError, match="route"):
        write_route_chain("7+5-3", "diagonal")


def test_route_of():
    assert route_of("2;7+5=12;####12") == "signs"
    assert route_of("7+5=12;####12") is None
    assert route_of("4;7+5=12") is None
    assert route_of("") is None
    assert set(ROUTE_TOKENS.values()) == {"1", "2", "3"}


def test_route_traces_mix_routes_and_slips():
    rng = random.Random(0)
    traces = [make_route_trace("7+5-3-6+7", rng, 0.45) for _ in range(3000)]
    shares = {r: sum(route_of(t) == r for t in traces) / len(traces) for r in ROUTES}
    assert all(abs(s - 1 / 3) < 0.04 for s in shares.values()), shares
    slipped = sum(grade("7+5-3-6+7", t) == 0 for t in traces) / len(traces)
    assert abs(slipped - 0.45) < 0.04
    assert all(
        route_of(make_route_trace("7+5-3", rng, 0.5, ["pairs"])) == "pairs" for _ in range(20)
    )
    again = random.Random(0)
    assert [make_route_trace("7+5-3-6+7", again, 0.45) for _ in range(3000)] == traces


def test_route_batch_prompts_name_no_route():
    x, y = make_route_batch(random.Random(1), 64, 0.45)
    assert x.shape == y.shape == (64, 64)
    for row_x, row_y in zip(x, y, strict=True):
        text = decode(row_x.tolist())
        prompt, completion = text.split("=", 1)
        assert route_of(completion) in ROUTES
        target = decode([t for t in row_y.tolist() if t != -100])
        assert target == completion  # the model learns to write the route token itself
    # The single-path batches still hold left-to-right chains with no route token.
    x, _ = make_batch(random.Random(5), 16, 0.0)
    for row in x:
        problem, chain = decode(row.tolist()).split("=", 1)
        assert chain == write_chain(problem) and route_of(chain) is None
    assert answer_of("7+5-3-6+7") == "10"


def test_route_batch_checks_its_routes_once():
    # Before: each row re-checked ``routes``, so an iterator was used up by the first row and
    # the second was refused ("routes must hold at least one item").
    x, _ = make_route_batch(random.Random(2), 8, 0.3, routes=iter(["pairs", "signs"]))
    chains = [decode(row.tolist()).split("=", 1)[1] for row in x]
    assert {route_of(c) for c in chains} <= {"pairs", "signs"}
    same, _ = make_route_batch(random.Random(2), 8, 0.3, routes=["pairs", "signs"])
    assert (x == same).all()
    with pytest.raises(ValueError, match="routes must be one of"):
        make_route_batch(random.Random(2), 8, 0.3, routes=["pairs", "diagonal"])
    with pytest.raises(TypeError, match="routes must be a sequence"):
        make_route_batch(random.Random(2), 8, 0.3, routes="pairs")


# The chain format this module owns: the marker, the format reward, the thinking modes, the
# re-checks and the token ledger.


def test_format_reward():
    assert format_reward("7+5=12;12-3=9;####9") == 1.0
    assert format_reward("7+5=12;12-3=9;####-9") == 1.0
    for bad in ("", "####9", "7+5=12;12-3=9", "7+5=12;12-3=9;####", "7+5=12;;####9", "x"):
        assert format_reward(bad) == 0.0, bad
    with pytest.raises(TypeError, match="completion"):
        format_reward(None)


def test_thinking_modes():
    assert thinking_mode("7+5=12;####12") == "chain"
    assert thinking_mode("####12") == "answer_only" and thinking_mode("####-3") == "answer_only"
    assert thinking_mode("7+5=12;####") == "malformed" and thinking_mode("") == "malformed"
    assert recheck_count("7+5=12;7+5=12;7+5=12;####12") == 2


def test_ledger():
    assert ANSWER_MARKER == "####"
    assert thinking_ledger("7+5=12;12-3=9;####9") == (14, 1)
    assert thinking_ledger("7+5=12") == (6, 0)
    with pytest.raises(TypeError, match="completion"):
        thinking_ledger(3)


def test_grade_reads_the_marker_not_the_tags():
    # The grader reads the task's own format: the number after the last ####, else the last
    # number. The <think>/<answer> template of chapter 5 gets no special reading.
    assert grade("7+5-3", "7+5=12;12-3=9;####9") == 1.0
    assert grade("7+5-3", "7+5=12;12-3=9") == 1.0  # no marker: the last number
    assert grade("7+5-3", "7+5=12;12-3=9;####8") == 0.0
    assert grade("7+5-3", "####9;1") == 1.0 and grade("7+5-3", "") == 0.0
    assert grade("7+5-3", "<think>####9</think><answer>8</answer>") == 1.0
    with pytest.raises(TypeError, match="completion"):
        grade("7+5-3", None)
