"""GSPO (Group Sequence Policy Optimization) built from scratch.

GRPO corrects a *sequence-level* reward with *per-token* importance ratios. GSPO moves the
ratio to the unit the reward is given on, the whole response, and length-normalises it:

    s_i = (pi_theta(y_i) / pi_old(y_i)) ** (1 / |y_i|)
        = exp( (1/|y_i|) sum_t [log pi_theta(y_it) - log pi_old(y_it)] )     geometric mean

    J_GSPO = (1/G) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i)

The advantage ``A_i`` is still GRPO's group-relative one (``grpo.group_relative_advantages``)
and the ``min``/``clip`` is the same PPO term (``grpo.clipped_surrogate_terms``); only the ratio
changes. Because ``s_i`` averages the per-token log-ratios it stays close to 1, so GSPO's clip
widths are tiny: the paper uses 3e-4 (low) / 4e-4 (high), against GRPO's 0.2. Those are the
defaults of ``gspo_surrogate`` here (``objectives.GSPO_EPS_LOW`` / ``GSPO_EPS_HIGH``).

GSPO-token keeps the sequence ratio's value but lets every token carry its own advantage:

    s_it = sg[s_i] * pi_theta(y_it) / sg[pi_theta(y_it)]      (sg = stop-gradient = .detach())

Also here: a toy multi-token policy that learns from a verifiable reward (with GSPO, and with
GRPO's per-token ratio for comparison: ``grpo_token_step``), and the demos behind the chapter's
widgets (the ``v``, ``L v``, ``v / L`` variance law, MoE routing flips, per-token vs sequence
weights). All randomness goes through an explicit ``torch.Generator``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

from checks import (
    require_finite_where,
    require_float,
    require_instance,
    require_int,
    require_logp_pair,
    require_mask,
    require_open_unit,
    require_seed,
    require_sequence,
    require_tensor,
)
from grpo import (
    clip_acts,
    clipped_surrogate_terms,
    group_relative_advantages,
    grpo_surrogate,
    pad_ragged,
    sequence_mean,
    token_ratios,
    toy_sgd,
    zero_padding,
)
from objectives import EPS, GSPO_EPS_HIGH, GSPO_EPS_LOW

# Size caps of the toy experiments (the chapter's use a few hundred tokens and a few thousand
# samples); past them a call would run for minutes or allocate gigabytes.
MAX_SEQ_LEN = 100_000
MAX_VOCAB = 100_000
MAX_GROUP = 100_000
MAX_STEPS = 100_000
MAX_SAMPLES = 1_000_000
MAX_DRAWS = 10_000_000
MAX_LOG_RATIO = 50.0  # |log pi_new - log pi_old| of the toy demos: e^50 is still finite

__all__ = [
    "TOY_EPS_HIGH",
    "TOY_EPS_LOW",
    "ToySequencePolicy",
    "demonstrate_gspo",
    "demonstrate_token_grpo",
    "grpo_token_step",
    "gspo_step",
    "gspo_ratio_loss",
    "gspo_surrogate",
    "gspo_token_surrogate",
    "demonstrate_length_variance",
    "log_ratio_variances",
    "per_token_vs_sequence_weights",
    "demonstrate_routing_flip",
    "routing_flip_log_ratios",
    "sequence_importance_ratio",
    "sequence_reward",
]

#: The toy's clip widths: the paper's 3 : 4 shape, 100x wider (``gspo_step`` says why).
TOY_EPS_LOW = 0.03
TOY_EPS_HIGH = 0.04


# --------------------------------------------------------------------------------------------
# The sequence ratio and the two objectives
# --------------------------------------------------------------------------------------------


def sequence_importance_ratio(
    logp_new: Tensor | Sequence[Tensor],
    logp_old: Tensor | Sequence[Tensor],
    mask: Tensor | None = None,
) -> Tensor:
    """GSPO's length-normalised sequence ratio ``s_i``: ``(G, T) -> (G,)``.

        s_i = exp( mean over the valid tokens t of [logp_new_it - logp_old_it] )

    which is the geometric mean of the per-token ratios (``prod_t rho_it ** (1/|y_i|)``).

    Args:
        logp_new: ``(G, T)`` per-token log-probs under the current policy (differentiable);
            also one response's ``(T,)`` log-probs, or a list of 1-D tensors of possibly
            different lengths (padded with ``grpo.pad_ragged``).
        logp_old: the same structure under the sampling policy.
        mask: optional ``(G, T)`` bool, True on real tokens, for responses of unequal length
            (only with ``(G, T)`` tensors: a list carries its own lengths). Padding positions
            may hold any value (even NaN/inf); they are never read.

    Returns:
        ``(G,)``, or a 0-dim tensor for one ``(T,)`` response.

    Raises:
        ValueError: shapes that differ, NaN at a valid position, or a mask row with no valid
            token.
    """
    if isinstance(logp_new, torch.Tensor) and logp_new.dim() == 1 and mask is None:
        if not isinstance(logp_old, torch.Tensor) or logp_old.shape != logp_new.shape:
            shape = tuple(logp_old.shape) if isinstance(logp_old, torch.Tensor) else logp_old
            raise ValueError(
                f"logp_old must have the shape of logp_new {tuple(logp_new.shape)}, got {shape}"
            )
        return _sequence_ratio(*_as_batch(logp_new.unsqueeze(0), logp_old.unsqueeze(0), None))[0]
    return _sequence_ratio(*_as_batch(logp_new, logp_old, mask))


def _as_batch(
    logp_new: object, logp_old: object, mask: object
) -> tuple[Tensor, Tensor, Tensor | None]:
    """Check a log-prob pair, ``(G, T)`` tensors or ragged lists, into ``(G, T)`` plus a mask."""
    if isinstance(logp_new, torch.Tensor) or isinstance(logp_old, torch.Tensor):
        return require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask, ndim=2)
    if mask is not None:
        raise TypeError("mask must be None when logp_new is a list (the list gives the lengths)")
    new, m = pad_ragged(logp_new, "logp_new")  # type: ignore[arg-type]
    old, m_old = pad_ragged(logp_old, "logp_old")  # type: ignore[arg-type]
    if m_old.shape != m.shape or not torch.equal(m_old, m):
        raise ValueError("logp_old must hold responses of the same lengths as logp_new")
    return require_logp_pair("logp_new", new, "logp_old", old, mask=m, ndim=2)


def _sequence_ratio(new: Tensor, old: Tensor, m: Tensor | None) -> Tensor:
    """``s_i`` on a checked ``(G, T)`` pair: padding zeroed first, then the masked mean."""
    new, old = zero_padding(m, new, old)  # (G, T)
    return torch.exp(sequence_mean(new - old, m))  # (G,)


def _group_vector(name: str, x: object) -> Tensor:
    """A finite ``(G,)`` float tensor, G >= 1: one value per response."""
    return require_tensor(name, x, ndim=1, dtype="float")


def gspo_surrogate(
    logp_new: Tensor | Sequence[Tensor],
    logp_old: Tensor | Sequence[Tensor],
    advantages: Tensor,
    mask: Tensor | None = None,
    *,
    eps_low: float = GSPO_EPS_LOW,
    eps_high: float = GSPO_EPS_HIGH,
) -> Tensor:
    """The GSPO loss ``-(1/G) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i)``.

    ``s_i`` is ``sequence_importance_ratio(logp_new, logp_old, mask)``; the signature is the one
    all five objectives share (``grpo.grpo_surrogate``'s).

    Args:
        logp_new: ``(G, T)`` per-token log-probs under the current policy (differentiable), or
            a list of ``G`` 1-D tensors of possibly different lengths.
        logp_old: the same structure under the sampling policy.
        advantages: ``(G,)`` one advantage per response.
        mask: optional ``(G, T)`` bool, True on real tokens (with ``(G, T)`` tensors).
        eps_low: lower clip width in (0, 1); the paper's 3e-4 by default.
        eps_high: upper clip width in (0, 1); the paper's 4e-4 by default.

    Returns:
        A scalar loss. With one-token responses ``s_i`` is the token ratio and this equals
        ``grpo.grpo_surrogate`` at the same clip width.
    """
    s = _sequence_ratio(*_as_batch(logp_new, logp_old, mask))  # (G,)
    adv = _group_vector("advantages", advantages)  # (G,)
    if adv.shape != s.shape:
        raise ValueError(
            f"advantages must have shape {tuple(s.shape)} (one per response), "
            f"got {tuple(adv.shape)}"
        )
    # s_i is an exp, never negative: unlike gspo_ratio_loss's given s, nothing to check.
    return -clipped_surrogate_terms(s, adv, eps_low, eps_high).mean()


def gspo_ratio_loss(
    s: Tensor,
    advantages: Tensor,
    eps_low: float = GSPO_EPS_LOW,
    eps_high: float = GSPO_EPS_HIGH,
) -> Tensor:
    """``gspo_surrogate`` given the sequence ratios ``s`` themselves (e.g. to count clips).

    Args:
        s: ``(G,)`` sequence ratios from ``sequence_importance_ratio`` (carry the gradient).
        advantages: ``(G,)`` one advantage per response.
        eps_low: lower clip width in (0, 1); the paper's 3e-4 by default.
        eps_high: upper clip width in (0, 1); the paper's 4e-4 by default.
    """
    s = _group_vector("s", s)
    adv = _group_vector("advantages", advantages)
    if adv.shape != s.shape:
        raise ValueError(
            f"advantages must have the shape of s {tuple(s.shape)} (one per response), "
            f"got {tuple(adv.shape)}"
        )
    if bool((s.detach() < 0).any()):
        raise ValueError("s must be non-negative (it is a ratio of probabilities)")
    return -clipped_surrogate_terms(s, adv, eps_low, eps_high).mean()


def gspo_token_surrogate(
    s: Tensor,
    logp_new: Tensor,
    advantages: Tensor,
    eps_low: float = GSPO_EPS_LOW,
    eps_high: float = GSPO_EPS_HIGH,
    mask: Tensor | None = None,
) -> Tensor:
    """GSPO-token: the sequence ratio's value, a per-token advantage slot.

        s_it = sg[s_i] * exp(logp_new_it - sg[logp_new_it])      (value: exactly s_i)
        loss = -(1/G) sum_i (1/|y_i|) sum_t min(s_it A_it, clip(s_it, ...) A_it)

    In the gradient only the un-detached ``logp_new_it`` survives, contributing
    ``s_i * grad log pi(y_it)``. With ``A_it = A_i`` for every token this is GSPO exactly, in
    value and in gradient.

    Args:
        s: ``(G,)`` sequence ratios (their gradient is cut here).
        logp_new: ``(G, T)`` per-token log-probs under the current policy (differentiable).
        advantages: ``(G, T)`` per-token advantages (``(G,)`` is broadcast to every token).
        eps_low: lower clip width in (0, 1).
        eps_high: upper clip width in (0, 1).
        mask: optional ``(G, T)`` bool, True on real tokens.
    """
    s = _group_vector("s", s)
    new = require_tensor("logp_new", logp_new, dtype="float", finite=False)
    if new.dim() != 2 or new.shape[0] != s.shape[0] or new.shape[1] == 0:
        raise ValueError(
            f"logp_new must have shape (G, T) with G = {s.shape[0]} and T >= 1, "
            f"got {tuple(new.shape)}"
        )
    adv = require_tensor("advantages", advantages, dtype="float", finite=False)
    if adv.shape == s.shape:
        adv = adv.unsqueeze(-1).expand(new.shape)
    if adv.shape != new.shape:
        raise ValueError(
            f"advantages must have shape {tuple(new.shape)} (or {tuple(s.shape)}), "
            f"got {tuple(adv.shape)}"
        )
    m = require_mask("mask", mask, new.shape)
    require_finite_where("logp_new", new, m)
    require_finite_where("advantages", adv, m)
    if bool((s.detach() < 0).any()):
        raise ValueError("s must be non-negative (it is a ratio of probabilities)")
    new, adv = zero_padding(m, new, adv)  # (G, T)
    s_tok = s.detach().unsqueeze(-1) * torch.exp(new - new.detach())  # (G, T), value s_i
    terms = clipped_surrogate_terms(s_tok, adv, eps_low, eps_high)  # (G, T)
    return -sequence_mean(terms, m).mean()


# --------------------------------------------------------------------------------------------
# A toy multi-token policy
# --------------------------------------------------------------------------------------------


def _as_target(target: object, seq_len: int, vocab_size: int | None = None) -> Tensor:
    if isinstance(target, torch.Tensor):
        t = target
        if t.is_floating_point() or t.dtype == torch.bool:
            raise TypeError(f"target must hold integers, got dtype {t.dtype}")
        t = t.to(torch.long)
    elif isinstance(target, Sequence) and not isinstance(target, (str, bytes)):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in target):
            raise TypeError("target must be a sequence of ints")
        t = torch.tensor(list(target), dtype=torch.long)
    else:
        raise TypeError(f"target must be a sequence of ints or a tensor, got {type(target)}")
    if t.shape != (seq_len,):
        raise ValueError(f"target must have length {seq_len}, got shape {tuple(t.shape)}")
    if vocab_size is not None and (int(t.min()) < 0 or int(t.max()) >= vocab_size):
        raise ValueError(f"target tokens must lie in [0, {vocab_size})")
    return t


class ToySequencePolicy:
    """Independent categoricals over ``vocab_size`` tokens at each of ``seq_len`` positions.

    ``logits`` is a learnable ``(seq_len, vocab_size)`` tensor starting at zeros (uniform);
    ``pi(y) = prod_t softmax(logits[t])[y_t]``. Sampling uses the policy's own ``generator``.

    Args:
        seq_len: response length ``L`` (>= 1).
        vocab_size: tokens per position (>= 2).
        seed: seed for the policy's generator.
    """

    def __init__(self, seq_len: int, vocab_size: int, seed: int) -> None:
        self.seq_len = require_int("seq_len", seq_len, low=1, high=MAX_SEQ_LEN)
        self.vocab_size = require_int("vocab_size", vocab_size, low=2, high=MAX_VOCAB)
        seed = require_seed("seed", seed)
        self.logits = torch.zeros(self.seq_len, self.vocab_size, requires_grad=True)
        self.ref_logits = self.logits.detach().clone()
        self.generator = torch.Generator().manual_seed(seed)

    def probabilities(self) -> Tensor:
        """``(seq_len, vocab_size)`` per-position token distributions (detached)."""
        return torch.softmax(self.logits.detach(), dim=-1)

    def sample_group(self, group_size: int) -> Tensor:
        """Draw ``group_size`` sequences: a ``(G, seq_len)`` LongTensor."""
        group_size = require_int("group_size", group_size, low=1, high=MAX_GROUP)
        draws = torch.multinomial(
            self.probabilities(), group_size, replacement=True, generator=self.generator
        )
        return draws.T.contiguous()

    def log_probs_per_token(self, seqs: Tensor) -> Tensor:
        """``(G, T)`` per-token log-probs ``log pi(y_it)`` (differentiable w.r.t. ``logits``)."""
        y = require_tensor("seqs", seqs, nonempty=False, finite=False)
        if y.is_floating_point() or y.dtype == torch.bool:
            raise TypeError(f"seqs must be an integer tensor, got dtype {y.dtype}")
        if y.dim() != 2 or y.shape[1] != self.seq_len:
            raise ValueError(f"seqs must have shape (G, {self.seq_len}), got {tuple(y.shape)}")
        if y.numel() and (int(y.min()) < 0 or int(y.max()) >= self.vocab_size):
            raise ValueError(f"seqs tokens must lie in [0, {self.vocab_size})")
        logp = torch.log_softmax(self.logits, dim=-1)
        return logp[torch.arange(self.seq_len), y]

    def prob_correct(self, target: Sequence[int] | Tensor) -> float:
        """Mean over positions of ``pi(target_t)``: the expected fraction of right tokens."""
        t = _as_target(target, self.seq_len, self.vocab_size)
        return float(self.probabilities()[torch.arange(self.seq_len), t].mean())


def sequence_reward(seqs: Tensor, target: Sequence[int] | Tensor) -> Tensor:
    """A verifiable reward per sequence: the fraction of positions equal to ``target``.

    Args:
        seqs: ``(G, T)`` integer token sequences.
        target: the ``T`` correct tokens.

    Returns:
        ``(G,)`` float rewards in [0, 1].
    """
    y = require_tensor("seqs", seqs, nonempty=False, finite=False)
    if y.is_floating_point() or y.dtype == torch.bool:
        raise TypeError(f"seqs must be an integer tensor, got dtype {y.dtype}")
    if y.dim() != 2 or y.shape[1] == 0:
        raise ValueError(f"seqs must have shape (G, T) with T >= 1, got {tuple(y.shape)}")
    t = _as_target(target, y.shape[1])
    return (y == t).to(torch.get_default_dtype()).mean(dim=-1)


def gspo_step(
    policy: ToySequencePolicy,
    target: Sequence[int] | Tensor,
    group_size: int = 48,
    lr: float = 0.5,
    eps_low: float = TOY_EPS_LOW,
    eps_high: float = TOY_EPS_HIGH,
    inner_steps: int = 4,
) -> dict[str, float]:
    """One GSPO iteration on a ``ToySequencePolicy``, updating ``policy.logits`` in place.

    Sample a group, grade it with ``sequence_reward``, standardise into group-relative
    advantages, freeze ``logp_old``, then take ``inner_steps`` plain-SGD steps
    (``grpo.toy_sgd``) on ``gspo_ratio_loss(sequence_importance_ratio(logp_new, logp_old), A)``.

    About the clip defaults: the clip has to sit on the scale that ``s_i`` actually moves on.
    In the paper (responses thousands of tokens long, a small learning rate) that scale is
    ~1e-3, hence 3e-4 / 4e-4. Here a response has 4 tokens and ``lr = 0.5``, so one inner step
    moves ``s_i`` by a few percent; the defaults keep the paper's 3 : 4 shape scaled up 100x
    (``TOY_EPS_LOW`` / ``TOY_EPS_HIGH``, 0.03 / 0.04), so the first inner step always passes and
    later ones stop the sequences that already moved far enough: a working trust region (it
    binds on ~6% of the sequence-steps of the chapter's run). With GRPO's 0.2 it never binds on
    this toy (clip fraction 0), and with the paper's 4e-4 almost every sequence is frozen after
    the first inner step.

    Returns:
        ``{"mean_reward", "p_correct", "clip_fraction", "loss"}`` as Python floats:
        ``clip_fraction`` is the share of (sequence, inner step) pairs whose gradient the clip
        zeroed; ``p_correct`` is ``policy.prob_correct(target)`` after the update.
    """
    return _toy_step(policy, target, group_size, lr, eps_low, eps_high, inner_steps, "sequence")


def _toy_step(policy, target, group_size, lr, eps_low, eps_high, inner_steps, unit):
    """``gspo_step`` (``unit="sequence"``: one ratio ``s_i`` per response) and ``grpo_token_step``
    (``unit="token"``: a ratio per token): the same group, reward, advantage and loop."""
    require_instance("policy", policy, ToySequencePolicy)
    target_t = _as_target(target, policy.seq_len, policy.vocab_size)
    group_size = require_int("group_size", group_size, low=1, high=MAX_GROUP)
    inner_steps = require_int("inner_steps", inner_steps, low=1, high=MAX_STEPS)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    low = require_open_unit("eps_low", eps_low)
    high = require_open_unit("eps_high", eps_high)

    seqs = policy.sample_group(group_size)  # (G, T)
    rewards = sequence_reward(seqs, target_t)  # (G,)
    adv = group_relative_advantages(rewards)  # (G,)
    logp_old = policy.log_probs_per_token(seqs).detach()  # (G, T)

    def step_loss() -> tuple[Tensor, Tensor]:
        logp_new = policy.log_probs_per_token(seqs)  # (G, T)
        if unit == "sequence":
            s = sequence_importance_ratio(logp_new, logp_old)  # (G,)
            return gspo_ratio_loss(s, adv, low, high), clip_acts(s, adv, low, high)
        rho = torch.exp(logp_new.detach() - logp_old)  # (G, T)
        loss = grpo_surrogate(logp_new, logp_old, adv, eps_low=low, eps_high=high)
        return loss, clip_acts(rho, adv.unsqueeze(-1), low, high)

    loss, clipped = toy_sgd(policy.logits, step_loss, inner_steps, lr)
    units = group_size * inner_steps * (1 if unit == "sequence" else policy.seq_len)
    return {
        "mean_reward": float(rewards.mean()),
        "p_correct": policy.prob_correct(target_t),
        "clip_fraction": clipped / units,
        "loss": float(loss.detach()),
    }


def demonstrate_gspo(
    seq_len: int = 4,
    vocab_size: int = 5,
    steps: int = 40,
    group_size: int = 48,
    lr: float = 0.5,
    seed: int = 0,
    verbose: bool = True,
    target: Sequence[int] | None = None,
    eps_low: float = TOY_EPS_LOW,
    eps_high: float = TOY_EPS_HIGH,
) -> list[dict[str, float]]:
    """Train a uniform ``ToySequencePolicy`` with GSPO and record the learning curve.

    ``target`` defaults to ``[t % vocab_size for t in range(seq_len)]`` (``[0, 1, 2, 3]`` for
    the chapter's 4 x 5 toy); ``eps_low`` / ``eps_high`` are passed to ``gspo_step``.

    Returns:
        Records ``{"step", "p_correct", "mean_reward", "clip_fraction"}``; step 0 is the
        untrained policy (``mean_reward`` there is the expected reward, ``p_correct``).
    """
    return _learning_curve(
        lambda policy, tgt: gspo_step(
            policy, tgt, group_size=group_size, lr=lr, eps_low=eps_low, eps_high=eps_high
        ),
        seq_len,
        vocab_size,
        steps,
        seed,
        target,
        verbose,
    )


def _learning_curve(step_fn, seq_len, vocab_size, steps, seed, target, verbose):
    """Train a fresh uniform ``ToySequencePolicy`` with ``step_fn`` and record every step."""
    steps = require_int("steps", steps, low=0, high=MAX_STEPS)
    policy = ToySequencePolicy(seq_len, vocab_size, seed=seed)
    if target is None:
        target = [t % vocab_size for t in range(seq_len)]
    p0 = policy.prob_correct(target)
    history: list[dict[str, float]] = [
        {"step": 0, "p_correct": p0, "mean_reward": p0, "clip_fraction": 0.0}
    ]
    for step in range(1, steps + 1):
        stats = step_fn(policy, target)
        keys = ("p_correct", "mean_reward", "clip_fraction")
        history.append({"step": step, **{k: stats[k] for k in keys}})
    if verbose:
        print(f"{'step':>4}  {'p(correct)':>10}  {'mean reward':>11}  {'clipped':>7}")
        for rec in history:
            print(
                f"{rec['step']:>4}  {rec['p_correct']:>10.3f}  {rec['mean_reward']:>11.3f}  "
                f"{rec['clip_fraction']:>7.2f}"
            )
    return history


def grpo_token_step(
    policy: ToySequencePolicy,
    target: Sequence[int] | Tensor,
    group_size: int = 48,
    lr: float = 0.5,
    eps_low: float = EPS,
    eps_high: float = EPS,
    inner_steps: int = 4,
) -> dict[str, float]:
    """GRPO's per-token ratio on the same toy as ``gspo_step``: the like-for-like comparison.

    Everything but the ratio is ``gspo_step``'s: the same group, reward, standardised advantage,
    frozen ``logp_old`` and ``inner_steps`` plain-SGD steps (no KL term, as in ``gspo_step``).
    The loss is ``grpo.grpo_surrogate`` on the ``(G, T)`` per-token log-probs, so every token
    carries its own ratio ``rho_it`` and its own clip decision.

    Returns:
        ``{"mean_reward", "p_correct", "clip_fraction", "loss"}`` as Python floats, where
        ``clip_fraction`` is the share of (token, inner step) pairs whose gradient the clip zeroed.
    """
    return _toy_step(policy, target, group_size, lr, eps_low, eps_high, inner_steps, "token")


def demonstrate_token_grpo(
    seq_len: int = 4,
    vocab_size: int = 5,
    steps: int = 40,
    group_size: int = 48,
    lr: float = 0.5,
    seed: int = 0,
    verbose: bool = True,
    target: Sequence[int] | None = None,
    eps_low: float = EPS,
    eps_high: float = EPS,
) -> list[dict[str, float]]:
    """``demonstrate_gspo``'s run with GRPO's per-token ratio (``grpo_token_step``) instead.

    Same seed, so the first group sampled is the same one ``demonstrate_gspo`` sees.

    Returns:
        Records ``{"step", "p_correct", "mean_reward", "clip_fraction"}`` as in
        ``demonstrate_gspo`` (``clip_fraction`` here counts tokens, not sequences).
    """
    return _learning_curve(
        lambda policy, tgt: grpo_token_step(
            policy, tgt, group_size=group_size, lr=lr, eps_low=eps_low, eps_high=eps_high
        ),
        seq_len,
        vocab_size,
        steps,
        seed,
        target,
        verbose,
    )


# --------------------------------------------------------------------------------------------
# Why the sequence ratio is stable: demos behind the widgets
# --------------------------------------------------------------------------------------------


def log_ratio_variances(v: float, length: int) -> dict[str, float]:
    """Closed-form variances of three log-weights when per-token log-ratios are i.i.d., var ``v``.

        Var(log w_t)          = v        one token's weight (GRPO): flat in L
        Var(log prod_t w_t)   = L v      the raw sequence ratio: grows with L
        Var(log s)            = v / L    GSPO's geometric mean: shrinks with L

    Args:
        v: per-token log-ratio variance (> 0).
        length: response length ``L`` (>= 1).

    Returns:
        ``{"token": v, "product": L v, "seq": v / L}``.
    """
    v = require_float("v", v, low=0.0, low_open=True)
    length = require_int("length", length, low=1)  # closed form: any length is cheap
    product = length * v if length < 2**1000 else math.inf
    if not math.isfinite(product):  # a finite answer or none: never a silent inf
        raise ValueError(f"length * v overflows a float (v = {v})")
    return {"token": v, "product": product, "seq": v / length}


def demonstrate_length_variance(
    lengths: Sequence[int] = (1, 2, 4, 8, 16, 32, 64, 128),
    v: float = 0.04,
    num_samples: int = 4000,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Monte-Carlo check of the variance law for i.i.d. per-token log-ratios.

    Draw ``delta_t ~ N(0, v)`` for ``t = 1..L`` (``num_samples`` responses per length, one
    seeded generator) and measure the variance of

        log w_t          = delta_1           (one token's weight)    closed form  v
        log prod_t w_t   = sum_t delta_t     (raw sequence ratio)    closed form  L v
        log s            = mean_t delta_t    (GSPO's ratio)          closed form  v / L

    Returns:
        One record per length: ``{"length", "token_mc", "product_mc", "seq_mc", "token_theory",
        "product_theory", "seq_theory", "token_se", "product_se", "seq_se"}`` where ``*_se`` is
        the standard error of the Monte-Carlo variance, ``theory * sqrt(2 / (n - 1))``.
    """
    v = require_float("v", v, low=0.0, low_open=True)
    num_samples = require_int("num_samples", num_samples, low=2, high=MAX_SAMPLES)
    seed = require_seed("seed", seed)
    lengths = [
        require_int("lengths", length, low=1, high=MAX_SEQ_LEN)
        for length in require_sequence("lengths", lengths, min_len=1)
    ]
    if num_samples * max(lengths) > MAX_DRAWS:
        raise ValueError(
            f"num_samples x max(lengths) must be <= {MAX_DRAWS} draws, got "
            f"{num_samples} x {max(lengths)}"
        )
    gen = torch.Generator().manual_seed(seed)
    se_factor = (2.0 / (num_samples - 1)) ** 0.5
    records: list[dict[str, float]] = []
    for length in lengths:
        delta = torch.randn(num_samples, length, generator=gen, dtype=torch.float64) * v**0.5
        theory = log_ratio_variances(v, length)
        mc = {
            "token": float(delta[:, 0].var()),
            "product": float(delta.sum(dim=1).var()),
            "seq": float(delta.mean(dim=1).var()),
        }
        rec: dict[str, float] = {"length": length}
        for key in ("token", "product", "seq"):
            rec[f"{key}_mc"] = mc[key]
            rec[f"{key}_theory"] = theory[key]
            rec[f"{key}_se"] = theory[key] * se_factor
        records.append(rec)
    return records


def _token_and_sequence_ratios(log_ratio: Tensor) -> tuple[Tensor, Tensor]:
    """Per-token weights ``w_t`` and the sequence ratio ``s`` of one response's log-ratios.

    ``log_ratio`` plays ``logp_new - logp_old`` (with ``logp_old = 0``), so both quantities come
    from the same functions the objectives use.
    """
    new = log_ratio.unsqueeze(0)
    old = torch.zeros_like(new)
    return token_ratios(new, old)[0], sequence_importance_ratio(new, old)[0]


def demonstrate_routing_flip(
    seq_len: int = 256,
    num_flipped: int = 16,
    jump: float = 2.0,
    noise: float = 0.02,
    seed: int = 0,
) -> list[dict[str, float]]:
    """MoE routing flips: a few tokens whose expert changed get a large log-ratio jump.

    A response of ``seq_len`` tokens has small per-token log-ratios ``N(0, noise^2)``; the
    first ``k`` positions of a seeded random order are "flipped" and get ``+jump`` on top.
    ``num_flipped`` is the largest ``k`` shown (the slider's range).

    Returns:
        One record per ``k = 0..num_flipped``: ``{"num_flipped", "max_token_ratio",
        "product_ratio", "log_product_ratio", "seq_ratio", "tokens_outside_grpo_clip"}``.
        ``tokens_outside_grpo_clip`` counts token ratios outside GRPO's [0.8, 1.2].
    """
    seq_len = require_int("seq_len", seq_len, low=1, high=MAX_SEQ_LEN)
    num_flipped = require_int("num_flipped", num_flipped, low=0)
    if num_flipped > seq_len:
        raise ValueError(f"num_flipped must be <= seq_len ({seq_len}), got {num_flipped}")
    jump = require_float("jump", jump, low=-MAX_LOG_RATIO, high=MAX_LOG_RATIO)
    noise = require_float("noise", noise, low=0.0, high=MAX_LOG_RATIO)
    gen = torch.Generator().manual_seed(require_seed("seed", seed))
    base = torch.randn(seq_len, generator=gen, dtype=torch.float64) * noise
    order = torch.randperm(seq_len, generator=gen)
    records: list[dict[str, float]] = []
    for k in range(num_flipped + 1):
        log_ratio = base.clone()
        log_ratio[order[:k]] += jump
        w, s = _token_and_sequence_ratios(log_ratio)
        log_product = float(log_ratio.sum())
        if log_product > 700.0:  # exp would overflow float64 (and JSON has no Infinity)
            raise ValueError(
                f"jump * num_flipped is too large: the raw product ratio exp({log_product:.0f}) "
                "overflows; lower jump or num_flipped"
            )
        records.append(
            {
                "num_flipped": k,
                "max_token_ratio": float(w.max()),
                "product_ratio": math.exp(log_product),
                "log_product_ratio": log_product,
                "seq_ratio": float(s),
                "tokens_outside_grpo_clip": int(((w < 1 - EPS) | (w > 1 + EPS)).sum()),
            }
        )
    return records


def routing_flip_log_ratios(
    seq_len: int = 256,
    num_flipped: int = 4,
    jump: float = 2.0,
    noise: float = 0.02,
    seed: int = 0,
) -> tuple[Tensor, Tensor]:
    """The per-token log-ratios of ``demonstrate_routing_flip``'s response, ``num_flipped`` flips.

    Same seeded draws as ``demonstrate_routing_flip`` (the noise ``N(0, noise^2)``, then the
    order in which tokens flip), so ``exp(mean)`` of the result is that demo's ``seq_ratio`` at
    ``k = num_flipped``. Use it to feed the response to an objective and read the gradients.

    Returns:
        ``(log_ratio, flipped)``: a ``(seq_len,)`` float64 tensor of ``log pi_new - log pi_old``
        and a ``(seq_len,)`` bool tensor, True on the flipped tokens.
    """
    seq_len = require_int("seq_len", seq_len, low=1, high=MAX_SEQ_LEN)
    num_flipped = require_int("num_flipped", num_flipped, low=0)
    if num_flipped > seq_len:
        raise ValueError(f"num_flipped must be <= seq_len ({seq_len}), got {num_flipped}")
    jump = require_float("jump", jump, low=-MAX_LOG_RATIO, high=MAX_LOG_RATIO)
    noise = require_float("noise", noise, low=0.0, high=MAX_LOG_RATIO)
    gen = torch.Generator().manual_seed(require_seed("seed", seed))
    log_ratio = torch.randn(seq_len, generator=gen, dtype=torch.float64) * noise
    order = torch.randperm(seq_len, generator=gen)
    flipped = torch.zeros(seq_len, dtype=torch.bool)
    flipped[order[:num_flipped]] = True
    log_ratio[flipped] += jump
    return log_ratio, flipped


def per_token_vs_sequence_weights(
    seq_len: int = 12,
    spikes: Sequence[tuple[int, float]] = ((3, 1.4), (8, -1.1)),
    noise: float = 0.05,
    seed: int = 0,
) -> list[dict[str, float]]:
    """One response, a couple of misbehaving tokens: GRPO's ``w_t`` beside GSPO's single ``s``.

    Per-token log-ratios are ``N(0, noise^2)`` (seeded) plus the given ``spikes``, a sequence
    of ``(position, log_ratio_jump)`` pairs (say, tokens whose expert route flipped).

    Returns:
        One record per token: ``{"position", "token_weight", "seq_weight", "misbehaving"}``;
        ``seq_weight`` is the same ``s`` on every row.
    """
    seq_len = require_int("seq_len", seq_len, low=1, high=MAX_SEQ_LEN)
    noise = require_float("noise", noise, low=0.0, high=MAX_LOG_RATIO)
    gen = torch.Generator().manual_seed(require_seed("seed", seed))
    log_ratio = torch.randn(seq_len, generator=gen, dtype=torch.float64) * noise
    flagged: set[int] = set()
    for pair in require_sequence("spikes", spikes):
        pair = require_sequence("spikes", pair)
        if len(pair) != 2:
            raise ValueError(f"spikes must hold (position, jump) pairs, got {pair!r}")
        pos = require_int("spikes position", pair[0], low=0)
        if pos >= seq_len:
            raise ValueError(f"spikes position must be < seq_len ({seq_len}), got {pos}")
        log_ratio[pos] += require_float(
            "spikes jump", pair[1], low=-MAX_LOG_RATIO, high=MAX_LOG_RATIO
        )
        flagged.add(pos)
    w, s = _token_and_sequence_ratios(log_ratio)
    return [
        {
            "position": t,
            "token_weight": float(w[t]),
            "seq_weight": float(s),
            "misbehaving": t in flagged,
        }
        for t in range(seq_len)
    ]
