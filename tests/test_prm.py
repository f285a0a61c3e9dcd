"""Tests for code/prm.py: the seed's printed figures, the step oracle, aggregations, the candidate
pool and reranking curves, the weighted vote, Math-Shepherd labels vs. the search oracle."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prm
import reasoning
from game24 import propose_steps, puzzle_state, solve, state_is_solvable
from prm import (
    AGGREGATIONS,
    aggregation_examples,
    demonstrate_prm,
    first_error_index,
    generate_candidate_pool,
    hard_estimate,
    is_fully_valid,
    math_shepherd_labels,
    orm_score,
    parse_step,
    prm_score,
    prm_weighted_vote,
    rerank_curves,
    rollout_outcomes,
    soft_estimate,
    soft_step_rewards,
    step_is_valid,
    step_rewards,
)

FAST = settings(max_examples=60, deadline=None)
CRUX = ["3 * 4 = 12", "12 + 8 = 21", "21 + 3 = 24"]
PUZZLES = [[a, b, c, d] for a in range(1, 14) for b in range(a, 14)
           for c in range(b, 14) for d in range(c, 14)]  # fmt: skip


# ------------------------------------------------------------------------------------------
# The seed's printed figures
# ------------------------------------------------------------------------------------------


def test_seed_crux_chain():
    assert step_rewards(CRUX) == [1, 0, 1]
    assert orm_score(CRUX, Fraction(24)) == 1.0
    assert prm_score(CRUX, "min") == 0.0
    assert first_error_index(CRUX) == 1


def test_seed_math_shepherd_estimates():
    rollouts = [True, False, False, True, False]
    assert hard_estimate(rollouts) == 1
    assert soft_estimate(rollouts) == 0.4


def test_seed_rerank_demo_shape():
    demo = demonstrate_prm()
    json.dumps(demo, allow_nan=False)
    mix = demo["pool_mix"]
    assert list(mix) == ["valid", "flawed", "wrong"]
    assert sum(mix.values()) == 400
    # roughly the seed's 103 / 142 / 155 (weights 0.25 / 0.35 / 0.40)
    assert 70 <= mix["valid"] <= 130 and 110 <= mix["flawed"] <= 170 and 130 <= mix["wrong"] <= 190
    cur = demo["curves"]
    assert cur["n"] == [1, 2, 4, 8, 16, 32, 64]
    assert cur["prm"][0] == cur["orm"][0] == cur["majority"][0]  # one candidate: no choice
    assert cur["prm"][-1] >= 0.99 and cur["prm"][-2] >= 0.99  # PRM climbs to ~1
    for a, b in zip(cur["prm"], cur["prm"][1:], strict=False):
        assert b >= a - 0.02
    assert max(cur["orm"]) < 0.5 and max(cur["majority"]) < 0.5  # both plateau below 0.5
    for i in range(2, 7):
        assert cur["prm"][i] > cur["orm"][i] + 0.25
    assert demonstrate_prm() == demo  # deterministic


def test_seed_rerank_plateau_is_the_valid_share_of_right_answers():
    """With large N, ORM picks uniformly among right-answer candidates: P(valid | right)."""
    demo = demonstrate_prm()
    mix = demo["pool_mix"]
    plateau = mix["valid"] / (mix["valid"] + mix["flawed"])
    for key in ("orm", "majority"):
        assert abs(demo["curves"][key][-1] - plateau) < 0.1


def test_majority_is_the_books_vote():
    assert prm.majority_vote is reasoning.majority_vote
    source = Path(prm.__file__).read_text(encoding="utf-8")
    assert "from reasoning import majority_vote, weighted_vote" in source
    assert "eval(" not in source and "exec(" not in source


# ------------------------------------------------------------------------------------------
# The step oracle
# ------------------------------------------------------------------------------------------


def test_step_is_valid_arithmetic_and_connection():
    assert step_is_valid("3 * 4 = 12")
    assert not step_is_valid("12 + 8 = 21")
    assert step_is_valid("12 + 8 = 20", prev_result=12)
    assert not step_is_valid("12 + 8 = 20", prev_result=Fraction(13))
    assert step_is_valid("8 / 3 = 8/3") and step_is_valid("3 - 8/3 = 1/3")
    assert not step_is_valid("8 / 0 = 0")
    assert not step_is_valid("__import__('os')")
    assert not step_is_valid("1" * 1_000_000)


def test_step_is_valid_type_errors():
    with pytest.raises(TypeError, match="step"):
        step_is_valid(12)
    with pytest.raises(TypeError, match="prev_result"):
        step_is_valid("3 * 4 = 12", prev_result=True)
    with pytest.raises(TypeError, match="prev_result"):
        step_is_valid("3 * 4 = 12", prev_result=12.0)


def test_parse_step_is_the_shared_parser():
    p = parse_step("21 + 3 = 24")
    assert (p.left, p.op, p.right, p.result) == (21, "+", 3, 24)
    with pytest.raises(ValueError, match="step"):
        parse_step("21 + 3 == 24")


def test_step_rewards_only_blames_the_step_that_erred():
    chain = ["2 * 3 = 6", "6 + 6 = 13", "13 - 1 = 12", "12 * 2 = 24"]
    assert step_rewards(chain) == [1, 0, 1, 1]
    assert first_error_index(chain) == 1
    assert step_rewards(["2 * 3 = 6", "7 + 1 = 8"]) == [1, 0]  # disconnected
    assert step_rewards(["2 * 3 = 6", "oops", "6 + 1 = 7", "7 + 1 = 8"]) == [1, 0, 0, 1]
    assert first_error_index(["3 * 4 = 12", "12 + 12 = 24"]) is None


def test_orm_reads_only_the_last_line():
    assert orm_score(["garbage", "nonsense = 3", "20 + 4 = 24"], 24) == 1.0
    assert orm_score(["3 * 4 = 12", "12 + 8 = 20", "20 + 5 = 24"], 24) == 1.0  # lie, unseen
    assert orm_score(["3 * 4 = 12", "12 * 2 = 24", "24 + 0 = 24x"], 24) == 0.0
    assert orm_score(["1/2 + 1 = 3/2"], Fraction(3, 2)) == 1.0


@pytest.mark.parametrize("fn", [step_rewards, first_error_index, lambda c: orm_score(c, 24)])
def test_chain_validation(fn):
    with pytest.raises(TypeError, match="chain"):
        fn("3 * 4 = 12")
    with pytest.raises(TypeError, match="chain"):
        fn(["3 * 4 = 12", 12])
    with pytest.raises(TypeError, match="chain"):
        fn(None)
    with pytest.raises(ValueError, match="chain"):
        fn([])


def test_orm_target_validation():
    with pytest.raises(TypeError, match="target"):
        orm_score(CRUX, "24")
    with pytest.raises(TypeError, match="target"):
        orm_score(CRUX, 24.0)


# ------------------------------------------------------------------------------------------
# Aggregations
# ------------------------------------------------------------------------------------------


def test_aggregations_by_hand():
    scores = [0.9, 0.5, 0.8]
    assert prm_score(scores, "min") == 0.5
    assert prm_score(scores, "product") == pytest.approx(0.36)
    assert prm_score(scores, "mean") == pytest.approx(2.2 / 3)
    assert prm_score(scores, "last") == 0.8
    # on the binary oracle min and product agree exactly
    for chain in (CRUX, ["3 * 4 = 12", "12 + 12 = 24"]):
        assert prm_score(chain, "min") == prm_score(chain, "product")


@FAST
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12))
def test_aggregation_order(scores):
    prod, lo, mean = (prm_score(scores, a) for a in ("product", "min", "mean"))
    assert prod <= lo + 1e-12 <= mean + 2e-12 <= max(scores) + 3e-12
    assert prm_score(scores, "last") == scores[-1]


def test_prm_score_bad_input():
    with pytest.raises(ValueError, match="agg"):
        prm_score([0.5], "median")
    with pytest.raises(ValueError, match="chain_or_scores"):
        prm_score([])
    with pytest.raises(ValueError, match="chain_or_scores"):
        prm_score([0.5, 1.5])
    with pytest.raises(TypeError, match="chain_or_scores"):
        prm_score("3 * 4 = 12")
    with pytest.raises(TypeError, match="chain_or_scores"):
        prm_score(["3 * 4 = 12", 0.5])
    with pytest.raises(TypeError, match="chain_or_scores"):
        prm_score([True, 1.0])


def test_soft_step_rewards_bands_and_determinism():
    scores = soft_step_rewards(CRUX)
    assert scores == soft_step_rewards(CRUX) == soft_step_rewards(list(CRUX), seed=0)
    assert 0.85 <= scores[0] <= 0.99 and 0.05 <= scores[1] <= 0.30 and 0.85 <= scores[2] <= 0.99
    shaky = soft_step_rewards(["5 + 1 = 6", "6 / 4 = 3/2"])
    assert 0.55 <= shaky[1] <= 0.75
    assert soft_step_rewards(CRUX, seed=1) != scores
    with pytest.raises(TypeError, match="seed"):
        soft_step_rewards(CRUX, seed="0")


@FAST
@given(st.integers(0, 10_000))
def test_soft_rewards_always_separate_valid_from_invalid(seed):
    pool = generate_candidate_pool(5, seed=seed)
    for cand in pool:
        soft = soft_step_rewards(cand["steps"], seed)
        for hard, p in zip(step_rewards(cand["steps"]), soft, strict=True):
            assert (p >= 0.55) == bool(hard)


def test_aggregation_examples_try_this_claims():
    examples = aggregation_examples()
    json.dumps(examples, allow_nan=False)
    by_name = {e["name"]: e for e in examples}
    for name in ("All steps valid", "One bad step (compensated)", "Two shaky middle steps"):
        assert name in by_name
    for e in examples:
        assert set(AGGREGATIONS) <= set(e)
        assert len(e["scores"]) == len(e["steps"]) == len(e["rewards"])
    bad = by_name["One bad step (compensated)"]
    assert bad["rewards"].count(0) == 1 and bad["orm"] == 1.0
    assert min(bad["mean"], bad["last"]) > 2 * max(bad["min"], bad["product"])
    shaky = by_name["Two shaky middle steps"]
    assert all(shaky["rewards"]) and shaky["product"] < shaky["min"] - 0.1
    good = by_name["All steps valid"]
    assert all(good[a] > 0.7 for a in AGGREGATIONS)


# ------------------------------------------------------------------------------------------
# Candidate pool, reranking, the weighted vote
# ------------------------------------------------------------------------------------------


@FAST
@given(st.integers(0, 10_000), st.sampled_from([24, 10, 36, Fraction(7, 2)]))
def test_pool_archetypes_are_what_they_claim(seed, target):
    for cand in generate_candidate_pool(20, target=target, seed=seed):
        steps, kind = cand["steps"], cand["kind"]
        assert 3 <= len(steps) <= 5
        assert step_rewards(steps).count(0) == (0 if kind == "valid" else 1)
        assert cand["answer"] == str(parse_step(steps[-1]).result)
        if kind == "valid":
            assert is_fully_valid(cand, target)
        elif kind == "flawed":
            assert orm_score(steps, target) == 1.0 and prm_score(steps) == 0.0
            assert first_error_index(steps) < len(steps) - 1
        else:
            assert orm_score(steps, target) == 0.0 and prm_score(steps) == 0.0


def test_pool_is_seeded_and_mixes_kinds():
    a = generate_candidate_pool(400, seed=0)
    assert a == generate_candidate_pool(400, seed=0)
    assert a != generate_candidate_pool(400, seed=1)
    assert {c["kind"] for c in a} == {"valid", "flawed", "wrong"}
    json.dumps(a)


def test_pool_bad_input():
    with pytest.raises(ValueError, match="n"):
        generate_candidate_pool(0)
    with pytest.raises(TypeError, match="n"):
        generate_candidate_pool(2.5)
    with pytest.raises(TypeError, match="target"):
        generate_candidate_pool(5, target="24")


def test_rerank_curves_bad_input():
    pool = generate_candidate_pool(10)
    with pytest.raises(ValueError, match="ns"):
        rerank_curves(pool, ns=(1, 11))
    with pytest.raises(TypeError, match="ns"):
        rerank_curves(pool, ns=(1.5,))
    with pytest.raises(ValueError, match="trials"):
        rerank_curves(pool, trials=0)
    with pytest.raises(ValueError, match="pool"):
        rerank_curves([])
    with pytest.raises(TypeError, match="pool"):
        rerank_curves([{"steps": []}])


def test_all_valid_pool_is_always_right():
    pool = [c for c in generate_candidate_pool(200, seed=3) if c["kind"] == "valid"]
    curves = rerank_curves(pool, ns=(1, 4), trials=50)
    assert curves["prm"] == curves["orm"] == curves["majority"] == [1.0, 1.0]


def test_prm_weighted_vote_exercise_7():
    flawed_30 = {"steps": ["5 * 5 = 26", "26 + 4 = 30"], "answer": "30"}
    valid_24 = {"steps": ["4 * 5 = 20", "20 + 4 = 24"], "answer": "24"}
    pool = [flawed_30, flawed_30, flawed_30, valid_24]
    assert reasoning.majority_vote([c["answer"] for c in pool]) == "30"
    assert prm_weighted_vote(pool) == "24"  # broken chains carry no weight
    assert prm_weighted_vote([valid_24, {"steps": ["6 * 5 = 30"], "answer": "30"}]) == "24"
    assert prm_weighted_vote([flawed_30, valid_24], agg="min") == "24"
    assert prm_weighted_vote([flawed_30, flawed_30]) == "30"  # all-zero weights: earliest
    big = generate_candidate_pool(200, target=24, seed=0)
    assert prm_weighted_vote(big) == "24"
    assert prm_weighted_vote(big, agg="mean") == "24"
    with pytest.raises(ValueError, match="agg"):
        prm_weighted_vote(big, agg="max")


# ------------------------------------------------------------------------------------------
# Math-Shepherd: HE over exhaustive rollouts is the search oracle
# ------------------------------------------------------------------------------------------


def test_estimates_bad_input():
    for fn in (hard_estimate, soft_estimate):
        with pytest.raises(ValueError, match="rollouts"):
            fn([])
        with pytest.raises(TypeError, match="rollouts"):
            fn([1, 0])
        with pytest.raises(TypeError, match="rollouts"):
            fn("TF")
    assert hard_estimate([False] * 4) == 0 and soft_estimate([True] * 3) == 1.0


def test_rollouts_exhaustive_counts():
    # at most 36 * 18 * 6 = 3888 move sequences; a few less where a 0 forbids a division
    assert 3800 < len(rollout_outcomes([4, 9, 10, 13])) <= 36 * 18 * 6
    assert len(rollout_outcomes([4, 9, 10])) == 18 * 6
    assert rollout_outcomes([24]) == [True]
    assert rollout_outcomes([Fraction(1, 3), 8]).count(True) == 1  # only 8 / (1/3)


def _random_state(rng: random.Random) -> tuple:
    """A puzzle advanced by 0-2 random moves: a 4-, 3- or 2-number Game-of-24 state."""
    state = puzzle_state(rng.choice(PUZZLES))
    for _ in range(rng.randint(0, 2)):
        state = rng.choice(propose_steps(state)).state
    return state


def test_hard_estimate_equals_is_solvable_on_game24_states():
    rng = random.Random(0)
    states = [_random_state(rng) for _ in range(400)]
    assert any(state_is_solvable(s) for s in states) and not all(
        state_is_solvable(s) for s in states
    )
    for state in states:
        outcomes = rollout_outcomes(state)
        assert hard_estimate(outcomes) == int(state_is_solvable(state))
        # sampling can only miss a path, never invent one
        sampled = rollout_outcomes(state, n=16, seed=1)
        assert hard_estimate(sampled) <= hard_estimate(outcomes)


def test_math_shepherd_labels_follow_the_oracle():
    labels = math_shepherd_labels("8 / 3 = 8/3; 3 - 8/3 = 1/3; 8 / 1/3 = 24", [3, 3, 8, 8])
    json.dumps(labels, allow_nan=False)
    assert [lab["he"] for lab in labels] == [1, 1, 1]
    assert labels[-1]["se"] == 1.0 and labels[-1]["state"] == ["24"]
    assert labels[1]["se"] == pytest.approx(1 / 6)
    dead = math_shepherd_labels(["3 + 3 = 6", "8 - 6 = 2", "2 * 8 = 16"], [3, 3, 8, 8])
    assert [lab["he"] for lab in dead] == [0, 0, 0]
    illegal = math_shepherd_labels(["3 + 3 = 7", "8 - 6 = 2"], [3, 3, 8, 8])
    assert [(lab["he"], lab["state"]) for lab in illegal] == [(0, None), (0, None)]
    for numbers in PUZZLES[::97]:
        sol = solve(numbers)
        if sol is None:
            continue
        for lab, step in zip(math_shepherd_labels([s.expr for s in sol.steps], numbers),
                             sol.steps, strict=True):  # fmt: skip
            assert lab["he"] == 1 == int(lab["solvable"])
            assert lab["state"] == [str(x) for x in step.state]


@FAST
@given(st.sampled_from(PUZZLES), st.integers(0, 10_000))
def test_math_shepherd_he_is_is_solvable_on_random_prefixes(numbers, seed):
    rng = random.Random(seed)
    state, steps = puzzle_state(numbers), []
    for _ in range(3):
        step = rng.choice(propose_steps(state))
        steps.append(step.expr)
        state = step.state
    for lab in math_shepherd_labels(steps, numbers):
        assert lab["he"] == int(lab["solvable"])
        assert 0.0 <= lab["se"] <= 1.0 and (lab["se"] > 0) == bool(lab["he"])
    sampled = math_shepherd_labels(steps, numbers, n_rollouts=8, seed=seed)
    assert all(s["he"] <= e["he"] for s, e in zip(sampled, math_shepherd_labels(steps, numbers),
                                                   strict=True))  # fmt: skip


def test_math_shepherd_bad_input():
    with pytest.raises(ValueError, match="numbers"):
        math_shepherd_labels(["3 + 3 = 6"], [3, 3, 8])
    with pytest.raises(ValueError, match="numbers"):
        math_shepherd_labels(["3 + 3 = 6"], [3, 3, 8, 14])
    with pytest.raises(TypeError, match="numbers"):
        math_shepherd_labels(["3 + 3 = 6"], [3, 3, 8, "8"])
    with pytest.raises(TypeError, match="chain"):
        math_shepherd_labels([3], [3, 3, 8, 8])
    with pytest.raises(ValueError, match="n"):
        rollout_outcomes([3, 8], n=0)
    with pytest.raises(TypeError, match="n"):
        rollout_outcomes([3, 8], n=2.0)
    with pytest.raises(TypeError, match="state"):
        rollout_outcomes("38")
    # hostile / enormous step text is just an illegal step
    for text in ("__import__('os').system('x')", "1" * 1_000_000, "8 / 0 = 0"):
        assert math_shepherd_labels([text], [3, 3, 8, 8])[0]["he"] == 0
    assert math.isfinite(soft_estimate([True, False]))
