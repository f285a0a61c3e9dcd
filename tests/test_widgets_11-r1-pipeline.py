"""Chapter 12's widgets in Chromium: each draws, and each input moves it as the records say."""

from __future__ import annotations

import json

import pytest

from conftest import executed
from data_paths import R1_RUNS_PATH
from evaluation import mean_pass_at_k
from r1_pipeline import smooth

pytestmark = pytest.mark.browser

STEM = "11-r1-pipeline"
DATA = json.loads(R1_RUNS_PATH.read_text())



def rows_of(columns: dict) -> list[dict]:
    """What the page's `transpose` makes of ojs_define'd columns."""
    return [dict(zip(columns, values, strict=True))
            for values in zip(*columns.values(), strict=True)]


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


# ------------------------------------------------------------------ JS maths against Python


def test_smooth_matches_python(js):
    cases = [
        ([1.0, 2.0, 3.0, 4.0, 5.0], 1),
        ([1.0, 2.0, 3.0, 4.0, 5.0], 3),
        ([0.5, None, 0.25, None, None, None, 1.0], 2),
        ([0.1 * i for i in range(40)], 8),
        ([None, None], 4),
    ]
    got = js.call_many("r1_pipeline_math.js", "smooth", [list(c) for c in cases])
    for (values, window), g in zip(cases, got, strict=True):
        want = smooth(values, window)
        assert len(g) == len(want)
        for a, b in zip(g, want, strict=True):
            assert (a is None and b is None) or a == pytest.approx(b, rel=1e-12)
    assert "window" in js.call("r1_pipeline_math.js", "smooth", [1, 2], 0)["error"]
    with pytest.raises(ValueError, match="window"):
        smooth([1.0], 0)


def test_mean_pass_at_k_matches_python_on_the_recorded_counts(js):
    finals = [r["final"] for r in DATA["runs"].values() if "final" in r and "counts" in r["final"]]
    cases = []
    for final in finals[:6]:
        n = final["samples_per_problem"]
        for k in (1, 2, 7, 32, n):
            if k <= n:
                cases.append([n, final["counts"], k])
    got = js.call_many("r1_pipeline_math.js", "meanPassAtK", cases)
    for (n, counts, k), g in zip(cases, got, strict=True):
        assert g == pytest.approx(mean_pass_at_k([(n, c) for c in counts], k), rel=1e-12)
    # The recorded table is the same estimator.
    for final in finals:
        n = final["samples_per_problem"]
        for k, value in final["pass_at_k"].items():
            want = mean_pass_at_k([(n, c) for c in final["counts"]], int(k))
            assert value == pytest.approx(want, abs=1e-4)


# ------------------------------------------------------------------ the widgets


def test_objective_curves_follow_the_inputs(open_chapter):
    run = executed(STEM)
    page = open_chapter(STEM)
    curves = run.defines["r1_curves"]
    page.set_input("Objectives", ["GRPO", "Dr. GRPO"])
    page.set_input("Statistic", "held-out pass@1")
    for label, key in (("GRPO", "grpo"), ("Dr. GRPO", "dr_grpo")):
        end = max(x["step"] for x in curves)
        last = [r for r in curves if r["objective"] == key and r["step"] == end]
        want = sum(r["pass1"] for r in last) / len(last)
        assert page.readout("objective-curves", label) == pytest.approx(want, rel=1e-9)
    page.set_input("Statistic", "zero-advantage groups")
    train = rows_of(run.defines["r1_train"])
    for label, key in (("GRPO", "grpo"), ("Dr. GRPO", "dr_grpo")):
        finals = []
        for seed in (0, 1):
            rows = sorted(
                (r for r in train if r["objective"] == key and r["seed"] == seed),
                key=lambda r: r["step"],
            )
            finals.append(smooth([r["zero_adv"] for r in rows], 8)[-1])
        assert page.readout("objective-curves", label) == pytest.approx(sum(finals) / 2, rel=1e-9)
    page.set_input("Objectives", ["DAPO"])
    with pytest.raises(AssertionError):
        page.readout("objective-curves", "GRPO")


def test_pass_at_k_widget_recomputes_from_counts(open_chapter):
    run = executed(STEM)
    finals = run.defines["r1_finals"]
    page = open_chapter(STEM)
    for k in (1, 8, 128):
        page.set_input("k (samples per problem)", k)
        for key, model in (("before", "cold"), ("after", "rl_grpo_s0")):
            f = finals[model]
            want = mean_pass_at_k([(f["n"], c) for c in f["counts"]], k)
            assert page.readout("pass-at-k-rl", key) == pytest.approx(want, rel=1e-9)
    page.set_input("After RL with", "DAPO")
    f = finals["rl_dapo_s0"]
    assert page.readout("pass-at-k-rl", "after") == pytest.approx(
        mean_pass_at_k([(f["n"], c) for c in f["counts"]], 128), rel=1e-9
    )


def test_length_curves_widget(open_chapter):
    run = executed(STEM)
    train = rows_of(run.defines["r1_train"])
    page = open_chapter(STEM)
    assert page.data_marks("length-curves") >= 8  # 2 objectives x 2 seeds x right/wrong
    rows = sorted((r for r in train if r["objective"] == "grpo"), key=lambda r: r["step"])
    ends = []
    for seed in (0, 1):
        own = [r["length_wrong"] for r in rows if r["seed"] == seed]
        ends.append(smooth(own, 8)[-1])
    assert page.readout("length-curves", "GRPO|wrong chains") == pytest.approx(
        sum(ends) / 2, rel=1e-9
    )


def test_pipeline_diagram_opens_each_stage(open_chapter):
    run = executed(STEM)
    stages = run.defines["r1_stages"]
    page = open_chapter(STEM)
    for stage in stages:
        page.click_button(stage["title"])
        card = page.page.locator('[data-widget="stage-card"]')
        assert card.get_attribute("data-stage") == stage["id"]
        for _label, value, key in stage["numbers"]:
            if isinstance(value, (int, float)):
                assert page.readout("stage-card", key) == pytest.approx(value, rel=1e-12)


def test_zero_curves_follow_the_statistic(open_chapter):
    run = executed(STEM)
    rows = run.defines["r1_zero"]
    page = open_chapter(STEM)
    assert page.data_marks("zero-curves") >= 4  # two starts x two seeds
    for label, key in (("held-out pass@1", "pass1"), ("bare answers", "bare"),
                       ("mean length", "length")):
        page.set_input("R1-Zero statistic", label)
        for start in ("R1-Zero (from the base)", "from the cold start"):
            own = [r for r in rows if r["start"] == start]
            last = max(r["step"] for r in own)
            want = [r[key] for r in own if r["step"] == last]
            assert page.readout("zero-curves", start) == pytest.approx(
                sum(want) / len(want), rel=1e-9)


def test_widget_labels_quote_the_recorded_sizes(open_chapter):
    """The axis labels read the evaluation's size from the records, not from typed text."""
    setup = executed(STEM).defines["r1_setup"]
    page = open_chapter(STEM)
    page.set_input("Statistic", "held-out pass@1")
    text = page.page.locator('[data-widget="objective-curves"]').inner_text()
    assert f"{setup['problems']} problems x {setup['curveSamples']} samples" in text
    length = page.page.locator('[data-widget="length-curves"]').inner_text()
    assert f"{setup['batchChains']} chains a step" in length
