"""The policy-gradient chapter's widgets in Chromium: each draws, and each input moves it as the
maths says; the JS maths (policy_gradient_math.js, ppo_math.js) agrees with Python on a grid."""

from __future__ import annotations

import pytest
import torch

from conftest import executed
from policy_gradient import exact_gradient_variance
from ppo import clipped_surrogate_terms, gae

pytestmark = pytest.mark.browser

STEM = "03b-policy-gradients"


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


# ------------------------------------------------------------------ JS maths against Python


def test_exact_gradient_variance_matches_python(js):
    cases = [
        ([0.4, 0.3, 0.2, 0.1], [1.0, 0.0, 0.0, 0.0]),
        ([0.5, 0.5], [2.0, -1.0]),
        ([0.1, 0.2, 0.3, 0.25, 0.15], [0.3, 1.7, -2.0, 0.0, 5.0]),
        ([1.0, 0.0], [1.0, 0.0]),
    ]
    grid = [[p, r, b] for p, r in cases for b in (-1.0, 0.0, 0.37, 1.0, 2.5)]
    got = js.call_many("policy_gradient_math.js", "exactGradientVariance", grid)
    for (p, r, b), g in zip(grid, got, strict=True):
        want = exact_gradient_variance(p, r, b)
        assert g.keys() == want.keys()
        for key in want:
            assert g[key] == pytest.approx(want[key], rel=1e-9, abs=1e-12), (p, r, b, key)


def test_clipped_surrogate_matches_python(js):
    grid = [
        [rho, a, lo, hi]
        for rho in (0.05, 0.5, 0.79, 0.85, 1.0, 1.13, 1.27, 1.9)
        for a in (-1.5, -1.0, 0.0, 0.4, 1.0)
        for lo, hi in ((0.2, 0.2), (0.2, 0.28), (0.05, 0.5))
    ]
    got = js.call_many("ppo_math.js", "clippedSurrogate", grid)
    for (rho, a, lo, hi), g in zip(grid, got, strict=True):
        want = clipped_surrogate_terms(
            torch.tensor(rho, dtype=torch.float64), torch.tensor(a, dtype=torch.float64), lo, hi
        )
        assert g == pytest.approx(float(want), rel=1e-12, abs=1e-15), (rho, a, lo, hi)


def test_gae_matches_python(js):
    chains = [
        ([0.0, 0.0, 1.0], [0.4, 0.5, 0.7]),
        ([0.5, -0.2, 0.0, 1.0, 0.3], [0.1, 0.9, 0.4, 0.2, 0.6]),
        ([1.0], [0.3]),
    ]
    grid = [[r, v, g, lam] for r, v in chains for g in (1.0, 0.9) for lam in (0.0, 0.5, 0.95, 1.0)]
    got = js.call_many("ppo_math.js", "gae", grid)
    for (r, v, g, lam), out in zip(grid, got, strict=True):
        rewards, values = (torch.tensor([x], dtype=torch.float64) for x in (r, v))
        adv, ret = gae(rewards, values, gamma=g, lam=lam)
        assert out["advantages"] == pytest.approx(adv[0].tolist(), rel=1e-12, abs=1e-15)
        assert out["returns"] == pytest.approx(ret[0].tolist(), rel=1e-12, abs=1e-15)


def test_js_rejects_bad_input_like_python(js):
    assert "probs" in js.call("policy_gradient_math.js", "exactGradientVariance",
                              [0.5, 0.6], [1, 0], 0)["error"]
    assert "rewards" in js.call("policy_gradient_math.js", "exactGradientVariance",
                                [0.5, 0.5], [1], 0)["error"]
    assert "eps_low" in js.call("ppo_math.js", "clippedSurrogate", 1.0, 1.0, 0, 0.2)["error"]
    assert "lam" in js.call("ppo_math.js", "gae", [1.0], [0.0], 1.0, 1.5)["error"]
    assert "values" in js.call("ppo_math.js", "gae", [1.0, 0.0], [0.0], 1.0, 0.5)["error"]
    with pytest.raises(ValueError, match="probs"):
        exact_gradient_variance([0.5, 0.6], [1.0, 0.0])


# ------------------------------------------------------------------ the widgets


def _payload():
    return executed(STEM).defines


def test_baseline_variance_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("baseline-variance") >= 5
    probs, rewards = [0.4, 0.3, 0.2, 0.1], [1.0, 0.0, 0.0, 0.0]
    for b in (0.0, 0.4, 1.5, -0.73):
        page.set_input("Baseline b", b)
        want = exact_gradient_variance(probs, rewards, b)
        none = exact_gradient_variance(probs, rewards, 0.0)["variance"]
        assert page.readout("baseline-variance", "variance") == pytest.approx(want["variance"])
        assert page.readout("baseline-variance", "none") == pytest.approx(none)
        assert page.readout("baseline-variance", "ratio") == pytest.approx(want["variance"] / none)
        assert page.readout("baseline-variance", "best_baseline") == pytest.approx(
            want["best_baseline"])


def test_clip_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("clip") >= 4
    for eps, ratio in ((0.2, 1.37), (0.2, 0.93), (0.33, 0.55), (0.07, 1.51)):
        page.set_input("Clip width ε", eps)
        page.set_input("Ratio ρ", ratio)
        for label, a in (("positive (A = +1)", 1.0), ("negative (A = −1)", -1.0)):
            page.set_input("Advantage", label)
            want = float(clipped_surrogate_terms(torch.tensor(ratio, dtype=torch.float64),
                                                 torch.tensor(a, dtype=torch.float64), eps, eps))
            assert page.readout("clip", "objective") == pytest.approx(want)
            clipped = (a > 0 and ratio > 1 + eps) or (a < 0 and ratio < 1 - eps)
            assert page.readout("clip", "slope") == (0 if clipped else a)
            assert page.readout("clip", "edge") == pytest.approx(1 + eps if a > 0 else 1 - eps)


def test_gae_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("gae") >= 8
    chain = _payload()["gae_chain"]
    dial = {round(d["lam"], 1): d for d in _payload()["gae_dial"]}
    for lam in (0.0, 0.3, 0.9, 1.0):
        page.set_input("GAE's λ", lam)
        adv, _ = gae(torch.tensor([chain["rewards"]], dtype=torch.float64),
                     torch.tensor([chain["values"]], dtype=torch.float64), gamma=1.0, lam=lam)
        assert page.readout("gae", "first") == pytest.approx(float(adv[0, 0]))
        assert page.readout("gae", "bias") == pytest.approx(dial[lam]["bias"])
        assert page.readout("gae", "variance") == pytest.approx(dial[lam]["variance"])
