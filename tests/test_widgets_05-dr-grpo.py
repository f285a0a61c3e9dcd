"""Chapter 6's widgets in Chromium: each draws, and each input moves it as the maths says."""

from __future__ import annotations

import math

import pytest
import torch

from conftest import executed
from dr_grpo import difficulty_weight, per_token_push
from grpo import group_relative_advantages

pytestmark = pytest.mark.browser

STEM = "05-dr-grpo"


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


# ------------------------------------------------------------------ JS maths against Python


def test_difficulty_weight_matches_python(js):
    grid = [[k / 200, eps] for k in range(201) for eps in (1e-2, 1e-3, 0.5)]
    got = js.call_many("dr_grpo_math.js", "difficultyWeight", grid)
    for (p, eps), g in zip(grid, got, strict=True):
        assert g == pytest.approx(difficulty_weight(p, eps), rel=1e-12), (p, eps)
    assert js.call("dr_grpo_math.js", "difficultyWeight", 0.99) == pytest.approx(
        difficulty_weight(0.99)
    )


def test_per_token_push_matches_python(js):
    groups = [
        ([40, 400], [1.0, -1.0], 1000),
        ([10, 10], [1.0, -1.0], None),
        ([3, 6], [0.5, -0.5], 8),
        ([1, 7, 250, 999], [1.2, -0.3, 0.0, -0.9], 1000),
        ([5], [2.0], 5),
        ([12, 30, 30], [0.25, 0.25, -0.5], 64),
    ]
    got = js.call_many("dr_grpo_math.js", "perTokenPush", [list(g) for g in groups])
    for (lengths, adv, max_len), g in zip(groups, got, strict=True):
        want = per_token_push(lengths, adv, max_len=max_len)
        assert len(g) == len(want)
        for a, b in zip(g, want, strict=True):
            assert a.keys() == b.keys()
            for key in b:
                assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-15), (lengths, key)


def test_js_rejects_bad_input_like_python(js):
    assert "p" in js.call("dr_grpo_math.js", "difficultyWeight", 1.5)["error"]
    assert "eps" in js.call("dr_grpo_math.js", "difficultyWeight", 0.5, 0)["error"]
    assert "max_len" in js.call("dr_grpo_math.js", "perTokenPush", [5, 50], [1, -1], 20)["error"]
    assert "advantages" in js.call("dr_grpo_math.js", "perTokenPush", [5, 50], [1], 50)["error"]
    assert "lengths" in js.call("dr_grpo_math.js", "perTokenPush", [0, 5], [1, -1], 50)["error"]
    with pytest.raises(ValueError, match="max_len"):
        per_token_push([5, 50], [1.0, -1.0], max_len=20)


# ------------------------------------------------------------------ difficulty weight


def test_difficulty_weight_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("difficulty-weight") >= 7  # two curves, three printed dots, markers

    def check(p):
        w = difficulty_weight(p, eps=1e-2)
        assert page.readout("difficulty-weight", "grpo") == pytest.approx(w, rel=1e-12)
        assert page.readout("difficulty-weight", "dr") == 1
        assert page.readout("difficulty-weight", "ratio") == pytest.approx(
            w / difficulty_weight(0.5, eps=1e-2), rel=1e-12
        )
        assert page.readout("difficulty-weight", "adv_dr") == pytest.approx(1 - p, abs=1e-12)

    check(0.9)
    drawing = page.svg_signature("difficulty-weight")
    page.set_input("Fraction of the group right, p", 0.99)
    check(0.99)
    assert page.readout("difficulty-weight", "grpo") == pytest.approx(9.13, abs=5e-3)
    assert page.svg_signature("difficulty-weight") != drawing
    page.set_input("Fraction of the group right, p", 0.01)
    check(0.01)
    # a right answer's GRPO advantage is GRPO's advantage in a real group with that p
    for p, group in ((0.5, [1.0, 0.0]), (0.75, [1.0, 1.0, 1.0, 0.0]), (0.25, [1.0, 0.0, 0.0, 0.0])):
        page.set_input("Fraction of the group right, p", p)
        check(p)
        adv = group_relative_advantages(torch.tensor(group, dtype=torch.float64), eps=1e-2)
        assert page.readout("difficulty-weight", "adv_grpo") == pytest.approx(
            float(adv[0]), rel=1e-9
        )
    page.assert_clean()


# ------------------------------------------------------------------ per-token push by length


def test_length_push_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("length-push") > 20  # two curves, the demo dots, four markers, bars

    def check(right_len, wrong_len):
        right, wrong = per_token_push([right_len, wrong_len], [1.0, -1.0], max_len=1000)
        for key, want in (
            ("grpo_right", right["grpo"]),
            ("dr_right", right["dr_grpo"]),
            ("grpo_wrong", wrong["grpo"]),
            ("dr_wrong", wrong["dr_grpo"]),
            ("grpo_wrong_total", wrong["grpo_total"]),
            ("dr_wrong_total", wrong["dr_grpo_total"]),
        ):
            assert page.readout("length-push", key) == pytest.approx(want, rel=1e-12), key
        assert page.readout("length-push", "grpo_ratio") == pytest.approx(
            abs(wrong["grpo"] / right["grpo"]), rel=1e-12
        )

    check(40, 400)
    drawing = page.svg_signature("length-push")
    page.set_input("Wrong answer's length (tokens)", 1000)
    check(40, 1000)
    page.set_input("Right answer's length (tokens)", 7)
    check(7, 1000)
    assert page.svg_signature("length-push") != drawing
    page.set_input("Right answer's length (tokens)", 250)
    page.set_input("Wrong answer's length (tokens)", 250)
    check(250, 250)
    assert page.readout("length-push", "grpo_ratio") == 1  # equal lengths: no bias
    page.assert_clean()


# ------------------------------------------------------------------ the length-drift simulation


def test_length_drift_widget(open_chapter):
    page = open_chapter(STEM)
    drift = executed(STEM).defines["drift"]
    assert page.data_marks("length-drift") >= 8  # four lines and four end labels

    def last(method):
        return max((r for r in drift if r["method"] == method), key=lambda r: r["step"])

    for prefix, method in (("grpo", "grpo"), ("dr", "dr_grpo")):
        rec = last(method)
        assert page.readout("length-drift", f"{prefix}_wrong") == pytest.approx(rec["wrong_length"])
        assert page.readout("length-drift", f"{prefix}_right") == pytest.approx(rec["right_length"])
    assert page.readout("length-drift", "grpo_wrong") > 100
    assert math.isclose(page.readout("length-drift", "dr_wrong"), 20, abs_tol=3)


def test_screenshots(open_chapter, tmp_path_factory):
    page = open_chapter(STEM, fresh=True)
    out = tmp_path_factory.getbasetemp()
    for name in ("difficulty-weight", "length-push", "length-drift"):
        page.screenshot(f'[data-widget="{name}"]', out / f"{name}.png")
        assert (out / f"{name}.png").stat().st_size > 5000
