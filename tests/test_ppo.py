"""Tests for code/ppo.py: the clipped surrogate, GAE, the value loss, the memory count.

PPO's clipped loss, GAE and the clipped value loss are checked against hand-computed cases and
against the formulas as verl writes them, transcribed below from volcengine/verl,
``verl/trainer/ppo/core_algos.py`` (``compute_gae_advantage_return``,
``compute_policy_loss_vanilla``, ``compute_value_loss``; verl adapted each from TRL's
``trl/trainer/ppo_trainer.py``). Where verl differs (it whitens GAE's advantages, clamps the
log-ratio to [-20, 20], and adds dual-clip PPO's bound ``clip_ratio_c = 3`` for negative
advantages), the cases stay where those extras are idle and the pre-whitening values are compared.
"""

from __future__ import annotations

import math

import pytest
import torch

import dapo
import grpo
from ppo import (
    clipped_surrogate_terms,
    gae,
    gae_bias_variance,
    ppo_memory,
    ppo_surrogate,
    value_loss,
)

# ------------------------------------------------------------------ verl's formulas, transcribed


def verl_gae(token_level_rewards, values, response_mask, gamma, lam):
    """verl's compute_gae_advantage_return before its masked_whiten (see the module docstring)."""
    nextvalues, lastgaelam, out = 0, 0, []
    for t in reversed(range(token_level_rewards.shape[-1])):
        delta = token_level_rewards[:, t] + gamma * nextvalues - values[:, t]
        lastgaelam_ = delta + gamma * lam * lastgaelam
        nextvalues = values[:, t] * response_mask[:, t] + (1 - response_mask[:, t]) * nextvalues
        lastgaelam = lastgaelam_ * response_mask[:, t] + (1 - response_mask[:, t]) * lastgaelam
        out.append(lastgaelam)
    advantages = torch.stack(out[::-1], dim=1)
    return advantages, advantages + values


def verl_policy_loss(old_log_prob, log_prob, advantages, response_mask, cliprange):
    """verl's compute_policy_loss_vanilla, loss_agg_mode="token-mean" (dual clip at 3.0)."""
    negative_approx_kl = torch.clamp(log_prob - old_log_prob, min=-20.0, max=20.0)
    ratio = torch.exp(negative_approx_kl)
    pg_losses1 = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1 - cliprange, 1 + cliprange)
    clip_pg_losses1 = torch.maximum(pg_losses1, pg_losses2)
    clip_pg_losses2 = torch.min(-advantages * 3.0, clip_pg_losses1)
    pg_losses = torch.where(advantages < 0, clip_pg_losses2, clip_pg_losses1)
    return (pg_losses * response_mask).sum() / response_mask.sum()


def verl_value_loss(vpreds, returns, values, response_mask, cliprange_value):
    """verl's compute_value_loss, loss_agg_mode="token-mean"."""
    vpredclipped = torch.clamp(vpreds, values - cliprange_value, values + cliprange_value)
    losses = torch.max((vpreds - returns) ** 2, (vpredclipped - returns) ** 2)
    return 0.5 * (losses * response_mask).sum() / response_mask.sum()


def ragged_batch(seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    n, t = 5, 7
    lengths = torch.tensor([7, 3, 5, 1, 6])
    mask = torch.arange(t) < lengths.unsqueeze(1)
    rewards = torch.zeros(n, t, dtype=torch.float64)
    rewards[torch.arange(n), lengths - 1] = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0]).double()
    rewards += 0.1 * torch.randn(n, t, generator=gen, dtype=torch.float64) * mask
    values = torch.rand(n, t, generator=gen, dtype=torch.float64) * mask
    return rewards, values, mask


# ------------------------------------------------------------------ GAE


def test_gae_by_hand():
    """Two tokens, gamma = 0.9, lam = 0.5: delta_1 = 1 - 0.5, delta_0 = 0 + 0.9 * 0.5 - 0.2."""
    r = torch.tensor([[0.0, 1.0]], dtype=torch.float64)
    v = torch.tensor([[0.2, 0.5]], dtype=torch.float64)
    adv, ret = gae(r, v, gamma=0.9, lam=0.5)
    d1, d0 = 0.5, 0.9 * 0.5 - 0.2
    assert adv[0].tolist() == pytest.approx([d0 + 0.9 * 0.5 * d1, d1])
    assert ret[0].tolist() == pytest.approx([d0 + 0.45 * d1 + 0.2, d1 + 0.5])


def test_gae_ends_of_the_dial():
    """lam = 0: one-step TD errors; lam = 1: reward-to-go minus V (gamma = 1)."""
    r, v, mask = ragged_batch()
    a0, _ = gae(r, v, gamma=1.0, lam=0.0, mask=mask)
    nxt = torch.cat([v[:, 1:], torch.zeros(5, 1, dtype=v.dtype)], dim=1)
    assert torch.allclose(a0, (r + nxt - v) * mask)
    a1, _ = gae(r, v, gamma=1.0, lam=1.0, mask=mask)
    rtg = torch.flip(torch.cumsum(torch.flip(r, [1]), 1), [1])
    assert torch.allclose(a1, (rtg - v) * mask)


@pytest.mark.parametrize(("gamma", "lam"), [(1.0, 0.95), (0.99, 0.9), (0.5, 0.0), (1.0, 1.0)])
def test_gae_matches_verl(gamma, lam):
    r, v, mask = ragged_batch(seed=3)
    adv, ret = gae(r, v, gamma=gamma, lam=lam, mask=mask)
    ref_adv, ref_ret = verl_gae(r, v, mask.to(r.dtype), gamma, lam)
    assert torch.allclose(adv, ref_adv * mask)
    assert torch.allclose(ret, ref_ret * mask)


def test_gae_skips_tokens_inside_a_chain_as_verl_does():
    """A hole in the mask (a tool's output the policy did not write) passes V and A through."""
    r, v, _ = ragged_batch(seed=4)
    mask = torch.ones(5, 7, dtype=torch.bool)
    mask[:, 2:4] = False
    mask[1, 6] = False
    adv, ret = gae(r, v, gamma=0.9, lam=0.8, mask=mask)
    ref_adv, ref_ret = verl_gae(r * mask, v * mask, mask.to(r.dtype), 0.9, 0.8)
    assert torch.allclose(adv, ref_adv * mask)
    assert torch.allclose(ret, ref_ret * mask)


def test_gae_refuses_bad_input():
    r = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="values"):
        gae(r, torch.zeros(2, 2))
    with pytest.raises(ValueError, match="lam"):
        gae(r, r, lam=1.5)
    with pytest.raises(ValueError, match="gamma"):
        gae(r, r, gamma=-0.1)
    with pytest.raises(TypeError, match="rewards"):
        gae([[0.0]], r)


# ------------------------------------------------------------------ the clipped surrogate


def test_clipped_terms_by_hand():
    ratio = torch.tensor([0.5, 0.9, 1.1, 1.5])
    plus = clipped_surrogate_terms(ratio, torch.tensor(1.0), 0.2, 0.2)
    minus = clipped_surrogate_terms(ratio, torch.tensor(-1.0), 0.2, 0.2)
    assert plus.tolist() == pytest.approx([0.5, 0.9, 1.1, 1.2])  # gain capped at 1 + eps
    assert minus.tolist() == pytest.approx([-0.8, -0.9, -1.1, -1.5])  # loss never capped above


def test_grpo_and_dapo_use_ppos_clip():
    assert grpo.clipped_surrogate_terms is clipped_surrogate_terms
    assert dapo.clipped_surrogate_terms is clipped_surrogate_terms


@pytest.mark.parametrize("eps", [0.1, 0.2, 0.28])
def test_ppo_surrogate_matches_verl(eps):
    """Ratios in (0.35, 2.9): verl's dual clip (3.0) and log-ratio clamp are idle there."""
    gen = torch.Generator().manual_seed(1)
    _, _, mask = ragged_batch()
    old = -torch.rand(5, 7, generator=gen, dtype=torch.float64) * 3
    new = old + (torch.rand(5, 7, generator=gen, dtype=torch.float64) * 2.1 - 1.05)
    adv = torch.randn(5, 7, generator=gen, dtype=torch.float64)
    ours = ppo_surrogate(new, old, adv, mask=mask, eps_low=eps, eps_high=eps)
    theirs = verl_policy_loss(old, new, adv, mask.to(adv.dtype), eps)
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-12)


def test_ppo_surrogate_gradient_vanishes_past_the_clip_only_in_the_favoured_direction():
    logp = torch.log(torch.tensor([1.5, 1.5, 0.5, 0.5])).requires_grad_()
    old = torch.zeros(4)
    adv = torch.tensor([1.0, -1.0, 1.0, -1.0])
    (g,) = torch.autograd.grad(ppo_surrogate(logp, old, adv, eps_low=0.2, eps_high=0.2), logp)
    # ratio 1.5, A > 0: clipped, no push; ratio 1.5, A < 0: pushed down; ratio 0.5, A > 0: pushed
    # up; ratio 0.5, A < 0: clipped.
    assert g.tolist() == pytest.approx([0.0, 1.5 / 4, -0.5 / 4, 0.0])


def test_ppo_surrogate_on_policy_is_reinforce():
    from policy_gradient import reinforce_surrogate

    logp = torch.tensor([[-1.0, -0.5], [-2.0, -0.1]], requires_grad=True)
    adv = torch.tensor([0.7, -0.3])
    (g1,) = torch.autograd.grad(ppo_surrogate(logp, logp.detach(), adv), logp)
    (g2,) = torch.autograd.grad(reinforce_surrogate(logp, logp.detach(), adv), logp)
    assert torch.allclose(g1 * 2, g2)  # token mean (4 tokens) against a mean over 2 chains


def test_ppo_surrogate_refuses_bad_input():
    x = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="eps_low"):
        ppo_surrogate(x, x, torch.ones(2), eps_low=1.0, eps_high=1.0)
    with pytest.raises(ValueError, match="advantages"):
        ppo_surrogate(x, x, torch.ones(4))
    with pytest.raises(ValueError, match="logp_old"):
        ppo_surrogate(x, torch.zeros(3, 2), torch.ones(2))


# ------------------------------------------------------------------ the value loss


def test_value_loss_by_hand_and_against_verl():
    v_new = torch.tensor([[0.9, 0.1]], dtype=torch.float64)
    ret = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    assert value_loss(v_new, ret).item() == pytest.approx(0.5 * (0.01 + 0.01) / 2)
    r, v_old, mask = ragged_batch()
    _, returns = gae(r, v_old, mask=mask)
    gen = torch.Generator().manual_seed(2)
    v_new = v_old + 0.4 * torch.randn(v_old.shape, generator=gen, dtype=torch.float64)
    ours = value_loss(v_new, returns, v_old, mask=mask, clip_value=0.2)
    theirs = verl_value_loss(v_new, returns, v_old, mask.to(r.dtype), 0.2)
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-12)


def test_value_loss_refuses_bad_input():
    x = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="values_old"):
        value_loss(x, x, clip_value=0.2)
    with pytest.raises(ValueError, match="clip_value"):
        value_loss(x, x, x, clip_value=0.0)
    with pytest.raises(ValueError, match="returns"):
        value_loss(x, torch.zeros(3, 2))


# ------------------------------------------------------------------ GAE's dial, measured


def test_gae_bias_variance_dial():
    rows = {r["lam"]: r for r in gae_bias_variance()}
    # lam = 1 is unbiased whatever the critic: its bias is within 3 standard errors.
    se = math.sqrt(rows[1.0]["variance"] / 4_000)
    assert abs(rows[1.0]["bias"]) < 3 * se
    # a wrong critic biases lam = 0 by far more than that, and lam = 1 pays in variance.
    assert abs(rows[0.0]["bias"]) > 20 * se
    lams = sorted(rows)
    biases = [abs(rows[x]["bias"]) for x in lams]
    assert biases == sorted(biases, reverse=True)
    assert rows[1.0]["variance"] > 2 * rows[0.0]["variance"]
    # a perfect critic: every lam is unbiased
    perfect = gae_bias_variance(critic_error=0.0, episodes=5000)
    assert all(abs(r["bias"]) < 4 * math.sqrt(r["variance"] / 5000) for r in perfect)


# ------------------------------------------------------------------ memory


def test_ppo_memory_arithmetic():
    rows = ppo_memory(671e9)
    total = {m: sum(r["bytes"] for r in rows if r["method"] == m) for m in ("ppo", "grpo")}
    assert total["ppo"] == 671e9 * (16 + 16 + 2 + 2)
    assert total["grpo"] == 671e9 * (16 + 2)
    with pytest.raises(ValueError, match="num_params"):
        ppo_memory(0)
