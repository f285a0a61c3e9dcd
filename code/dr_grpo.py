"""Dr. GRPO (Liu et al., 2025): GRPO's advantage and length normaliser, repaired.

Written out per token, GRPO's per-response objective is

    (1/|o_i|) sum_t min(rho_it A_i, clip(rho_it, 1 - eps, 1 + eps) A_i),
    A_i = (r_i - mean(r)) / std(r).

Dr. GRPO removes two normalisers. ``/ std(r)`` gives questions the model has nearly solved (or
has no hope on) an outsized weight, ``1 / sqrt(p (1 - p))`` for a 0/1 reward; ``1 / |o_i|``
lets a long wrong answer spread its penalty thin, so wrong answers drift longer. Dr. GRPO uses
``A_i = r_i - mean(r)`` and a constant token normaliser. (GSPO, the other 2025 repair of GRPO,
changes the ratio instead; it lives in ``gspo.py``.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

from checks import (
    require_advantages,
    require_choice,
    require_float,
    require_int,
    require_logp_pair,
    require_open_unit,
    require_prob,
    require_seed,
    require_sequence,
)
from grpo import (
    clipped_surrogate_terms,
    group_relative_advantages,
    grpo_surrogate,
    zero_padding,
)
from objectives import EPS
from policy_gradient import centered_advantages  # the group-mean baseline (policy gradients)

# Size caps for the toy simulations (their plots use a few thousand tokens at most).
MAX_TOKENS = 100_000
MAX_RESPONSES = 10_000
MAX_STEPS = 100_000
MAX_POINTS = 100_000

__all__ = [
    "centered_advantages",
    "demonstrate_length_bias",
    "difficulty_weight",
    "difficulty_weight_curve",
    "dr_grpo_surrogate",
    "length_drift_simulation",
    "per_token_push",
]


# --------------------------------------------------------------------------------------------
# Dr. GRPO
# --------------------------------------------------------------------------------------------


def difficulty_weight(p: float, eps: float = 1e-2) -> float:
    """GRPO's implicit per-question weight for a 0/1 reward: ``1 / (sqrt(p (1 - p)) + eps)``.

    A group with a fraction ``p`` correct has population std ``sqrt(p (1 - p))``, and GRPO
    divides every advantage of that group by it (plus ``eps``). Dr. GRPO's weight is 1.

    Args:
        p: fraction of the group that is correct, in [0, 1].
        eps: the positive constant added to the std.
    """
    p = require_prob("p", p)
    eps = require_float("eps", eps, low=0.0, low_open=True)
    return 1.0 / (math.sqrt(p * (1.0 - p)) + eps)


def difficulty_weight_curve(
    num_points: int = 99, eps: float = 1e-2, p_min: float = 0.001, p_max: float = 0.999
) -> list[dict[str, float]]:
    """GRPO's vs Dr. GRPO's per-question weight across difficulty (for a widget).

    ``p`` runs over ``num_points`` evenly spaced values from ``p_min`` to ``p_max`` (with the
    defaults: 0.001, ~0.011, ..., 0.5, ..., 0.999), so the curve shows both the flat bottom at
    ``p = 1/2`` (weight ~2) and the climb at the edges (~24 at ``p = 0.001``).

    Returns:
        Records ``{"p", "grpo", "dr_grpo"}``; ``dr_grpo`` is always 1.
    """
    num_points = require_int("num_points", num_points, low=2, high=MAX_POINTS)
    lo, hi = require_prob("p_min", p_min), require_prob("p_max", p_max)
    eps = require_float("eps", eps, low=0.0, low_open=True)
    if not 0.0 <= lo < hi <= 1.0:
        raise ValueError(f"need 0 <= p_min < p_max <= 1, got p_min={lo}, p_max={hi}")
    records = []
    for k in range(num_points):
        p = lo + (hi - lo) * k / (num_points - 1)
        records.append({"p": p, "grpo": difficulty_weight(p, eps), "dr_grpo": 1.0})
    return records


def dr_grpo_surrogate(
    logp_new: Tensor,
    logp_old: Tensor,
    advantages: Tensor,
    mask: Tensor | None = None,
    *,
    eps_low: float = EPS,
    eps_high: float = EPS,
    max_len: int | None = None,
) -> Tensor:
    """Dr. GRPO's loss: sum each response's token terms, divide by a *constant*, not ``|o_i|``.

        loss = -(1 / (G * max_len)) sum_i sum_{valid t} min(rho_it A_i, clip(rho_it) A_i)

    Use it with ``centered_advantages``. ``max_len`` is a fixed budget (the generation cap),
    so every token gets the same weight whatever the length of its response.

    Args:
        logp_new: ``(G, T)`` per-token log-probs (differentiable).
        logp_old: ``(G, T)`` per-token log-probs of the sampler.
        advantages: ``(G,)`` or broadcastable to ``(G, T)``.
        mask: optional ``(G, T)`` bool, True on real tokens.
        eps_low: the trust region's floor ``1 - eps_low``, in (0, 1).
        eps_high: its ceiling ``1 + eps_high``, in (0, 1); symmetric, as GRPO's, by default.
        max_len: the constant normaliser (>= the longest response); defaults to ``T``.
    """
    new, old, m = require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask, ndim=2)
    adv = require_advantages("advantages", advantages, new.shape)  # (G, 1) or (G, T)
    longest = new.shape[1] if m is None else int(m.sum(dim=1).max())
    norm = new.shape[1] if max_len is None else require_int("max_len", max_len, low=1)
    if norm < longest:
        raise ValueError(f"max_len must be >= the longest response ({longest}), got {norm}")
    new, old = zero_padding(m, new, old)  # (G, T)
    terms = clipped_surrogate_terms(torch.exp(new - old), adv, eps_low, eps_high)  # (G, T)
    (terms,) = zero_padding(m, terms)
    return -terms.sum() / (new.shape[0] * norm)


def _lengths(lengths: object) -> list[int]:
    """Response lengths: a non-empty sequence of ints in [1, MAX_TOKENS]."""
    items = require_sequence("lengths", lengths, min_len=1, max_len=MAX_RESPONSES)
    return [require_int("lengths", n, low=1, high=MAX_TOKENS) for n in items]


def _budget(max_len: object, lens: list[int]) -> int:
    """Dr. GRPO's constant normaliser: ``max_len``, or the longest length when None."""
    if max_len is None:
        return max(lens)
    return require_int("max_len", max_len, low=max(lens), high=MAX_TOKENS)


def per_token_push(
    lengths: Sequence[int],
    advantages: Sequence[float],
    max_len: int | None = None,
) -> list[dict[str, float]]:
    """How hard GRPO and Dr. GRPO push each token of each response in one group.

    On-policy (every ratio is 1, so the clip is idle) the push on token ``t`` of response ``i``
    is ``-d loss / d logp_it``, read with autograd from the two losses on a ragged ``(G, T)``
    batch with a mask:

        GRPO     (``grpo.grpo_surrogate``):  A_i / (G |o_i|)     per token,  A_i / G          in all
        Dr. GRPO (``dr_grpo_surrogate``):    A_i / (G max_len)   per token,  A_i |o_i| / (G max_len)

    Args:
        lengths: ``G`` response lengths in tokens (each >= 1).
        advantages: ``G`` advantages, one per response (finite).
        max_len: Dr. GRPO's constant normaliser (the generation budget); defaults to
            ``max(lengths)`` and must be at least that.

    Returns:
        One record per response: ``{"length", "advantage", "grpo", "dr_grpo", "grpo_total",
        "dr_grpo_total"}`` (per-token pushes and the sum over the response's tokens).

    Raises:
        TypeError: a length that is not an int, an advantage that is not a real number.
        ValueError: empty or mismatched lists, a length < 1, ``max_len < max(lengths)``.
    """
    lens = _lengths(lengths)
    advantages = require_sequence("advantages", advantages)
    if len(advantages) != len(lens):
        raise ValueError(
            f"advantages must have one value per response ({len(lens)}), got {len(advantages)}"
        )
    adv = torch.tensor([require_float("advantages", a) for a in advantages], dtype=torch.float64)
    budget = _budget(max_len, lens)
    mask = torch.arange(max(lens)) < torch.tensor(lens).unsqueeze(1)
    pushes = {}
    for name in ("grpo", "dr_grpo"):
        logp = torch.zeros(mask.shape, dtype=torch.float64, requires_grad=True)
        old = torch.zeros(mask.shape, dtype=torch.float64)
        if name == "grpo":
            loss = grpo_surrogate(logp, old, adv, mask=mask)
        else:
            loss = dr_grpo_surrogate(logp, old, adv, mask=mask, max_len=budget)
        (grad,) = torch.autograd.grad(loss, logp)
        pushes[name] = -grad
    return [
        {
            "length": n,
            "advantage": float(adv[i]),
            "grpo": float(pushes["grpo"][i, 0]),
            "dr_grpo": float(pushes["dr_grpo"][i, 0]),
            "grpo_total": float(pushes["grpo"][i].sum()),
            "dr_grpo_total": float(pushes["dr_grpo"][i].sum()),
        }
        for i, n in enumerate(lens)
    ]


def demonstrate_length_bias(
    lengths: Sequence[int] = (10, 50, 100, 500, 1000),
    advantage: float = 1.0,
    max_len: int | None = None,
) -> list[dict[str, float]]:
    """How hard each token of a right / wrong response is pushed, by response length.

    For each length ``L`` a group holds one correct (``+advantage``) and one incorrect
    (``-advantage``) response of ``L`` tokens, on-policy (ratio 1). The per-token push is read
    with autograd as ``-d loss / d logp_t`` (see ``per_token_push``) from
    ``grpo.grpo_surrogate`` (normaliser ``1 / |o_i|``) and from ``dr_grpo_surrogate``
    (constant ``max_len``, default the longest length). Under GRPO a wrong response's total
    penalty is the same at every length, so each of its tokens is punished less the longer it
    runs; under Dr. GRPO every token costs the same and a longer wrong answer costs more in total.

    Returns:
        One record per length: ``{"length", "grpo_correct", "grpo_incorrect",
        "dr_grpo_correct", "dr_grpo_incorrect"}`` (per-token pushes) and the per-response
        totals ``{"grpo_correct_total", "grpo_incorrect_total", "dr_grpo_correct_total",
        "dr_grpo_incorrect_total"}``.
    """
    lens = _lengths(lengths)
    a = require_float("advantage", advantage)
    budget = _budget(max_len, lens)
    records = []
    for n in lens:
        right, wrong = per_token_push([n, n], [a, -a], max_len=budget)
        rec: dict[str, float] = {"length": n}
        for name in ("grpo", "dr_grpo"):
            rec[f"{name}_correct"] = right[name]
            rec[f"{name}_incorrect"] = wrong[name]
            rec[f"{name}_correct_total"] = right[f"{name}_total"]
            rec[f"{name}_incorrect_total"] = wrong[f"{name}_total"]
        records.append(rec)
    return records


def length_drift_simulation(
    method: str = "grpo",
    steps: int = 200,
    group_size: int = 16,
    p_correct: float = 0.5,
    start_length: float = 20.0,
    max_len: int = 1000,
    lr: float = 0.5,
    seed: int = 0,
) -> list[dict[str, float | int | str]]:
    """Train only *when to stop* under GRPO or Dr. GRPO, with a reward that ignores length.

    The toy chain first lands on the right track (probability ``p_correct``, held fixed) or a
    wrong one, then writes filler tokens; before each token it stops with probability
    ``s = sigmoid(theta_track)``, one learnable stop logit per track, so a chain's length is
    geometric with mean ``1 / s`` (cut at ``max_len``, where the stop is forced and carries no
    gradient). The reward is 1 on the right track and 0 on the wrong one: length neither helps
    nor hurts, so any trend in length is put there by the loss.

    Each step samples ``group_size`` chains with a private generator, builds the per-token
    log-probs (``log(1 - s)`` for "go on", ``log s`` for the stop) as a masked ``(G, T)``
    batch and takes one on-policy SGD step of size ``lr`` on

    * ``"grpo"``: ``grpo.grpo_surrogate`` with ``grpo.group_relative_advantages`` (``1/|o_i|``);
    * ``"dr_grpo"``: ``dr_grpo_surrogate`` with ``centered_advantages`` and constant ``max_len``.

    A stop logit's score over one chain is ``1 - L s``, which averages to zero over lengths
    ``L``; Dr. GRPO weighs it equally at every length and so has no expected push on length,
    GRPO weighs it by ``1 / L``, which favours short chains: right chains get shorter and wrong
    chains longer.

    Args:
        method: ``"grpo"`` or ``"dr_grpo"``.
        steps: number of updates (>= 0).
        group_size: chains per group (>= 2).
        p_correct: probability a chain is on the right track, in (0, 1).
        start_length: initial mean length of both tracks, in (1, max_len).
        max_len: the generation cap (and Dr. GRPO's constant normaliser).
        lr: SGD step size (> 0).
        seed: seed of the sampling generator.

    Returns:
        Records ``{"method", "step", "right_length", "wrong_length"}`` for steps ``0..steps``;
        a length is the mean of the policy's current (capped) length distribution,
        ``(1 - (1 - s)^max_len) / s``.
    """
    method = require_choice("method", method, ("grpo", "dr_grpo"))
    steps = require_int("steps", steps, low=0, high=MAX_STEPS)
    group_size = require_int("group_size", group_size, low=2, high=MAX_RESPONSES)
    p = require_open_unit("p_correct", p_correct)
    max_len = require_int("max_len", max_len, low=2, high=MAX_TOKENS)
    start = require_float(
        "start_length", start_length, low=1.0, high=max_len, low_open=True, high_open=True
    )
    lr = require_float("lr", lr, low=0.0, low_open=True)
    seed = require_seed("seed", seed)

    gen = torch.Generator().manual_seed(seed)
    # theta[0]: the wrong track's stop logit, theta[1]: the right track's; sigmoid = 1 / start.
    theta = torch.full((2,), -math.log(start - 1.0), dtype=torch.float64, requires_grad=True)
    positions = torch.arange(max_len)

    def mean_length(logit: Tensor) -> float:
        s = float(torch.sigmoid(logit))
        return (1.0 - (1.0 - s) ** max_len) / s

    records: list[dict[str, float | int | str]] = []
    for step in range(steps + 1):
        records.append(
            {
                "method": method,
                "step": step,
                "right_length": mean_length(theta.detach()[1]),
                "wrong_length": mean_length(theta.detach()[0]),
            }
        )
        if step == steps:
            break
        right = torch.rand(group_size, generator=gen, dtype=torch.float64) < p
        track = right.long()
        s = torch.sigmoid(theta.detach())[track]
        u = torch.rand(group_size, generator=gen, dtype=torch.float64)
        length = (torch.floor(torch.log1p(-u) / torch.log1p(-s)) + 1).clamp(max=max_len).long()
        pos = positions[: int(length.max())]
        mask = pos < length.unsqueeze(1)
        last = pos == (length - 1).unsqueeze(1)
        # log(sigmoid) rather than logsigmoid: identical here, and much cheaper per call on CPU.
        log_stop = torch.log(torch.sigmoid(theta))[track].unsqueeze(1)
        log_go = torch.log(torch.sigmoid(-theta))[track].unsqueeze(1)
        logp = torch.where(last, log_stop, log_go)
        forced = last & (length == max_len).unsqueeze(1)  # cut at the cap: no decision, no gradient
        logp = torch.where(forced, torch.zeros((), dtype=torch.float64), logp)
        rewards = right.to(torch.float64)
        if method == "grpo":
            adv = group_relative_advantages(rewards)
            loss = grpo_surrogate(logp, logp.detach(), adv, mask=mask)
        else:
            adv = centered_advantages(rewards)
            loss = dr_grpo_surrogate(logp, logp.detach(), adv, mask=mask, max_len=max_len)
        (grad,) = torch.autograd.grad(loss, theta)
        with torch.no_grad():
            theta -= lr * grad
    return records
