"""PPO (Schulman et al., 2017) from scratch: the clipped surrogate, GAE, the value model's loss.

REINFORCE (``policy_gradient.py``) needs fresh samples for every step. PPO reuses one batch for
several steps by reweighting each token with the importance ratio of the policy being trained to
the one that sampled it, and stops trusting that ratio once it leaves ``[1 - eps, 1 + eps]``:

    rho_t   = pi_theta(o_t | o_<t) / pi_old(o_t | o_<t)
    J_clip  = mean_t [ min(rho_t A_t, clip(rho_t, 1 - eps, 1 + eps) A_t) ]           (pessimistic)

Its advantages come from a learned value model ``V`` (the critic) through generalised advantage
estimation (Schulman et al., 2015), a ``lambda``-weighted sum of one-step TD errors:

    delta_t = r_t + gamma V_{t+1} - V_t,        A_t = sum_l (gamma lambda)^l delta_{t+l}

and the critic is trained alongside on the returns ``A_t + V_t``. GRPO (``grpo.py``) keeps the
clipped surrogate and drops the critic; ``ppo_memory`` counts what the critic costs.
"""

from __future__ import annotations

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
from objectives import EPS
from policy_gradient import bernoulli_chain_values, importance_ratio, zero_padding

# Size caps for the toy measurement (its plot uses a few thousand episodes).
MAX_EPISODES = 200_000
MAX_TOKENS = 64  # bernoulli_chain_values enumerates (n + 1)^2 states
MAX_PARAMS = 10**15
MAX_LAMS = 101
MAX_GAE_TOKENS = 100_000  # gae loops over tokens in Python

__all__ = [
    "clipped_surrogate_terms",
    "gae",
    "gae_bias_variance",
    "gae_example_chain",
    "ppo_memory",
    "ppo_surrogate",
    "value_loss",
]


# --------------------------------------------------------------------------------------------
# The clipped surrogate
# --------------------------------------------------------------------------------------------


def clipped_surrogate_terms(
    ratio: Tensor, advantages: Tensor, eps_low: float, eps_high: float
) -> Tensor:
    """PPO's pessimistic clipped term, elementwise (the quantity to *maximise*).

        min(ratio * A, clip(ratio, 1 - eps_low, 1 + eps_high) * A)

    Once the ratio has moved past the clip edge in the direction the advantage favours, the
    clipped branch wins the ``min`` and that element's gradient is zero (``grpo.clip_acts``
    marks those elements); moved the other way, the unclipped branch is the smaller and keeps
    its gradient, so a mistake can always be undone. GRPO uses it on per-token ratios with
    ``eps_low == eps_high``; GSPO on one ratio per sequence; DAPO with ``eps_high > eps_low``.

    Args:
        ratio: importance ratios (any shape).
        advantages: advantages broadcastable against ``ratio``.
        eps_low: lower clip width, in (0, 1): the floor is ``1 - eps_low``.
        eps_high: upper clip width, in (0, 1): the ceiling is ``1 + eps_high``.
    """
    ratio = require_tensor("ratio", ratio, dtype="float")
    adv = require_tensor("advantages", advantages, dtype="float")
    try:  # broadcast_tensors, not broadcast_shapes: the latter's first call imports sympy (~1 s)
        torch.broadcast_tensors(ratio, adv)
    except RuntimeError:
        raise ValueError(
            f"advantages of shape {tuple(adv.shape)} do not broadcast against ratio "
            f"{tuple(ratio.shape)}"
        ) from None
    low = require_open_unit("eps_low", eps_low)
    high = require_open_unit("eps_high", eps_high)
    clipped = ratio.clamp(1.0 - low, 1.0 + high)
    return torch.minimum(ratio * adv, clipped * adv)


def ppo_surrogate(
    logp_new: Tensor,
    logp_old: Tensor,
    advantages: Tensor,
    mask: Tensor | None = None,
    *,
    eps_low: float = EPS,
    eps_high: float = EPS,
) -> Tensor:
    """PPO's clipped policy loss (``-J_clip``), averaged over every valid token of the batch.

        loss = -(1 / #tokens) sum_{i, valid t} min(rho_it A_it, clip(rho_it, 1 - eps_low,
                                                                     1 + eps_high) A_it)

    The token mean is verl's default ``"token-mean"`` aggregation. The advantages are usually
    per token (``gae``'s output), but a ``(N,)`` advantage per chain is taken too.

    Args:
        logp_new: ``(N,)`` or ``(N, T)`` log-probs under the policy being trained.
        logp_old: same shape, under the policy that sampled the batch (constant).
        advantages: ``(N,)`` or broadcastable to the log-probs, e.g. ``(N, T)`` from ``gae``.
        mask: optional ``(N, T)`` bool, True on real tokens.
        eps_low: the floor ``1 - eps_low`` of the trust region, in (0, 1).
        eps_high: its ceiling ``1 + eps_high``, in (0, 1); PPO's is symmetric.
    """
    new, old, m = require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask)
    adv = require_advantages("advantages", advantages, new.shape).expand(new.shape)  # (N, T)
    rho = importance_ratio(new, old, mask=m)  # (N, T), 1 on padding
    terms = clipped_surrogate_terms(rho, adv, eps_low, eps_high)  # (N, T)
    if m is None:
        return -terms.mean()
    (terms,) = zero_padding(m, terms)
    return -terms.sum() / m.sum()


# --------------------------------------------------------------------------------------------
# The critic: GAE and the value loss
# --------------------------------------------------------------------------------------------


def gae(
    rewards: Tensor,
    values: Tensor,
    gamma: float = 1.0,
    lam: float = 0.95,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Generalised advantage estimation, right to left over each chain's valid tokens.

        delta_t = r_t + gamma V_{t+1} - V_t     (V after the last token is 0: the chain ended)
        A_t     = delta_t + gamma lam A_{t+1},   returns_t = A_t + V_t

    ``lam = 0`` is the one-step TD error (low variance, as biased as the critic is wrong);
    ``lam = 1`` is the discounted reward-to-go minus ``V_t`` (unbiased, all the reward noise).
    Padding tokens are skipped: they pass ``V`` and ``A`` through unchanged, and get 0.

    Args:
        rewards: ``(N, T)`` per-token rewards (an outcome reward sits on the last valid token).
        values: ``(N, T)`` the critic's ``V(s_t)`` for each token's state.
        gamma: discount in [0, 1].
        lam: GAE's lambda in [0, 1].
        mask: optional ``(N, T)`` bool, True on real tokens.

    Returns:
        ``(advantages, returns)``, each ``(N, T)``, zero on padding; no gradient flows.
    """
    r = require_tensor("rewards", rewards, ndim=2, dtype="float")
    v = require_tensor("values", values, ndim=2, dtype="float")
    require_same_shape("values", v, "rewards", r)
    if r.shape[1] > MAX_GAE_TOKENS:
        raise ValueError(f"rewards must have at most {MAX_GAE_TOKENS} tokens, got {r.shape[1]}")
    gamma = require_prob("gamma", gamma)
    lam = require_prob("lam", lam)
    m = require_mask("mask", mask, r.shape)
    return _gae(r, v, gamma, lam, m)


def _gae(r: Tensor, v: Tensor, gamma: float, lam: float, m: Tensor | None) -> tuple[Tensor, Tensor]:
    """``gae``'s recursion on checked arguments."""
    keep = torch.ones_like(r) if m is None else m.to(r.dtype)
    with torch.no_grad():
        r, v = r * keep, v * keep
        next_value = torch.zeros(r.shape[0], dtype=r.dtype)
        running = torch.zeros(r.shape[0], dtype=r.dtype)
        out = []
        for t in reversed(range(r.shape[1])):
            delta = r[:, t] + gamma * next_value - v[:, t]
            here = delta + gamma * lam * running
            # A padding token changes nothing: the next real token's V and A pass through.
            next_value = keep[:, t] * v[:, t] + (1 - keep[:, t]) * next_value
            running = keep[:, t] * here + (1 - keep[:, t]) * running
            out.append(running * keep[:, t])
        advantages = torch.stack(out[::-1], dim=1)
    return advantages, (advantages + v) * keep


def value_loss(
    values_new: Tensor,
    returns: Tensor,
    values_old: Tensor | None = None,
    mask: Tensor | None = None,
    *,
    clip_value: float | None = None,
) -> Tensor:
    """The critic's regression loss, ``0.5 * mean (V - returns)^2`` over the valid tokens.

    With ``clip_value`` (and ``values_old``, the critic's predictions when the batch was
    sampled) it is PPO's clipped form, ``0.5 * mean max((V - R)^2, (clip(V, V_old +- c) - R)^2)``,
    which keeps the critic from moving far on one reused batch, as the ratio clip does for the
    policy.

    Args:
        values_new: ``(N, T)`` the critic's current predictions (carries the gradient).
        returns: ``(N, T)`` targets, ``gae``'s second output.
        values_old: ``(N, T)`` predictions at sampling time; needed with ``clip_value``.
        mask: optional ``(N, T)`` bool, True on real tokens.
        clip_value: optional half-width > 0 of the value clip.
    """
    vn = require_tensor("values_new", values_new, ndim=2, dtype="float")
    ret = require_tensor("returns", returns, ndim=2, dtype="float")
    require_same_shape("returns", ret, "values_new", vn)
    m = require_mask("mask", mask, vn.shape)
    losses = (vn - ret) ** 2
    if clip_value is not None:
        c = require_float("clip_value", clip_value, low=0.0, low_open=True)
        if values_old is None:
            raise ValueError("values_old is required with clip_value")
        vo = require_tensor("values_old", values_old, ndim=2, dtype="float")
        require_same_shape("values_old", vo, "values_new", vn)
        clipped = torch.maximum(torch.minimum(vn, vo + c), vo - c)
        losses = torch.maximum(losses, (clipped - ret) ** 2)
    elif values_old is not None:
        require_tensor("values_old", values_old, ndim=2, dtype="float")
    if m is None:
        return 0.5 * losses.mean()
    return 0.5 * torch.where(m, losses, torch.zeros((), dtype=losses.dtype)).sum() / m.sum()


# --------------------------------------------------------------------------------------------
# GAE's bias-variance dial, measured
# --------------------------------------------------------------------------------------------


def _coin_flip_episodes(
    n: int, p: float, k: int, err: float, episodes: int, seed: int
) -> tuple[Tensor, Tensor, Tensor, float]:
    """Seeded episodes of the coin-flip chain: actions, the wrong critic's V, rewards, dJ/dtheta."""
    table, exact = bernoulli_chain_values(n, p, k)  # table[t][s] = V at step t with s good
    vtab = torch.tensor(table, dtype=torch.float64)  # (n + 1, n + 1)
    gen = torch.Generator().manual_seed(seed)
    actions = (torch.rand(episodes, n, generator=gen, dtype=torch.float64) < p).to(torch.float64)
    good_before = torch.cumsum(actions, dim=1) - actions  # (E, n) good tokens before step t
    steps = torch.arange(n).expand(episodes, n)
    v_true = vtab[steps, good_before.long()]
    v_hat = (1 - err) * v_true + err * vtab[0, 0]
    rewards = torch.zeros(episodes, n, dtype=torch.float64)
    rewards[:, -1] = (actions.sum(dim=1) >= k).to(torch.float64)
    return actions, v_hat, rewards, exact


def gae_example_chain(
    num_tokens: int = 8,
    p_good: float = 0.5,
    threshold: int = 5,
    critic_error: float = 0.5,
    seed: int = 0,
) -> dict[str, list]:
    """One seeded episode of ``gae_bias_variance``'s chain, for a widget to run GAE on.

    Returns:
        ``{"rewards", "values", "good"}``: the per-token rewards (the outcome on the last
        token), the wrong critic's values, and whether each token was good.
    """
    n = require_int("num_tokens", num_tokens, low=1, high=MAX_TOKENS)
    p = require_open_unit("p_good", p_good)
    k = require_int("threshold", threshold, low=0, high=n)
    err = require_prob("critic_error", critic_error)
    seed = require_seed("seed", seed)
    actions, v_hat, rewards, _ = _coin_flip_episodes(n, p, k, err, 1, seed)
    return {
        "rewards": [float(x) for x in rewards[0]],
        "values": [float(x) for x in v_hat[0]],
        "good": [bool(x) for x in actions[0]],
    }


def gae_bias_variance(
    lams: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    num_tokens: int = 8,
    p_good: float = 0.5,
    threshold: int = 5,
    critic_error: float = 0.5,
    episodes: int = 4_000,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Bias and variance of the policy gradient with GAE advantages, by ``lambda``.

    The toy chain (``policy_gradient.bernoulli_chain_values``) writes ``num_tokens`` tokens,
    each "good" with probability ``p = sigmoid(theta)``; the outcome reward is 1 when at least
    ``threshold`` are good. The state is (position, good tokens so far), so the exact value
    ``V`` and the exact gradient ``dJ/dtheta`` are binomial sums. The critic is wrong on
    purpose: ``V_hat = (1 - critic_error) V + critic_error * V(s_0)``, a critic that has only
    half learned how the state matters. Each episode's estimate is
    ``g = sum_t A_t (a_t - p)`` with ``A = gae(..., gamma=1, lam)``; over ``episodes`` seeded
    episodes we report its mean's error against the exact gradient and its variance.

    Returns:
        One record per ``lam``: ``{"lam", "bias", "variance", "exact", "mean"}``; ``bias`` is
        ``mean - exact``, ``variance`` the per-episode variance of ``g``.
    """
    lam_list = [require_prob("lams", x) for x in require_sequence("lams", lams, min_len=1,
                                                                  max_len=MAX_LAMS)]
    n = require_int("num_tokens", num_tokens, low=1, high=MAX_TOKENS)
    p = require_open_unit("p_good", p_good)
    k = require_int("threshold", threshold, low=0, high=n)
    err = require_prob("critic_error", critic_error)
    episodes = require_int("episodes", episodes, low=2, high=MAX_EPISODES)
    if episodes * n > 2_000_000:
        raise ValueError(f"episodes * num_tokens must be <= 2000000, got {episodes * n}")
    seed = require_seed("seed", seed)

    actions, v_hat, rewards, exact = _coin_flip_episodes(n, p, k, err, episodes, seed)
    score = actions - p  # d log pi(a_t) / d theta for a Bernoulli(sigmoid(theta)) token
    records = []
    for lam in lam_list:
        adv, _ = _gae(rewards, v_hat, 1.0, lam, None)
        g = (adv * score).sum(dim=1)
        mean = float(g.mean())
        records.append(
            {
                "lam": lam,
                "mean": mean,
                "exact": exact,
                "bias": mean - exact,
                "variance": float(g.var()),
            }
        )
    return records


# --------------------------------------------------------------------------------------------
# What the critic costs
# --------------------------------------------------------------------------------------------


def ppo_memory(
    num_params: float,
    weight_bytes: int = 2,
    grad_bytes: int = 2,
    optimizer_bytes: int = 12,
) -> list[dict[str, float | str]]:
    """Memory for the models of one RL step, PPO against GRPO, in bytes (mixed-precision Adam).

    A model being trained holds, per parameter, its 16-bit weights (``weight_bytes``), its
    16-bit gradients (``grad_bytes``) and Adam's state (``optimizer_bytes``: a 32-bit master
    copy of the weights and two 32-bit moments, 4 + 4 + 4). A frozen model holds its weights
    only. PPO trains the policy and a critic of the same size and keeps a frozen reference (for
    the KL) and a frozen reward model; GRPO with a rule for a reward trains the policy and keeps
    the reference. Activations, the KV cache and the sampler's copy are left out: they come on
    top of these for both.

    Args:
        num_params: parameters of the policy (every model here is taken to be its size), > 0.
        weight_bytes, grad_bytes, optimizer_bytes: bytes per parameter of each part (>= 0).

    Returns:
        Records ``{"method", "model", "role", "bytes"}``, one per model and method.
    """
    n = require_float("num_params", num_params, low=0.0, high=MAX_PARAMS, low_open=True)
    w = require_int("weight_bytes", weight_bytes, low=0, high=64)
    g = require_int("grad_bytes", grad_bytes, low=0, high=64)
    o = require_int("optimizer_bytes", optimizer_bytes, low=0, high=64)
    trained, frozen = float(n * (w + g + o)), float(n * w)
    rows = [
        ("ppo", "policy", "trained", trained),
        ("ppo", "critic", "trained", trained),
        ("ppo", "reference", "frozen", frozen),
        ("ppo", "reward model", "frozen", frozen),
        ("grpo", "policy", "trained", trained),
        ("grpo", "reference", "frozen", frozen),
    ]
    return [{"method": a, "model": b, "role": c, "bytes": d} for a, b, c, d in rows]
