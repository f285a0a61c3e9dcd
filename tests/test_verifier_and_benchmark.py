"""The voting-vs-verifier model (reasoning.py) and the toy temperature benchmark (evaluation.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation import (
    benchmark_curves,
    derail_probability,
    make_toy_benchmark,
    pass_at_k,
    sample_answers,
    temperature_probs,
)
from reasoning import (
    best_of_n_accuracy,
    majority_vote,
    plurality_is_correct,
    plurality_vote_prob,
    simulate_vote_vs_verifier,
    weighted_vote,
)

# ------------------------------------------------------------------ the vectorised vote


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(-1, 3), min_size=1, max_size=9), min_size=1, max_size=8))
def test_plurality_is_correct_matches_majority_vote(rows):
    width = max(len(r) for r in rows)
    rows = [r + [-1] * (width - len(r)) for r in rows]  # pad with "no answer"
    got = plurality_is_correct(np.array(rows), num_labels=4)
    for row, g in zip(rows, got, strict=True):
        vote = majority_vote([str(a) if a >= 0 else None for a in row])
        assert bool(g) == (vote == "0")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.floats(0.01, 5.0)), min_size=1, max_size=9))
def test_weighted_plurality_matches_weighted_vote(pairs):
    answers = np.array([[a for a, _ in pairs]])
    weights = np.array([[w for _, w in pairs]])
    got = plurality_is_correct(answers, 4, weights=weights)[0]
    expected = weighted_vote([str(a) for a, _ in pairs], [w for _, w in pairs]) == "0"
    # Sums of floats may tie to within rounding in a different order; skip exact float ties.
    totals = {a: sum(w for b, w in pairs if b == a) for a, _ in pairs}
    top = sorted(totals.values())
    if len(top) > 1 and math.isclose(top[-1], top[-2]):
        return
    assert bool(got) == expected


def test_nobody_answered_is_not_right():
    assert not plurality_is_correct(np.array([[-1, -1, -1]]), 3)[0]


# ------------------------------------------------------------------ best-of-N


def test_best_of_n_limits():
    assert best_of_n_accuracy(0.3, 1, 2.0) == pytest.approx(0.3, abs=1e-9)  # one sample: no choice
    assert best_of_n_accuracy(0.3, 16, 0.0) == pytest.approx(0.3, abs=1e-6)  # useless verifier
    assert best_of_n_accuracy(0.0, 8, 3.0) == 0.0
    assert best_of_n_accuracy(1.0, 8, 3.0) == pytest.approx(1.0)
    # a perfect-ish verifier finds a right sample whenever there is one
    assert best_of_n_accuracy(0.2, 8, 12.0) == pytest.approx(1 - 0.8**8, abs=1e-6)


def test_best_of_n_two_samples_closed_form():
    # n = 2, one right and one wrong: P(right scores higher) = Phi(d / sqrt 2).
    p, d = 0.5, 1.0
    phi = 0.5 * math.erfc(-d / math.sqrt(2) / math.sqrt(2))
    expected = p * p + 2 * p * (1 - p) * phi
    assert best_of_n_accuracy(p, 2, d) == pytest.approx(expected, abs=1e-7)


def test_simulation_agrees_with_exact_curves():
    rows = simulate_vote_vs_verifier(0.3, 4, 1.5, ns=(1, 4, 16), trials=20000, seed=3)
    for row in rows:
        n = row["n"]
        se_vote = math.sqrt(0.25 / 20000)
        assert abs(row["vote"] - plurality_vote_prob(0.3, n, 4)) < 5 * se_vote
        assert abs(row["best_of_n"] - best_of_n_accuracy(0.3, n, 1.5)) < 5 * se_vote


def test_weighted_vote_with_useless_verifier_is_plain_vote():
    rows = simulate_vote_vs_verifier(0.4, 3, 0.0, ns=(5,), trials=3000, seed=1)
    assert rows[0]["weighted"] == rows[0]["vote"]


def test_verifier_bad_input():
    with pytest.raises(ValueError, match="separation"):
        best_of_n_accuracy(0.5, 4, float("nan"))
    with pytest.raises(ValueError, match="p"):
        best_of_n_accuracy(1.5, 4, 1.0)
    with pytest.raises(ValueError, match="n"):
        best_of_n_accuracy(0.5, 0, 1.0)
    with pytest.raises(ValueError, match="num_distractors"):
        simulate_vote_vs_verifier(0.5, 0, 1.0)


# ------------------------------------------------------------------ temperature benchmark


def test_temperature_probs():
    logits = np.array([[1.0, 2.0, 0.5]])
    assert temperature_probs(logits, 0).tolist() == [[0.0, 1.0, 0.0]]
    p1 = temperature_probs(logits, 1.0)
    assert p1.sum() == pytest.approx(1.0)
    assert p1[0, 1] > temperature_probs(logits, 3.0)[0, 1]  # hotter is flatter
    with pytest.raises(ValueError, match="temperature"):
        temperature_probs(logits, -1)
    with pytest.raises(ValueError, match="logits"):
        temperature_probs(np.array([[np.nan, 1.0]]), 1.0)


def test_derail_probability():
    assert derail_probability(0) == 0.0
    values = [derail_probability(t) for t in (0.4, 0.7, 1.0, 1.5, 2.0)]
    assert values == sorted(values) and 0 < values[0] < 0.01 and values[-1] > 0.9


def test_toy_benchmark_is_seeded_and_shaped():
    a, b = make_toy_benchmark(50, 6, 4, seed=2), make_toy_benchmark(50, 6, 4, seed=2)
    assert np.array_equal(a["logits"], b["logits"]) and np.array_equal(a["answers"], b["answers"])
    assert a["logits"].shape == a["answers"].shape == (50, 6)
    assert a["answers"].min() >= 0 and a["answers"].max() <= 3


def test_greedy_never_derails_and_repeats_itself():
    bench = make_toy_benchmark(40, seed=1)
    answers = sample_answers(bench, 0.0, 16, np.random.default_rng(0))
    assert (answers >= 0).all()
    assert (answers == answers[:, :1]).all()


def test_benchmark_curves_consistency():
    bench = make_toy_benchmark(60, seed=4)
    rows = benchmark_curves(bench, [0.0, 0.7], ks=(1, 4, 16), n=32, seed=0, num_bootstrap=100)
    get = {(r["temperature"], r["metric"], r["k"]): r for r in rows}
    for k in (1, 4, 16):  # greedy: every k is pass@1
        assert get[(0.0, "pass@k", k)]["value"] == pytest.approx(get[(0.0, "pass@k", 1)]["value"])
        assert get[(0.0, "cons@k", k)]["value"] == pytest.approx(get[(0.0, "pass@k", 1)]["value"])
    for r in rows:
        assert r["lo"] <= r["value"] <= r["hi"]
    for k in (1, 4, 16):  # pass@k >= cons@k, and they agree at k = 1
        assert get[(0.7, "pass@k", k)]["value"] >= get[(0.7, "cons@k", k)]["value"] - 1e-12
    assert get[(0.7, "pass@k", 1)]["value"] == pytest.approx(get[(0.7, "cons@k", 1)]["value"])
    assert pass_at_k(32, 0, 4) == 0.0
    with pytest.raises(ValueError, match="k"):
        benchmark_curves(bench, [1.0], ks=(64,), n=32)
