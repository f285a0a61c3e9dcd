"""Part I's widgets in Chromium: each draws, and each input moves the drawing as the maths says."""

from __future__ import annotations

import pytest

from conftest import executed
from evaluation import cons_at_k_counts, naive_pass_at_k, pass_at_k
from reasoning import (
    best_of_n_accuracy,
    condorcet_majority_prob,
    majority_vote,
    plurality_vote_prob,
)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    "stem", ["01-test-time-compute", "02-self-consistency", "03-evaluating-reasoners"]
)
def test_chapter_ojs_runs_clean(open_chapter, stem):
    open_chapter(stem).assert_clean()


# ------------------------------------------------------------------ chapter 2


def test_self_consistency_stepper(open_chapter):
    page = open_chapter("02-self-consistency")
    batches = executed("02-self-consistency").defines["sc_batches"]
    assert page.data_marks("self-consistency") > 0

    def expected(batch, shown):
        return majority_vote([c["answer"] for c in batches[batch][:shown]])

    assert page.readout("self-consistency", "shown") == 5
    assert page.readout_text("self-consistency", "vote") == expected(0, 5)
    before = page.svg_signature("self-consistency")
    page.set_input("Chains revealed", 15)
    assert page.readout("self-consistency", "shown") == 15
    assert page.readout_text("self-consistency", "vote") == expected(0, 15)
    right = sum(
        c["answer"] == executed("02-self-consistency").defines["sc_correct"] for c in batches[0]
    )
    assert page.readout("self-consistency", "right") == right
    assert page.svg_signature("self-consistency") != before
    page.click_button("Resample")  # the next batch of chains
    assert page.readout_text("self-consistency", "vote") == expected(1, 15)
    assert page.widget("self-consistency").locator("li").count() == 15


def test_condorcet_widget(open_chapter):
    page = open_chapter("02-self-consistency")
    assert page.data_marks("condorcet") >= 12  # two curves, two reference rules, 8 simulated dots
    assert page.readout("condorcet", "condorcet") == pytest.approx(
        condorcet_majority_prob(0.55, 41), abs=1e-9
    )
    assert page.readout("condorcet", "plurality") == pytest.approx(
        plurality_vote_prob(0.55, 41, 4), abs=1e-9
    )
    drawing = page.svg_signature("condorcet")
    page.set_input("Per-sample accuracy p", 0.45)
    page.set_input("Distinct wrong answers D", 1)
    page.set_input("Largest n", 21)
    assert page.svg_signature("condorcet") != drawing
    cond = page.readout("condorcet", "condorcet")
    assert cond == pytest.approx(condorcet_majority_prob(0.45, 21), abs=1e-9)
    assert cond < 0.45  # below one half, voting amplifies the error
    assert page.readout("condorcet", "plurality") == pytest.approx(
        cond, abs=1e-9
    )  # D = 1 is Condorcet
    page.set_input("Distinct wrong answers D", 8)
    assert page.readout("condorcet", "plurality") == pytest.approx(
        plurality_vote_prob(0.45, 21, 8), abs=1e-9
    )
    assert page.readout("condorcet", "plurality") > 0.9  # scattered wrong answers: the vote wins


def test_vote_vs_verifier_widget(open_chapter):
    page = open_chapter("02-self-consistency")
    assert page.data_marks("vote-vs-verifier") > 10
    assert page.readout("vote-vs-verifier", "vote64") == pytest.approx(
        plurality_vote_prob(0.2, 64, 4), abs=1e-9
    )
    assert page.readout("vote-vs-verifier", "bon64") == pytest.approx(
        best_of_n_accuracy(0.2, 64, 1.0), abs=1e-6
    )
    page.set_input("Verifier separation", 0)
    assert page.readout("vote-vs-verifier", "bon64") == pytest.approx(
        0.2, abs=1e-6
    )  # a useless verifier
    page.set_input("Accuracy of one sample", 0.6)
    page.set_input("Verifier separation", 3)
    assert page.readout("vote-vs-verifier", "vote64") == pytest.approx(
        plurality_vote_prob(0.6, 64, 4), abs=1e-9
    )
    assert page.readout("vote-vs-verifier", "bon64") == pytest.approx(
        best_of_n_accuracy(0.6, 64, 3.0), abs=1e-6
    )


# ------------------------------------------------------------------ chapter 3


def even_tally(n, c, d):
    counts = {"right": c}
    wrong = n - c
    for i in range(d):
        share = wrong // d + (1 if i < wrong % d else 0)
        if share:
            counts[f"wrong{i + 1}"] = share
    return counts


def test_pass_at_k_explorer(open_chapter):
    page = open_chapter("03-evaluating-reasoners")
    assert page.data_marks("pass-at-k") >= 7  # three curves, three markers, the k rule

    def check(n, c, k, d):
        assert page.readout("pass-at-k", "unbiased") == pytest.approx(pass_at_k(n, c, k), abs=1e-12)
        assert page.readout("pass-at-k", "naive") == pytest.approx(
            naive_pass_at_k(n, c, k), abs=1e-12
        )
        assert page.readout("pass-at-k", "cons") == pytest.approx(
            cons_at_k_counts(even_tally(n, c, d), "right", k), abs=1e-9
        )

    check(100, 30, 5, 4)
    assert page.readout("pass-at-k", "unbiased") == pytest.approx(
        0.839, abs=5e-4
    )  # the worked example
    drawing = page.svg_signature("pass-at-k")
    page.set_input("Attempts n", 50)
    page.set_input("Correct c", 10)
    page.set_input("Drawn k", 20)
    page.set_input("Distinct wrong answers", 1)
    check(50, 10, 20, 1)
    assert page.svg_signature("pass-at-k") != drawing
    page.set_input("Correct c", 120)  # more correct than attempts: the widget clamps c to n
    check(50, 50, 20, 1)


def test_temperature_widget(open_chapter):
    page = open_chapter("03-evaluating-reasoners")
    curves = executed("03-evaluating-reasoners").defines["temp_curves"]

    def value(metric, t, k):
        return next(
            r["value"]
            for r in curves
            if r["metric"] == metric and r["temperature"] == t and r["k"] == k
        )

    assert page.data_marks("temperature") > 10
    assert page.readout("temperature", "pass64") == pytest.approx(value("pass@k", 0.7, 64))
    drawing = page.svg_signature("temperature")
    page.set_input("Temperature T", 2)
    assert page.readout("temperature", "pass1") == pytest.approx(value("pass@k", 2.0, 1))
    assert page.readout("temperature", "cons64") == pytest.approx(value("cons@k", 2.0, 64))
    assert page.svg_signature("temperature") != drawing
    page.set_input("Temperature T", 0)
    assert page.readout("temperature", "pass64") == pytest.approx(
        page.readout("temperature", "pass1")
    )  # greedy
