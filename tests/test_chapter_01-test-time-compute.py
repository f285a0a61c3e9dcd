"""Chapter 1 prints what its modules compute, its prose quotes those numbers, and its exercises'
solutions give the answers the arithmetic does.

Each check recomputes the value another way (the closed form, a brute-force count, the chain
worked by hand) rather than calling the chapter's own line again.
"""

from __future__ import annotations

import itertools
import math
import re

import pytest

from conftest import executed
from reasoning import SlipChainReasoner, plurality_vote_prob
from thinking import count_tokens

STEM = "01-test-time-compute"
PROBLEM = "7+5-3-6+7"
STEP = re.compile(r"^(-?\d+)([+-])(\d)=(-?\d+)$")


def inline() -> dict[str, float]:
    return {cell.source: float(text) for cell, text in executed(STEM).inline}


def out() -> str:
    return executed(STEM).stdout()


def chains() -> list[str]:
    """Every chain the chapter printed for PROBLEM, in order (the right one first, then the
    slipping reasoner's samples)."""
    return [line for line in out().splitlines() if line.startswith("7+5=")]


def number(pattern: str) -> float:
    """The number the chapter printed where `pattern`'s group stands."""
    m = re.search(pattern, out())
    assert m, f"the chapter no longer prints {pattern!r}"
    return float(m.group(1))


def chain_steps(chain: str) -> tuple[list[tuple[int, str, int, int]], str]:
    """A chain's steps as (left, op, digit, written result) and its final answer."""
    *steps, final = chain.split(";")
    assert final.startswith("####"), chain
    parsed = []
    for step in steps:
        m = STEP.match(step)
        assert m, f"not an arithmetic step: {step!r} in {chain!r}"
        parsed.append((int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))))
    return parsed, final.removeprefix("####")


def test_two_budgets_are_six_and_two_flops_per_parameter_token():
    n, d = 7e9, 2e12
    assert number(r"training once:\s+(\S+) FLOPs") == pytest.approx(6 * n * d, rel=0.05)
    assert number(r"a 5-token answer:\s+(\S+) FLOPs") == pytest.approx(2 * n * 5, rel=0.05)
    assert number(r"a 3,000-token thought:\s+(\S+) FLOPs") == pytest.approx(2 * n * 3000, rel=0.05)
    v = inline()
    # Generation is linear in tokens, so the ratio is the token ratio, whatever the model size.
    assert v["think_ratio"] == v["think_tokens"] / 5 == 600
    assert number(r"\((\d+)x the short answer\)") == v["think_ratio"]
    assert v["answers_billions"] == round(6 * n * d / (2 * n * 3000) / 1e9, 1) == 2.0


def test_the_printed_chain_is_the_left_to_right_arithmetic():
    chain = chains()[0]
    steps, final = chain_steps(chain)
    terms = re.findall(r"[+-]?\d", PROBLEM)
    assert [f"{op}{digit}" for _, op, digit, _ in steps] == terms[1:]
    running = int(terms[0])
    for left, op, digit, written in steps:
        assert left == running
        running = running + digit if op == "+" else running - digit
        assert written == running  # every step is right
    assert int(final) == running == inline()["bare_answer"] == 10


def test_token_counts_follow_the_books_tokenizer():
    chain = chains()[0]
    tokens = int(number(r"tokens in the chain: (\d+)"))
    # Numbers, symbols and the marker's four '#': one token each, counted by hand.
    by_hand = len(re.findall(r"\d+|[^\d]", chain))
    assert tokens == by_hand == count_tokens(chain) == inline()["chain_tokens"]
    assert number(r"in a bare answer: (\d+)") == 1


def test_slipping_samples_carry_their_slips_and_scatter():
    samples = chains()[1:]
    gen = SlipChainReasoner(PROBLEM, slip_prob=0.2, seed=4)
    assert samples == [gen.sample() for _ in range(4)]  # the seeded draws, in order
    finals = []
    for chain in samples:
        steps, final = chain_steps(chain)
        for (_, _, _, written), (left, _, _, _) in itertools.pairwise(steps):
            assert left == written  # a slip is carried into the next step
        slips = [abs(w - (a + b if op == "+" else a - b)) for a, op, b, w in steps]
        assert all(s in (0, 1, 2) for s in slips), chain  # off by at most 2, as documented
        assert int(final) == steps[-1][3]
        finals.append(final)
    assert len(set(finals)) >= 2  # "different samples slip at different steps"


def test_template_is_graded_and_its_tokens_split():
    text = out()
    assert "well-formed template: True" in text
    assert "answer shown to the user: 6" in text
    thinking = number(r"thinking tokens: (\d+)")
    answer = number(r"answer tokens: (\d+)")
    assert answer == 1
    assert thinking > 20 * answer


def test_the_cost_of_thinking_tokens():
    v = inline()
    thinking, answer = v["ledger.thinking_tokens"], v["ledger.answer_tokens"]
    # 420 repeats of a 7-token sentence ("Let me check that step again.") are the thinking.
    assert thinking == 420 * 7
    assert answer == count_tokens("The train catches up at 13:00.")
    share = thinking / (thinking + answer)
    assert number(r"thinking share ([\d.]+)%") == pytest.approx(100 * share, abs=0.05)
    assert v["share_pct"] == round(100 * share, 1)
    assert number(r"cost \$([\d.]+)") == pytest.approx((thinking + answer) * 10 / 1e6, abs=5e-5)


def brute_force_plurality(p: float, n: int, distractors: int = 4) -> float:
    """P(the right answer wins the plurality vote), every multinomial outcome counted; a tie at
    the top with t wrong answers is won with probability 1 / (t + 1)."""
    q = (1 - p) / distractors
    total = 0.0
    for right in range(n + 1):
        for wrong in itertools.product(range(n - right + 1), repeat=distractors - 1):
            last = n - right - sum(wrong)
            if last < 0:
                continue
            counts = (*wrong, last)
            if max(counts) > right:
                continue
            ways = math.factorial(n) // math.factorial(right)
            for c in counts:
                ways //= math.factorial(c)
            ties = sum(c == right for c in counts)
            total += ways * p**right * q ** (n - right) / (ties + 1)
    return total


def test_the_vote_budget_figure_gets_the_exact_vote():
    """The figure's data: each accuracy's vote over 1, 3, ..., 41 chains of the chain's length,
    the exact plurality accuracy (counted outcome by outcome for small n), rising with n."""
    rows = executed(STEM).defines["vote_budget"]
    chain_tokens = inline()["chain_tokens"]
    assert sorted({r["accuracy"] for r in rows}) == [0.4, 0.55, 0.7]
    for p in (0.4, 0.55, 0.7):
        curve = sorted((r for r in rows if r["accuracy"] == p), key=lambda r: r["n"])
        assert [r["n"] for r in curve] == list(range(1, 42, 2))
        assert all(r["tokens"] == r["n"] * chain_tokens for r in curve)
        for r in curve[:5]:  # n = 1 .. 9: every multinomial outcome counted
            assert r["value"] == pytest.approx(brute_force_plurality(p, r["n"]), abs=1e-12)
        values = [r["value"] for r in curve]
        assert values == sorted(values) and values[0] == pytest.approx(p)
    assert inline()["weakest_pct"] == 40



def test_exercise_1_finds_the_smallest_odd_number_of_chains():
    chain_tokens = inline()["chain_tokens"]
    needed = {}
    for p in (0.55, 0.4):
        m = re.search(rf"p = {p:.2f}: (\d+) chains, (\d+) tokens, vote accuracy ([\d.]+)", out())
        assert m, f"exercise 1 prints no line for p = {p}"
        n, tokens, acc = int(m.group(1)), int(m.group(2)), float(m.group(3))
        assert n % 2 == 1 and tokens == n * chain_tokens
        assert plurality_vote_prob(p, n, 4) >= 0.9 > plurality_vote_prob(p, n - 2, 4)
        assert acc == pytest.approx(plurality_vote_prob(p, n, 4), abs=5e-4)
        needed[p] = n
    assert needed[0.4] > 2 * needed[0.55]  # "needs more than twice as many chains"


def test_exercise_2_breakeven_is_three_training_sets():
    d = 2e12
    assert number(r"generated tokens that equal training: (\S+) \(") == pytest.approx(3 * d)
    assert number(r"3,000-token answers: (\S+)") == pytest.approx(3 * d / 3000)


def test_exercise_3_the_thinking_share_passes_99_percent():
    answer = count_tokens("The train catches up at 13:00.")
    shares = {}
    for words in (10, 100, 1000, 10000):
        share = number(rf"\n\s*{words} words of thinking: share\s+([\d.]+)%")
        assert share == pytest.approx(100 * words / (words + answer), abs=0.05)
        shares[words] = share
    assert list(shares.values()) == sorted(shares.values())
    first = inline()["first_over"]
    assert shares[first] > 99 and all(s <= 99 for w, s in shares.items() if w < first)
    assert first > 99 * answer  # the prose's t > 99 a
