"""Tests for code/cispo.py: the seed's anchors and table, autograd identities, bad input."""

from __future__ import annotations

import json
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import cispo
from cispo import (
    EPS_SWEEP,
    REFLECTION_TOKENS,
    cispo_gradient_coefficient,
    cispo_surrogate,
    cliff_vs_plateau_curve,
    clipped_is_weight,
    demonstrate_reflection_token,
    fork_eps_needed,
    fraction_tokens_clipped,
    gradient_wrt_logp,
    importance_ratios,
    ppo_clip_mask,
    unified_surrogate,
)
from grpo import grpo_surrogate

FAST = settings(max_examples=60, deadline=None)

# per-token (log ratio, advantage) with |A| bounded away from 0 so gradients cannot underflow
TOKENS = st.lists(
    st.tuples(
        st.floats(-3.0, 3.0),
        st.one_of(st.floats(-5.0, -0.01), st.floats(0.01, 5.0)),
    ),
    min_size=1,
    max_size=16,
)


def _batch(tokens: list[tuple[float, float]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    logr = torch.tensor([t[0] for t in tokens], dtype=torch.float64)
    adv = torch.tensor([t[1] for t in tokens], dtype=torch.float64)
    return logr, torch.zeros_like(logr), adv


# ----------------------------------------------------------------------------- seed figures


def test_seed_anchor_on_policy_is_reinforce() -> None:
    lp = torch.zeros(3, requires_grad=True)
    adv = torch.tensor([1.0, -1.0, 0.5])
    cispo_surrogate(lp, torch.zeros(3), adv).backward()
    assert torch.allclose(lp.grad, -adv / 3, atol=1e-6)
    assert [round(float(g), 4) for g in lp.grad] == [-0.3333, 0.3333, -0.1667]


def test_seed_anchor_fork_token() -> None:
    lp_new = torch.log(torch.tensor([0.6, 0.2]))
    lp_old = torch.log(torch.tensor([0.2, 0.2]))
    a = torch.tensor([1.0, 1.0])
    g_grpo = gradient_wrt_logp(grpo_surrogate, lp_new, lp_old, a, eps_low=0.2, eps_high=0.2)
    g_cispo = gradient_wrt_logp(cispo_surrogate, lp_new, lp_old, a, eps_high=0.2)
    assert f"{float(g_grpo[0]):+.3f}" == "+0.000"
    assert f"{float(g_cispo[0]):+.3f}" == "-0.600"
    assert float(g_grpo[0]) == 0.0
    assert round(float(g_cispo[0]), 3) == -0.6


def test_seed_mask_and_unified() -> None:
    torch.manual_seed(0)
    ln, lo = torch.randn(12), torch.randn(12)
    adv_r = torch.where(torch.randn(12) > 0, 1.0, -1.0)
    ratio = importance_ratios(ln, lo)
    mask = ppo_clip_mask(ratio, adv_r, eps_high=0.2, eps_low=0.2)
    g_grpo = gradient_wrt_logp(grpo_surrogate, ln, lo, adv_r, eps_low=0.2, eps_high=0.2)
    grpo_alive = g_grpo.abs() > 1e-9
    assert torch.equal(mask.bool(), grpo_alive)
    assert 0 < int(mask.sum()) < 12  # the batch really has both kinds of token
    u = unified_surrogate(
        ln.clone().requires_grad_(True), lo, adv_r, eps_high=0.2, eps_low=0.2, mask=False
    )
    c = cispo_surrogate(ln.clone().requires_grad_(True), lo, adv_r, eps_high=0.2, eps_low=0.2)
    assert torch.allclose(u, c, atol=1e-7)


def test_seed_reflection_table() -> None:
    demo = demonstrate_reflection_token(eps_high=0.2, grpo_eps=0.2)
    json.dumps(demo, allow_nan=False)
    rows = [
        (t["label"], f"{t['ratio']:.3f}", f"{t['advantage']:.2f}")
        + (f"{t['grad_grpo']:.4f}", f"{t['grad_cispo']:.4f}", t["is_fork"])
        for t in demo["tokens"]
    ]
    assert rows == [
        ("the", "1.015", "0.10", "-0.0127", "-0.0127", False),
        ("answer", "0.985", "0.20", "-0.0246", "-0.0246", False),
        ("is", "1.035", "-0.15", "0.0194", "0.0194", False),
        ("However", "1.615", "0.90", "0.0000", "-0.1350", True),
        ("we", "1.005", "0.05", "-0.0063", "-0.0063", False),
        ("Recheck", "1.835", "0.75", "0.0000", "-0.1125", True),
        ("step", "0.995", "-0.10", "0.0124", "0.0124", False),
        ("Wait", "1.455", "0.85", "0.0000", "-0.1275", True),
    ]
    assert (demo["n_fork"], demo["kept_grpo"], demo["kept_cispo"]) == (3, 0, 3)
    # wider GRPO clip: Clip-Higher eventually reaches the forks (1.455 < 1.5 < 1.615)
    wide = demonstrate_reflection_token(eps_high=0.2, grpo_eps=0.5)
    assert wide["kept_grpo"] == 1 and wide["kept_cispo"] == 3


# The chapter's slider "ε_high sweep" (0.05 to 0.95 by 0.01; tests/test_chapter_08-cispo.py
# checks the chapter still says so) and its printed sweep: every eps a reader can see.
SLIDER = [round(0.05 + 0.01 * k, 2) for k in range(91)]


def _nudged(tokens: tuple, dtype: torch.dtype, steps: tuple[int, ...]) -> tuple:
    """``tokens`` with each ratio moved ``steps[i % len(steps)]`` ulps along ``dtype``'s grid."""
    out = []
    for i, (label, r, a, fork) in enumerate(tokens):
        x = torch.tensor(r, dtype=dtype)
        step = steps[i % len(steps)]
        toward = torch.tensor(math.copysign(math.inf, step), dtype=dtype)
        for _ in range(abs(step)):
            x = torch.nextafter(x, toward)
        out.append((label, float(x), a, fork))
    return tuple(out)


def _reflection_claims(tokens: tuple, sweep: list[float], dtype: torch.dtype) -> list:
    """Everything the chapter states about the batch: the eps = 0.2 table and each eps's counts."""
    table = demonstrate_reflection_token(0.2, 0.2, tokens=tokens, dtype=dtype)["tokens"]
    rows = [(t["label"], f"{t['grad_grpo']:.4f}", f"{t['grad_cispo']:.4f}") for t in table]
    kept = []
    for eps in sweep:
        d = demonstrate_reflection_token(eps, eps, tokens=tokens, dtype=dtype)
        kept.append((eps, d["kept_grpo"], d["kept_cispo"]))
    return [rows, kept]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_reflection_claims_survive_one_ulp(dtype: torch.dtype) -> None:
    # The CPU's exp/log may land an ulp either side of a ratio; no claim may move with it. Nudge
    # every ratio down, up, and alternately, by one ulp of the dtype the maths runs in.
    tokens, sweep = cispo.REFLECTION_TOKENS, sorted({*cispo.EPS_SWEEP, *SLIDER})
    nominal = _reflection_claims(tokens, sweep, dtype)
    for steps in ((-1,), (1,), (-1, 1), (1, -1)):
        assert _reflection_claims(_nudged(tokens, dtype, steps), sweep, dtype) == nominal, steps
    # ... and they are the exact maths: a fork (A > 0) keeps its gradient iff r - 1 <= eps.
    need = [r - 1 for _, r, a, fork in tokens if fork]
    assert [k[1:] for k in nominal[1]] == [(sum(n <= e for n in need), len(need)) for e in sweep]
    assert nominal == _reflection_claims(
        tokens, sweep, torch.float64 if dtype == torch.float32 else torch.float32
    )


def test_fork_eps_needed_is_the_largest_fork_ratio_minus_one() -> None:
    eps_all = fork_eps_needed()
    assert eps_all == pytest.approx(max(r for _, r, _, fork in REFLECTION_TOKENS if fork) - 1)
    assert demonstrate_reflection_token(eps_all + 1e-3, eps_all + 1e-3)["kept_grpo"] == 3
    assert demonstrate_reflection_token(eps_all - 1e-3, eps_all - 1e-3)["kept_grpo"] == 2
    assert all(e < eps_all for e in EPS_SWEEP[:-1]) and EPS_SWEEP[-1] > eps_all
    with pytest.raises(ValueError, match="fork"):
        fork_eps_needed((("the", 1.2, 0.1, False),))


def test_a_wall_on_a_ratio_is_refused() -> None:
    # The defect this guards against: Recheck at r = 1.80 with the sweep's eps = 0.8.
    old = (("Recheck", 1.80, 0.75, True), ("is", 0.80, -0.15, False))
    with pytest.raises(ValueError, match="Recheck"):
        demonstrate_reflection_token(0.8, 0.8, tokens=old)
    with pytest.raises(ValueError, match="'is'"):
        demonstrate_reflection_token(0.2, 0.2, tokens=old)  # the floor 1 - eps on an A < 0 token
    demonstrate_reflection_token(0.8, 0.2, tokens=old[:1])  # the CISPO ceiling has no wall
    with pytest.raises(ValueError, match="grid point"):
        cliff_vs_plateau_curve(eps_high=0.5, num_points=21, ratio_min=1.0, ratio_max=2.0)


def test_reflection_table_verbose(capsys: pytest.CaptureFixture[str]) -> None:
    demonstrate_reflection_token(verbose=True)
    out = capsys.readouterr().out
    assert "However" in out and "-0.1350" in out


def test_exercise_8_batch() -> None:
    torch.manual_seed(7)
    logp_new = torch.randn(50) * 1.5
    logp_old = torch.randn(50) * 1.5
    adv = torch.where(torch.randn(50) > 0, 1.0, -1.0)
    assert fraction_tokens_clipped(logp_new, logp_old, adv) > 0
    g = gradient_wrt_logp(cispo_surrogate, logp_new, logp_old, adv)
    assert bool((g != 0).all())
    fracs = [
        fraction_tokens_clipped(logp_new, logp_old, adv, eps_high=e / 10) for e in range(1, 11)
    ]
    assert all(b <= a for a, b in zip(fracs, fracs[1:], strict=False))  # up the ceiling -> fewer
    assert fracs[0] > fracs[-1]


# ----------------------------------------------------------------------------- autograd identities


@FAST
@given(TOKENS, st.floats(0.05, 1.0))
def test_cispo_gradient_is_bounded_and_never_zero(tokens: list, eps_high: float) -> None:
    logr, old, adv = _batch(tokens)
    n = len(tokens)
    g = gradient_wrt_logp(cispo_surrogate, logr, old, adv, eps_high=eps_high)
    assert bool((g != 0).all())
    expected = -adv * torch.clamp(torch.exp(logr), max=1.0 + eps_high) / n
    assert torch.allclose(g, expected, rtol=1e-10, atol=0)
    for (lr, a), gi in zip(tokens, g, strict=True):
        coef = cispo_gradient_coefficient(math.exp(lr), a, eps_high)
        assert float(gi) == pytest.approx(-coef / n, rel=1e-9)


@FAST
# no subnormal advantages: dividing one by N rounds in its last few bits, not to 1e-12
@given(st.lists(st.floats(-5.0, 5.0, allow_subnormal=False), min_size=1, max_size=16))
def test_cispo_on_policy_is_reinforce(advs: list[float]) -> None:
    adv = torch.tensor(advs, dtype=torch.float64)
    lp = torch.full_like(adv, -1.3)
    g = gradient_wrt_logp(cispo_surrogate, lp, lp.clone(), adv)
    assert torch.allclose(g, -adv / len(advs), rtol=1e-12, atol=0)


@FAST
@given(TOKENS, st.floats(0.05, 0.9))
def test_mask_is_where_grpo_gradient_lives(tokens: list, eps: float) -> None:
    logr, old, adv = _batch(tokens)
    grpo_g = gradient_wrt_logp(grpo_surrogate, logr, old, adv, eps_low=eps, eps_high=eps)
    mask = ppo_clip_mask(importance_ratios(logr, old), adv, eps_high=eps, eps_low=eps)
    assert torch.equal(mask.bool(), grpo_g != 0)
    frac = fraction_tokens_clipped(logr, old, adv, eps_high=eps, eps_low=eps)
    assert frac == pytest.approx(float((grpo_g == 0).double().mean()))


@FAST
@given(TOKENS, st.floats(0.05, 0.9))
def test_unified_template_recovers_grpo_and_cispo(tokens: list, eps: float) -> None:
    logr, old, adv = _batch(tokens)
    kw = {"eps_high": eps, "eps_low": eps}
    g_masked = gradient_wrt_logp(unified_surrogate, logr, old, adv, mask=True, **kw)
    g_grpo = gradient_wrt_logp(grpo_surrogate, logr, old, adv, eps_low=eps, eps_high=eps)
    assert torch.allclose(g_masked, g_grpo, rtol=1e-10, atol=1e-15)
    u = unified_surrogate(logr, old, adv, mask=False, **kw)
    c = cispo_surrogate(logr, old, adv, **kw)
    assert torch.allclose(u, c, atol=1e-7)
    g_u = gradient_wrt_logp(unified_surrogate, logr, old, adv, mask=False, **kw)
    g_c = gradient_wrt_logp(cispo_surrogate, logr, old, adv, **kw)
    assert torch.equal(g_u, g_c)


def test_unified_with_both_mask_and_weight_clip() -> None:
    logr = torch.log(torch.tensor([0.5, 1.1, 3.0, 0.5]))
    adv = torch.tensor([1.0, 1.0, 1.0, -1.0])
    g = gradient_wrt_logp(unified_surrogate, logr, torch.zeros(4), adv, mask=True, clip_weight=True)
    # token 0: alive, weight clipped up to 0.8; token 2: masked; token 3: masked (A<0, r<0.8)
    assert torch.allclose(g, torch.tensor([-0.8, -1.1, 0.0, 0.0]) / 4, atol=1e-6)


def test_curves_cliff_vs_plateau() -> None:
    curve = cliff_vs_plateau_curve(eps_high=0.2, num_points=201)
    json.dumps(curve, allow_nan=False)
    assert len(curve) == 201 and curve[0]["ratio"] == 0.505 and curve[-1]["ratio"] == 2.505
    for rec in curve:
        r = rec["ratio"]
        assert rec["cispo"] == pytest.approx(min(r, 1.2))
        assert rec["cispo"] > 0
        if r < 1.199:
            assert rec["grpo"] == pytest.approx(r)
        if r > 1.201:
            assert rec["grpo"] == 0.0
        assert rec["cispo"] == pytest.approx(cispo_gradient_coefficient(r, 1.0, 0.2))
    wider = cliff_vs_plateau_curve(eps_high=0.5, num_points=21, ratio_min=1.025, ratio_max=2.025)
    assert [rec["grpo"] > 0 for rec in wider] == [r["ratio"] <= 1.5 for r in wider]


def test_no_clip_is_not_cispo() -> None:
    # The pitfall: the weight is what bounds an r = 50 token; it is detached.
    ratio = torch.tensor([50.0, 1.0, 0.01], requires_grad=True)
    w = clipped_is_weight(ratio)
    assert torch.allclose(w, torch.tensor([1.2, 1.0, 0.01]))
    assert not w.requires_grad
    assert torch.allclose(clipped_is_weight(ratio, eps_low=0.2), torch.tensor([1.2, 1.0, 0.8]))
    lp = torch.log(torch.tensor([50.0, 1.0]))
    g = gradient_wrt_logp(cispo_surrogate, lp, torch.zeros(2), torch.ones(2))
    assert abs(float(g[0])) <= 1.2 / 2 + 1e-6


def test_group_by_token_with_padding() -> None:
    gen = torch.Generator().manual_seed(5)
    new = torch.randn(2, 4, generator=gen)
    old = torch.randn(2, 4, generator=gen)
    adv = torch.tensor([0.7, -1.2])
    pad = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=torch.bool)
    flat_new = torch.cat([new[0, :3], new[1, :2]])
    flat_old = torch.cat([old[0, :3], old[1, :2]])
    flat_adv = torch.tensor([0.7] * 3 + [-1.2] * 2)
    a = cispo_surrogate(new, old, adv, mask=pad)
    b = cispo_surrogate(flat_new, flat_old, flat_adv)
    assert torch.allclose(a, b, atol=1e-6)
    u = unified_surrogate(new, old, adv, eps_low=None, mask=False, padding_mask=pad)
    assert torch.allclose(u, a, atol=1e-6)
    g = gradient_wrt_logp(cispo_surrogate, new, old, adv, mask=pad)
    assert bool((g[~pad] == 0).all()) and bool((g[pad] != 0).all())


def test_gradient_wrt_logp_leaves_input_alone() -> None:
    lp = torch.zeros(3)
    gradient_wrt_logp(cispo_surrogate, lp, torch.zeros(3), torch.ones(3))
    assert lp.grad is None and not lp.requires_grad


# ----------------------------------------------------------------------------- bad input


def test_bad_tensors() -> None:
    x = torch.zeros(3)
    nan = torch.tensor([0.0, float("nan"), 0.0])
    a = torch.ones(3)
    with pytest.raises(ValueError, match="logp_new"):
        cispo_surrogate(nan, x, a)
    with pytest.raises(ValueError, match="logp_old"):
        cispo_surrogate(x, nan, a)
    with pytest.raises(ValueError, match="adv"):
        cispo_surrogate(x, x, nan)
    with pytest.raises(ValueError, match="logp_old"):
        cispo_surrogate(x, torch.zeros(4), a)
    with pytest.raises(ValueError, match="adv"):
        cispo_surrogate(x, x, torch.ones(2))
    with pytest.raises(ValueError, match="logp_new"):
        cispo_surrogate(torch.zeros(0), torch.zeros(0), torch.ones(0))
    with pytest.raises(TypeError, match="logp_new"):
        cispo_surrogate([0.0], x, a)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="logp_new"):
        importance_ratios(nan, x)
    with pytest.raises(ValueError, match="logp_new"):
        unified_surrogate(nan, x, a)
    with pytest.raises(ValueError, match="logp_new"):
        fraction_tokens_clipped(nan, x, a)
    with pytest.raises(ValueError, match="ratio"):
        ppo_clip_mask(nan, a)
    with pytest.raises(ValueError, match="adv"):
        ppo_clip_mask(torch.ones(3), torch.ones(4))
    with pytest.raises(ValueError, match="ratio"):
        clipped_is_weight(torch.tensor([-1.0]))
    with pytest.raises(ValueError, match="mask"):
        cispo_surrogate(x, x, a, mask=torch.zeros(3, dtype=torch.bool))
    with pytest.raises(TypeError, match="padding_mask"):  # a bool mask, as every loss takes
        unified_surrogate(x, x, a, padding_mask=torch.ones(2))


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"eps_high": 0.0}, "eps_high"),
        ({"eps_high": -0.1}, "eps_high"),
        ({"eps_high": float("inf")}, "eps_high"),
        ({"eps_low": 0.0}, "eps_low"),
        ({"eps_low": 1.0}, "eps_low"),
        ({"eps_low": 1.5}, "eps_low"),
    ],
)
def test_bad_eps(kw: dict, name: str) -> None:
    x, a = torch.zeros(3), torch.ones(3)
    with pytest.raises(ValueError, match=name):
        cispo_surrogate(x, x, a, **kw)
    with pytest.raises(ValueError, match=name):
        unified_surrogate(x, x, a, mask=False, **kw)
    with pytest.raises(ValueError, match=name):
        unified_surrogate(x, x, a, mask=True, **kw)
    with pytest.raises(ValueError, match=name):
        ppo_clip_mask(torch.ones(3), a, **kw)
    with pytest.raises(ValueError, match=name):
        fraction_tokens_clipped(x, x, a, **kw)


def test_bad_other_arguments() -> None:
    x, a = torch.zeros(3), torch.ones(3)
    with pytest.raises(TypeError, match="mask"):
        unified_surrogate(x, x, a, mask=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="loss_fn"):
        gradient_wrt_logp("cispo", x, x, a)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="loss_fn"):
        gradient_wrt_logp(lambda lp, old, adv: lp * adv, x, x, a)
    with pytest.raises(ValueError, match="grpo_eps"):
        demonstrate_reflection_token(grpo_eps=1.0)
    with pytest.raises(ValueError, match="num_points"):
        cliff_vs_plateau_curve(num_points=1)
    with pytest.raises(ValueError, match="ratio"):
        cispo_gradient_coefficient(float("nan"), 1.0)


def test_reflection_spec_is_the_seeds() -> None:
    assert [t[0] for t in REFLECTION_TOKENS if t[3]] == ["However", "Recheck", "Wait"]
    assert len(REFLECTION_TOKENS) == 8
