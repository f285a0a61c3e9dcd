"""Chapter 5's widgets in Chromium: each draws, and each input moves it as the maths says."""

from __future__ import annotations

import itertools
import random

import pytest
import torch

from conftest import executed
from grpo import center_rewards, group_relative_advantages

pytestmark = pytest.mark.browser

STEM = "04-grpo"


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


# ------------------------------------------------------------------ JS maths against Python


def reward_vectors() -> list[list[float]]:
    """Every 0/1 group up to G = 8, plus ties, partial credit and arbitrary real rewards."""
    cases = [
        list(map(float, bits)) for g in range(1, 9) for bits in itertools.product((0, 1), repeat=g)
    ]
    rng = random.Random(0)
    cases += [[rng.choice((0.0, 0.5, 1.0)) for _ in range(rng.randint(2, 16))] for _ in range(40)]
    cases += [[rng.uniform(-3, 5) for _ in range(rng.randint(1, 12))] for _ in range(40)]
    cases += [[0.1] * 7, [2.0, 2.0], [1e-9, 0.0], [-1.0, 1.0, 3.0]]
    return cases


def test_group_relative_advantages_match_python(js):
    cases = reward_vectors()
    for eps in (1e-6, 0.0, 0.01):
        got = js.call_many("grpo_math.js", "groupRelativeAdvantages", [[c, eps] for c in cases])
        for case, g in zip(cases, got, strict=True):
            want = group_relative_advantages(torch.tensor(case, dtype=torch.float64), eps=eps)
            assert g == pytest.approx(want.tolist(), abs=1e-12), (case, eps)
    # the default eps is Python's default
    got = js.call_many("grpo_math.js", "groupRelativeAdvantages", [[c] for c in cases[:50]])
    for case, g in zip(cases[:50], got, strict=True):
        want = group_relative_advantages(torch.tensor(case, dtype=torch.float64))
        assert g == pytest.approx(want.tolist(), abs=1e-12)


def test_group_stats_and_centering_match_python(js):
    cases = reward_vectors()
    stats = js.call_many("grpo_math.js", "groupStats", [[c] for c in cases])
    centered = js.call_many("grpo_math.js", "centeredAdvantages", [[c] for c in cases])
    for case, s, c in zip(cases, stats, centered, strict=True):
        r = torch.tensor(case, dtype=torch.float64)
        assert s["mean"] == pytest.approx(float(r.mean()), abs=1e-12)
        assert s["std"] == pytest.approx(float(r.std(unbiased=False)), abs=1e-12)
        assert c == pytest.approx(center_rewards(r).tolist(), abs=1e-12)
    assert js.call("grpo_math.js", "groupRelativeAdvantages", [0.1] * 7) == [0] * 7  # exact zeros


def test_js_rejects_bad_rewards_like_python(js):
    assert "rewards" in js.call("grpo_math.js", "groupRelativeAdvantages", [])["error"]
    assert "eps" in js.call("grpo_math.js", "groupRelativeAdvantages", [1, 0], -1)["error"]
    with pytest.raises(ValueError, match="eps"):
        group_relative_advantages(torch.tensor([1.0, 0.0]), eps=-1)


def test_rewards_from_checks(js):
    got = js.call("grpo_step.js", "rewardsFromChecks", 5, ["o1", "o4", "o7"])
    assert got == [1, 0, 0, 1, 0]


# ------------------------------------------------------------------ the step-through widget


def check_group(page, rewards):
    r = torch.tensor(rewards, dtype=torch.float64)
    adv = group_relative_advantages(r)
    assert page.readout("grpo-step", "mean") == pytest.approx(float(r.mean()), abs=1e-12)
    assert page.readout("grpo-step", "std") == pytest.approx(
        float(r.std(unbiased=False)), abs=1e-12
    )
    assert page.readout("grpo-step", "right") == sum(rewards)
    for i, a in enumerate(adv.tolist()):
        assert page.readout("grpo-step", f"adv{i + 1}") == pytest.approx(a, abs=1e-12)
    tied = len(set(rewards)) == 1
    assert page.readout_text("grpo-step", "signal") == ("none" if tied else "some")


def test_grpo_step_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("grpo-step") >= 8  # bars and labels of the four answers
    check_group(page, [1.0, 1.0, 0.0, 1.0])  # the chapter's worked example
    assert page.readout("grpo-step", "adv3") == pytest.approx(-1.732, abs=5e-4)
    drawing = page.svg_signature("grpo-step")

    page.set_input("Group size G", 8)
    page.set_input("Answers graded right", ["0"])  # only o1 right
    check_group(page, [1.0] + [0.0] * 7)
    assert page.readout("grpo-step", "adv1") == pytest.approx(7**0.5, abs=1e-5)
    assert page.svg_signature("grpo-step") != drawing

    page.set_input("Answers graded right", ["0", "2", "5", "6"])
    check_group(page, [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0])

    page.set_input("Answers graded right", [str(i) for i in range(8)])  # all right: no signal
    check_group(page, [1.0] * 8)
    page.set_input("Group size G", 3)
    page.set_input("Answers graded right", [])  # all wrong: no signal either
    check_group(page, [0.0] * 3)
    page.set_input("Answers graded right", ["1", "5"])  # o6 lies outside a group of three
    check_group(page, [0.0, 1.0, 0.0])
    page.assert_clean()


# ------------------------------------------------------------------ the learning-curves widget


def test_grpo_curves_widget(open_chapter):
    page = open_chapter(STEM)
    records = executed(STEM).defines["grpo_curves"]

    def run(g, beta):
        return sorted(
            (r for r in records if r["group_size"] == g and r["beta"] == beta),
            key=lambda r: r["step"],
        )

    def check(g, beta):
        curve = run(g, beta)
        assert page.readout("grpo-curves", "final") == pytest.approx(curve[-1]["p_correct"])
        reach = next((r["step"] for r in curve if r["p_correct"] > 0.9), -1)
        assert page.readout("grpo-curves", "steps90") == reach

    assert page.data_marks("grpo-curves") >= 5  # reference, three runs, the highlighted run
    check(16, 0.04)
    drawing = page.svg_signature("grpo-curves")
    page.set_input("Group size G (curves)", 64)
    check(64, 0.04)
    page.set_input("KL weight β", 1)
    check(64, 1.0)
    assert page.readout("grpo-curves", "steps90") == -1  # the leash stops the climb
    assert page.svg_signature("grpo-curves") != drawing
    page.set_input("Group size G (curves)", 4)
    page.set_input("KL weight β", 0)
    check(4, 0.0)
    page.assert_clean()


def test_screenshots(open_chapter, tmp_path_factory):
    page = open_chapter(STEM, fresh=True)
    out = tmp_path_factory.getbasetemp()
    for name in ("grpo-step", "grpo-curves"):
        page.screenshot(f'[data-widget="{name}"]', out / f"{name}.png")
        assert (out / f"{name}.png").stat().st_size > 5000
