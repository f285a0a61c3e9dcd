"""Chapter 8's widgets in Chromium: each draws, and each input moves the drawing as dapo.py says."""

from __future__ import annotations

import pytest

from conftest import executed
from dapo import (
    clip_gradient_coefficient,
    demonstrate_token_level,
    kept_fraction,
    overlong_penalty,
    wasted_fraction,
)

pytestmark = pytest.mark.browser

STEM = "07-dapo"


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


# ------------------------------------------------------------------ the JS maths against Python


def test_clip_gradient_coefficient_grid(js):
    grid = [
        [r, a, lo, hi]
        for r in (0.3, 0.79, 0.8, 0.81, 1.0, 1.19, 1.2, 1.21, 1.28, 1.29, 1.5, 3.0)
        for a in (1.0, -1.0, 0.5, -2.0, 0.0)
        for lo, hi in ((0.2, 0.2), (0.2, 0.28), (0.1, 0.5), (0.45, 0.05))
    ]
    got = js.call_many("dapo_math.js", "clipGradientCoefficient", grid)
    for args, g in zip(grid, got, strict=True):
        assert g == pytest.approx(clip_gradient_coefficient(*args), abs=1e-12), args


def test_dynamic_sampling_grid(js):
    grid = [[p, G] for p in (0.0, 0.01, 0.3, 0.5, 0.9, 0.99, 1.0) for G in (1, 2, 4, 8, 16, 64)]
    wasted = js.call_many("dapo_math.js", "wastedFraction", grid)
    kept = js.call_many("dapo_math.js", "keptFraction", grid)
    for (p, G), w, k in zip(grid, wasted, kept, strict=True):
        assert w == pytest.approx(wasted_fraction(p, G), abs=1e-12), (p, G)
        assert k == pytest.approx(kept_fraction(p, G), abs=1e-12), (p, G)


def test_response_weights_match_autograd(js):
    cases = [[2, 4, 8, 32], [5, 5, 5], [1], [1, 64], [3, 1, 4, 1, 5, 9, 2, 6]]
    got = js.call_many("dapo_math.js", "responseWeights", [[c] for c in cases])
    for lengths, records in zip(cases, got, strict=True):
        expected = demonstrate_token_level(lengths=lengths, verbose=False)
        assert len(records) == len(expected)
        for r, e in zip(records, expected, strict=True):
            assert r["length"] == e["length"]
            for key in ("sample_weight", "token_weight", "sample_per_token", "token_per_token"):
                assert r[key] == pytest.approx(e[key], abs=1e-12), (lengths, key)


def test_overlong_penalty_grid(js):
    grid = [
        [length, m, c]
        for length in (0, 100, 16383, 16384, 16385, 18432, 20479, 20480, 20481, 40000)
        for m, c in ((20480, 4096), (8192, 8192), (32768, 512), (1000, 1))
    ]
    got = js.call_many("dapo_math.js", "overlongPenalty", grid)
    for args, g in zip(grid, got, strict=True):
        assert g == pytest.approx(overlong_penalty(*args), abs=1e-12), args


def test_js_rejects_bad_input_like_python(js):
    assert (
        "eps_high"
        in js.call("dapo_math.js", "clipGradientCoefficient", 1.0, 1.0, 0.2, 1.5)["error"]
    )
    assert "ratio" in js.call("dapo_math.js", "clipGradientCoefficient", 0.0, 1.0)["error"]
    assert "p" in js.call("dapo_math.js", "wastedFraction", 1.5, 4)["error"]
    assert "G" in js.call("dapo_math.js", "wastedFraction", 0.5, 0)["error"]
    assert "cache_len" in js.call("dapo_math.js", "overlongPenalty", 10, 100, 200)["error"]
    assert "lengths" in js.call("dapo_math.js", "responseWeights", [2, 0])["error"]


# ------------------------------------------------------------------ the widgets


def test_clip_higher_widget(open_chapter):
    page = open_chapter(STEM)
    name = "clip-higher"
    assert page.data_marks(name) > 10

    def check(high, low, r):
        assert page.readout(name, "wall") == pytest.approx(1 + high, abs=1e-12)
        assert page.readout(name, "floor") == pytest.approx(1 - low, abs=1e-12)
        assert page.readout(name, "dapo-pos") == pytest.approx(
            clip_gradient_coefficient(r, 1.0, low, high), abs=1e-12
        )
        assert page.readout(name, "dapo-neg") == pytest.approx(
            clip_gradient_coefficient(r, -1.0, low, high), abs=1e-12
        )
        assert page.readout(name, "grpo-pos") == pytest.approx(
            clip_gradient_coefficient(r, 1.0, 0.2, 0.2), abs=1e-12
        )
        assert page.readout(name, "grpo-neg") == pytest.approx(
            clip_gradient_coefficient(r, -1.0, 0.2, 0.2), abs=1e-12
        )

    check(0.28, 0.2, 1.25)
    assert page.readout(name, "grpo-pos") == 0.0  # GRPO has switched this token off ...
    assert page.readout(name, "dapo-pos") == pytest.approx(1.25)  # ... DAPO has not
    drawing = page.svg_signature(name)
    page.set_input("ε_high (ceiling)", 0.4)
    check(0.4, 0.2, 1.25)
    assert page.svg_signature(name) != drawing
    page.set_input("Token ratio r", 0.7)
    check(0.4, 0.2, 0.7)
    assert page.readout(name, "dapo-neg") == 0.0  # below the floor: a bad token stops learning
    page.set_input("ε_low (floor)", 0.4)
    check(0.4, 0.4, 0.7)
    assert page.readout(name, "dapo-neg") == pytest.approx(-0.7)  # the pitfall: still pushed down
    page.set_input("ε_high (ceiling)", 0.2)
    page.set_input("ε_low (floor)", 0.2)
    page.set_input("Token ratio r", 1.5)
    check(0.2, 0.2, 1.5)
    # equal bounds: DAPO's readouts are GRPO's
    assert page.readout(name, "dapo-pos") == page.readout(name, "grpo-pos")
    page.assert_clean()  # moving the inputs raised no OJS or console error


def test_dynamic_sampling_widget(open_chapter):
    page = open_chapter(STEM)
    name = "dynamic-sampling"
    assert page.data_marks(name) > 5

    def check(p, G):
        assert page.readout(name, "wasted") == pytest.approx(wasted_fraction(p, G), abs=1e-12)
        assert page.readout(name, "kept") == pytest.approx(kept_fraction(p, G), abs=1e-12)
        assert page.readout(name, "rollouts") == pytest.approx(1 / kept_fraction(p, G), rel=1e-12)

    check(0.9, 8)
    assert page.readout(name, "kept") == pytest.approx(0.570, abs=5e-4)  # the seed's keep rate
    drawing = page.svg_signature(name)
    page.set_input("Per-sample accuracy p", 0.5)
    check(0.5, 8)
    page.set_input("Group size G", 4)
    check(0.5, 4)
    assert page.readout(name, "wasted") == pytest.approx(0.125)
    page.set_input("Per-sample accuracy p", 0.99)
    page.set_input("Group size G", 64)
    check(0.99, 64)
    assert page.svg_signature(name) != drawing
    page.assert_clean()  # moving the inputs raised no OJS or console error


def test_token_level_widget(open_chapter):
    page = open_chapter(STEM)
    name = "token-level"
    shipped = executed(STEM).defines["tok_data"]
    assert page.data_marks(name) >= 16  # 8 bars of shares, 8 of per-token weights

    def check(lengths):
        for i, e in enumerate(demonstrate_token_level(lengths=lengths, verbose=False), start=1):
            assert page.readout(name, f"sample-{i}") == pytest.approx(e["sample_weight"], abs=1e-12)
            assert page.readout(name, f"token-{i}") == pytest.approx(e["token_weight"], abs=1e-12)

    check([2, 4, 8, 32])
    assert page.readout(name, "token-4") == pytest.approx(shipped[-1]["token_weight"], abs=1e-12)
    drawing = page.svg_signature(name)
    page.set_input("Length of response 4", 8)
    check([2, 4, 8, 8])
    assert page.readout(name, "token-3") == page.readout(name, "token-4")
    assert page.svg_signature(name) != drawing
    page.set_input("Length of response 4", 1)
    check([2, 4, 8, 1])
    page.assert_clean()  # moving the inputs raised no OJS or console error


def test_overlong_widget(open_chapter):
    page = open_chapter(STEM)
    name = "overlong"
    assert page.data_marks(name) > 60  # Python's 61 reference dots and the curves

    def check(max_len, cache_len, length):
        assert page.readout(name, "start") == max_len - cache_len
        assert page.readout(name, "cap") == max_len
        assert page.readout(name, "penalty") == pytest.approx(
            overlong_penalty(length, max_len, cache_len), abs=1e-12
        )
        assert page.readout(name, "hard") == (0.0 if length <= max_len else -1.0)

    check(20480, 4096, 18432)
    assert page.readout(name, "penalty") == pytest.approx(-0.5)
    drawing = page.svg_signature(name)
    page.set_input("L_max (hard cap)", 16384)
    check(16384, 4096, 18432)
    page.set_input("L_cache (ramp width)", 8192)
    check(16384, 8192, 18432)
    page.set_input("Response length |y|", 10240)
    check(16384, 8192, 10240)
    assert page.readout(name, "penalty") == pytest.approx(-0.25)
    assert page.svg_signature(name) != drawing
    page.assert_clean()  # moving the inputs raised no OJS or console error
