"""Tests for code/policy_gradient.py: the group-mean baseline, REINFORCE's loss."""

from __future__ import annotations

import pytest
import torch

import dr_grpo
import grpo
from policy_gradient import (
    bernoulli_chain_values,
    centered_advantages,
    exact_gradient_variance,
    gradient_variance_study,
    importance_ratio,
    kl_penalized_rewards,
    reinforce_surrogate,
    reward_to_go,
)

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


# ------------------------------------------------------------------ reward-to-go, KL, ratio


def test_reward_to_go_by_hand():
    r = torch.tensor([[1.0, 0.0, 2.0], [0.5, 9.0, 9.0]])
    mask = torch.tensor([[True, True, True], [True, False, False]])
    assert reward_to_go(r, mask=mask).tolist() == [[3.0, 2.0, 2.0], [0.5, 0.0, 0.0]]
    got = reward_to_go(r[:1], gamma=0.5)
    assert got.tolist() == [[1.0 + 0.0 + 0.25 * 2.0, 1.0, 2.0]]


def test_outcome_reward_to_go_is_the_reward_on_every_token():
    r = torch.zeros(2, 4)
    r[:, -1] = torch.tensor([1.0, 0.0])
    assert reward_to_go(r).tolist() == [[1.0] * 4, [0.0] * 4]


def test_kl_penalized_rewards_by_hand():
    r = torch.tensor([[0.0, 1.0]])
    lp = torch.tensor([[-0.5, -1.0]])
    ref = torch.tensor([[-1.0, -1.0]])
    assert kl_penalized_rewards(r, lp, ref, beta=0.1)[0].tolist() == pytest.approx([-0.05, 1.0])
    with pytest.raises(ValueError, match="beta"):
        kl_penalized_rewards(r, lp, ref, beta=-1.0)


def test_importance_ratio_reweights_to_the_new_policy():
    """E_old[rho f] = E_new[f], exactly, on a categorical."""
    old = torch.tensor([0.5, 0.3, 0.2])
    new = torch.tensor([0.2, 0.2, 0.6])
    f = torch.tensor([1.0, -2.0, 5.0])
    rho = importance_ratio(new.log(), old.log())
    assert float((old * rho * f).sum()) == pytest.approx(float((new * f).sum()))
    mask = torch.tensor([[True, False]])
    pad = importance_ratio(torch.tensor([[0.1, 5.0]]), torch.zeros(1, 2), mask=mask)
    assert pad[0, 1].item() == 1.0


# ------------------------------------------------------------------ the exact toys


def test_exact_gradient_variance_matches_enumeration():
    """The closed form against an enumeration of the one-sample estimator."""
    pi, r = [0.5, 0.3, 0.2], [1.0, 0.0, 0.25]
    for b in (0.0, 0.4, 2.0):
        out = exact_gradient_variance(pi, r, b)
        p = torch.tensor(pi, dtype=torch.float64)
        g = [(r[a] - b) * (torch.eye(3, dtype=torch.float64)[a] - p) for a in range(3)]
        mean = sum(pi[a] * g[a] for a in range(3))
        var = sum(pi[a] * float(((g[a] - mean) ** 2).sum()) for a in range(3))
        assert out["variance"] == pytest.approx(var)
        assert out["grad_norm"] == pytest.approx(float(mean.norm()))
    best = exact_gradient_variance(pi, r, 0.0)
    for b in (best["best_baseline"] - 0.01, best["best_baseline"] + 0.01):
        assert exact_gradient_variance(pi, r, b)["variance"] > best["best_variance"]


def test_bernoulli_chain_values_against_enumeration():
    import itertools
    import math

    n, p, k = 4, 0.3, 2
    table, grad = bernoulli_chain_values(n, p, k)
    j = sum(
        math.prod(p if a else 1 - p for a in chain)
        for chain in itertools.product([0, 1], repeat=n)
        if sum(chain) >= k
    )
    assert table[0][0] == pytest.approx(j)
    theta = torch.tensor(math.log(p / (1 - p)), dtype=torch.float64, requires_grad=True)
    q = torch.sigmoid(theta)
    jt = sum(math.comb(n, m) * q**m * (1 - q) ** (n - m) for m in range(k, n + 1))
    (g,) = torch.autograd.grad(jt, theta)
    assert grad == pytest.approx(float(g))


def test_gradient_variance_study():
    rows = {r["estimator"]: r for r in gradient_variance_study()}
    # every estimator but the group mean is unbiased: within 3 standard errors
    for name in ("none", "reward_to_go", "true_value"):
        assert rows[name]["bias"] < 3 * rows[name]["std_error"], name
    # the group mean is (G - 1) / G of the gradient: off by |grad J| / G = 1/8 of it
    assert rows["group_mean"]["relative_bias"] == pytest.approx(1 / 8, abs=0.05)
    # the baselines cut the variance by two orders of magnitude; reward-to-go by about half
    assert rows["none"]["variance"] > 100 * rows["true_value"]["variance"]
    assert rows["none"]["variance"] > 100 * rows["group_mean"]["variance"]
    assert rows["reward_to_go"]["variance"] < 0.7 * rows["none"]["variance"]
