"""Tests for code/dapo.py: the seed's printed figures, the anchors back to GRPO, bad input."""

from __future__ import annotations

import json
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dapo import (
    clip_gradient_coefficient,
    clip_higher_curve,
    clipped_objective_terms,
    dapo_recipe_table,
    dapo_surrogate,
    demonstrate_dynamic_sampling,
    demonstrate_overlong,
    demonstrate_token_level,
    dynamic_sample,
    group_is_effective,
    kept_fraction,
    overlong_penalty,
    sample_mean_loss,
    wasted_fraction,
)
from grpo import group_relative_advantages, grpo_surrogate

FAST = settings(max_examples=60, deadline=None)


# ----------------------------------------------------------------------------- seed figures


def test_seed_symmetric_clip_is_grpo() -> None:
    torch.manual_seed(0)
    logp_new, logp_old = torch.randn(6), torch.randn(6)
    adv = torch.tensor(0.7)
    terms = clipped_objective_terms(logp_new, logp_old, adv, eps_low=0.2, eps_high=0.2)
    grpo_l = grpo_surrogate(logp_new, logp_old, adv.expand(6), eps_low=0.2, eps_high=0.2)
    assert torch.allclose(-terms.mean(), grpo_l, atol=1e-6)


def test_seed_token_vs_sample_level() -> None:
    eq_new = [torch.tensor([-0.9, -1.0]), torch.tensor([-1.1, -0.95])]
    eq_old = [torch.tensor([-1.0, -1.0]), torch.tensor([-1.0, -1.0])]
    adv2 = torch.tensor([1.0, -1.0])
    assert torch.allclose(
        dapo_surrogate(eq_new, eq_old, adv2), sample_mean_loss(eq_new, eq_old, adv2)
    )
    uneq_new = [torch.zeros(2), torch.zeros(8)]
    uneq_old = [torch.zeros(2), torch.zeros(8)]
    adv3 = torch.tensor([1.0, -1.0])
    per_resp = torch.stack(
        [
            clipped_objective_terms(n, o, a).mean()
            for n, o, a in zip(uneq_new, uneq_old, adv3, strict=True)
        ]
    )
    w = torch.tensor([2.0, 8.0])
    expected = -(per_resp * w).sum() / w.sum()
    assert torch.allclose(dapo_surrogate(uneq_new, uneq_old, adv3), expected, atol=1e-6)
    # and the two normalisations really do differ here
    assert not torch.allclose(
        dapo_surrogate(uneq_new, uneq_old, adv3), sample_mean_loss(uneq_new, uneq_old, adv3)
    )


def test_seed_group_filter_and_dynamic_sample() -> None:
    for rewards, effective in (([1.0] * 4, False), ([0.0] * 4, False), ([1, 0, 1, 0], True)):
        r = torch.tensor(rewards, dtype=torch.float32)
        adv_zero = float(group_relative_advantages(r).abs().max()) == 0.0
        assert group_is_effective(r) is effective
        assert adv_zero is (not effective)
    gen = torch.Generator().manual_seed(0)
    out = dynamic_sample(lambda: (torch.rand(8, generator=gen) < 0.9).float(), target_groups=8)
    assert (out["rounds"], out["discarded"]) == (13, 5)
    assert len(out["groups"]) == 8
    assert f"{kept_fraction(0.9, 8):.3f}" == "0.570"


def test_seed_wasted_fractions_at_p_09() -> None:
    assert round(100 * wasted_fraction(0.9, 4)) == 66
    assert round(100 * wasted_fraction(0.9, 16)) == 19
    dyn = demonstrate_dynamic_sampling(group_sizes=[4, 8, 16], num_points=61, verbose=False)
    at = {(r["group_size"], round(r["p"], 6)): r["wasted"] for r in dyn}
    assert at[(4, 0.9)] == pytest.approx(0.9**4 + 0.1**4)
    assert at[(16, 0.9)] == pytest.approx(0.9**16 + 0.1**16)


# ----------------------------------------------------------------------------- Clip-Higher


@FAST
@given(
    logr=st.lists(st.floats(-2.0, 2.0), min_size=1, max_size=12),
    a=st.floats(-3.0, 3.0),
    eps=st.floats(0.05, 0.6),
)
def test_symmetric_clip_equals_grpo_value_and_gradient(logr: list[float], a: float, eps: float):
    old = torch.zeros(len(logr), dtype=torch.float64)
    adv = torch.full((len(logr),), a, dtype=torch.float64)
    lp1 = torch.tensor(logr, dtype=torch.float64, requires_grad=True)
    lp2 = lp1.detach().clone().requires_grad_(True)
    dapo_l = -clipped_objective_terms(lp1, old, adv, eps_low=eps, eps_high=eps).mean()
    grpo_l = grpo_surrogate(lp2, old, adv, eps_low=eps, eps_high=eps)
    assert torch.allclose(dapo_l, grpo_l, atol=1e-12)
    dapo_l.backward()
    grpo_l.backward()
    assert torch.allclose(lp1.grad, lp2.grad, atol=1e-12)


@FAST
@given(r=st.floats(0.3, 2.0), a=st.sampled_from([-1.5, -1.0, 0.5, 1.0]))
def test_gradient_coefficient_matches_autograd(r: float, a: float) -> None:
    lp = torch.tensor([math.log(r)], dtype=torch.float64, requires_grad=True)
    old = torch.zeros(1, dtype=torch.float64)
    clipped_objective_terms(lp, old, torch.tensor(a, dtype=torch.float64)).sum().backward()
    assert float(lp.grad[0]) == pytest.approx(clip_gradient_coefficient(r, a), abs=1e-9)


def test_clip_higher_moves_the_wall() -> None:
    curve = clip_higher_curve(eps_low=0.2, eps_high=0.28, num_points=111)
    assert len(curve) == 111
    json.dumps(curve, allow_nan=False)
    for rec in curve:
        r = rec["ratio"]
        if r < 1.19:
            assert rec["grpo_grad"] == pytest.approx(r) and rec["dapo_grad"] == pytest.approx(r)
        if 1.21 < r < 1.27:  # the headroom: GRPO dead, DAPO alive
            assert rec["grpo_grad"] == 0.0 and rec["dapo_grad"] == pytest.approx(r)
        if r > 1.29:
            assert rec["grpo_grad"] == 0.0 and rec["dapo_grad"] == 0.0
        # negative advantage: the floor stays at 1 - eps_low for both
        assert rec["grpo_grad_neg"] == pytest.approx(rec["dapo_grad_neg"])
        expected_neg = 0.0 if r < 0.8 else -r
        if abs(r - 0.8) > 1e-6:
            assert rec["dapo_grad_neg"] == pytest.approx(expected_neg)
        assert rec["dapo_grad"] == pytest.approx(clip_gradient_coefficient(r, 1.0), abs=1e-9)
    # ceiling back down to the floor: the DAPO curve lands on GRPO's
    same = clip_higher_curve(eps_low=0.2, eps_high=0.2)
    assert all(rec["grpo_grad"] == pytest.approx(rec["dapo_grad"]) for rec in same)


def test_terms_accept_group_by_token_with_per_response_adv() -> None:
    g = torch.Generator().manual_seed(1)
    new, old = torch.randn(3, 5, generator=g), torch.randn(3, 5, generator=g)
    adv = torch.tensor([1.0, -0.5, 2.0])
    a = clipped_objective_terms(new, old, adv)
    b = clipped_objective_terms(new, old, adv.unsqueeze(1).expand(3, 5).contiguous())
    assert a.shape == (3, 5) and torch.equal(a, b)


# ----------------------------------------------------------------------------- token-level loss


@FAST
@given(
    lengths=st.lists(st.integers(1, 9), min_size=1, max_size=5),
    seed=st.integers(0, 10_000),
)
def test_token_level_is_length_weighted_mean(lengths: list[int], seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    new = [torch.randn(n, generator=g, dtype=torch.float64) * 0.3 for n in lengths]
    old = [torch.randn(n, generator=g, dtype=torch.float64) * 0.3 for n in lengths]
    adv = torch.randn(len(lengths), generator=g, dtype=torch.float64)
    means = torch.stack(
        [clipped_objective_terms(n, o, a).mean() for n, o, a in zip(new, old, adv, strict=True)]
    )
    w = torch.tensor(lengths, dtype=torch.float64)
    token = dapo_surrogate(new, old, adv)
    assert torch.allclose(token, -(means * w).sum() / w.sum(), atol=1e-12)
    assert torch.allclose(sample_mean_loss(new, old, adv), -means.mean(), atol=1e-12)
    if len(set(lengths)) == 1:
        assert torch.allclose(token, sample_mean_loss(new, old, adv), atol=1e-12)


def test_token_level_weights_from_autograd() -> None:
    tok = demonstrate_token_level(lengths=[2, 4, 8, 32], verbose=False)
    json.dumps(tok, allow_nan=False)
    assert [r["length"] for r in tok] == [2, 4, 8, 32]
    for r in tok:
        assert r["sample_weight"] == pytest.approx(0.25)
        assert r["token_weight"] == pytest.approx(r["length"] / 46)
        assert r["token_per_token"] == pytest.approx(1 / 46)
    assert sum(r["token_weight"] for r in tok) == pytest.approx(1.0)


def test_dapo_surrogate_accepts_a_plain_list_of_advantages() -> None:
    new = [torch.zeros(2), torch.zeros(3)]
    assert torch.allclose(
        dapo_surrogate(new, new, [1.0, -1.0]), dapo_surrogate(new, new, torch.tensor([1.0, -1.0]))
    )


# ----------------------------------------------------------------------------- dynamic sampling


@FAST
@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=16))
def test_effective_iff_advantages_nonzero_binary(rewards: list[float]) -> None:
    r = torch.tensor(rewards)
    nonzero = bool((group_relative_advantages(r) != 0).any())
    assert group_is_effective(r) == nonzero
    correct = int(r.sum())
    assert group_is_effective(r) == (0 < correct < len(rewards))


@FAST
@given(st.lists(st.integers(-80, 80), min_size=1, max_size=10))
def test_effective_iff_advantages_nonzero_graded(numerators: list[int]) -> None:
    # graded rewards on a 1/8 grid (partial credit); see the float caveat below
    r = torch.tensor(numerators, dtype=torch.float32) / 8
    assert group_is_effective(r) == bool((group_relative_advantages(r) != 0).any())


def test_effective_holds_in_float32_at_tiny_spreads() -> None:
    # A reward spread so small that its square underflows float32 (1e-30) once gave grpo a zero
    # std and all-zero advantages; grpo now takes such a group's std on its own scale, so the
    # equivalence holds there too (and with eps = 0 the advantages are exactly -1 and +1).
    tiny = torch.tensor([0.0, 1e-30])
    assert group_is_effective(tiny)
    assert bool((group_relative_advantages(tiny) != 0).all())
    assert group_relative_advantages(tiny, eps=0.0).tolist() == [-1.0, 1.0]


def test_kept_fraction_matches_simulation() -> None:
    gen = torch.Generator().manual_seed(3)
    groups = (torch.rand(20_000, 8, generator=gen) < 0.9).float()
    correct = groups.sum(dim=1)
    simulated = float(((correct > 0) & (correct < 8)).float().mean())
    assert simulated == pytest.approx(kept_fraction(0.9, 8), abs=0.015)
    assert kept_fraction(0.5, 1) == 0.0 and wasted_fraction(0.0, 5) == 1.0


def test_dynamic_sample_bookkeeping_and_guard() -> None:
    gen = torch.Generator().manual_seed(11)
    out = dynamic_sample(lambda: (torch.rand(4, generator=gen) < 0.7).float(), 5)
    assert out["rounds"] == len(out["groups"]) + out["discarded"]
    assert all(group_is_effective(g) for g in out["groups"])
    with pytest.raises(RuntimeError, match="max_rounds"):
        dynamic_sample(lambda: torch.ones(4), target_groups=1, max_rounds=50)
    with pytest.raises(TypeError, match="sample_group_fn"):
        dynamic_sample(3, target_groups=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="target_groups"):
        dynamic_sample(lambda: torch.tensor([0.0, 1.0]), target_groups=0)
    with pytest.raises(TypeError, match="sample_group_fn"):
        dynamic_sample(lambda: [0.0, 1.0], target_groups=1)  # type: ignore[return-value]


def test_demonstrate_dynamic_sampling_records() -> None:
    dyn = demonstrate_dynamic_sampling(verbose=False)
    json.dumps(dyn, allow_nan=False)
    assert len(dyn) == 3 * 61
    assert {r["group_size"] for r in dyn} == {4, 8, 16}
    assert min(r["p"] for r in dyn) == 0.0 and max(r["p"] for r in dyn) == 1.0
    for r in dyn:
        assert r["wasted"] + r["kept"] == pytest.approx(1.0)


# ----------------------------------------------------------------------------- overlong shaping


def test_overlong_penalty_piecewise() -> None:
    assert overlong_penalty(0) == 0.0
    assert overlong_penalty(16384) == 0.0  # = max_len - cache_len: last penalty-free length
    assert overlong_penalty(16384 + 2048) == pytest.approx(-0.5)
    assert overlong_penalty(20480) == -1.0
    assert overlong_penalty(20481) == -1.0
    assert overlong_penalty(10**7) == -1.0
    assert overlong_penalty(15, max_len=20, cache_len=10) == pytest.approx(-0.5)
    assert overlong_penalty(5, max_len=10, cache_len=10) == pytest.approx(-0.5)


@FAST
@given(st.integers(0, 30_000))
def test_overlong_penalty_is_continuous_and_monotone(length: int) -> None:
    here, nxt = overlong_penalty(length), overlong_penalty(length + 1)
    assert -1.0 <= nxt <= here <= 0.0
    assert here - nxt <= 1 / 4096 + 1e-12


def test_demonstrate_overlong_records() -> None:
    over = demonstrate_overlong(num_points=61, verbose=False)
    json.dumps(over, allow_nan=False)
    assert len(over) == 61 and over[0]["length"] == 0 and over[-1]["length"] == 20480 + 4096
    lengths = {r["length"]: r for r in over}
    assert lengths[16384]["penalty"] == 0.0 and lengths[20480]["penalty"] == -1.0
    for r in over:
        assert r["hard_penalty"] == (0.0 if r["length"] <= 20480 else -1.0)
        if r["length"] > 20480:  # past the cap the ramp has already reached the cliff
            assert r["penalty"] == r["hard_penalty"] == -1.0
        else:  # before it, the ramp is the only penalty and it is continuous
            assert -1.0 <= r["penalty"] <= 0.0 == r["hard_penalty"]


def test_recipe_table() -> None:
    table = dapo_recipe_table()
    assert [r["name"] for r in table] == [
        "Clip-Higher",
        "Dynamic Sampling",
        "Token-Level Loss",
        "Overlong Shaping",
    ]
    assert all(set(r) == {"name", "change", "fixes"} for r in table)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"eps_low": 0.0}, "eps_low"),
        ({"eps_low": 1.0}, "eps_low"),
        ({"eps_low": -0.1}, "eps_low"),
        ({"eps_high": 0.0}, "eps_high"),
        ({"eps_high": 1.0}, "eps_high"),
        ({"eps_high": -0.2}, "eps_high"),
        ({"eps_high": float("nan")}, "eps_high"),
    ],
)
def test_bad_clip_ranges(kw: dict, name: str) -> None:
    x = torch.zeros(3)
    with pytest.raises(ValueError, match=name):
        clipped_objective_terms(x, x, torch.tensor(1.0), **kw)
    with pytest.raises(ValueError, match=name):
        dapo_surrogate([x], [x], torch.tensor([1.0]), **kw)


def test_bad_tensors() -> None:
    x = torch.zeros(3)
    nan = torch.tensor([0.0, float("nan"), 0.0])
    with pytest.raises(ValueError, match="logp_new"):
        clipped_objective_terms(nan, x, torch.tensor(1.0))
    with pytest.raises(ValueError, match="logp_old"):
        clipped_objective_terms(x, nan, torch.tensor(1.0))
    with pytest.raises(ValueError, match="adv"):
        clipped_objective_terms(x, x, torch.tensor(float("nan")))
    with pytest.raises(ValueError, match="logp_old"):
        clipped_objective_terms(x, torch.zeros(4), torch.tensor(1.0))
    with pytest.raises(ValueError, match="adv"):
        clipped_objective_terms(x, x, torch.zeros(2))
    with pytest.raises(ValueError, match="logp_new"):
        clipped_objective_terms(torch.zeros(0), torch.zeros(0), torch.tensor(1.0))
    with pytest.raises(TypeError, match="logp_new"):
        clipped_objective_terms([0.0, 0.0], x, torch.tensor(1.0))  # type: ignore[arg-type]


def test_bad_ragged_groups() -> None:
    a, b = torch.zeros(2), torch.zeros(3)
    with pytest.raises(ValueError, match="logp_new"):
        dapo_surrogate([], [], torch.zeros(0))
    with pytest.raises(ValueError, match="logp_old"):
        dapo_surrogate([a, b], [a], torch.zeros(2))
    with pytest.raises(ValueError, match=r"logp_old\[1\]"):
        sample_mean_loss([a, b], [a, a], torch.zeros(2))
    with pytest.raises(ValueError, match="adv"):
        dapo_surrogate([a, b], [a, b], torch.zeros(3))
    with pytest.raises(ValueError, match=r"logp_new\[0\]"):
        dapo_surrogate([torch.tensor([float("nan"), 0.0])], [a], torch.zeros(1))
    with pytest.raises(ValueError, match=r"logp_new\[0\]"):
        dapo_surrogate([torch.zeros(0)], [torch.zeros(0)], torch.zeros(1))


def test_bad_scalars() -> None:
    with pytest.raises(ValueError, match="length"):
        overlong_penalty(-1)
    with pytest.raises(ValueError, match="cache_len"):
        overlong_penalty(10, max_len=100, cache_len=0)
    with pytest.raises(ValueError, match="cache_len"):
        overlong_penalty(10, max_len=100, cache_len=101)
    with pytest.raises(ValueError, match="max_len"):
        overlong_penalty(10, max_len=0, cache_len=0)
    with pytest.raises(TypeError, match="length"):
        overlong_penalty("10")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="p must"):
        kept_fraction(1.5, 4)
    with pytest.raises(ValueError, match="G"):
        wasted_fraction(0.5, 0)
    with pytest.raises(TypeError, match="G"):
        wasted_fraction(0.5, 2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rewards"):
        group_is_effective(torch.zeros(2, 2))
    with pytest.raises(ValueError, match="rewards"):
        group_is_effective(torch.tensor([1.0, float("nan")]))
    with pytest.raises(ValueError, match="rewards"):
        group_is_effective([])
    with pytest.raises(ValueError, match="group_sizes"):
        demonstrate_dynamic_sampling(group_sizes=[], verbose=False)
    with pytest.raises(ValueError, match="lengths"):
        demonstrate_token_level(lengths=[2, 0], verbose=False)


def test_verbose_prints(capsys: pytest.CaptureFixture[str]) -> None:
    demonstrate_dynamic_sampling()
    demonstrate_token_level()
    demonstrate_overlong()
    out = capsys.readouterr().out
    assert "65.6%" in out and "0.696" in out and "-0.500" in out
