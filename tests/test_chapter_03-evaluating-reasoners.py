"""Chapter 3 prints what its estimators compute, hands its widgets the toy benchmark's curves,
and its prose about the real tiny reasoner holds for the recorded evaluations.

Each check recomputes the value another way: binomial coefficients in exact integers, subsets
counted one by one, the toy benchmark's expected scores in closed form, the recorded JSON read
directly.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from conftest import executed
from data_paths import MULTIPATH_EVAL_PATH, TINY_REASONER_EVAL_PATH
from evaluation import derail_probability, make_toy_benchmark

STEM = "03-evaluating-reasoners"


def inline() -> dict[str, float]:
    return {cell.source: float(text) for cell, text in executed(STEM).inline}


def out() -> str:
    return executed(STEM).stdout()


def number(pattern: str) -> float:
    """The number the chapter printed where `pattern`'s group stands."""
    m = re.search(pattern, out())
    assert m, f"the chapter no longer prints {pattern!r}"
    return float(m.group(1))


def exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """1 - C(n - c, k) / C(n, k) in exact integers."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def exact_cons_at_k(answers: list[str], correct: str, k: int) -> Fraction:
    """cons@k by visiting every multiset of k draws (a tie at the top is split evenly)."""
    sizes = Counter(answers)
    labels = list(sizes)
    total = Fraction(0)
    for drawn in itertools.product(*(range(min(sizes[a], k) + 1) for a in labels)):
        if sum(drawn) != k:
            continue
        ways = math.prod(math.comb(sizes[a], x) for a, x in zip(labels, drawn, strict=True))
        top = max(drawn)
        winners = [a for a, x in zip(labels, drawn, strict=True) if x == top]
        if correct in winners:
            total += Fraction(ways, len(winners))
    return total / math.comb(len(answers), k)


def test_pass_at_k_worked_examples():
    assert "pass@5 = 1.0   pass@1 = 0.2" in out()
    ratio = Fraction(math.comb(70, 5), math.comb(100, 5))
    assert number(r"all five wrong: ([\d.]+)") == pytest.approx(float(ratio), abs=5e-5)
    assert number(r"pass@5 = ([\d.]+)\n") == pytest.approx(float(1 - ratio), abs=5e-5)
    v = inline()
    assert v["ratio_rounded"] == round(float(ratio), 2)
    assert v["p5_rounded"] == round(float(exact_pass_at_k(100, 30, 5)), 2)
    assert v["single_pct"] == 30
    assert v["round(100 * p5)"] == round(100 * float(exact_pass_at_k(100, 30, 5)))
    assert "\n0.3 0.3\n" in out()  # pass@1 is c / n


def test_pass_at_k_stays_finite_where_the_binomials_overflow():
    assert "float(comb(100000, 500)) -> OverflowError" in out()
    printed = number(r"pass_at_k\(100000, 37, 500\) = ([\d.]+)")
    assert printed == pytest.approx(float(exact_pass_at_k(100_000, 37, 500)), abs=5e-7)


def test_the_plug_in_estimator_is_biased_low():
    m = re.search(
        r"true pass@10 = ([\d.]+)\s+unbiased mean = ([\d.]+)\s+naive mean = ([\d.]+)", out()
    )
    assert m
    truth, unbiased, naive = (float(x) for x in m.groups())
    assert truth == pytest.approx(1 - 0.9**10, abs=5e-5)
    # 50,000 problems: the unbiased mean is within a few standard errors of the truth.
    assert unbiased == pytest.approx(truth, abs=0.01)
    assert naive < truth - 0.05
    assert inline()["naive_gap"] == pytest.approx(100 * (truth - naive), abs=0.06)


def test_a_benchmark_score_is_the_mean_over_problems():
    results = [(100, 30), (100, 0), (100, 100), (100, 2)]
    for k in (1, 5, 50):
        want = sum(exact_pass_at_k(n, c, k) for n, c in results) / len(results)
        assert number(rf"pass@{k:<2} = ([\d.]+)") == pytest.approx(float(want), abs=5e-4)
    v = inline()
    assert v["rare_c"] == 2 and v["rare_n"] == 100
    assert v["rare_p1"] == 0.02
    assert v["rare_p50"] == round(float(exact_pass_at_k(100, 2, 50)), 2) == 0.75


def test_cons_at_k_against_counting_the_subsets():
    answers = ["42"] * 30 + ["41"] * 25 + ["43"] * 25 + ["40"] * 20
    for k in (1, 5, 25, 100):
        m = re.search(rf"k={k:<3}  pass@k = ([\d.]+)   cons@k = ([\d.]+)", out())
        assert m, f"no cons@k line for k = {k}"
        passed, cons = float(m.group(1)), float(m.group(2))
        assert passed == pytest.approx(float(exact_pass_at_k(100, 30, k)), abs=5e-4)
        if k <= 5:  # every multiset of draws, one by one (k = 25 is too many to visit)
            assert cons == pytest.approx(float(exact_cons_at_k(answers, "42", k)), abs=5e-4)
        assert passed >= cons  # "pass@k is always at least cons@k"
    assert number(r"k=1    pass@k = [\d.]+   cons@k = ([\d.]+)") == 0.3
    assert number(r"k=100  pass@k = [\d.]+   cons@k = ([\d.]+)") == 1.0  # 42 is the mode


def test_derailing_grows_with_temperature():
    found = re.findall(r"T=([\d.]+): P\(chain derails\) = ([\d.]+)", out())
    printed = {float(t): float(p) for t, p in found}
    assert sorted(printed) == [0.4, 0.7, 1.0, 1.5, 2.0]
    for t, p in printed.items():
        # Each of 20 tokens goes astray with probability J e^(-gap/T) / (1 + J e^(-gap/T)).
        junk = 5 * math.exp(-6 / t)
        assert p == pytest.approx(1 - (1 / (1 + junk)) ** 20, abs=5e-4)
    assert list(printed.values()) == sorted(printed.values())


@pytest.fixture(scope="module")
def temp_curves() -> list[dict]:
    return executed(STEM).defines["temp_curves"]


def curve(records: list[dict], metric: str, temperature: float) -> dict[int, dict]:
    return {r["k"]: r for r in records if r["metric"] == metric and r["temperature"] == temperature}


def expected_pass_at_k(temperature: float, k: int) -> float:
    """The toy model's true pass@k: softmax(z / T) on the paths, each chain derails
    independently, averaged over the benchmark's problems."""
    bench = make_toy_benchmark(num_problems=300, num_paths=12, num_answers=10, seed=0)
    z, right = bench["logits"], bench["answers"] == 0
    if temperature == 0:
        return float(np.mean(right[np.arange(len(z)), z.argmax(axis=1)]))
    w = np.exp((z - z.max(axis=1, keepdims=True)) / temperature)
    q = (w * right).sum(axis=1) / w.sum(axis=1) * (1 - derail_probability(temperature))
    return float(np.mean(1 - (1 - q) ** k))


def test_toy_benchmark_curves_handed_to_the_widget(temp_curves):
    temps = [0.0, 0.2, 0.4, 0.7, 1.0, 1.5, 2.0]
    ks = [1, 2, 4, 8, 16, 32, 64]
    assert sorted({r["temperature"] for r in temp_curves}) == temps
    assert len(temp_curves) == len(temps) * len(ks) * 2
    for r in temp_curves:
        assert r["lo"] <= r["value"] <= r["hi"]
    greedy = expected_pass_at_k(0.0, 1)
    for metric in ("pass@k", "cons@k"):  # greedy: every attempt is the top path
        for r in curve(temp_curves, metric, 0.0).values():
            assert r["value"] == pytest.approx(greedy)
    for t in temps:
        passed, cons = curve(temp_curves, "pass@k", t), curve(temp_curves, "cons@k", t)
        for k in ks:
            # pass@k >= cons@k on every problem; the two are estimated differently (the exact
            # estimator, the vote of random subsets), so the means may cross by sampling noise.
            assert passed[k]["value"] >= cons[k]["value"] - 0.01
            # The sampled estimate sits within its bootstrap interval of the closed form.
            want = expected_pass_at_k(t, k)
            assert passed[k]["lo"] - 0.01 <= want <= passed[k]["hi"] + 0.01, (t, k, want)
        assert passed[1]["value"] == pytest.approx(cons[1]["value"], abs=0.01)  # both: accuracy


def test_prose_on_the_toy_benchmark(temp_curves):
    v = inline()
    p = lambda t, k: curve(temp_curves, "pass@k", t)[k]["value"]  # noqa: E731
    c = lambda t, k: curve(temp_curves, "cons@k", t)[k]["value"]  # noqa: E731
    assert v["greedy_p1"] == round(p(0.0, 1), 3)
    assert v["t07_p1"] == round(p(0.7, 1), 3) < v["greedy_p1"]  # "a little worse"
    assert v["t07_p64"] == round(p(0.7, 64), 3)
    assert v["t07_c64"] == round(c(0.7, 64), 3) > v["greedy_p1"]  # "better than greedy"
    assert v["t20_p1"] == round(p(2.0, 1), 3) < 0.5  # "most chains derail"
    assert v["t20_p64"] == round(p(2.0, 64), 3) < v["t07_p64"]
    assert derail_probability(2.0) > 0.5


@pytest.fixture(scope="module")
def real() -> dict:
    return json.loads(TINY_REASONER_EVAL_PATH.read_text())


def test_the_real_reasoners_figure_gets_the_recorded_curves(real):
    defines = executed(STEM).defines
    assert defines["real_curves"] == real["curves"]
    assert defines["real_setup"] == {"problems": real["problems"], "ks": real["ks"]}
    for r in real["curves"]:
        assert r["lo"] <= r["value"] <= r["hi"]
        if r["temperature"] == 0.0:  # greedy: one chain, the same whatever k
            assert r["value"] == real_value(real, "pass@k", 0.0, 1)


def real_value(real: dict, metric: str, temperature: float, k: int) -> float:
    return next(r["value"] for r in real["curves"]
                if (r["metric"], r["temperature"], r["k"]) == (metric, temperature, k))


def test_prose_on_the_real_tiny_reasoner(real):
    v = inline()
    n = real["samples"]
    rec = {(r["metric"], r["temperature"], r["k"]): r for r in real["curves"]}
    div = {d["temperature"]: d for d in real["diversity"]}
    assert v["real_n"] == n and v["real_problems"] == real["problems"]
    assert v["r_greedy"] == round(rec["pass@k", 0.0, 1]["value"], 3)
    assert v["r07_p1"] == round(rec["pass@k", 0.7, 1]["value"], 3) < v["r_greedy"]
    assert v["r10_p1"] < v["r07_p1"]  # "a sampled attempt is worse", hotter more so
    assert v["r07_p128"] == v["r10_p128"] == 1.0  # "it is there for every problem"
    assert v["r07_c128"] == round(rec["cons@k", 0.7, n]["value"], 3)
    assert v["r07_c128"] <= v["r_greedy_hi"]  # "here it at best matches it"
    gap = rec["pass@k", 1.0, n]["value"] - rec["cons@k", 1.0, n]["value"]
    assert v["r_verifier_gap"] == round(100 * gap, 1) > 0
    assert v["r10_distinct"] > v["r07_distinct"]  # "the hotter setting writes more answers"
    for k in real["ks"]:  # "it costs the vote at every k"
        assert rec["cons@k", 1.0, k]["value"] < rec["cons@k", 0.7, k]["value"]
    for k in (1, 2, 4, 8):  # "up to k = 8 the hotter setting is behind"
        assert rec["pass@k", 1.0, k]["value"] < rec["pass@k", 0.7, k]["value"]
    for k in (k for k in real["ks"] if k >= 16):  # "from k = 16 on ... within intervals"
        hot, cool = rec["pass@k", 1.0, k], rec["pass@k", 0.7, k]
        assert hot["lo"] <= cool["hi"] and cool["lo"] <= hot["hi"]
    assert v["r10_top_wrong"] == round(100 * div[1.0]["top_wrong_share"]) < v["r07_top_wrong"]
    assert v["r10_mode"] == round(100 * div[1.0]["right_is_mode"], 1) < v["r07_mode"]


def test_one_route_or_three():
    """The section's numbers, read from data/multipath_eval.json directly, and the finding
    chapter 2 states: the multi-path vote beats its greedy chain, the single-path one does not,
    and the one whose wrong chains agree less is the one whose vote climbs."""
    v = inline()
    mp_eval = json.loads(MULTIPATH_EVAL_PATH.read_text())
    big, t = str(mp_eval["ks"][-1]), v["mp3_T"]
    assert v["mp_k"] == int(big) and v["mp_n_problems"] == len(mp_eval["problems"])
    assert t in mp_eval["temperatures"]
    for short, name in (("s", "single"), ("m", "multi")):
        rec = mp_eval["models"][name]
        sampled = rec["sampled"][str(t)]
        cons, passed = sampled["cons@k"][big]["value"], sampled["pass@k"][big]["value"]
        assert v[f"mp3_{short}_gap"] == round(100 * (cons - rec["greedy"]["value"]), 1)
        assert v[f"mp3_{short}_pass"] == round(passed, 3)
        assert v[f"mp3_{short}_ver"] == round(100 * (passed - cons), 1) >= 0
        assert v[f"mp3_{short}_agree"] == sampled["wrong_agreement"]
    assert v["mp3_m_gap"] > 0 >= v["mp3_s_gap"]
    assert v["mp3_m_agree"] < v["mp3_s_agree"]  # the multi-path model's wrong chains scatter



def test_exercise_1_counts_every_subset():
    hit, total = math.comb(10, 3) - math.comb(8, 3), math.comb(10, 3)
    assert f"{hit} of {total} subsets hold a correct attempt: {hit / total:.4f}" in out()
    assert number(r"pass_at_k\(10, 2, 3\) = ([\d.]+)") == round(hit / total, 4)
    assert number(r"plug-in = ([\d.]+)") == round(1 - 0.8**3, 4)


def test_exercise_2_a_guesser_passes_at_large_k_but_does_not_win_the_vote():
    rng = np.random.default_rng(0)
    guesses = [str(a) for a in rng.integers(0, 10, size=200)]
    c = guesses.count("7")
    lines = re.findall(r"k=(\d+)\s+pass@k = ([\d.]+)   cons@k = ([\d.]+)", out())[-3:]
    assert [int(k) for k, _, _ in lines] == [1, 10, 100]
    for k, passed, cons in lines:
        k = int(k)
        assert float(passed) == pytest.approx(float(exact_pass_at_k(200, c, k)), abs=5e-4)
        assert float(cons) < 0.5  # the vote is close to a draw among ten
    assert float(lines[-1][1]) > 0.999  # pass@100 is essentially 1 for a model that knows nothing


def test_exercise_3_more_samples_shrink_the_spread():
    rows = re.findall(r"n = +(\d+): mean ([\d.]+) \(truth ([\d.]+)\), std ([\d.]+)", out())
    assert [int(n) for n, *_ in rows] == [5, 20, 100]
    for _, mean, truth, _ in rows:
        assert float(truth) == pytest.approx(1 - 0.7**5, abs=5e-4)
        assert float(mean) == pytest.approx(float(truth), abs=0.02)  # unbiased at every n
    stds = [float(s) for *_, s in rows]
    assert stds == sorted(stds, reverse=True)
    assert re.search(r"pass_at_k\(4, 1, 5\) -> .*k", out())  # refused, naming k
