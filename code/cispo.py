"""CISPO from scratch: clip the importance-sampling weight, not the token update.

GRPO/DAPO maximise ``min(r A, clip(r) A)``; once a token's ratio ``r`` leaves the trust region on
the side its advantage pushes toward, the clipped branch is a constant and the token's gradient
is exactly zero. CISPO (MiniMax-M1, 2025) instead writes a REINFORCE objective with a detached,
clipped weight::

    J_CISPO = E[ 1/sum_i|o_i| * sum_i sum_t sg(r_hat_it) * A_it * log pi_theta(o_it) ]
    r_hat_it = clip(r_it, 1 - eps_low, 1 + eps_high)

``sg`` (stop-gradient) means autograd only differentiates ``log pi``, so every token's gradient is
``sg(r_hat) * A``: bounded, and never zero when ``A != 0``. MiniMax drops the lower bound
(``eps_low=None`` here) and tunes only ``eps_high``.

The paper's unified template puts a per-token mask ``M`` in the same sum::

    J = E[ 1/sum_i|o_i| * sum_i sum_t sg(r_hat_it) A_it log pi_theta(o_it) M_it ]
    M_it = 0 if A_it > 0 and r_it > 1 + eps_high, 0 if A_it < 0 and r_it < 1 - eps_low, else 1

``M`` = the PPO/GRPO trust-region mask reproduces GRPO's gradient; ``M = 1`` is CISPO.
The GRPO baseline (``grpo_surrogate``) is imported from ``grpo``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from checks import (
    require_advantages,
    require_bool,
    require_callable,
    require_clip_eps,
    require_float,
    require_int,
    require_logp_pair,
    require_mask,
    require_open_unit,
    require_sequence,
    require_tensor,
)
from grpo import clip_acts, grpo_surrogate, token_ratios, zero_padding
from objectives import EPS

MAX_POINTS = 1_000_000  # points of a plotted curve

__all__ = [
    "importance_ratios",
    "clipped_is_weight",
    "cispo_surrogate",
    "ppo_clip_mask",
    "unified_surrogate",
    "gradient_wrt_logp",
    "fraction_tokens_clipped",
    "cispo_gradient_coefficient",
    "demonstrate_reflection_token",
    "cliff_vs_plateau_curve",
    "fork_eps_needed",
    "REFLECTION_TOKENS",
    "EPS_SWEEP",
    "WALL_MARGIN",
]

Token = tuple[str, float, float, bool]  # (label, ratio, advantage, is_fork)

# One reasoning step's tokens: (label, ratio pi_theta/pi_old, advantage, is_fork). The three fork
# tokens were just reinforced, so their ratios sit far above 1 + eps. Every ratio ends in a 5 in
# the third decimal, halfway between the points of any 0.01-step eps grid (the chapter's sweep,
# its slider), so no wall 1 +/- eps ever lands on a ratio: there, which side the float32
# exp(log r) falls on depends on the CPU's vector maths, and so would the count of forks kept.
REFLECTION_TOKENS: tuple[Token, ...] = (
    ("the", 1.015, 0.10, False),
    ("answer", 0.985, 0.20, False),
    ("is", 1.035, -0.15, False),
    ("However", 1.615, 0.90, True),
    ("we", 1.005, 0.05, False),
    ("Recheck", 1.835, 0.75, True),
    ("step", 0.995, -0.10, False),
    ("Wait", 1.455, 0.85, True),
)

# The symmetric GRPO clips the chapter sweeps; none puts a wall on a token's ratio.
EPS_SWEEP: tuple[float, ...] = (0.2, 0.4, 0.5, 0.7, 0.9)

# How close (relative) a clip wall may come to a ratio before a result would hinge on rounding:
# float32 exp(log r) is within a few ulps (~1e-7 relative) of r, so 1e-5 leaves a wide margin.
WALL_MARGIN = 1e-5


# ----------------------------------------------------------------------------- validation
# The arguments are checked by ``checks`` (``require_logp_pair``, ``require_advantages``,
# ``require_clip_eps``, ``require_mask``), as the other four objectives' are: a padded position
# may hold anything, ``-inf`` included, since the losses zero it before any arithmetic.


def _pair(logp_new: Any, logp_old: Any, mask: Any = None) -> tuple[Tensor, Tensor, Tensor | None]:
    """The log-prob pair ``(T,)`` or ``(G, T)`` and its optional bool mask, checked."""
    return require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask)


def _adv(adv: Any, shape: torch.Size, name: str = "adv") -> Tensor:
    """A scalar, a per-token tensor of ``shape``, or per-response ``(G,)`` for ``(G, T)``."""
    return require_advantages(name, adv, shape, broadcast=False).detach()


def _check_off_walls(
    ratios: list[float], advs: list[float], labels: list[str], eps: float, name: str
) -> None:
    """Refuse a clip whose wall sits on a token's ratio, on the side the token's advantage pushes.

    There the mask's answer (``r > 1 + eps`` for ``A > 0``, ``r < 1 - eps`` for ``A < 0``) is
    decided by the last bit of ``exp(log r)``, which differs between CPUs: the result would not
    be reproducible. Moving ``eps`` (or the ratio) by more than ``WALL_MARGIN`` settles it.
    """
    for label, r, a in zip(labels, ratios, advs, strict=True):
        wall = 1.0 + eps if a > 0 else 1.0 - eps if a < 0 else None
        if wall is not None and abs(r - wall) <= WALL_MARGIN * wall:
            raise ValueError(
                f"{name}={eps} puts the wall {wall:g} on the ratio {r:g} of {label}; "
                "float rounding, not the maths, would decide whether its gradient survives"
            )


# ----------------------------------------------------------------------------- the pieces


def importance_ratios(logp_new: Tensor, logp_old: Tensor) -> Tensor:
    """Per-token importance ratio ``r_t = pi_theta / pi_old = exp(logp_new - logp_old)``.

    Args:
        logp_new: current log-probs of the sampled tokens, ``(T,)`` or ``(G, T)``.
        logp_old: sampling-policy log-probs, same shape.

    Returns:
        The ratios (still attached to ``logp_new``'s graph; ``clipped_is_weight`` detaches).
        Computed by ``grpo.token_ratios``, after refusing NaN/inf log-probs.
    """
    logp_new, logp_old, _ = _pair(logp_new, logp_old)  # no mask: every position is finite
    return token_ratios(logp_new, logp_old)


def clipped_is_weight(ratio: Tensor, eps_high: float = EPS, eps_low: float | None = None) -> Tensor:
    """CISPO's bounded, detached weight ``sg(r_hat) = sg(clip(r, 1 - eps_low, 1 + eps_high))``.

    With ``eps_low=None`` only the ceiling binds (MiniMax-M1 disables the floor). The result
    carries no gradient: it rescales a token's step, it never decides whether the token learns.
    Removing this clip is *not* CISPO -- one ``r = 50`` token would then dominate the batch.

    Args:
        ratio: importance ratios (> 0).
        eps_high: ceiling ``1 + eps_high``; must be > 0.
        eps_low: floor ``1 - eps_low`` in (0, 1), or ``None`` for no floor.
    """
    high = require_clip_eps("eps_high", eps_high, side="high")
    low = require_clip_eps("eps_low", eps_low, side="low", optional=True)
    ratio = require_tensor("ratio", ratio, dtype="float")
    if bool((ratio < 0).any()):
        raise ValueError("ratio must be non-negative")
    floor = None if low is None else 1.0 - low
    return torch.clamp(ratio.detach(), min=floor, max=1.0 + high)


def cispo_surrogate(
    logp_new: Tensor,
    logp_old: Tensor,
    advantages: Tensor,
    mask: Tensor | None = None,
    *,
    eps_low: float | None = None,
    eps_high: float = EPS,
) -> Tensor:
    """CISPO loss (to minimise): ``-(1/N) sum_t sg(r_hat_t) * A_t * logp_new_t``.

    ``N`` counts every (unpadded) token of the batch: DAPO's token-level normalisation. Only the
    gradient is meaningful -- ``d loss / d logp_t = -sg(r_hat_t) A_t / N`` -- the value depends on
    the log-probs themselves, as any REINFORCE surrogate does. The signature is the one all five
    objectives share (``grpo.grpo_surrogate``'s).

    Args:
        logp_new: current log-probs, ``(T,)`` or ``(G, T)``; gradients flow into these.
        logp_old: sampling-policy log-probs, same shape (a constant).
        advantages: a scalar, per-token advantages shaped like ``logp_new``, or ``(G,)`` for
            ``(G, T)``.
        mask: optional ``(G, T)`` bool mask, True on real tokens; the padding may hold anything
            (``-inf`` too): it is zeroed before any arithmetic, as in the other four losses.
        eps_low: IS-weight floor ``1 - eps_low`` in (0, 1), or ``None`` (MiniMax's choice).
        eps_high: IS-weight ceiling ``1 + eps_high`` (> 0).

    Returns:
        Scalar loss tensor.
    """
    logp_new, logp_old, pad = _pair(logp_new, logp_old, mask)
    adv = _adv(advantages, logp_new.shape, "advantages")  # (), (T,), (G, 1) or (G, T)
    logp_new, logp_old = zero_padding(pad, logp_new, logp_old)  # (G, T)
    weight = clipped_is_weight(token_ratios(logp_new.detach(), logp_old), eps_high, eps_low)
    terms = weight * adv * logp_new  # (G, T), sg(r_hat) A log pi
    if pad is None:
        return -terms.sum() / terms.numel()
    pad = pad.to(terms.dtype)
    return -(terms * pad).sum() / pad.sum()


def ppo_clip_mask(
    ratio: Tensor, adv: Tensor, eps_high: float = EPS, eps_low: float | None = EPS
) -> Tensor:
    """The trust-region mask implicit in PPO/GRPO/DAPO's ``min(r A, clip(r) A)``.

    ``M_t = 0`` where ``A_t > 0`` and ``r_t > 1 + eps_high`` or ``A_t < 0`` and
    ``r_t < 1 - eps_low`` (``grpo.clip_acts``); else 1. Exactly the tokens whose
    clipped-surrogate gradient is zero.

    Args:
        ratio: importance ratios, ``(T,)`` or ``(G, T)``.
        adv: scalar, shaped like ``ratio``, or ``(G,)`` for ``(G, T)``.
        eps_high: ceiling ``1 + eps_high`` (> 0).
        eps_low: floor ``1 - eps_low`` in (0, 1), or ``None`` for no floor.

    Returns:
        Float tensor of 0/1 shaped like ``ratio`` (``.bool()`` for a boolean mask).
    """
    high = require_clip_eps("eps_high", eps_high, side="high")
    ratio = require_tensor("ratio", ratio, ndim=(1, 2), dtype="float").detach()
    adv = _adv(adv, ratio.shape)
    return (~clip_acts(ratio, adv, eps_low, high)).to(ratio.dtype)


def unified_surrogate(
    logp_new: Tensor,
    logp_old: Tensor,
    adv: Tensor,
    eps_high: float = EPS,
    eps_low: float | None = EPS,
    mask: bool = True,
    clip_weight: bool | None = None,
    padding_mask: Tensor | None = None,
) -> Tensor:
    """MiniMax-M1's one template: ``-(1/N) sum_t sg(w_t) * A_t * logp_new_t * M_t``.

    The same ``(eps_low, eps_high)`` clip is applied in one of two places:

    * ``mask=True``: ``M = ppo_clip_mask(r, A)`` and the weight is the raw ratio ``w = r``. Its
      gradient ``-r A M / N`` is GRPO's clipped-surrogate gradient token for token (the clip
      *silences* tokens).
    * ``mask=False``: ``M = 1`` and ``w = clip(r, 1-eps_low, 1+eps_high)``. This is
      ``cispo_surrogate`` (the clip *bounds* the weight, no token is silenced).

    ``clip_weight`` overrides where the weight is clipped (default: ``not mask``), e.g.
    ``mask=True, clip_weight=True`` is the template with both the mask and ``r_hat``.

    Args:
        logp_new, logp_old, adv: as in ``cispo_surrogate``.
        eps_high: ceiling (> 0). eps_low: floor in (0, 1), or ``None`` for no floor.
        mask: apply the trust-region mask (GRPO-like) or not (CISPO).
        clip_weight: clip the detached weight; ``None`` means ``not mask``.
        padding_mask: optional ``(G, T)`` bool mask of real tokens; ``N`` counts them.

    Returns:
        Scalar loss tensor.
    """
    mask = require_bool("mask", mask)
    clip_weight = not mask if clip_weight is None else require_bool("clip_weight", clip_weight)
    logp_new = require_tensor("logp_new", logp_new, ndim=(1, 2), dtype="float", finite=False)
    pad = require_mask("padding_mask", padding_mask, logp_new.shape)
    logp_new, logp_old, pad = _pair(logp_new, logp_old, pad)
    adv_b = _adv(adv, logp_new.shape)
    logp_new, logp_old = zero_padding(pad, logp_new, logp_old)  # (G, T)
    ratio = token_ratios(logp_new.detach(), logp_old.detach())
    if clip_weight:
        weight = clipped_is_weight(ratio, eps_high, eps_low)
    else:
        require_clip_eps("eps_high", eps_high, side="high")
        require_clip_eps("eps_low", eps_low, side="low", optional=True)
        weight = ratio
    keep = ppo_clip_mask(ratio, adv, eps_high, eps_low) if mask else torch.ones_like(ratio)
    terms = weight * adv_b * logp_new * keep
    if pad is None:
        return -terms.sum() / terms.numel()
    pad = pad.to(terms.dtype)
    return -(terms * pad).sum() / pad.sum()


def gradient_wrt_logp(
    loss_fn: Callable[..., Tensor],
    logp_new: Tensor,
    logp_old: Tensor,
    adv: Tensor,
    **kw: Any,
) -> Tensor:
    """Read ``d loss / d logp_new`` off autograd for any surrogate ``loss_fn(lp, old, adv, **kw)``.

    ``logp_new`` is cloned into a fresh leaf, so the caller's tensor is untouched. Signed zeros
    are normalised to ``+0.0`` (a clipped GRPO token reports ``0.0``, not ``-0.0``).

    Returns:
        A detached tensor shaped like ``logp_new``.
    """
    require_callable("loss_fn", loss_fn)
    require_tensor("logp_new", logp_new, finite=False)
    lp = logp_new.detach().clone().requires_grad_(True)
    loss = loss_fn(lp, logp_old, adv, **kw)
    if not isinstance(loss, Tensor) or loss.dim() != 0:
        raise ValueError("loss_fn must return a scalar (0-d) tensor")
    loss.backward()
    if lp.grad is None:
        return torch.zeros_like(lp)
    return lp.grad.detach() + 0.0


def fraction_tokens_clipped(
    logp_new: Tensor,
    logp_old: Tensor,
    adv: Tensor,
    eps_high: float = EPS,
    eps_low: float | None = EPS,
) -> float:
    """Share of tokens whose GRPO/DAPO gradient the clip zeroes (where ``ppo_clip_mask`` is 0).

    Raising ``eps_high`` can only shrink it: the ceiling moves right, so fewer positive-advantage
    tokens sit beyond it (DAPO's Clip-Higher); the floor side is untouched.
    """
    ratio = importance_ratios(logp_new, logp_old).detach()
    m = ppo_clip_mask(ratio, adv, eps_high, eps_low)
    return int((m == 0).sum()) / m.numel()


def cispo_gradient_coefficient(
    ratio: float, adv: float, eps_high: float = EPS, eps_low: float | None = None
) -> float:
    """Closed form of one token's ``d J_CISPO / d log pi``: ``A * clip(r, 1-eps_low, 1+eps_high)``.

    The value a widget recomputes live; ``cliff_vs_plateau_curve`` reads it off autograd.
    """
    high = require_clip_eps("eps_high", eps_high, side="high")
    low = require_clip_eps("eps_low", eps_low, side="low", optional=True)
    ratio = require_float("ratio", ratio, low=0.0)
    adv = require_float("adv", adv)
    r_hat = min(float(ratio), 1.0 + high)
    if low is not None:
        r_hat = max(r_hat, 1.0 - low)
    return float(adv) * r_hat


# ----------------------------------------------------------------------------- demonstrations


def fork_eps_needed(tokens: tuple[Token, ...] = REFLECTION_TOKENS) -> float:
    """The symmetric GRPO clip at which every fork token keeps its gradient: ``max r_fork - 1``.

    A fork (``A > 0``) keeps a gradient while ``r <= 1 + eps``, so the forks all learn exactly
    when ``eps >= max r - 1``; nothing needs to be searched for. Rounded to 12 decimals so the
    float subtraction's last bit does not show.
    """
    rows = [require_sequence("tokens", t) for t in require_sequence("tokens", tokens)]
    if any(len(t) != 4 for t in rows):
        raise ValueError("tokens must hold (label, ratio, advantage, is_fork) tuples")
    ratios = [
        require_float("tokens", r, low=0.0, low_open=True)
        for _, r, a, fork in rows
        if fork and require_float("tokens", a) > 0
    ]
    if not ratios:
        raise ValueError("tokens must contain at least one fork token with a positive advantage")
    return round(max(ratios) - 1.0, 12)


def demonstrate_reflection_token(
    eps_high: float = EPS,
    grpo_eps: float = EPS,
    verbose: bool = False,
    tokens: tuple[Token, ...] = REFLECTION_TOKENS,
    dtype: torch.dtype = torch.float32,
) -> dict[str, Any]:
    """GRPO vs CISPO per-token gradients on one step with three high-ratio "fork" tokens.

    The batch is ``tokens`` (``logp_old = 0``, ``logp_new = log r``, in ``dtype``); both gradient
    columns are read with ``gradient_wrt_logp`` (autograd) from ``grpo_surrogate`` with the
    symmetric width ``grpo_eps`` and ``cispo_surrogate(eps_high)``. GRPO's loss is a mean and
    CISPO's divides by ``N``, so both are ``d loss / d logp`` with ``N = 8``: e.g. ``-A r / N``
    for an unclipped token. A ``grpo_eps`` whose wall sits on a ratio raises (see
    ``_check_off_walls``): the count of forks kept would then depend on the CPU.

    Returns:
        ``{"tokens": [{"label", "ratio", "advantage", "is_fork", "grad_grpo", "grad_cispo"}],
        "n_fork", "kept_grpo", "kept_cispo"}``; ``kept_*`` count fork tokens whose gradient is
        nonzero.
    """
    require_clip_eps("eps_high", eps_high, side="high")
    clip = require_clip_eps("grpo_eps", grpo_eps, side="low")
    if dtype not in (torch.float32, torch.float64):
        raise TypeError(f"dtype must be torch.float32 or torch.float64, got {dtype}")
    tokens = require_sequence("tokens", tokens, min_len=1, max_len=10_000)
    if any(not isinstance(t, (tuple, list)) or len(t) != 4 or not float(t[1]) > 0 for t in tokens):
        raise ValueError("tokens must be non-empty (label, ratio > 0, advantage, is_fork) tuples")
    _check_off_walls(
        [float(t[1]) for t in tokens],
        [float(t[2]) for t in tokens],
        [f"token {t[0]!r}" for t in tokens],
        clip,
        "grpo_eps",
    )
    ratios = torch.tensor([t[1] for t in tokens], dtype=dtype)
    adv = torch.tensor([t[2] for t in tokens], dtype=dtype)
    logp_old = torch.zeros_like(ratios)
    logp_new = torch.log(ratios)
    g_grpo = gradient_wrt_logp(grpo_surrogate, logp_new, logp_old, adv, eps_low=clip, eps_high=clip)
    g_cispo = gradient_wrt_logp(cispo_surrogate, logp_new, logp_old, adv, eps_high=eps_high)
    records = [
        {
            "label": label,
            "ratio": r,
            "advantage": a,
            "is_fork": fork,
            "grad_grpo": float(gg),
            "grad_cispo": float(gc),
        }
        for (label, r, a, fork), gg, gc in zip(tokens, g_grpo, g_cispo, strict=True)
    ]
    forks = [t for t in records if t["is_fork"]]
    result = {
        "tokens": records,
        "n_fork": len(forks),
        "kept_grpo": sum(1 for t in forks if abs(t["grad_grpo"]) > 1e-12),
        "kept_cispo": sum(1 for t in forks if abs(t["grad_cispo"]) > 1e-12),
    }
    if verbose:
        print(f"{'token':>9} {'ratio':>6} {'adv':>6}  {'GRPO grad':>10} {'CISPO grad':>11}  fork")
        for t in records:
            print(
                f"{t['label']:>9} {t['ratio']:>6.3f} {t['advantage']:>6.2f}  "
                f"{t['grad_grpo']:>10.4f} {t['grad_cispo']:>11.4f}  {'★' if t['is_fork'] else ''}"
            )
    return result


def cliff_vs_plateau_curve(
    eps_high: float = EPS,
    num_points: int = 201,
    ratio_min: float = 0.505,
    ratio_max: float = 2.505,
) -> list[dict[str, float]]:
    """``d objective / d log pi`` vs the ratio for ``A = +1``: GRPO's cliff, CISPO's plateau.

    The default grid steps by 0.01 from 0.505, halfway between round ratios, so GRPO's wall
    ``1 + eps_high`` never falls on a grid point for any two-decimal ``eps_high``; a grid that
    does put a point on the wall raises, since float rounding would decide that point's value.

    Read with autograd: GRPO from ``grpo_surrogate`` with both widths ``eps_high``, CISPO from
    ``cispo_surrogate(eps_high=eps_high)`` (no floor). Both losses average over the ``N`` grid
    tokens, so the objective gradient is ``-N * d loss / d logp``. GRPO: ``r`` up to
    ``1 + eps_high``, then 0. CISPO: ``min(r, 1 + eps_high)``, never 0.

    Returns:
        Records ``{"ratio", "grpo", "cispo"}``.
    """
    # eps_high is also GRPO's clip width here, so (0, 1) like every clip width.
    high = require_open_unit("eps_high", eps_high)
    num_points = require_int("num_points", num_points, low=2, high=MAX_POINTS)
    ratio_min = require_float("ratio_min", ratio_min, low=0.0, low_open=True)
    ratio_max = require_float("ratio_max", ratio_max)
    if not 0.0 < ratio_min < ratio_max or not math.isfinite(ratio_max):
        raise ValueError(
            f"need 0 < ratio_min < ratio_max, got ratio_min={ratio_min}, ratio_max={ratio_max}"
        )
    step = (ratio_max - ratio_min) / (num_points - 1)
    grid = [round(ratio_min + k * step, 12) for k in range(num_points)]
    _check_off_walls(grid, [1.0] * len(grid), ["a grid point"] * len(grid), high, "eps_high")
    ratios = torch.tensor(grid, dtype=torch.float64)
    logp_new = torch.log(ratios)
    logp_old = torch.zeros_like(ratios)
    adv = torch.ones_like(ratios)
    n = float(num_points)
    g_grpo = -n * gradient_wrt_logp(
        grpo_surrogate, logp_new, logp_old, adv, eps_low=high, eps_high=high
    )
    g_cispo = -n * gradient_wrt_logp(cispo_surrogate, logp_new, logp_old, adv, eps_high=high)
    return [
        {"ratio": r, "grpo": round(float(a), 12) + 0.0, "cispo": round(float(b), 12) + 0.0}
        for r, a, b in zip(grid, g_grpo, g_cispo, strict=True)
    ]
