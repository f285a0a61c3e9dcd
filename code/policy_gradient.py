"""Policy gradients from scratch: REINFORCE, its baselines, the reward-to-go, the importance ratio.

A policy ``pi_theta`` writes a chain ``o = (o_1, ..., o_T)`` one token at a time and a grader
hands back a reward ``R(o)``. The objective is the expected reward, and the log-derivative trick
``grad pi = pi grad log pi`` turns its gradient into an expectation we can sample:

    J(theta)      = E_{o ~ pi_theta} [ R(o) ]
    grad J(theta) = E_{o ~ pi_theta} [ R(o) * sum_t grad log pi_theta(o_t | o_<t) ]      (REINFORCE)

The log-probability of a chain is the sum of its tokens' log-probabilities, so the score of a
chain is the sum of its tokens' scores. Subtracting a baseline ``b`` that does not depend on the
chain leaves the expectation unchanged (``E[grad log pi] = grad sum_o pi(o) = grad 1 = 0``) and,
chosen well, shrinks the variance: ``A = R - b`` is the *advantage*. The baseline used from
chapter 5 on is the mean reward of the other answers sampled for the same prompt (the group).

``reinforce_surrogate`` is the loss whose gradient is that estimator; it takes the signature all
the book's objectives share, ``loss(logp_new, logp_old, advantages, mask=None)``, so the trainer
can switch to it. ``ppo.py`` adds what lets a batch be reused: the clipped importance ratio.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from checks import (
    require_advantages,
    require_float,
    require_int,
    require_logp_pair,
    require_mask,
    require_open_unit,
    require_prob,
    require_same_shape,
    require_seed,
    require_sequence,
    require_tensor,
)

# Size caps for the toys (their exact expectations enumerate every chain).
MAX_ANSWERS = 64
MAX_CHAIN = 64
MAX_DRAWS = 100_000
# |reward| and |b| of exact_gradient_variance: (r - b)^2 must be a float (1e200 ** 2 raises)
MAX_REWARD = 1e100

__all__ = [
    "bernoulli_chain_values",
    "centered_advantages",
    "exact_gradient_variance",
    "gradient_variance_study",
    "importance_ratio",
    "kl_penalized_rewards",
    "reinforce_surrogate",
    "reward_to_go",
    "zero_padding",
]


# --------------------------------------------------------------------------------------------
# Padding: every loss of the book zeroes it first
# --------------------------------------------------------------------------------------------


def zero_padding(mask: Tensor | None, *tensors: Tensor) -> tuple[Tensor, ...]:
    """Each tensor with 0 wherever ``mask`` is False (unchanged when ``mask`` is None).

    A ragged batch is padded to ``(G, T)`` and its padding may hold anything a sampler wrote
    (``-inf`` for a token it could not emit, junk past a chain's end). Every loss of the book
    zeroes it *before* any arithmetic, through this one function, so nothing stored there can
    reach a value or a gradient (``torch.where`` sends a masked position no gradient at all).

    Args:
        mask: ``None``, or a bool tensor, True on real tokens.
        *tensors: float tensors of the mask's shape (``(G, T)`` log-probs, per-token terms).

    Returns:
        A tuple with one tensor per input, in order.
    """
    if mask is None:
        return tensors
    m = require_tensor("mask", mask, dtype="bool", finite=False)
    zero = torch.zeros(())
    out = []
    for i, x in enumerate(tensors):
        x = require_tensor(f"tensors[{i}]", x, dtype="float", finite=False)
        require_same_shape(f"tensors[{i}]", x, "mask", m)
        out.append(torch.where(m, x, zero.to(x.dtype)))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# The baseline: the mean reward of the group
# --------------------------------------------------------------------------------------------


def centered_advantages(rewards: Tensor) -> Tensor:
    """The group-mean baseline's advantage ``A_i = r_i - mean(r)``, one group per row.

    Every answer in a group was sampled for the same prompt, so the group's mean reward is a
    baseline that costs no model (it includes ``r_i`` itself, which biases the gradient by a
    factor ``(G - 1) / G``, a rescaling, not a change of direction). GRPO divides the result by
    the group's std (``grpo.group_relative_advantages``); Dr. GRPO uses it as it is.

    Args:
        rewards: ``(G,)`` rewards of one group, or ``(B, G)`` for ``B`` groups (one per row).

    Returns:
        A float tensor of the same shape. A group whose rewards are all equal gets exact zeros
        (no floating-point residue): it carries no relative signal.

    Raises:
        TypeError: ``rewards`` is not a tensor.
        ValueError: an empty group, NaN/inf rewards, or a tensor that is not 1-D or 2-D.
    """
    r = require_tensor("rewards", rewards, ndim=(1, 2))
    r = r if r.is_floating_point() else r.to(torch.get_default_dtype())
    centered = r - r.mean(dim=-1, keepdim=True)
    tied = (r == r[..., :1]).all(dim=-1, keepdim=True)
    return torch.where(tied, torch.zeros_like(centered), centered)


# --------------------------------------------------------------------------------------------
# REINFORCE
# --------------------------------------------------------------------------------------------


def reinforce_surrogate(
    logp_new: Tensor,
    logp_old: Tensor,
    advantages: Tensor,
    mask: Tensor | None = None,
) -> Tensor:
    """REINFORCE's loss: minus the advantage-weighted log-probability of each sampled chain.

        loss = -(1 / N) sum_i A_i sum_{valid t} log pi_theta(o_it | o_i,<t)

    Its gradient is minus the REINFORCE estimate of ``grad J`` from ``N`` chains. It is
    on-policy: the chains must have been sampled from the policy being differentiated, so there
    is no ratio and no clip. ``logp_old`` is taken only so that the signature matches the other
    objectives' (and its shape is checked); its values are never used.

    Args:
        logp_new: ``(N,)`` log-probs of one-token answers, or ``(N, T)`` per-token log-probs;
            carries the gradient.
        logp_old: same shape (the sampler's log-probs; unused on-policy).
        advantages: ``(N,)`` (shared by every token of a chain) or broadcastable to the
            log-probs, e.g. ``(N, T)`` per-token rewards-to-go.
        mask: optional ``(N, T)`` bool, True on real tokens; padding is zeroed before any
            arithmetic, so nothing stored there reaches the value or the gradient.

    Returns:
        A scalar loss tensor.

    Raises:
        TypeError: a non-tensor argument, integer log-probs, a non-bool mask.
        ValueError: mismatched shapes, or NaN/inf at a valid token.
    """
    new, _, m = require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask)
    adv = require_advantages("advantages", advantages, new.shape)
    (new,) = zero_padding(m, new)  # (N, T); padding 0, so adv * new is 0 there
    return -(adv * new).sum() / new.shape[0]


# --------------------------------------------------------------------------------------------
# The reward-to-go, the KL penalty in the reward, the importance ratio
# --------------------------------------------------------------------------------------------


def reward_to_go(rewards: Tensor, gamma: float = 1.0, mask: Tensor | None = None) -> Tensor:
    """Each token's discounted reward from itself on: ``G_t = sum_{k>=t} gamma^(k-t) r_k``.

    A token cannot change the rewards paid before it, so weighting its score by ``G_t`` instead
    of the whole chain's reward drops terms whose expectation is zero and keeps their noise
    out. With an outcome reward (one reward, on the last token) ``G_t`` is that reward for
    every token: the same weight for the whole chain, as GRPO gives.

    Args:
        rewards: ``(N, T)`` per-token rewards.
        gamma: discount in [0, 1].
        mask: optional ``(N, T)`` bool, True on real tokens; padding gets 0 and adds nothing.
    """
    r = require_tensor("rewards", rewards, ndim=2, dtype="float")
    gamma = require_prob("gamma", gamma)
    m = require_mask("mask", mask, r.shape)
    if m is not None:
        r = torch.where(m, r, torch.zeros((), dtype=r.dtype))
    out = torch.zeros_like(r)
    running = torch.zeros(r.shape[0], dtype=r.dtype)
    for t in reversed(range(r.shape[1])):
        running = r[:, t] + gamma * running
        out[:, t] = running
    return out if m is None else torch.where(m, out, torch.zeros((), dtype=r.dtype))


def kl_penalized_rewards(
    rewards: Tensor,
    logp: Tensor,
    logp_ref: Tensor,
    beta: float,
    mask: Tensor | None = None,
) -> Tensor:
    """The KL leash paid in the reward, per token: ``r_t - beta * (log pi(o_t) - log pi_ref(o_t))``.

    This is how PPO for language models keeps near its reference: the per-token log-ratio (the
    simplest KL estimate, "k1") is subtracted from the reward, so it flows into the advantages
    and the critic must predict it too. GRPO instead adds ``beta * k3`` to the loss
    (``grpo.kl_divergence``), leaving the reward and the advantage about correctness only.

    Args:
        rewards: ``(N, T)`` per-token rewards (an outcome reward on the last token).
        logp: ``(N, T)`` log-probs of the sampled tokens under the policy that wrote them.
        logp_ref: ``(N, T)`` their log-probs under the frozen reference.
        beta: KL weight, >= 0.
        mask: optional ``(N, T)`` bool, True on real tokens; padding gets 0.
    """
    r = require_tensor("rewards", rewards, ndim=2, dtype="float")
    lp = require_tensor("logp", logp, ndim=2, dtype="float")
    ref = require_tensor("logp_ref", logp_ref, ndim=2, dtype="float")
    require_same_shape("logp", lp, "rewards", r)
    require_same_shape("logp_ref", ref, "rewards", r)
    beta = require_float("beta", beta, low=0.0)
    m = require_mask("mask", mask, r.shape)
    shaped = r - beta * (lp - ref).detach()
    return shaped if m is None else torch.where(m, shaped, torch.zeros((), dtype=r.dtype))


def importance_ratio(logp_new: Tensor, logp_old: Tensor, mask: Tensor | None = None) -> Tensor:
    """Per-token importance ratio ``rho_t = pi_new(o_t | o_<t) / pi_old(o_t | o_<t)``.

    A token sampled from ``pi_old`` and weighted by ``rho_t`` has the expectation it would have
    under ``pi_new``: ``E_old[rho f] = sum pi_old (pi_new / pi_old) f = E_new[f]``. That is what
    lets one batch serve several gradient steps. It is computed as ``exp(logp_new - logp_old)``;
    padding gets ratio 1 (no reweighting).

    Args:
        logp_new: ``(N,)`` or ``(N, T)`` log-probs under the policy being trained.
        logp_old: same shape, under the policy that sampled them.
        mask: optional ``(N, T)`` bool, True on real tokens.
    """
    new, old, m = require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask)
    new, old = zero_padding(m, new, old)
    return torch.exp(new - old)  # (N, T)


# --------------------------------------------------------------------------------------------
# Toys whose gradient is known exactly
# --------------------------------------------------------------------------------------------


def _probs_and_rewards(probs: object, rewards: object) -> tuple[list[float], list[float]]:
    pi = [require_prob("probs", x) for x in require_sequence("probs", probs, min_len=2,
                                                             max_len=MAX_ANSWERS)]
    if abs(sum(pi) - 1.0) > 1e-9:
        raise ValueError(f"probs must sum to 1, got {sum(pi)}")
    r = [require_float("rewards", x, low=-MAX_REWARD, high=MAX_REWARD)
         for x in require_sequence("rewards", rewards, max_len=MAX_ANSWERS)]
    if len(r) != len(pi):
        raise ValueError(f"rewards must have one value per answer ({len(pi)}), got {len(r)}")
    return pi, r


def exact_gradient_variance(
    probs: list[float], rewards: list[float], baseline: float = 0.0
) -> dict[str, float]:
    """One sample's REINFORCE estimate for a softmax policy over answers, in closed form.

    With logits ``theta`` and ``pi = softmax(theta)``, one answer ``a ~ pi`` gives the
    estimate ``g = (r_a - b) (e_a - pi)`` of ``grad J = sum_a pi_a r_a (e_a - pi)``. Its mean
    is ``grad J`` for any constant ``b`` (``sum_a pi_a (e_a - pi) = 0``), and its total
    variance (the trace of its covariance) is

        Var(b) = sum_a pi_a (r_a - b)^2 |e_a - pi|^2  -  |grad J|^2,

    a parabola in ``b``, least at ``b* = sum_a pi_a w_a r_a / sum_a pi_a w_a`` with
    ``w_a = |e_a - pi|^2`` (close to, not equal to, the mean reward).

    Args:
        probs: the policy's probabilities (>= 2 answers, summing to 1).
        rewards: one reward per answer.
        baseline: the constant ``b`` subtracted from the reward.

    Returns:
        ``{"variance", "grad_norm", "best_baseline", "best_variance", "mean_reward"}``.
    """
    pi, r = _probs_and_rewards(probs, rewards)
    b = require_float("baseline", baseline, low=-MAX_REWARD, high=MAX_REWARD)
    sq = sum(p * p for p in pi)
    w = [sq - 2 * p + 1 for p in pi]  # |e_a - pi|^2
    grad = [p * (ra - sum(q * rq for q, rq in zip(pi, r, strict=True))) for p, ra in zip(pi, r,
                                                                                      strict=True)]
    g2 = sum(x * x for x in grad)
    pw = sum(p * wa for p, wa in zip(pi, w, strict=True))

    def var(c: float) -> float:
        return sum(p * (ra - c) ** 2 * wa for p, ra, wa in zip(pi, r, w, strict=True)) - g2

    best = sum(p * wa * ra for p, wa, ra in zip(pi, w, r, strict=True)) / pw if pw > 0 else 0.0
    return {
        "variance": max(var(b), 0.0),
        "grad_norm": math.sqrt(g2),
        "best_baseline": best,
        "best_variance": max(var(best), 0.0),
        "mean_reward": sum(p * ra for p, ra in zip(pi, r, strict=True)),
    }


def bernoulli_chain_values(
    num_tokens: int, p_good: float, threshold: int
) -> tuple[list[list[float]], float]:
    """Exact values of a chain of coin-flip tokens with an outcome reward, and ``dJ/dtheta``.

    Each of ``num_tokens`` tokens is "good" with probability ``p = sigmoid(theta)``; the reward
    is 1 when at least ``threshold`` are good. ``V[t][s]`` is the chance of that reward after
    ``t`` tokens of which ``s`` are good, ``P(Binomial(n - t, p) >= threshold - s)``, and
    ``dJ/dtheta = n C(n-1, k-1) p^k (1-p)^(n-k+1)`` for ``J = V[0][0]``.

    Returns:
        ``(V, dJ_dtheta)``; ``V`` is ``(n + 1) x (n + 1)`` (entries with ``s > t`` unused).
    """
    n = require_int("num_tokens", num_tokens, low=1, high=MAX_CHAIN)
    p = require_open_unit("p_good", p_good)
    k = require_int("threshold", threshold, low=0, high=n)

    def tail(m: int, need: int) -> float:  # P(Binomial(m, p) >= need)
        if need <= 0:
            return 1.0
        return sum(math.comb(m, j) * p**j * (1 - p) ** (m - j) for j in range(need, m + 1))

    table = [[tail(n - t, k - s) for s in range(n + 1)] for t in range(n + 1)]
    if k == 0:
        return table, 0.0
    dj_dp = n * math.comb(n - 1, k - 1) * p ** (k - 1) * (1 - p) ** (n - k)
    return table, dj_dp * p * (1 - p)


def gradient_variance_study(
    num_tokens: int = 3,
    num_answers: int = 4,
    group_size: int = 8,
    draws: int = 1000,
    reward_offset: float = 1.0,
    seed: int = 0,
) -> list[dict[str, float | str]]:
    """Measure REINFORCE's estimators against the exact gradient of a short sequence model.

    The policy writes ``num_tokens`` tokens, token ``t`` from its own softmax over
    ``num_answers`` (logits drawn from ``seed``); token ``t`` choosing ``k`` earns
    ``reward_offset + u[t, k]`` (``u`` uniform in [0, 1), drawn from ``seed``), and the chain's
    reward is the sum. All ``num_answers ** num_tokens`` chains are enumerated for the exact
    ``grad J``. Then ``draws`` groups of ``group_size`` chains are sampled (seeded) and each
    group's estimate is read with autograd from ``reinforce_surrogate``, with four advantages:

    * ``"none"``: the chain's reward ``R`` for every token;
    * ``"reward_to_go"``: token ``t`` weighted by the rewards from ``t`` on;
    * ``"true_value"``: ``R - J`` (the exact expected reward as a constant baseline);
    * ``"group_mean"``: ``centered_advantages`` of the group (GRPO's and Dr. GRPO's baseline;
      its mean is ``(G - 1) / G`` of ``grad J``, since each chain is in its own baseline).

    Returns:
        One record per estimator: ``{"estimator", "variance", "bias", "relative_bias",
        "grad_norm"}``; ``variance`` is the trace of the covariance of a group's estimate over
        the draws, ``bias`` the distance of their mean from the exact gradient (relative to
        ``|grad J|`` in ``relative_bias``), and ``std_error`` the standard error of that mean
        (``sqrt(variance / draws)``): a bias below a few standard errors is sampling noise.
    """
    t_len = require_int("num_tokens", num_tokens, low=1, high=6)
    k = require_int("num_answers", num_answers, low=2, high=8)
    g = require_int("group_size", group_size, low=2, high=256)
    draws = require_int("draws", draws, low=2, high=MAX_DRAWS)
    if draws * g > 400_000:
        raise ValueError(f"draws * group_size must be <= 400000, got {draws * g}")
    offset = require_float("reward_offset", reward_offset, low=-1e3, high=1e3)
    seed = require_seed("seed", seed)

    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(t_len, k, generator=gen, dtype=torch.float64)
    table = offset + torch.rand(t_len, k, generator=gen, dtype=torch.float64)

    # Exact: enumerate every chain.
    theta = logits.clone().requires_grad_()
    logpi = torch.log_softmax(theta, dim=-1)
    chains = torch.cartesian_prod(*[torch.arange(k)] * t_len).reshape(-1, t_len)
    pos = torch.arange(t_len)
    chain_logp = logpi[pos, chains].sum(dim=1)
    chain_r = table[pos, chains].sum(dim=1)
    (exact,) = torch.autograd.grad((chain_logp.exp() * chain_r).sum(), theta)
    value = float((chain_logp.exp() * chain_r).sum().detach())

    # Sampled: one copy of the logits per draw, so one backward pass returns every estimate.
    probs = torch.softmax(logits, dim=-1)
    tokens = torch.stack(
        [torch.multinomial(probs[t], draws * g, replacement=True, generator=gen)
         for t in range(t_len)], dim=1)  # (D*G, T)
    per_token_r = table[pos, tokens]  # (D*G, T)
    total_r = per_token_r.sum(dim=1)
    advantages = {
        "none": total_r,
        "reward_to_go": reward_to_go(per_token_r),
        "true_value": total_r - value,
        "group_mean": centered_advantages(total_r.reshape(draws, g)).reshape(-1),
    }
    draw_of = torch.arange(draws).repeat_interleave(g)
    copies = logits.expand(draws, t_len, k).clone().requires_grad_()
    logp = torch.log_softmax(copies, dim=-1)[draw_of.unsqueeze(1), pos, tokens]  # (D*G, T)
    records = []
    for name, adv in advantages.items():
        loss = reinforce_surrogate(logp, logp.detach(), adv)
        (grads,) = torch.autograd.grad(loss, copies, retain_graph=True)
        est = -grads.reshape(draws, -1) * draws  # each draw's group estimate of grad J
        mean = est.mean(dim=0)
        bias = float((mean - exact.reshape(-1)).norm())
        records.append(
            {
                "estimator": name,
                "variance": float(est.var(dim=0).sum()),
                "bias": bias,
                "relative_bias": bias / float(exact.norm()),
                "std_error": math.sqrt(float(est.var(dim=0).sum()) / draws),
                "grad_norm": float(exact.norm()),
            }
        )
    return records
