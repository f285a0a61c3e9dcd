"""Chapter 9's widgets in Chromium: each draws, and each input moves it as cispo.py says."""

from __future__ import annotations

import pytest
import torch

from cispo import (
    REFLECTION_TOKENS,
    cispo_gradient_coefficient,
    clipped_is_weight,
    demonstrate_reflection_token,
    ppo_clip_mask,
)
from conftest import executed
from dapo import clip_gradient_coefficient

pytestmark = pytest.mark.browser

STEM = "08-cispo"
TOKENS = [
    {"label": label, "ratio": r, "advantage": a, "is_fork": fork}
    for label, r, a, fork in REFLECTION_TOKENS
]
# Every position of the chapter's "ε_high sweep" slider (0.05..0.95 by 0.01). No fork's wall sits
# on one (the ratios end in 5 in the third decimal), so float32 (Python) and float64 (JS) agree.
SWEEP = [round(0.05 + 0.01 * k, 2) for k in range(91)]


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


# ------------------------------------------------------------------ the JS maths against Python


def test_cispo_gradient_coefficient_grid(js):
    grid = [
        [r, a, hi, lo]
        for r in (0.0, 0.1, 0.79, 0.8, 1.0, 1.19, 1.2, 1.21, 1.5, 3.0, 50.0)
        for a in (1.0, -1.0, 0.5, 0.0)
        for hi in (0.05, 0.2, 0.28, 1.0, 3.0)
        for lo in (None, 0.2, 0.9)
    ]
    got = js.call_many("cispo_math.js", "cispoGradientCoefficient", grid)
    for args, g in zip(grid, got, strict=True):
        assert g == pytest.approx(cispo_gradient_coefficient(*args), abs=1e-12), args


def test_grpo_cliff_coefficient_grid(js):
    # the widget's GRPO curve: dapo.clip_gradient_coefficient with floor 0.2, ceiling eps_high
    grid = [
        [r, a, 0.2, hi]
        for r in (0.5, 0.8, 1.0, 1.2, 1.21, 1.5, 1.95, 2.0, 3.0)
        for a in (1.0, -1.0)
        for hi in (0.05, 0.2, 0.5, 0.95)
    ]
    got = js.call_many("dapo_math.js", "clipGradientCoefficient", grid)
    for args, g in zip(grid, got, strict=True):
        assert g == pytest.approx(clip_gradient_coefficient(*args), abs=1e-12), args


def test_mask_and_weight_match_python(js):
    gen = torch.Generator().manual_seed(3)
    ratios = torch.exp(1.2 * torch.randn(40, generator=gen, dtype=torch.float64))
    advs = torch.where(torch.randn(40, generator=gen) > 0, 1.0, -1.0).to(torch.float64)
    advs[::7] = 0.0
    for hi, lo in ((0.2, 0.2), (0.28, 0.2), (0.5, None), (1.5, 0.9)):
        got = js.call("cispo_math.js", "ppoClipMask", ratios.tolist(), advs.tolist(), hi, lo)
        assert got == ppo_clip_mask(ratios, advs, hi, lo).tolist(), (hi, lo)
        w = js.call("cispo_math.js", "clippedIsWeight", ratios.tolist(), hi, lo)
        assert w == pytest.approx(clipped_is_weight(ratios, hi, lo).tolist(), abs=1e-12)


def test_reflection_gradients_match_python(js):
    got = js.call_many("cispo_math.js", "reflectionGradients", [[TOKENS, e, e] for e in SWEEP])
    for eps, res in zip(SWEEP, got, strict=True):
        expected = demonstrate_reflection_token(eps_high=eps, grpo_eps=eps)
        for key in ("n_fork", "kept_grpo", "kept_cispo"):
            assert res[key] == expected[key], (eps, key)
        for t, e in zip(res["tokens"], expected["tokens"], strict=True):
            assert t["label"] == e["label"]
            assert t["grad_grpo"] == pytest.approx(e["grad_grpo"], abs=1e-6), (eps, t["label"])
            assert t["grad_cispo"] == pytest.approx(e["grad_cispo"], abs=1e-6), (eps, t["label"])
    # DAPO-style asymmetric CISPO ceiling vs GRPO clip: the function takes them separately
    mixed = js.call("cispo_math.js", "reflectionGradients", TOKENS, 0.5, 0.2)
    expected = demonstrate_reflection_token(eps_high=0.5, grpo_eps=0.2)
    assert mixed["kept_grpo"] == expected["kept_grpo"] == 0
    for t, e in zip(mixed["tokens"], expected["tokens"], strict=True):
        assert t["grad_cispo"] == pytest.approx(e["grad_cispo"], abs=1e-6)


def test_js_rejects_bad_input_like_python(js):
    assert "eps_high" in js.call("cispo_math.js", "cispoGradientCoefficient", 1.0, 1.0, 0)["error"]
    assert (
        "eps_low"
        in js.call("cispo_math.js", "cispoGradientCoefficient", 1.0, 1.0, 0.2, 1.0)["error"]
    )
    assert "ratio" in js.call("cispo_math.js", "cispoGradientCoefficient", -1.0, 1.0)["error"]
    assert "grpo_eps" in js.call("cispo_math.js", "reflectionGradients", TOKENS, 0.2, 1.0)["error"]


# ------------------------------------------------------------------ the widgets


def test_cispo_cliff_widget(open_chapter):
    page = open_chapter(STEM)
    name = "cispo-cliff"
    assert page.data_marks(name) > 5

    def check(r, eps):
        assert page.readout(name, "wall") == pytest.approx(1 + eps, abs=1e-12)
        assert page.readout(name, "grpo") == pytest.approx(
            clip_gradient_coefficient(r, 1.0, 0.2, eps), abs=1e-12
        )
        assert page.readout(name, "cispo") == pytest.approx(
            cispo_gradient_coefficient(r, 1.0, eps_high=eps), abs=1e-12
        )

    check(1.6, 0.2)
    assert page.readout(name, "grpo") == 0.0  # off the cliff
    assert page.readout(name, "cispo") == pytest.approx(1.2)  # on the plateau
    drawing = page.svg_signature(name)
    page.set_input("Token ratio r", 1.1)
    check(1.1, 0.2)
    assert page.readout(name, "grpo") == page.readout(name, "cispo")  # inside: they agree
    page.set_input("Token ratio r", 3)
    page.set_input("Ceiling ε_high", 0.6)
    check(3.0, 0.6)
    assert page.readout(name, "grpo") == 0.0
    assert page.svg_signature(name) != drawing
    page.set_input("Token ratio r", 1.55)
    check(1.55, 0.6)
    assert page.readout(name, "grpo") == pytest.approx(1.55)  # Clip-Higher moved the cliff
    page.assert_clean()  # moving the inputs raised no OJS or console error


def test_reflection_tokens_widget(open_chapter):
    page = open_chapter(STEM)
    name = "reflection-tokens"
    assert executed(STEM).defines["cispo_tokens"] == TOKENS
    assert page.data_marks(name) > 16  # two bars per token, the sweep lines

    def check(eps):
        expected = demonstrate_reflection_token(eps_high=eps, grpo_eps=eps)
        wait = next(t for t in expected["tokens"] if t["label"] == "Wait")
        assert page.readout(name, "kept-grpo") == expected["kept_grpo"]
        assert page.readout(name, "kept-cispo") == expected["kept_cispo"]
        assert page.readout(name, "wait-grpo") == pytest.approx(wait["grad_grpo"], abs=1e-6)
        assert page.readout(name, "wait-cispo") == pytest.approx(wait["grad_cispo"], abs=1e-6)
        return expected

    assert check(0.2)["kept_grpo"] == 0
    drawing = page.svg_signature(name)
    for eps, kept in ((0.5, 1), (0.62, 2), (0.84, 3), (0.83, 2), (0.3, 0)):
        page.set_input("ε_high sweep", eps)
        assert check(eps)["kept_grpo"] == kept
        assert page.readout(name, "kept-cispo") == 3  # CISPO never loses a fork
    assert page.svg_signature(name) != drawing
    page.assert_clean()  # moving the inputs raised no OJS or console error
