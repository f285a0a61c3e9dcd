"""Tests for code/policy_gradient.py: the group-mean baseline, REINFORCE's loss."""

from __future__ import annotations

import pytest
import torch

import dr_grpo
import grpo
from policy_gradient import centered_advantages, reinforce_surrogate

# ------------------------------------------------------------------ the group-mean baseline


def test_centered_advantages_by_hand():
    rewards = torch.tensor([1.0, 1.0, 0.0, 0.0])
    assert centered_advantages(rewards).tolist() == [0.5, 0.5, -0.5, -0.5]
    batch = torch.tensor([[1.0, 0.0, 0.0, 0.0], [3.0, 3.0, 3.0, 3.0]])
    assert centered_advantages(batch).tolist() == [[0.75, -0.25, -0.25, -0.25], [0.0] * 4]
    assert centered_advantages(torch.tensor([1, 0])).dtype == torch.get_default_dtype()
    # A tied group gets exact zeros, though 0.1 - mean(0.1, 0.1, 0.1) is -1.4e-17 in float64.
    tied = torch.tensor([0.1, 0.1, 0.1], dtype=torch.float64)
    assert centered_advantages(tied).tolist() == [0.0, 0.0, 0.0]


def test_centered_advantages_is_the_one_the_grpo_chapters_use():
    """dr_grpo and grpo read the same function (one implementation of the idea)."""
    assert dr_grpo.centered_advantages is centered_advantages
    r = torch.tensor([[0.1, 0.7, 0.7], [0.3, 0.3, 0.3]])
    assert torch.equal(grpo.center_rewards(r), centered_advantages(r))


def test_centered_advantages_refuses_bad_rewards():
    with pytest.raises(ValueError, match="rewards"):
        centered_advantages(torch.tensor([]))
    with pytest.raises(ValueError, match="rewards"):
        centered_advantages(torch.tensor([1.0, float("nan")]))
    with pytest.raises(TypeError, match="rewards"):
        centered_advantages([1.0, 0.0])


# ------------------------------------------------------------------ REINFORCE


def test_reinforce_surrogate_by_hand():
    """-(1/N) sum_i A_i sum_t logp_it, on a ragged batch: the padding never counts."""
    logp = torch.tensor([[-1.0, -2.0, 99.0], [-0.5, -0.5, -0.5]], requires_grad=True)
    mask = torch.tensor([[True, True, False], [True, True, True]])
    adv = torch.tensor([2.0, -1.0])
    loss = reinforce_surrogate(logp, logp.detach(), adv, mask=mask)
    # chain 0: 2 * (-3) = -6; chain 1: -1 * (-1.5) = 1.5; sum -4.5; -(1/2) * -4.5 = 2.25
    assert loss.item() == pytest.approx(2.25)
    (grad,) = torch.autograd.grad(loss, logp)
    assert grad.tolist() == [[-1.0, -1.0, 0.0], [0.5, 0.5, 0.5]]


def test_reinforce_surrogate_ignores_logp_old_values_and_junk_in_padding():
    logp = torch.tensor([[-1.0, float("nan")], [-0.2, -0.3]])
    mask = torch.tensor([[True, False], [True, True]])
    adv = torch.tensor([1.0, 1.0])
    a = reinforce_surrogate(logp, torch.zeros(2, 2), adv, mask=mask)
    b = reinforce_surrogate(logp, torch.full((2, 2), -7.0), adv, mask=mask)
    assert a.item() == b.item() == pytest.approx(0.75)


def test_reinforce_gradient_is_grpo_gradient_on_policy_for_one_token_answers():
    """On-policy with one token per answer, GRPO's clipped loss has REINFORCE's gradient."""
    logp = torch.log(torch.tensor([0.2, 0.5, 0.3])).requires_grad_()
    adv = torch.tensor([1.0, -0.5, -0.5])
    (g1,) = torch.autograd.grad(reinforce_surrogate(logp, logp.detach(), adv), logp)
    (g2,) = torch.autograd.grad(grpo.grpo_surrogate(logp, logp.detach(), adv), logp)
    assert torch.allclose(g1, g2)


def test_reinforce_surrogate_refuses_bad_input():
    logp = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="logp_old"):
        reinforce_surrogate(logp, torch.zeros(2, 2), torch.ones(2))
    with pytest.raises(ValueError, match="advantages"):
        reinforce_surrogate(logp, logp, torch.ones(5))
    with pytest.raises(TypeError, match="mask"):
        reinforce_surrogate(logp, logp, torch.ones(2), mask=torch.ones(2, 3))
    with pytest.raises(ValueError, match="logp_new"):
        reinforce_surrogate(torch.full((2, 3), float("nan")), logp, torch.ones(2))
