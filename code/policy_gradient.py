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
chapter 4 on is the mean reward of the other answers sampled for the same prompt (the group).

``reinforce_surrogate`` is the loss whose gradient is that estimator; it takes the signature all
the book's objectives share, ``loss(logp_new, logp_old, advantages, mask=None)``, so the trainer
can switch to it. ``ppo.py`` adds what lets a batch be reused: the clipped importance ratio.
"""

from __future__ import annotations

import torch
from torch import Tensor

from checks import require_advantages, require_logp_pair, require_tensor

__all__ = [
    "centered_advantages",
    "reinforce_surrogate",
]


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
    terms = adv * new
    if m is not None:
        zero = torch.zeros((), dtype=terms.dtype)
        terms = torch.where(m, adv * torch.where(m, new, zero), zero)
    return -terms.sum() / new.shape[0]
