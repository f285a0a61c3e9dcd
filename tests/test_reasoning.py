"""Tests for code/reasoning.py: the seed's printed figures, exact cross-checks, bad input."""

from __future__ import annotations

import itertools
import json
import math
import re
import time
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasoning import (
    NoisyReasoner,
    SlipChainReasoner,
    best_of_n,
    condorcet_majority_prob,
    demonstrate_self_consistency,
    extract_answer,
    majority_vote,
    plurality_vote_prob,
    self_consistency,
    solve_chain,
    vote_distribution,
    weighted_vote,
)

FAST = settings(max_examples=60, deadline=None)
ANSWERS = st.lists(st.one_of(st.none(), st.sampled_from(["1", "2", "3", "42"])), max_size=12)

# ---------------------------------------------------------------------------------------------
# extract_answer
# ---------------------------------------------------------------------------------------------


def test_extract_answer_seed_examples():
    assert extract_answer("6 eggs/day * 7 days = 42 eggs.\n#### 42") == "42"
    assert extract_answer("...so there are 1,024 bytes. The answer is 1,024.") == "1024"
    assert extract_answer("I'm not sure.") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 1. the GSM8K marker beats everything, and the last marker wins
        ("The answer is 7. \\boxed{8} 9\n#### 10 then 11", "10"),
        ("#### 3\nwait, recheck\n#### 5", "5"),
        ("####12", "12"),
        ("#### 5 ... a stray #### with no number", "5"),
        # 2. "answer is" beats boxed and the last number; last occurrence; any case
        ("The answer is 3. Hmm, the ANSWER IS 4. Also \\boxed{5} and 6", "4"),
        ("The final answer is: **42**", "42"),
        # 3. boxed beats the last number; last boxed wins
        ("\\boxed{1} then \\boxed{ 2 } and finally 3", "2"),
        ("\\boxed{\\frac{1}{2}}", "2"),  # not a plain number: falls back to the last number
        # 4. the last number anywhere
        ("7 + 5 = 12 apples", "12"),
        ("no marker, 1, 2, 3", "3"),
    ],
)
def test_extract_answer_precedence(text, expected):
    assert extract_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,024", "1024"),
        ("12,345,678", "12345678"),
        ("$1,024.50", "1024.5"),
        ("costs $5.", "5"),
        ("42.", "42"),
        ("+7", "7"),
        ("x = -5", "-5"),
        ("-$3", "-3"),
        ("42.0", "42"),
        ("42.50", "42.5"),
        ("-0", "0"),
        ("-0.00", "0"),
        ("007", "7"),
        ("0.125", "0.125"),
        ("3.14159 is pi", "3.14159"),
        ("9-6=3;3-7=-4;####-4", "-4"),
        ("5-3", "3"),  # a minus after a digit is subtraction, not a sign
        ("H2O", "2"),
    ],
)
def test_extract_answer_normalises_numbers(text, expected):
    assert extract_answer(text) == expected


def test_equivalent_spellings_do_not_split_the_vote():
    chains = ["#### 1,024", "The answer is 1024.", "\\boxed{1024.0}", "so 1,024 bytes."]
    assert vote_distribution(extract_answer(c) for c in chains) == {"1024": 4}


@pytest.mark.parametrize("text", ["", "I'm not sure.", "#### ", "The answer is unknown", "x,.$-"])
def test_extract_answer_none_without_a_number(text):
    assert extract_answer(text) is None


def test_extract_answer_rejects_non_strings():
    for bad in (42, None, b"42", ["42"]):
        with pytest.raises(TypeError, match="text"):
            extract_answer(bad)


@pytest.mark.parametrize(
    "text",
    [
        "1," * 500_000,
        "#### " * 200_000,
        "#### x" * 166_666,
        "9" * 1_000_000,
        "123," * 250_000,
        "1,000" * 200_000,
        "the answer is " * 70_000,
        "\\boxed{1" * 120_000,
        " " * 1_000_000,
        "-" * 1_000_000,
        "answer" + " " * 1_000_000 + "is",
    ],
    ids=lambda s: repr(s[:8]),
)
def test_extract_answer_is_linear_on_adversarial_megabyte(text):
    start = time.perf_counter()
    extract_answer(text)
    assert time.perf_counter() - start < 0.5


def test_extract_answer_megabyte_results():
    assert extract_answer("1," * 500_000) == "1"
    assert extract_answer("#### " * 200_000) is None
    assert extract_answer("123," * 250_000) == "123" * 250_000


@FAST
@given(st.integers(-(10**15), 10**15), st.sampled_from(["#### {}", "The answer is {}.", "{} kg"]))
def test_extract_answer_round_trips_thousands_separators(value, template):
    assert extract_answer(template.format(f"{value:,}")) == str(value)
    assert extract_answer(template.format(f"{value}")) == str(value)


@FAST
@given(st.integers(-(10**9), 10**9), st.text(alphabet="0123456789", min_size=1, max_size=6))
def test_extract_answer_canonical_decimals(whole, decimals):
    sign = "-" if whole < 0 else ""
    text = f"#### {sign}{abs(whole):,}.{decimals}"
    expected = format(Decimal(f"{sign}{abs(whole)}.{decimals}").normalize(), "f")
    assert extract_answer(text) == ("0" if expected == "-0" else expected)


# ---------------------------------------------------------------------------------------------
# vote_distribution, majority_vote, self_consistency
# ---------------------------------------------------------------------------------------------


def test_vote_seed_example():
    answers = ["42", "36", "42", "42", "17", "42"]
    assert vote_distribution(answers) == {"42": 4, "36": 1, "17": 1}
    assert list(vote_distribution(answers)) == ["42", "36", "17"]  # first-appearance order
    assert majority_vote(answers) == "42"


def test_majority_vote_tie_goes_to_first_appearance():
    assert majority_vote(["2", "42", "42", "2"]) == "2"
    assert majority_vote(["42", "2", "2", "42"]) == "42"
    assert majority_vote([None, "7", "8"]) == "7"


def test_votes_ignore_none():
    assert vote_distribution([None, "1", None]) == {"1": 1}
    assert majority_vote([None, None]) is None
    assert majority_vote([]) is None
    assert vote_distribution([]) == {}


def test_votes_reject_bad_answers():
    with pytest.raises(TypeError, match="answers"):
        majority_vote("42")  # a bare string would vote per character
    with pytest.raises(TypeError, match="answers"):
        vote_distribution(["42", 42])
    with pytest.raises(TypeError, match="answers"):
        majority_vote(None)


@FAST
@given(ANSWERS, st.integers(0, 12))
def test_majority_vote_invariant_to_none(answers, where):
    assert majority_vote([*answers, None]) == majority_vote(answers)
    padded = answers[:where] + [None] + answers[where:]
    assert majority_vote(padded) == majority_vote(answers)
    assert vote_distribution(padded) == vote_distribution(answers)


@FAST
@given(ANSWERS)
def test_majority_vote_is_a_mode_seen_first(answers):
    tally = vote_distribution(answers)
    assert sum(tally.values()) == sum(a is not None for a in answers)
    winner = majority_vote(answers)
    if not tally:
        assert winner is None
        return
    top = max(tally.values())
    assert tally[winner] == top
    tied = [a for a in tally if tally[a] == top]
    assert winner == tied[0]


def test_self_consistency_seed_run_exactly():
    gen = NoisyReasoner(correct="42", p=0.55, num_distractors=4, seed=0)
    runs = [self_consistency(gen.sample, n) for n in (1, 5, 41)]
    assert runs[0] == ("3", {"3": 1})
    assert runs[1] == ("42", {"42": 2, "3": 1, "2": 2})  # 42 and 2 tie; 42 appeared first
    assert runs[2] == ("42", {"1": 6, "42": 22, "2": 5, "3": 4, "0": 4})
    assert list(runs[2][1]) == ["1", "42", "2", "3", "0"]


def test_self_consistency_reads_chains_and_skips_unreadable():
    chains = iter(["so #### 7", "no idea", "7 it is", "The answer is 8"])
    assert self_consistency(lambda: next(chains), 4) == ("7", {"7": 2, "8": 1})


def test_self_consistency_bad_input():
    with pytest.raises(ValueError, match="n"):
        self_consistency(lambda: "1", 0)
    with pytest.raises(TypeError, match="n"):
        self_consistency(lambda: "1", 2.0)
    with pytest.raises(TypeError, match="n"):
        self_consistency(lambda: "1", True)
    with pytest.raises(TypeError, match="sample_fn"):
        self_consistency("1", 3)
    with pytest.raises(TypeError, match="sample_fn must return a str"):  # not extract_answer's text
        self_consistency(lambda: 1, 3)


# ---------------------------------------------------------------------------------------------
# NoisyReasoner, SlipChainReasoner
# ---------------------------------------------------------------------------------------------


def test_noisy_reasoner_distractors_skip_correct():
    assert NoisyReasoner("42", 0.5, 4, seed=0).distractors == ("0", "1", "2", "3")
    assert NoisyReasoner("2", 0.5, 4, seed=0).distractors == ("0", "1", "3", "4")


def test_noisy_reasoner_is_seeded_and_calibrated():
    a, b = NoisyReasoner("42", 0.55, 4, seed=3), NoisyReasoner("42", 0.55, 4, seed=3)
    draws = [a.sample() for _ in range(20_000)]
    assert draws == [b.sample() for _ in range(20_000)]
    assert abs(draws.count("42") / len(draws) - 0.55) < 0.015
    assert set(draws) == {"42", "0", "1", "2", "3"}


def test_noisy_reasoner_bad_input():
    with pytest.raises(ValueError, match="p"):
        NoisyReasoner("42", 1.5, 4, seed=0)
    with pytest.raises(ValueError, match="num_distractors"):
        NoisyReasoner("42", 0.5, 0, seed=0)
    with pytest.raises(TypeError, match="correct"):
        NoisyReasoner(42, 0.5, 4, seed=0)
    with pytest.raises(TypeError, match="seed"):
        NoisyReasoner("42", 0.5, 4, seed=None)


def test_solve_chain_seed_format():
    assert solve_chain("7+5-3-6+7") == "7+5=12;12-3=9;9-6=3;3+7=10;####10"
    assert solve_chain("1-9") == "1-9=-8;####-8"
    assert extract_answer(solve_chain("1-9-3")) == "-11"


def _check_chain(problem: str, chain: str, slipped: bool) -> None:
    """Each step starts from the previous result; a step is wrong by 1 or 2 iff it slipped."""
    *steps, final = chain.split(";")
    value = int(problem[0])
    pairs = list(zip(problem[1::2], problem[2::2], strict=True))
    for (op, digit), step in zip(pairs, steps, strict=True):
        left, right, result = re.fullmatch(r"(-?\d+)([+-]\d)=(-?\d+)", step).groups()
        assert int(left) == value and right == op + digit
        error = abs(int(result) - (value + int(op + digit)))
        assert error in ((1, 2) if slipped else (0,))
        value = int(result)
    assert final == f"####{value}"


def test_slip_chain_reasoner_chains_are_well_formed():
    problem = "7+5-3-6+7"
    clean = SlipChainReasoner(problem, slip_prob=0.0, seed=1)
    assert clean.answer == "10"
    assert all(clean.sample() == solve_chain(problem) for _ in range(20))
    always = SlipChainReasoner(problem, slip_prob=1.0, seed=1)
    for _ in range(20):
        _check_chain(problem, always.sample(), slipped=True)


def test_slip_chain_reasoner_scatters_and_voting_recovers():
    gen = SlipChainReasoner("7+5-3-6+7", slip_prob=0.2, seed=0)
    chains = [gen.sample() for _ in range(4000)]
    answers = [extract_answer(chain) for chain in chains]
    clean = chains.count(solve_chain("7+5-3-6+7")) / len(chains)
    assert abs(clean - 0.8**4) < 0.03  # no slip in any of the 4 steps
    assert answers.count("10") / len(answers) >= clean  # slips can also cancel out
    wrong = vote_distribution(a for a in answers if a != "10")
    assert len(wrong) >= 5 and max(wrong.values()) < answers.count("10")  # wrong ones scatter
    again = SlipChainReasoner("7+5-3-6+7", slip_prob=0.2, seed=0)
    assert [again.sample() for _ in range(4000)] == chains
    assert self_consistency(SlipChainReasoner("7+5-3-6+7", 0.2, seed=5).sample, 41)[0] == "10"


@pytest.mark.parametrize("bad", ["", "7", "7+", "12+3", "7*3", " 7+5", "7+5\n", "7++5", "+7"])
def test_slip_chain_reasoner_rejects_bad_problems(bad):
    with pytest.raises(ValueError, match="problem"):
        SlipChainReasoner(bad, 0.1, seed=0)
    with pytest.raises(ValueError, match="problem"):
        solve_chain(bad)


def test_slip_chain_reasoner_bad_types():
    with pytest.raises(TypeError, match="problem"):
        solve_chain(7)
    with pytest.raises(ValueError, match="slip_prob"):
        SlipChainReasoner("7+5", -0.1, seed=0)
    with pytest.raises(TypeError, match="seed"):
        SlipChainReasoner("7+5", 0.1, seed="0")


# ---------------------------------------------------------------------------------------------
# condorcet_majority_prob, plurality_vote_prob
# ---------------------------------------------------------------------------------------------


def _condorcet_exact(p: Fraction, n: int) -> Fraction:
    total = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if 2 * k > n)
    if n % 2 == 0:
        total += Fraction(1, 2) * math.comb(n, n // 2) * p ** (n // 2) * (1 - p) ** (n // 2)
    return total


def test_condorcet_seed_column():
    values = [round(condorcet_majority_prob(0.55, n), 3) for n in (1, 3, 5, 11, 21, 41)]
    assert values == [0.550, 0.575, 0.593, 0.633, 0.679, 0.741]


@FAST
@given(st.integers(0, 100), st.integers(1, 60))
def test_condorcet_matches_exact_fractions(percent, n):
    exact = _condorcet_exact(Fraction(percent, 100), n)
    assert condorcet_majority_prob(percent / 100, n) == pytest.approx(float(exact), abs=1e-12)


@FAST
@given(st.floats(0.0, 1.0), st.integers(1, 200))
def test_condorcet_properties(p, m):
    assert condorcet_majority_prob(p, 1) == pytest.approx(p, abs=1e-15)
    # With a fair-coin tie, an even jury is exactly as good as the odd one below it.
    assert condorcet_majority_prob(p, 2 * m) == pytest.approx(
        condorcet_majority_prob(p, 2 * m - 1), abs=1e-12
    )
    assert condorcet_majority_prob(1 - p, m) == pytest.approx(
        1 - condorcet_majority_prob(p, m), abs=1e-12
    )


def test_condorcet_phase_transition_at_large_n():
    assert condorcet_majority_prob(0.55, 100_001) == pytest.approx(1.0, abs=1e-12)
    assert condorcet_majority_prob(0.45, 100_001) == pytest.approx(0.0, abs=1e-12)
    assert condorcet_majority_prob(0.5, 100_001) == pytest.approx(0.5, abs=1e-9)
    assert condorcet_majority_prob(0.5, 100_000) == pytest.approx(0.5, abs=1e-9)
    for n in range(1, 40):
        assert condorcet_majority_prob(0.5, n) == pytest.approx(0.5, abs=1e-12)


def test_condorcet_bad_input():
    with pytest.raises(ValueError, match="p"):
        condorcet_majority_prob(1.5, 3)
    with pytest.raises(ValueError, match="p"):
        condorcet_majority_prob(float("nan"), 3)
    with pytest.raises(TypeError, match="p"):
        condorcet_majority_prob("0.5", 3)
    for bad_n in (0, -1):
        with pytest.raises(ValueError, match="n"):
            condorcet_majority_prob(0.5, bad_n)
    with pytest.raises(TypeError, match="n"):
        condorcet_majority_prob(0.5, 3.0)


def _plurality_brute_force(p: float, n: int, num_distractors: int) -> float:
    """Sum over every sequence of n answers of P(sequence) * [majority_vote is right]."""
    wrong = (1 - p) / num_distractors
    total = 0.0
    for seq in itertools.product(range(num_distractors + 1), repeat=n):
        right = seq.count(0)
        if majority_vote([str(a) for a in seq]) == "0":
            total += p**right * wrong ** (n - right)
    return total


@pytest.mark.parametrize(("n", "num_distractors"), [(1, 1), (2, 3), (3, 2), (4, 2), (5, 3), (6, 2)])
@pytest.mark.parametrize("p", [0.0, 0.2, 0.35, 0.55, 1.0])
def test_plurality_matches_brute_force(p, n, num_distractors):
    assert plurality_vote_prob(p, n, num_distractors) == pytest.approx(
        _plurality_brute_force(p, n, num_distractors), abs=1e-12
    )


@FAST
@given(st.floats(0.0, 1.0), st.integers(1, 40))
def test_plurality_with_one_distractor_is_condorcet(p, n):
    assert plurality_vote_prob(p, n, 1) == pytest.approx(condorcet_majority_prob(p, n), abs=1e-12)


@FAST
@given(st.floats(0.0, 1.0), st.integers(1, 15), st.integers(1, 5))
def test_plurality_beats_condorcet_and_is_a_probability(p, n, num_distractors):
    value = plurality_vote_prob(p, n, num_distractors)
    assert 0.0 <= value <= 1.0
    assert value >= condorcet_majority_prob(p, n) - 1e-12  # scattering never hurts the vote
    assert plurality_vote_prob(p, 1, num_distractors) == pytest.approx(p, abs=1e-15)


def test_plurality_needs_only_the_mode_not_p_over_half():
    # p = 0.35 < 1/2 loses under Condorcet, but with 4 distractors (0.1625 each) it is the mode.
    assert condorcet_majority_prob(0.35, 41) < 0.05
    assert plurality_vote_prob(0.35, 41, 4) > 0.85


def test_plurality_bad_input():
    with pytest.raises(ValueError, match="p"):
        plurality_vote_prob(-0.1, 3, 2)
    with pytest.raises(ValueError, match="n"):
        plurality_vote_prob(0.5, 0, 2)
    with pytest.raises(ValueError, match="num_distractors"):
        plurality_vote_prob(0.5, 3, 0)
    with pytest.raises(TypeError, match="num_distractors"):
        plurality_vote_prob(0.5, 3, 2.5)


# ---------------------------------------------------------------------------------------------
# demonstrate_self_consistency
# ---------------------------------------------------------------------------------------------

SEED_NS = (1, 3, 5, 11, 21, 41)


def test_demonstrate_matches_exact_curve_within_four_standard_errors():
    accuracy = demonstrate_self_consistency(p=0.55, num_distractors=4, trials=3000, verbose=False)
    assert list(accuracy) == list(SEED_NS)
    for n, measured in accuracy.items():
        exact = plurality_vote_prob(0.55, n, 4)
        se = math.sqrt(exact * (1 - exact) / 3000)
        assert abs(measured - exact) <= 4 * se + 1e-12, (n, measured, exact)


def test_demonstrate_table_shape_and_condorcet_column(capsys):
    accuracy = demonstrate_self_consistency(p=0.55, num_distractors=4, trials=3000, seed=0)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == lines[2] == "=" * 60
    assert lines[1] == "SELF-CONSISTENCY: accuracy vs. samples (test-time compute)"
    assert lines[3] == "  per-sample accuracy p = 0.55, distractors = 4, trials = 3000"
    assert lines[5] == "     n   empirical   Condorcet"
    rows = [line.split() for line in lines[6:12]]
    assert [int(r[0]) for r in rows] == list(SEED_NS)
    assert [r[2] for r in rows] == ["0.550", "0.575", "0.593", "0.633", "0.679", "0.741"]
    assert [r[1] for r in rows] == [f"{accuracy[n]:.3f}" for n in SEED_NS]
    assert all(len(line) <= 80 for line in lines)
    assert "p > 1/2" in out and "grows" in out


def test_demonstrate_is_seeded_and_json_ready():  # its speed is scripts/benchmark.py's job
    first = demonstrate_self_consistency(verbose=False)
    assert first == demonstrate_self_consistency(verbose=False)
    assert first != demonstrate_self_consistency(seed=1, verbose=False)
    assert all(type(n) is int and type(v) is float for n, v in first.items())
    json.dumps([{"n": n, "acc": v} for n, v in first.items()])


def test_demonstrate_is_honest_when_p_is_below_half(capsys):
    demonstrate_self_consistency(p=0.3, num_distractors=1, trials=200, ns=(1, 9))
    out = capsys.readouterr().out
    assert "grows" not in out and "wrong" in out
    demonstrate_self_consistency(p=0.35, num_distractors=4, trials=200, ns=(1, 9))
    out = capsys.readouterr().out
    assert "cannot rise" in out and "most likely" in out


def test_demonstrate_bad_input():
    with pytest.raises(ValueError, match="p"):
        demonstrate_self_consistency(p=1.5, verbose=False)
    with pytest.raises(ValueError, match="num_distractors"):
        demonstrate_self_consistency(num_distractors=0, verbose=False)
    with pytest.raises(ValueError, match="trials"):
        demonstrate_self_consistency(trials=0, verbose=False)
    with pytest.raises(TypeError, match="seed"):
        demonstrate_self_consistency(seed=0.5, verbose=False)
    with pytest.raises(ValueError, match="ns"):
        demonstrate_self_consistency(ns=(), verbose=False)
    with pytest.raises(ValueError, match="ns"):
        demonstrate_self_consistency(ns=(1, 0), verbose=False)
    with pytest.raises(ValueError, match="ns"):
        demonstrate_self_consistency(ns=(3, 3), verbose=False)


# ---------------------------------------------------------------------------------------------
# best_of_n, weighted_vote
# ---------------------------------------------------------------------------------------------


def test_best_of_n_seed_example():
    def verifier(chain: str) -> float:
        return len(chain) + (5.0 if "=" in chain else 0.0)

    candidates = iter(
        ["#### 42", "6 * 7 = 42, so the total is 42.\n#### 42", "idk maybe 40\n#### 40"]
    )
    best = best_of_n(lambda: next(candidates), score_fn=verifier, n=3)
    assert best == "6 * 7 = 42, so the total is 42.\n#### 42"


def test_best_of_n_ties_go_to_the_earliest_sample():
    candidates = iter(["aa", "bb", "cc", "d"])
    assert best_of_n(lambda: next(candidates), score_fn=len, n=4) == "aa"


def test_best_of_n_finds_the_rare_gem_voting_misses():
    # Exercise 2: right 30% of the time, but right chains are the longest.
    noisy = NoisyReasoner("42", p=0.3, num_distractors=1, seed=0)

    def chain() -> str:
        answer = noisy.sample()
        return f"6 * 7 = 42, so #### {answer}" if answer == "42" else f"#### {answer}"

    assert extract_answer(best_of_n(chain, score_fn=len, n=11)) == "42"
    assert self_consistency(chain, 11)[0] != "42"


def test_best_of_n_bad_input():
    with pytest.raises(ValueError, match="n"):
        best_of_n(lambda: "a", len, 0)
    with pytest.raises(TypeError, match="score_fn"):
        best_of_n(lambda: "a", "len", 1)
    with pytest.raises(TypeError, match="sample_fn"):
        best_of_n(None, len, 1)
    with pytest.raises(ValueError, match="score_fn"):
        best_of_n(lambda: "a", lambda chain: float("nan"), 2)
    with pytest.raises(TypeError, match="score_fn"):
        best_of_n(lambda: "a", lambda chain: "high", 2)
    with pytest.raises(TypeError, match="sample_fn"):
        best_of_n(lambda: 3, len, 2)


def test_weighted_vote_lets_a_confident_minority_win():
    answers = ["40", "40", "42", None]
    assert majority_vote(answers) == "40"
    assert weighted_vote(answers, [0.1, 0.2, 0.9, 5.0]) == "42"
    assert weighted_vote(answers, [0.5, 0.5, 1.0, 0.0]) == "40"  # tie 1.0 vs 1.0: first wins
    assert weighted_vote([None, None], [1.0, 2.0]) is None
    assert weighted_vote([], []) is None
    assert weighted_vote(["1", "2"], [0, 0]) == "1"  # all-zero weights: everything ties


@FAST
@given(ANSWERS, st.floats(0.01, 10.0))
def test_weighted_vote_with_equal_scores_is_majority_vote(answers, score):
    assert weighted_vote(answers, [score] * len(answers)) == majority_vote(answers)


def test_weighted_vote_bad_input():
    with pytest.raises(ValueError, match="scores"):
        weighted_vote(["1", "2"], [1.0])
    with pytest.raises(ValueError, match="scores"):
        weighted_vote(["1"], [-1.0])
    with pytest.raises(ValueError, match="scores"):
        weighted_vote(["1"], [math.inf])
    with pytest.raises(ValueError, match="scores"):
        weighted_vote(["1"], [math.nan])
    with pytest.raises(TypeError, match="scores"):
        weighted_vote(["1"], ["0.5"])
    with pytest.raises(TypeError, match="answers"):
        weighted_vote(["1", 2], [1.0, 1.0])
