"""DAPO from scratch: the four decoupled edits stacked onto GRPO.

DAPO (Yu et al., 2025, "DAPO: An Open-Source LLM Reinforcement Learning System at Scale") keeps
GRPO's group-relative advantage and per-token ratio, drops the KL term, and changes four things
around them (Eq. 8 of the paper, with ``r_it = pi_theta / pi_old`` for token ``t`` of response
``i``)::

    J_DAPO = E[ 1/sum_i|o_i| * sum_i sum_t min(r_it A_i, clip(r_it, 1-eps_low, 1+eps_high) A_i) ]
             subject to 0 < #correct < G

- Clip-Higher: one eps -> (eps_low, eps_high) = (0.20, 0.28); fixes entropy collapse.
- Dynamic Sampling: keep only groups with 0 < #correct < G; fixes zero-gradient batches.
- Token-Level Loss: 1/G sum_i 1/|o_i| -> 1/sum_i |o_i|; long chains are no longer muffled.
- Overlong Shaping: hard -1 at the length cap -> a linear ramp; fixes truncation reward noise.

The GRPO pieces (the group-relative advantage, the symmetric clipped surrogate) are imported from
``grpo``; this module only adds what DAPO changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import torch
from torch import Tensor

from checks import (
    require_advantages,
    require_callable,
    require_float,
    require_int,
    require_logp_pair,
    require_open_unit,
    require_prob,
    require_same_shape,
    require_sequence,
    require_tensor,
)
from grpo import clip_acts, clipped_surrogate_terms, grpo_surrogate, zero_padding
from objectives import DAPO_EPS_HIGH, EPS

# Size caps of the demonstrations (the chapter's use a few dozen points and tokens); past them
# a call would run for minutes or allocate gigabytes.
MAX_POINTS = 1_000_000
MAX_RECORDS = 1_000_000
MAX_GROUP = 1_000_000
MAX_GROUPS = 1_000_000
MAX_ROUNDS = 10_000_000
MAX_TOKENS = 1_000_000

__all__ = [
    "clipped_objective_terms",
    "clip_gradient_coefficient",
    "dapo_surrogate",
    "sample_mean_loss",
    "group_is_effective",
    "kept_fraction",
    "wasted_fraction",
    "dynamic_sample",
    "overlong_penalty",
    "demonstrate_dynamic_sampling",
    "demonstrate_token_level",
    "demonstrate_overlong",
    "clip_higher_curve",
    "dapo_recipe_table",
]


# ----------------------------------------------------------------------------- validation


def _check_clip(eps_low: Any, eps_high: Any) -> tuple[float, float]:
    """Both clip widths must lie in (0, 1), as ``grpo.clipped_surrogate_terms`` requires."""
    return require_open_unit("eps_low", eps_low), require_open_unit("eps_high", eps_high)


def _int_list(name: str, values: object, high: int) -> list[int]:
    """A non-empty sequence of ints in [1, high]."""
    return [
        require_int(name, v, low=1, high=high) for v in require_sequence(name, values, min_len=1)
    ]


# ----------------------------------------------------------------------------- Clip-Higher


def clipped_objective_terms(
    logp_new: Tensor,
    logp_old: Tensor,
    adv: Tensor,
    eps_low: float = EPS,
    eps_high: float = DAPO_EPS_HIGH,
) -> Tensor:
    """Per-token clipped objective with DAPO's decoupled (Clip-Higher) range.

    ``term_t = min(r_t * A, clip(r_t, 1 - eps_low, 1 + eps_high) * A)`` with
    ``r_t = exp(logp_new_t - logp_old_t)``. These are the terms to *maximise* (not negated).
    With ``eps_low == eps_high == eps`` it is exactly GRPO's symmetric clip: the ratio
    (``grpo.token_ratios``) and the pessimistic min (``grpo.clipped_surrogate_terms``) are GRPO's
    own; DAPO only chooses the two widths and passes a ragged group token by token.

    Args:
        logp_new: log pi_theta of the sampled tokens, shape ``(T,)`` or ``(G, T)``.
        logp_old: log pi_old of the same tokens, same shape (treated as a constant).
        adv: advantage, a scalar, shaped like ``logp_new``, or ``(G,)`` for ``(G, T)`` inputs.
        eps_low: the floor is ``1 - eps_low``; must be in (0, 1).
        eps_high: the ceiling is ``1 + eps_high``; must be in (0, 1) (DAPO uses 0.28).

    Returns:
        Tensor shaped like ``logp_new`` of per-token objective terms.
    """
    low, high = _check_clip(eps_low, eps_high)
    logp_new = require_tensor("logp_new", logp_new, ndim=(1, 2), dtype="float")
    logp_old = require_tensor("logp_old", logp_old, dtype="float")
    require_same_shape("logp_old", logp_old, "logp_new", logp_new)
    adv = require_advantages("adv", adv, logp_new.shape, broadcast=False)
    return _terms(logp_new, logp_old, adv, low, high)


def _terms(logp_new: Tensor, logp_old: Tensor, adv: Tensor, low: float, high: float) -> Tensor:
    """The clipped terms on checked inputs (GRPO's ratio and pessimistic min)."""
    # grpo.token_ratios' exp(new - old), here on inputs already checked by the caller.
    ratio = torch.exp(logp_new - logp_old.detach())
    return clipped_surrogate_terms(ratio, adv, low, high)


def clip_gradient_coefficient(
    ratio: float, adv: float, eps_low: float = EPS, eps_high: float = DAPO_EPS_HIGH
) -> float:
    """Closed form of ``d term / d log pi`` for one token (the value a widget recomputes live).

    Because ``d r / d log pi = r``, the unclipped branch contributes ``A * r``; the clipped branch
    is a constant. The min picks the clipped branch exactly where ``grpo.clip_acts`` says
    (``A > 0`` and ``r > 1 + eps_high``, or ``A < 0`` and ``r < 1 - eps_low``); there the
    gradient is 0. ``clip_higher_curve`` reads the same numbers off autograd.
    """
    low, high = _check_clip(eps_low, eps_high)
    r = require_float("ratio", ratio, low=0.0, low_open=True)
    a = require_float("adv", adv)
    one = torch.tensor  # the rule on one float64 token, so r and A keep every bit
    if bool(clip_acts(one(r, dtype=torch.float64), one(a, dtype=torch.float64), low, high)):
        return 0.0
    return a * r


# ----------------------------------------------------------------------------- Token-level loss


def _check_ragged(
    logp_new: Sequence[Tensor], logp_old: Sequence[Tensor], advantages: Any
) -> tuple[list[Tensor], list[Tensor], Tensor]:
    """Validate a ragged group: G 1-D responses (any lengths), their old log-probs, G advantages."""
    for name, seq in (("logp_new", logp_new), ("logp_old", logp_old)):
        if isinstance(seq, Tensor) and seq.dim() != 2:
            raise ValueError(f"{name} as a tensor must be 2-D (G, T), got {tuple(seq.shape)}")
    new = require_sequence("logp_new", logp_new, min_len=1)
    old = require_sequence("logp_old", logp_old)
    if len(old) != len(new):
        raise ValueError(f"logp_old must have one entry per response ({len(new)}), got {len(old)}")
    adv = advantages
    if not isinstance(adv, Tensor):
        adv = torch.tensor(
            [require_float("advantages", a) for a in require_sequence("advantages", adv)],
            dtype=torch.get_default_dtype(),
        )
    adv = require_tensor("advantages", adv, dtype="float")
    if adv.shape != (len(new),):
        raise ValueError(
            f"advantages must hold one advantage per response, shape ({len(new)},), "
            f"got {tuple(adv.shape)}"
        )
    for i, (n, o) in enumerate(zip(new, old, strict=True)):
        require_tensor(f"logp_new[{i}]", n, dtype="float")
        require_tensor(f"logp_old[{i}]", o, dtype="float")
        if n.dim() != 1:
            raise ValueError(f"logp_new[{i}] must be 1-D, got shape {tuple(n.shape)}")
        if o.shape != n.shape:
            raise ValueError(
                f"logp_old[{i}] must match logp_new[{i}] length {n.shape[0]}, "
                f"got shape {tuple(o.shape)}"
            )
    return new, old, adv


def dapo_surrogate(
    logp_new: Tensor | Sequence[Tensor],
    logp_old: Tensor | Sequence[Tensor],
    advantages: Tensor | Sequence[float],
    mask: Tensor | None = None,
    *,
    eps_low: float = EPS,
    eps_high: float = DAPO_EPS_HIGH,
) -> Tensor:
    """DAPO's token-level loss over a group (the quantity to *minimise*).

    ``loss = -(1 / sum_i |o_i|) * sum_i sum_t term_it``: every token of the group carries the same
    weight, so a response's total say is proportional to its length. The signature is the one
    all five objectives share (``grpo.grpo_surrogate``'s).

    Args:
        logp_new: the current log-probs of each response's tokens: a ``(G, T)`` tensor (with
            ``mask`` for ragged responses), or a list of G 1-D tensors of any lengths.
        logp_old: the sampling policy's log-probs, the same structure.
        advantages: ``(G,)`` per-response advantages (broadcast over each response's tokens),
            or ``(G, T)`` per-token ones with a ``(G, T)`` tensor.
        mask: optional ``(G, T)`` bool, True on real tokens (with ``(G, T)`` tensors).
        eps_low, eps_high: the decoupled clip range (see ``clipped_objective_terms``).

    Returns:
        A scalar loss tensor.
    """
    if isinstance(logp_new, Tensor) and isinstance(logp_old, Tensor) and logp_new.dim() == 2:
        new, old, m = require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask)
        adv = require_advantages("advantages", advantages, new.shape, broadcast=False)
        low, high = _check_clip(eps_low, eps_high)
        new, old = zero_padding(m, new, old)  # (G, T)
        terms = clipped_surrogate_terms(torch.exp(new - old.detach()), adv, low, high)  # (G, T)
        return -terms.sum() / new.numel() if m is None else -(terms * m).sum() / m.sum()
    if mask is not None:
        raise TypeError("mask must be None when logp_new is a list (the list gives the lengths)")
    new, old, adv = _check_ragged(logp_new, logp_old, advantages)  # type: ignore[arg-type]
    low, high = _check_clip(eps_low, eps_high)
    terms = [_terms(n, o, a, low, high) for n, o, a in zip(new, old, adv, strict=True)]
    total_tokens = sum(t.numel() for t in terms)
    return -torch.cat(terms).sum() / total_tokens


def sample_mean_loss(
    logp_new: Sequence[Tensor],
    logp_old: Sequence[Tensor],
    advantages: Tensor | Sequence[float],
    *,
    eps_low: float = EPS,
    eps_high: float = DAPO_EPS_HIGH,
) -> Tensor:
    """GRPO's sample-level normalisation, for contrast: ``-(1/G) sum_i (1/|o_i|) sum_t term_it``.

    Each response's token-mean counts ``1/G`` however long the response is. Same arguments as
    ``dapo_surrogate``'s ragged form; equal to it exactly when all responses share one length.
    """
    new, old, adv = _check_ragged(logp_new, logp_old, advantages)
    low, high = _check_clip(eps_low, eps_high)
    means = [_terms(n, o, a, low, high).mean() for n, o, a in zip(new, old, adv, strict=True)]
    return -torch.stack(means).mean()


# ----------------------------------------------------------------------------- Dynamic Sampling


def group_is_effective(rewards: Tensor | Sequence[float]) -> bool:
    """DAPO's keep rule: a group trains only if its rewards are not all equal.

    For 0/1 rewards that is ``0 < #correct < G``. It is the same condition as "the
    group-relative advantages are not all zero": if every reward equals the mean, every
    ``r_i - mean`` is 0; if two rewards differ, the mean lies between them, so some
    ``r_i - mean`` is nonzero, and dividing by ``std + eps`` cannot make it zero. (In float32
    too: a reward spread below ~1e-19, whose square underflows, has its std taken on its own
    scale by ``grpo``.)

    Args:
        rewards: 1-D rewards of one group, ``G >= 1`` entries.
    """
    if not isinstance(rewards, Tensor):
        rewards = torch.tensor(
            [require_float("rewards", r) for r in require_sequence("rewards", rewards)],
            dtype=torch.get_default_dtype(),
        )
    rewards = require_tensor("rewards", rewards, ndim=1)
    return bool((rewards != rewards[0]).any())


def wasted_fraction(p: float, G: int) -> float:
    """Probability a group of ``G`` binary rewards with accuracy ``p`` is unanimous.

    ``P(all correct) + P(all wrong) = p**G + (1 - p)**G`` -- the share of groups whose advantage is
    exactly zero, which Dynamic Sampling discards.
    """
    p = require_prob("p", p)
    G = require_int("G", G, low=1)  # closed form: any G is cheap
    # Any p < 1 to the power 10**300 underflows to 0, so a larger G gives the same value (and an
    # int past float's range, such as 10**400, would raise OverflowError as an exponent).
    G = min(G, 10**300)
    return p**G + (1.0 - p) ** G


def kept_fraction(p: float, G: int) -> float:
    """Probability a group is effective (``0 < #correct < G``): ``1 - p**G - (1 - p)**G``."""
    p = require_prob("p", p)
    G = min(require_int("G", G, low=1), 10**300)  # as wasted_fraction: past it, the same value
    q = min(p, 1.0 - p)  # the formula is symmetric in p <-> 1 - p (1 - p is exact for p >= 1/2)
    if q < 1e-3:
        # 1 - (p**G + (1-p)**G) cancels to 0.0 for a tiny q (1e-17 gave 0.0 for 1.6e-16):
        # 1 - (1 - q)**G is -expm1(G log1p(-q)), exact to the last digits.
        return -math.expm1(G * math.log1p(-q)) - q**G
    return 1.0 - wasted_fraction(p, G)


def dynamic_sample(
    sample_group_fn: Callable[[], Tensor],
    target_groups: int,
    max_rounds: int = 10_000,
) -> dict[str, Any]:
    """Over-sample groups until ``target_groups`` effective ones fill the batch.

    Each call of ``sample_group_fn`` is one rollout of a group and returns its ``(G,)`` rewards.
    Unanimous groups (all advantages zero) are discarded; every call is counted, so
    ``rounds == len(groups) + discarded``.

    Args:
        sample_group_fn: zero-argument callable returning one group's 1-D reward tensor. It owns
            its randomness (e.g. closes over a seeded ``torch.Generator``).
        target_groups: how many effective groups to collect (>= 1).
        max_rounds: give up with ``RuntimeError`` after this many rollouts (a policy that
            always answers unanimously would otherwise loop forever).

    Returns:
        ``{"groups": [kept reward tensors], "rounds": rollouts drawn, "discarded": count}``.
    """
    require_callable("sample_group_fn", sample_group_fn)
    target_groups = require_int("target_groups", target_groups, low=1, high=MAX_GROUPS)
    max_rounds = require_int("max_rounds", max_rounds, low=1, high=MAX_ROUNDS)
    groups: list[Tensor] = []
    rounds = discarded = 0
    while len(groups) < target_groups:
        if rounds >= max_rounds:
            raise RuntimeError(
                f"dynamic_sample drew max_rounds={max_rounds} groups but found only "
                f"{len(groups)} of {target_groups} effective ones; every other group was "
                "unanimous (the prompt is too easy or too hard for this policy)"
            )
        rewards = sample_group_fn()
        rounds += 1
        if not isinstance(rewards, Tensor):
            raise TypeError(
                f"sample_group_fn must return a torch.Tensor, got {type(rewards).__name__}"
            )
        if group_is_effective(rewards):
            groups.append(rewards)
        else:
            discarded += 1
    return {"groups": groups, "rounds": rounds, "discarded": discarded}


# ----------------------------------------------------------------------------- Overlong shaping


def overlong_penalty(length: int | float, max_len: int = 20480, cache_len: int = 4096) -> float:
    """DAPO's soft overlong punishment (Eq. 13), added to the task reward.

    ::

        R(|y|) = 0                                      if |y| <= L_max - L_cache
               = ((L_max - L_cache) - |y|) / L_cache    if L_max - L_cache < |y| <= L_max
               = -1                                     if |y| > L_max

    A continuous ramp from 0 to -1 over the last ``cache_len`` tokens before ``max_len``.

    Args:
        length: response length in tokens (>= 0).
        max_len: the length cap ``L_max`` (> 0).
        cache_len: the ramp width ``L_cache``, in ``(0, max_len]``.
    """
    length = require_float("length", length, low=0.0)
    max_len_f = require_float("max_len", max_len, low=0.0, low_open=True)
    cache = require_float("cache_len", cache_len)
    if not 0.0 < cache <= max_len_f:
        raise ValueError(f"cache_len must be in (0, max_len={max_len}], got {cache_len}")
    # In exact arithmetic: at 1e30 tokens, max_len - cache_len rounds back to max_len and the
    # ramp vanished (0.0, not -1). For lengths within float's integers this is the same float.
    length_q, max_q, cache_q = Fraction(length), Fraction(max_len_f), Fraction(cache)
    start = max_q - cache_q
    if length_q <= start:
        return 0.0
    if length_q <= max_q:
        return float((start - length_q) / cache_q)
    return -1.0


# ----------------------------------------------------------------------------- demonstrations


def demonstrate_dynamic_sampling(
    group_sizes: Sequence[int] = (4, 8, 16), num_points: int = 61, verbose: bool = True
) -> list[dict[str, float | int]]:
    """Wasted fraction ``p**G + (1-p)**G`` on a grid of accuracies ``p`` in [0, 1], per group size.

    Returns:
        Records ``{"p", "group_size", "wasted", "kept"}`` (one per ``p`` and ``G``).
    """
    num_points = require_int("num_points", num_points, low=2, high=MAX_POINTS)
    sizes = _int_list("group_sizes", group_sizes, MAX_GROUP)
    if len(sizes) * num_points > MAX_RECORDS:
        raise ValueError(f"group_sizes x num_points must be <= {MAX_RECORDS} records")
    records: list[dict[str, float | int]] = []
    for G in sizes:
        for k in range(num_points):
            p = k / (num_points - 1)
            w = wasted_fraction(p, G)
            records.append({"p": p, "group_size": G, "wasted": w, "kept": 1.0 - w})
    if verbose:
        show = [0.5, 0.7, 0.9, 0.95, 0.99]
        print("wasted fraction p^G + (1-p)^G")
        print("    p  " + "".join(f"{'G=' + str(G):>9}" for G in sizes))
        for p in show:
            print(f"{p:5.2f}  " + "".join(f"{wasted_fraction(p, G):9.1%}" for G in sizes))
    return records


def demonstrate_token_level(
    lengths: Sequence[int] = (2, 4, 8, 32), verbose: bool = True
) -> list[dict[str, float | int]]:
    """Each response's total weight under sample-level (GRPO) vs token-level (DAPO) averaging.

    The weights are read off the two losses with autograd: on-policy (``r = 1``) with advantage
    1 for every response, ``-sum_t d loss / d logp_it`` is response ``i``'s share of the loss --
    ``1/G`` for ``sample_mean_loss`` and ``|o_i| / sum_j |o_j|`` for ``dapo_surrogate``.

    Returns:
        Records ``{"length", "sample_weight", "token_weight", "sample_per_token",
        "token_per_token"}``, one per response.
    """
    lens = _int_list("lengths", lengths, MAX_TOKENS)
    if sum(lens) > MAX_TOKENS:
        raise ValueError(f"lengths must add up to <= {MAX_TOKENS} tokens, got {sum(lens)}")
    adv = torch.ones(len(lens), dtype=torch.float64)

    def response_weights(loss_fn: Callable[..., Tensor]) -> list[float]:
        new = [torch.zeros(n, dtype=torch.float64, requires_grad=True) for n in lens]
        old = [torch.zeros(n, dtype=torch.float64) for n in lens]
        loss_fn(new, old, adv).backward()
        return [float(-t.grad.sum()) for t in new]

    sample_w = response_weights(sample_mean_loss)
    token_w = response_weights(dapo_surrogate)
    records: list[dict[str, float | int]] = [
        {
            "length": n,
            "sample_weight": s,
            "token_weight": t,
            "sample_per_token": s / n,
            "token_per_token": t / n,
        }
        for n, s, t in zip(lens, sample_w, token_w, strict=True)
    ]
    if verbose:
        print(f"{'length':>7} {'sample-level':>13} {'token-level':>12}")
        for r in records:
            print(f"{r['length']:>7} {r['sample_weight']:>13.3f} {r['token_weight']:>12.3f}")
    return records


def demonstrate_overlong(
    num_points: int = 61, max_len: int = 20480, cache_len: int = 4096, verbose: bool = True
) -> list[dict[str, float | int]]:
    """DAPO's soft overlong ramp next to the hard truncation cliff, on lengths 0..max_len+cache_len.

    ``hard_penalty`` is the baseline DAPO replaces: 0 up to ``max_len``, then -1.

    Returns:
        Records ``{"length", "penalty", "hard_penalty"}`` with integer lengths.
    """
    num_points = require_int("num_points", num_points, low=2, high=MAX_POINTS)
    overlong_penalty(0, max_len, cache_len)  # validates max_len and cache_len
    top = max_len + cache_len
    records: list[dict[str, float | int]] = []
    for k in range(num_points):
        length = round(k * top / (num_points - 1))
        records.append(
            {
                "length": length,
                "penalty": overlong_penalty(length, max_len, cache_len),
                "hard_penalty": 0.0 if length <= max_len else -1.0,
            }
        )
    if verbose:
        print(f"{'length':>7} {'soft':>7} {'hard':>6}")
        for r in records[:: max(1, (num_points - 1) // 12)]:
            print(f"{r['length']:>7} {r['penalty']:>7.3f} {r['hard_penalty']:>6.1f}")
    return records


def clip_higher_curve(
    eps_low: float = EPS,
    eps_high: float = DAPO_EPS_HIGH,
    num_points: int = 111,
    ratio_min: float = 0.5,
    ratio_max: float = 1.6,
) -> list[dict[str, float]]:
    """Per-token gradient ``d term / d log pi`` vs the ratio, GRPO (symmetric ``eps_low``) vs DAPO.

    Both columns are read with autograd: GRPO's from ``grpo.grpo_surrogate`` (its loss is
    ``-mean(term)``, so ``d term_k = -N * d loss / d logp_k``), DAPO's from
    ``clipped_objective_terms``. For ``A = +1`` the gradient is ``r`` until the wall, then 0: the
    wall sits at ``1 + eps_low`` for GRPO and ``1 + eps_high`` for DAPO. For ``A = -1`` both
    floors stay at ``1 - eps_low``. The clip is inclusive, so exactly at a wall the gradient is
    still alive.

    Returns:
        Records ``{"ratio", "grpo_grad", "dapo_grad", "grpo_grad_neg", "dapo_grad_neg"}``.
    """
    low, high = _check_clip(eps_low, eps_high)
    num_points = require_int("num_points", num_points, low=2, high=MAX_POINTS)
    r_lo = require_float("ratio_min", ratio_min)
    r_hi = require_float("ratio_max", ratio_max)
    if not 0.0 < r_lo < r_hi:
        raise ValueError(f"need 0 < ratio_min < ratio_max, got ratio_min={r_lo}, ratio_max={r_hi}")
    step = (r_hi - r_lo) / (num_points - 1)
    grid = [round(r_lo + k * step, 12) for k in range(num_points)]
    ratios = torch.tensor(grid, dtype=torch.float64)
    logp_old = torch.zeros(num_points, dtype=torch.float64)
    columns: dict[str, list[float]] = {}
    for sign, suffix in ((1.0, ""), (-1.0, "_neg")):
        adv = torch.full((num_points,), sign, dtype=torch.float64)
        lp = torch.log(ratios).requires_grad_(True)
        grpo_surrogate(lp, logp_old, adv, eps_low=low, eps_high=low).backward()
        grad = -num_points * lp.grad  # d term_k = -N * d loss / d logp_k
        columns["grpo_grad" + suffix] = [round(float(g), 12) + 0.0 for g in grad]
        lp = torch.log(ratios).requires_grad_(True)
        clipped_objective_terms(lp, logp_old, adv, low, high).sum().backward()
        columns["dapo_grad" + suffix] = [float(g) + 0.0 for g in lp.grad]
    return [{"ratio": r, **{k: v[i] for k, v in columns.items()}} for i, r in enumerate(grid)]


def dapo_recipe_table() -> list[dict[str, str]]:
    """The four DAPO edits as records ``{"name", "change", "fixes"}`` (the chapter's table)."""
    return [
        {
            "name": "Clip-Higher",
            "change": "one eps -> (eps_low, eps_high) = (0.20, 0.28)",
            "fixes": "entropy collapse",
        },
        {
            "name": "Dynamic Sampling",
            "change": "keep only groups with 0 < #correct < G",
            "fixes": "dead (zero-gradient) batches",
        },
        {
            "name": "Token-Level Loss",
            "change": "1/G sum_i 1/|o_i|  ->  1/sum_i |o_i|",
            "fixes": "long chains down-weighted",
        },
        {
            "name": "Overlong Shaping",
            "change": "hard -1 at the cap -> a soft length ramp",
            "fixes": "reward noise from truncation",
        },
    ]
