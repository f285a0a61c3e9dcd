"""Tests for code/evaluation.py: pass@k and cons@k against exact fractions and brute force."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evaluation import (
    cons_at_k,
    cons_at_k_counts,
    derail_probability,
    mean_cons_at_k,
    mean_pass_at_k,
    naive_pass_at_k,
    pass_at_k,
)
from reasoning import majority_vote, plurality_vote_prob, vote_distribution

FAST = settings(max_examples=60, deadline=None)


@st.composite
def samples(draw, max_n: int = 60):
    """(n, c, k) with 0 <= c <= n and 1 <= k <= n."""
    n = draw(st.integers(1, max_n))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


def _pass_exact(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


# ---------------------------------------------------------------------------------------------
# pass@k
# ---------------------------------------------------------------------------------------------


def test_pass_at_k_seed_worked_example():
    exact = 1 - math.comb(70, 5) / math.comb(100, 5)
    product = 1 - math.prod(1 - 5 / i for i in range(71, 101))
    print(f"pass@5 (n=100, c=30): comb ratio {exact:.6f}, product form {product:.6f}")
    assert pass_at_k(100, 30, 5) == pytest.approx(exact, rel=1e-14)
    assert pass_at_k(100, 30, 5) == pytest.approx(product, rel=1e-14)
    # The seed rounds to 0.84 (the brief's "0.8393" is within 1e-4; the exact value is 0.83924).
    assert round(pass_at_k(100, 30, 5), 2) == 0.84
    assert pass_at_k(100, 30, 5) == pytest.approx(0.839243, abs=1e-6)
    assert 1 - (70 * 69 * 68 * 67 * 66) / (100 * 99 * 98 * 97 * 96) == pytest.approx(exact)


def test_pass_at_k_seed_five_solutions():
    assert pass_at_k(5, 1, 5) == 1.0  # one of A..E passes
    assert pass_at_k(5, 1, 1) == 0.2


@FAST
@given(samples())
def test_pass_at_1_is_accuracy(nck):
    n, c, _ = nck
    assert pass_at_k(n, c, 1) == c / n


@FAST
@given(samples())
def test_pass_at_k_matches_exact_fractions(nck):
    n, c, k = nck
    assert pass_at_k(n, c, k) == pytest.approx(float(_pass_exact(n, c, k)), rel=1e-12, abs=0)


@pytest.mark.parametrize(
    ("n", "c", "k"), [(100_000, 1, 1), (100_000, 1, 7), (100_000, 30_000, 5), (100_000, 99_990, 3)]
)
def test_pass_at_k_large_n_is_accurate(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(float(_pass_exact(n, c, k)), rel=1e-11)


@FAST
@given(samples())
def test_pass_at_k_is_a_monotone_probability(nck):
    n, c, k = nck
    value = pass_at_k(n, c, k)
    assert 0.0 <= value <= 1.0
    if k < n:
        assert pass_at_k(n, c, k + 1) >= value
    if c < n:
        assert pass_at_k(n, c + 1, k) >= value
    assert (value == 1.0) == (n - c < k) or math.isclose(value, 1.0)
    if c == 0:
        assert value == 0.0


@FAST
@given(samples())
def test_naive_estimate_never_exceeds_the_unbiased_one(nck):
    n, c, k = nck
    # Each factor (n-c-i)/(n-i) <= (n-c)/n, so sampling without replacement finds more.
    assert naive_pass_at_k(n, c, k) <= pass_at_k(n, c, k) + 1e-12
    assert naive_pass_at_k(n, c, k) == pytest.approx(1 - (1 - c / n) ** k, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("n", "k", "p"), [(10, 3, 0.2), (20, 5, 0.1), (8, 8, 0.5)])
def test_pass_at_k_is_unbiased_and_naive_is_not(n, k, p):
    """E over c ~ Binomial(n, p) of the estimator vs. the true pass@k = 1 - (1 - p)^k."""
    truth = 1 - (1 - p) ** k
    weights = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
    unbiased = sum(w * pass_at_k(n, c, k) for c, w in enumerate(weights))
    naive = sum(w * naive_pass_at_k(n, c, k) for c, w in enumerate(weights))
    assert unbiased == pytest.approx(truth, abs=1e-12)
    assert naive < truth - 1e-3


def test_naive_allows_k_beyond_n():
    assert naive_pass_at_k(4, 1, 10) == pytest.approx(1 - 0.75**10)
    assert naive_pass_at_k(4, 4, 10) == 1.0
    assert naive_pass_at_k(4, 0, 10) == 0.0


@pytest.mark.parametrize("fn", [pass_at_k, naive_pass_at_k])
def test_pass_at_k_bad_input(fn):
    with pytest.raises(ValueError, match="c"):
        fn(5, 7, 1)
    with pytest.raises(ValueError, match="c"):
        fn(5, -1, 1)
    with pytest.raises(ValueError, match="n"):
        fn(0, 0, 1)
    with pytest.raises(ValueError, match="k"):
        fn(5, 1, 0)
    with pytest.raises(TypeError, match="n"):
        fn(5.0, 1, 1)
    with pytest.raises(TypeError, match="c"):
        fn(5, "1", 1)
    with pytest.raises(TypeError, match="k"):
        fn(5, 1, 1.5)
    with pytest.raises(TypeError, match="k"):
        fn(5, 1, True)


def test_pass_at_k_rejects_k_beyond_n():
    with pytest.raises(ValueError, match="k"):
        pass_at_k(5, 1, 6)


def test_mean_pass_at_k():
    results = [(100, 30), (10, 0), (10, 10)]
    expected = (pass_at_k(100, 30, 5) + 0.0 + 1.0) / 3
    assert mean_pass_at_k(results, 5) == pytest.approx(expected)
    assert mean_pass_at_k([(4, 1), (4, 3)], 1) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="results"):
        mean_pass_at_k([], 1)
    with pytest.raises(TypeError, match="results"):
        mean_pass_at_k([(4, 1, 2)], 1)
    with pytest.raises(ValueError, match="k"):
        mean_pass_at_k([(4, 1)], 5)


# ---------------------------------------------------------------------------------------------
# cons@k
# ---------------------------------------------------------------------------------------------

ANSWERS = st.lists(st.one_of(st.none(), st.sampled_from("abcd")), min_size=1, max_size=9)


def _cons_brute_force(answers: list, correct: str, k: int) -> Fraction:
    """Average over every k-subset; a top tie among m answers is won with probability 1/m."""
    total, count = Fraction(0), 0
    for subset in itertools.combinations(answers, k):
        count += 1
        tally = vote_distribution(subset)
        if not tally:
            continue
        top = max(tally.values())
        tied = [a for a, v in tally.items() if v == top]
        if correct in tied:
            total += Fraction(1, len(tied))
    return total / count


@FAST
@given(ANSWERS, st.sampled_from("abcz"), st.data())
def test_cons_at_k_matches_brute_force(answers, correct, data):
    k = data.draw(st.integers(1, len(answers)))
    expected = _cons_brute_force(answers, correct, k)
    assert cons_at_k(answers, correct, k) == pytest.approx(float(expected), abs=1e-15)


@FAST
@given(ANSWERS, st.sampled_from("abcz"))
def test_cons_at_1_is_the_fraction_correct(answers, correct):
    assert cons_at_k(answers, correct, 1) == pytest.approx(answers.count(correct) / len(answers))


@FAST
@given(ANSWERS, st.sampled_from("abcz"))
def test_cons_at_n_is_the_full_vote(answers, correct):
    tally = vote_distribution(answers)
    top = max(tally.values(), default=0)
    assume(sum(v == top for v in tally.values()) <= 1)  # no tie at the top
    assert cons_at_k(answers, correct, len(answers)) == float(majority_vote(answers) == correct)


@pytest.mark.parametrize(
    "answers", [["a", "b"], ["b", "a", None], ["a", "b", "b", "a", "c"], ["c", "a", "b", "a", "b"]]
)
def test_cons_at_n_with_a_tie_averages_majority_vote_over_orders(answers):
    orders = list(itertools.permutations(answers))
    for correct in "abc":
        average = sum(majority_vote(order) == correct for order in orders) / len(orders)
        assert cons_at_k(answers, correct, len(answers)) == pytest.approx(average, abs=1e-15)


def test_cons_at_k_handles_none_and_absent_answers():
    assert cons_at_k([None, None, "a"], "a", 2) == pytest.approx(2 / 3)  # needs "a" drawn
    assert cons_at_k([None, None], "a", 1) == 0.0
    assert cons_at_k(["b", "b"], "a", 2) == 0.0
    assert cons_at_k(["a", "b", "b"], "a", 3) == 0.0
    assert cons_at_k(["a", "a", "b"], "a", 2) == pytest.approx(1 / 3 + 2 / 3 * 1 / 2)


def test_cons_at_k_counts_is_the_engine():
    answers = ["7", None, "3", "7", "3", "3", None, "7", "7", "1"]
    counts = vote_distribution(answers)
    for k in range(1, len(answers) + 1):
        assert cons_at_k_counts(counts, "7", k, num_none=2) == cons_at_k(answers, "7", k)
    assert cons_at_k_counts({"7": 3, "1": 0}, "7", 2) == 1.0  # zero counts are ignored


def test_cons_at_k_is_unbiased_for_the_plurality_curve():
    """Averaged over the multinomial draw of n answers, cons@k is the exact k-sample vote curve."""
    p, num_distractors, n = 0.45, 2, 7
    wrong = (1 - p) / num_distractors
    for k in (1, 3, 4, 7):
        expected = 0.0
        for right in range(n + 1):
            for first in range(n - right + 1):
                second = n - right - first
                prob = (
                    math.factorial(n)
                    / (math.factorial(right) * math.factorial(first) * math.factorial(second))
                    * p**right
                    * wrong ** (first + second)
                )
                counts = {"0": right, "1": first, "2": second}
                expected += prob * cons_at_k_counts(counts, "0", k)
        assert expected == pytest.approx(plurality_vote_prob(p, k, num_distractors), abs=1e-12)


def test_cons_at_k_is_fast_for_realistic_sizes():
    many = [str(i % 10) for i in range(64)] + [str(i) for i in range(100, 164)]
    for k in (1, 16, 64, 128):
        value = cons_at_k(many, "3", k)
        assert 0.0 <= value <= 1.0


def test_cons_at_k_bad_input():
    with pytest.raises(ValueError, match="k"):
        cons_at_k(["a", "b"], "a", 0)
    with pytest.raises(ValueError, match="k"):
        cons_at_k(["a", "b"], "a", 3)
    with pytest.raises(TypeError, match="k"):
        cons_at_k(["a", "b"], "a", 1.0)
    with pytest.raises(TypeError, match="correct"):
        cons_at_k(["a", "b"], None, 1)
    with pytest.raises(TypeError, match="answers"):
        cons_at_k(["a", 1], "a", 1)
    with pytest.raises(TypeError, match="answers"):
        cons_at_k("ab", "a", 1)
    with pytest.raises(ValueError, match="answers"):
        cons_at_k([], "a", 1)
    with pytest.raises(ValueError, match="counts"):
        cons_at_k_counts({"a": -1, "b": 2}, "a", 1)
    with pytest.raises(ValueError, match="counts"):
        cons_at_k_counts({}, "a", 1)
    with pytest.raises(TypeError, match="counts"):
        cons_at_k_counts([("a", 1)], "a", 1)
    with pytest.raises(ValueError, match="num_none"):
        cons_at_k_counts({"a": 1}, "a", 1, num_none=-1)


def test_mean_cons_at_k():
    benchmark = [(["1", "1", "2"], "1"), (["3", None, "4"], "4")]
    expected = (cons_at_k(["1", "1", "2"], "1", 2) + cons_at_k(["3", None, "4"], "4", 2)) / 2
    assert mean_cons_at_k(benchmark, 2) == pytest.approx(expected)
    with pytest.raises(ValueError, match="benchmark"):
        mean_cons_at_k([], 1)
    with pytest.raises(TypeError, match="benchmark"):
        mean_cons_at_k([(["1"],)], 1)


def _exact_derail(temperature: float, chain_tokens: int, junk_tokens: int, junk_gap: float):
    """1 - (1 + J e^(-gap/T))^(-n) in 700-digit decimal arithmetic (exp correctly rounded)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 700  # enough that 1 - (1 + 1e-259)^(-n) keeps its digits
        junk = junk_tokens * (-Decimal(junk_gap) / Decimal(temperature)).exp()
        return float(1 - (1 + junk) ** -chain_tokens)


@pytest.mark.parametrize(
    ("temperature", "chain_tokens", "junk_tokens", "junk_gap"),
    [
        (0.1, 20, 5, 6.0),  # the chapter's coolest setting: 8.8e-25, not 0.0
        (0.01, 20, 5, 6.0),  # 2.7e-259
        (0.4, 20, 5, 6.0),
        (1.0, 20, 5, 6.0),
        (2.0, 20, 5, 6.0),
        (0.1, 10**9, 5, 6.0),  # a long chain of rare slips: n x, still far below 1
        (50.0, 10**9, 5, 6.0),  # certain
        (1.0, 1, 10**12, 0.0),  # x = 1e12: 1 - 1/(1 + x)
        (1e300, 20, 5, 6.0),
    ],
)
def test_derail_probability_matches_exact_at_tiny_and_huge_arguments(
    temperature, chain_tokens, junk_tokens, junk_gap
):
    got = derail_probability(temperature, chain_tokens, junk_tokens, junk_gap)
    assert got == pytest.approx(_exact_derail(temperature, chain_tokens, junk_tokens, junk_gap),
                                rel=1e-13, abs=0.0)


def test_derail_probability_takes_a_huge_junk_count():
    assert derail_probability(1.0, 20, 10**400) == 1.0  # log x, never float(10**400)
    assert derail_probability(1.0, 0) == 0.0 and derail_probability(1.0, 20, 0) == 0.0
