"""GRPO (Group Relative Policy Optimization) built from scratch.

GRPO trains a policy with reinforcement learning but without a critic: for one prompt it samples
a *group* of ``G`` answers, grades each one, and uses the group's own statistics as the baseline.

    A_i   = (r_i - mean(r)) / (std(r) + eps)                    group-relative advantage
    rho   = pi_theta(o) / pi_old(o)                              importance ratio (per token)
    J     = mean[ min(rho * A, clip(rho, 1 - eps, 1 + eps) * A) ] - beta * KL(pi_theta || pi_ref)
    KL_k3 = exp(d) - d - 1,   d = log pi_ref - log pi_theta      Schulman's k3 estimator, >= 0

``grpo_surrogate`` returns ``-J`` (a loss to minimise). For per-token log-probs of shape
``(G, T)`` the mean runs over every token, which is GRPO's ``(1/G) sum_i (1/|o_i|) sum_t`` when
all responses share a length; pass ``mask`` for ragged responses and that exact double average
is taken over the valid tokens only.

The toy at the bottom (``ToyReasoningPolicy``) makes every "answer" a single token drawn from a
categorical over ``K`` candidates, so one GRPO step can be followed by hand. Every random draw
goes through the policy's own ``torch.Generator``; nothing here touches the global RNG.

``dr_grpo``, ``gspo``, ``dapo`` and ``cispo`` import the pieces they share from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from checks import (
    require_advantages,
    require_arg_name,
    require_callable,
    require_clip_eps,
    require_finite_where,
    require_float,
    require_instance,
    require_int,
    require_logp_pair,
    require_mask,
    require_open_unit,
    require_same_shape,
    require_seed,
    require_sequence,
    require_tensor,
)
from objectives import EPS  # the trust region's default width (TRL's epsilon, verl's clip_ratio)
from policy_gradient import centered_advantages, importance_ratio, zero_padding  # the previous
from ppo import clipped_surrogate_terms  # chapters': PPO's pessimistic min, which GRPO keeps

# Size caps: the toy runs in this module are for plots; beyond these a typo is likelier than a
# plan, and the run would take minutes or gigabytes.
MAX_ANSWERS = 10_000
MAX_GROUP = 100_000
MAX_STEPS = 100_000
MAX_RECORDS = 1_000_000

__all__ = [
    "ToyReasoningPolicy",
    "center_rewards",
    "clip_acts",
    "clipped_surrogate_terms",
    "demonstrate_grpo",
    "group_relative_advantages",
    "grpo_learning_curves",
    "grpo_step",
    "grpo_surrogate",
    "kl_divergence",
    "pad_ragged",
    "sequence_mean",
    "shaped_reward",
    "token_ratios",
    "toy_sgd",
    "verifiable_reward",
    "zero_padding",
]


# --------------------------------------------------------------------------------------------
# Argument checks: the public functions below check once (``checks``); the private cores they
# share (``_sequence_mean``, ``_k3``) trust their callers.
# --------------------------------------------------------------------------------------------


def _as_rewards(rewards: object) -> Tensor:
    """Validate one group ``(G,)`` or a batch of groups ``(B, G)``; return a float tensor."""
    r = require_tensor("rewards", rewards, ndim=(1, 2))
    return r if r.is_floating_point() else r.to(torch.get_default_dtype())


def _integer_answers(answers: object, num_answers: int | None = None) -> Tensor:
    a = require_tensor("answers", answers, dtype="int", nonempty=False)
    if num_answers is not None and a.numel() and (int(a.min()) < 0 or int(a.max()) >= num_answers):
        raise ValueError(f"answers must lie in [0, {num_answers})")
    return a


# --------------------------------------------------------------------------------------------
# The three pieces: advantage, ratio + clip, KL leash
# --------------------------------------------------------------------------------------------


def center_rewards(rewards: Tensor) -> Tensor:
    """Subtract each group's mean reward: ``r_i - mean(r)`` (the critic-free baseline).

    This is ``policy_gradient.centered_advantages``, under the name GRPO's code reads it by.

    Args:
        rewards: ``(G,)`` rewards of one group, or ``(B, G)`` for ``B`` groups (one per row).

    Returns:
        A float tensor of the same shape. A group whose rewards are all equal gets exact zeros
        (no floating-point residue), because it carries no relative signal.
    """
    return centered_advantages(rewards)


def group_relative_advantages(rewards: Tensor, eps: float = 1e-6) -> Tensor:
    """GRPO's advantage: standardise rewards within their group.

        A_i = (r_i - mean(r)) / (std(r) + eps),   std = population std (divide by G)

    Args:
        rewards: ``(G,)`` for one group or ``(B, G)`` for a batch (each row standardised alone).
        eps: small non-negative constant that keeps the division finite.

    Returns:
        Advantages with the shape of ``rewards``: mean 0 and std ~1 per group, exact zeros for a
        group whose rewards are all equal.

    Raises:
        TypeError: ``rewards`` is not a tensor.
        ValueError: an empty group, NaN/inf rewards, or a negative ``eps``.
    """
    eps = require_float("eps", eps, low=0.0)
    centered = centered_advantages(rewards)
    std = centered.pow(2).mean(dim=-1, keepdim=True).sqrt()
    # Rewards past ~1e19 overflow float32 when squared (std = inf, advantages 0), and spreads
    # under ~1e-19 underflow (std = 0: rewards of +-1e-25 got advantages 0, not +-1): those
    # groups take their std on the scale of their largest reward (the others keep every bit).
    scale = centered.abs().amax(dim=-1, keepdim=True)
    unit = centered / torch.where(scale == 0, torch.ones_like(scale), scale)
    rescale = ~std.isfinite() | (scale < 2.0**-60)
    std = torch.where(rescale, scale * unit.pow(2).mean(dim=-1, keepdim=True).sqrt(), std)
    tied = scale == 0
    safe_std = torch.where(tied, torch.ones_like(std), std + eps)
    return torch.where(tied, torch.zeros_like(centered), centered / safe_std)


def token_ratios(logp_new: Tensor, logp_old: Tensor) -> Tensor:
    """Per-token importance ratio ``rho = exp(log pi_new - log pi_old)``, elementwise.

    This is ``policy_gradient.importance_ratio`` (without a mask), by the name GRPO's code uses.

    Args:
        logp_new: log-probs under the policy being trained, ``(G,)`` or ``(G, T)``.
        logp_old: log-probs under the policy that sampled the data, same shape.
    """
    return importance_ratio(logp_new, logp_old)


def clip_acts(
    ratio: Tensor, advantages: Tensor, eps_low: float | None, eps_high: float | None
) -> Tensor:
    """Where the trust region acts: the units whose clipped-surrogate gradient is exactly zero.

        acts = (A > 0 and ratio > 1 + eps_high)  or  (A < 0 and ratio < 1 - eps_low)

    Past the wall on the side its advantage pushes towards, a unit (a token for GRPO, Dr. GRPO
    and DAPO, a whole response for GSPO) takes the clipped branch of ``min(rho A, clip(rho) A)``,
    a constant: it stops learning. Every clip count of the book (the toys' ``clip_fraction``,
    ``rl_reasoner.clip_fractions``, CISPO's mask ``M``, DAPO's closed-form gradient) is this.

    Args:
        ratio: importance ratios (any shape).
        advantages: advantages broadcastable against ``ratio``.
        eps_low: the floor ``1 - eps_low``, in (0, 1), or ``None`` for no floor.
        eps_high: the ceiling ``1 + eps_high``, > 0, or ``None`` for no ceiling.

    Returns:
        A bool tensor of the broadcast shape (no gradient).
    """
    r = require_tensor("ratio", ratio, dtype="float", finite=False).detach()
    adv = require_tensor("advantages", advantages, dtype="float", finite=False).detach()
    low = require_clip_eps("eps_low", eps_low, side="low", optional=True)
    high = require_clip_eps("eps_high", eps_high, side="high", optional=True)
    try:
        r, adv = torch.broadcast_tensors(r, adv)
    except RuntimeError:
        raise ValueError(
            f"advantages of shape {tuple(adv.shape)} do not broadcast against ratio "
            f"{tuple(r.shape)}"
        ) from None
    acts = torch.zeros(r.shape, dtype=torch.bool)
    if high is not None:
        acts = acts | ((adv > 0) & (r > 1.0 + high))
    if low is not None:
        acts = acts | ((adv < 0) & (r < 1.0 - low))
    return acts


def kl_divergence(logp_policy: Tensor, logp_ref: Tensor) -> Tensor:
    """Schulman's k3 estimate of KL(pi_theta || pi_ref), one value per sample.

        k3 = exp(d) - d - 1,   d = log pi_ref - log pi_theta

    Unbiased when the samples come from ``pi_theta`` and never negative, since ``e^d >= 1 + d``.
    It is evaluated as ``expm1(d) - d`` (accurate for small ``d``) and floored at 0 so float
    rounding cannot produce a tiny negative value.

    Args:
        logp_policy: log-probs of the sampled tokens under the policy.
        logp_ref: log-probs of the same tokens under the frozen reference, same shape.
    """
    pol = require_tensor("logp_policy", logp_policy, dtype="float")
    ref = require_tensor("logp_ref", logp_ref, dtype="float")
    require_same_shape("logp_ref", ref, "logp_policy", pol)
    return _k3(pol, ref)


def _k3(pol: Tensor, ref: Tensor) -> Tensor:
    d = ref - pol
    return (torch.expm1(d) - d).clamp_min(0.0)


def sequence_mean(values: Tensor, mask: Tensor | None = None) -> Tensor:
    """Average each response's per-token values: ``(G, T) -> (G,)``, i.e. ``(1/|o_i|) sum_t``.

    Args:
        values: ``(G, T)`` per-token values (padding positions must be finite).
        mask: optional ``(G, T)`` bool, True on a response's real tokens.
    """
    v = require_tensor("values", values, ndim=2, dtype="float", finite=False)
    m = require_mask("mask", mask, v.shape)
    require_finite_where("values", v, m)
    return _sequence_mean(v, m)


def _sequence_mean(v: Tensor, m: Tensor | None) -> Tensor:
    if m is None:
        return v.mean(dim=-1)
    w = m.to(v.dtype)
    return (v * w).sum(dim=-1) / w.sum(dim=-1)


def pad_ragged(seqs: Sequence[Tensor], name: str = "seqs") -> tuple[Tensor, Tensor]:
    """Stack 1-D per-response tensors into ``(G, T_max)`` plus a bool mask of real tokens.

    The losses take ``(G, T)`` tensors and a mask; this turns the natural ragged form (a list of
    responses of different lengths) into that. Padding positions hold 0.

    Args:
        seqs: a non-empty list/tuple of non-empty 1-D floating tensors.
        name: the argument name used in error messages.
    """
    name = require_arg_name("name", name)
    if isinstance(seqs, torch.Tensor):
        raise TypeError(f"{name} must be a list of 1-D tensors, got a Tensor")
    seqs = require_sequence(name, seqs, min_len=1)
    for i, x in enumerate(seqs):
        require_tensor(f"{name}[{i}]", x, ndim=1, dtype="float", finite=False)
    padded = torch.nn.utils.rnn.pad_sequence(list(seqs), batch_first=True)
    lengths = torch.tensor([len(x) for x in seqs])
    mask = torch.arange(padded.shape[1]) < lengths.unsqueeze(1)
    return padded, mask


def grpo_surrogate(
    logp_new: Tensor,
    logp_old: Tensor,
    advantages: Tensor,
    mask: Tensor | None = None,
    *,
    eps_low: float = EPS,
    eps_high: float = EPS,
    logp_ref: Tensor | None = None,
    beta: float = 0.0,
) -> Tensor:
    """The GRPO loss (``-J_GRPO``) that ``loss.backward()`` differentiates.

    Its signature is the one all five objectives share (``dr_grpo``, ``dapo``, ``gspo``,
    ``cispo``): the log-prob pair, the advantages, an optional bool mask, then the objective's
    own hyper-parameters by keyword.

        loss = -mean[ min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A) ] + beta * mean[ k3 ]

    with ``rho = exp(logp_new - logp_old)`` and ``k3`` the KL estimate to ``logp_ref``.

    Args:
        logp_new: ``(G,)`` log-probs of one-token answers, or ``(G, T)`` per-token log-probs;
            carries the gradient.
        logp_old: same shape, from the policy that sampled the group (treated as constant).
        advantages: ``(G,)`` (shared by every token of a response) or anything broadcastable
            to the log-prob shape, e.g. ``(G, T)`` per-token advantages.
        mask: optional ``(G, T)`` bool for ragged responses (True on real tokens). With it the
            average is exactly ``(1/G) sum_i (1/|o_i|) sum_{valid t}``; padding is ignored.
        eps_low: the trust region's floor ``1 - eps_low``, in (0, 1).
        eps_high: its ceiling ``1 + eps_high``, in (0, 1); GRPO's is symmetric (``EPS``).
        logp_ref: optional log-probs under the frozen reference policy, same shape.
        beta: weight of the KL leash (>= 0); needs ``logp_ref`` when positive.

    Returns:
        A scalar loss tensor.

    Raises:
        TypeError: a non-tensor argument, integer log-probs, a non-bool mask.
        ValueError: mismatched shapes, ``eps_low`` or ``eps_high`` outside (0, 1), a negative
            ``beta``, ``beta > 0`` without ``logp_ref``, or NaN in any input.
    """
    new, old, m = require_logp_pair("logp_new", logp_new, "logp_old", logp_old, mask=mask)
    low = require_open_unit("eps_low", eps_low)
    high = require_open_unit("eps_high", eps_high)
    beta = require_float("beta", beta, low=0.0)
    adv = require_advantages("advantages", advantages, new.shape)
    ref = None
    if logp_ref is not None:
        ref = require_tensor("logp_ref", logp_ref, dtype="float", finite=False)
        require_same_shape("logp_ref", ref, "logp_new", new)
        require_finite_where("logp_ref", ref, m)
    elif beta > 0:
        raise ValueError(f"logp_ref is required when beta > 0 (beta={beta})")
    return _grpo_loss(new, old, adv, m, low, high, ref, beta)


def _grpo_loss(
    new: Tensor,
    old: Tensor,
    adv: Tensor,
    m: Tensor | None,
    low: float,
    high: float,
    ref: Tensor | None,
    beta: float,
) -> Tensor:
    """``grpo_surrogate``'s arithmetic on checked arguments (``grpo_step``'s inner loop)."""
    if m is not None:
        new, old = zero_padding(m, new, old)  # (G, T): nothing in the padding reaches the loss
        ref = None if ref is None else zero_padding(m, ref)[0]

    def average(values: Tensor) -> Tensor:  # (G, T) -> (): GRPO's (1/G) sum_i (1/|o_i|) sum_t
        return values.mean() if m is None else _sequence_mean(values, m).mean()

    terms = clipped_surrogate_terms(torch.exp(new - old), adv, low, high)  # (G, T)
    loss = -average(terms)
    if ref is not None and beta > 0:
        loss = loss + beta * average(_k3(new, ref))
    return loss


def verifiable_reward(answers: Tensor, correct: int) -> Tensor:
    """A rule, not a model: reward 1.0 where the answer equals ``correct``, else 0.0.

    Args:
        answers: integer tensor of sampled answer indices.
        correct: the right answer's index.
    """
    a = _integer_answers(answers)
    # int64's range: a larger int cannot equal an index and would overflow inside torch
    correct = require_int("correct", correct, low=-(2**63), high=2**63 - 1)
    return (a == correct).to(torch.get_default_dtype())


def shaped_reward(answers: Tensor, correct: int, num_answers: int) -> Tensor:
    """Exercise 4: partial credit. 1.0 for ``correct``, 0.5 for an index one away, else 0.

    A neighbour only counts if it is a real answer index (in ``[0, num_answers)``).

    Args:
        answers: integer tensor of answer indices in ``[0, num_answers)``.
        correct: the right answer's index.
        num_answers: how many candidate answers exist.
    """
    num_answers = require_int("num_answers", num_answers, low=1, high=MAX_ANSWERS)
    correct = require_int("correct", correct, low=0, high=num_answers - 1)
    a = _integer_answers(answers, num_answers)
    distance = (a - correct).abs()
    reward = torch.zeros(a.shape, dtype=torch.get_default_dtype())
    reward[distance == 1] = 0.5
    reward[distance == 0] = 1.0
    return reward


# --------------------------------------------------------------------------------------------
# A toy reasoner: one token per answer
# --------------------------------------------------------------------------------------------


class ToyReasoningPolicy:
    """A categorical policy over ``num_answers`` candidate answers.

    ``logits`` (learnable, starts at zeros = uniform) define ``pi(a) = softmax(logits)[a]``.
    ``ref_logits`` is a frozen copy taken at construction: the reference for GRPO's KL leash.
    ``generator`` is the policy's private ``torch.Generator`` used for every sample.

    Args:
        num_answers: number of candidate answers ``K`` (>= 2).
        seed: seed for the policy's generator.
    """

    def __init__(self, num_answers: int, seed: int) -> None:
        self.num_answers = require_int("num_answers", num_answers, low=2, high=MAX_ANSWERS)
        seed = require_seed("seed", seed)
        self.logits = torch.zeros(self.num_answers, requires_grad=True)
        self.ref_logits = self.logits.detach().clone()
        self.generator = torch.Generator().manual_seed(seed)

    def probabilities(self) -> Tensor:
        """The current answer distribution ``softmax(logits)`` (detached)."""
        return torch.softmax(self.logits.detach(), dim=-1)

    def sample_group(self, group_size: int) -> Tensor:
        """Draw ``group_size`` answers i.i.d. from the policy: a ``(G,)`` LongTensor."""
        group_size = require_int("group_size", group_size, low=1, high=MAX_GROUP)
        return torch.multinomial(
            self.probabilities(), group_size, replacement=True, generator=self.generator
        )

    def log_probs(self, answers: Tensor) -> Tensor:
        """``log pi(a)`` for each answer (differentiable w.r.t. ``logits``)."""
        return self._log_probs(_integer_answers(answers, self.num_answers))

    def _log_probs(self, answers: Tensor) -> Tensor:
        return torch.log_softmax(self.logits, dim=-1)[answers]

    def ref_log_probs(self, answers: Tensor) -> Tensor:
        """``log pi_ref(a)`` under the frozen reference (no gradient)."""
        return torch.log_softmax(self.ref_logits, dim=-1)[
            _integer_answers(answers, self.num_answers)
        ]

    def kl_to_reference(self) -> float:
        """Exact ``KL(pi || pi_ref) = sum_a pi(a) log(pi(a) / pi_ref(a))`` over all answers."""
        logp = torch.log_softmax(self.logits.detach(), dim=-1)
        logq = torch.log_softmax(self.ref_logits, dim=-1)
        return float((logp.exp() * (logp - logq)).sum().clamp_min(0.0))


def toy_sgd(
    logits: Tensor,
    step_loss: Callable[[], tuple[Tensor, Tensor | None]],
    inner_steps: int,
    lr: float,
) -> tuple[Tensor, int]:
    """The toys' one RL loop: ``inner_steps`` plain-SGD steps of size ``lr`` on ``logits``.

    Each step calls ``step_loss()`` for ``(loss, acts)``: the loss of the current logits on the
    frozen group, and where the clip acted on it (``clip_acts``; ``None`` if not counted), then
    steps ``logits -= lr * d loss / d logits`` in place. ``grpo_step`` (one-token answers) and
    ``gspo``'s two toy steps (a sequence ratio, a per-token ratio) differ only in ``step_loss``.

    Args:
        logits: the toy policy's learnable leaf tensor (``requires_grad``), updated in place.
        step_loss: zero-argument callable returning ``(scalar loss, bool tensor or None)``.
        inner_steps: gradient steps on the one sampled group (>= 1).
        lr: the step size (> 0).

    Returns:
        ``(loss, clipped)``: the last step's loss (before its update) and how many units the
        clip acted on, summed over the steps.
    """
    logits = require_tensor("logits", logits, dtype="float")
    if not logits.requires_grad:
        raise ValueError("logits must require grad (the policy's learnable leaf)")
    require_callable("step_loss", step_loss)
    inner_steps = require_int("inner_steps", inner_steps, low=1, high=MAX_STEPS)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    clipped = 0
    for _ in range(inner_steps):
        out = step_loss()
        if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], Tensor)):
            raise TypeError(f"step_loss must return (loss tensor, acts or None), got {out!r:.60}")
        loss, acts = out
        if acts is not None:
            clipped += int(acts.sum())
        (grad,) = torch.autograd.grad(loss, logits)
        with torch.no_grad():
            logits -= lr * grad
    return loss, clipped


def grpo_step(
    policy: ToyReasoningPolicy,
    correct: int,
    group_size: int = 32,
    lr: float = 0.5,
    eps_low: float = EPS,
    eps_high: float = EPS,
    beta: float = 0.04,
    inner_steps: int = 4,
    reward_fn: Callable[[Tensor], Tensor] | None = None,
) -> dict[str, float]:
    """One GRPO iteration on a ``ToyReasoningPolicy``, updating ``policy.logits`` in place.

    1. sample a group of ``group_size`` answers with the policy's generator;
    2. grade it: ``verifiable_reward(answers, correct)``, or ``reward_fn(answers)`` if given;
    3. standardise the rewards into group-relative advantages;
    4. freeze ``logp_old`` (the sampler) and ``logp_ref`` (the policy at construction);
    5. take ``inner_steps`` plain-SGD steps of size ``lr`` on ``grpo_surrogate`` (``toy_sgd``).

    Returns:
        ``{"mean_reward", "p_correct", "kl", "loss"}`` as Python floats: the group's mean
        reward, ``pi(correct)`` after the update, the exact KL to the reference after the
        update, and the loss of the last inner step.

    Raises:
        TypeError: ``reward_fn`` returns something other than a tensor.
        ValueError: ``reward_fn``'s tensor is not one reward per answer.
    """
    require_instance("policy", policy, ToyReasoningPolicy)
    correct = require_int("correct", correct, low=0, high=policy.num_answers - 1)
    group_size = require_int("group_size", group_size, low=1, high=MAX_GROUP)
    inner_steps = require_int("inner_steps", inner_steps, low=1, high=MAX_STEPS)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    low = require_open_unit("eps_low", eps_low)
    high = require_open_unit("eps_high", eps_high)
    beta = require_float("beta", beta, low=0.0)
    if reward_fn is not None:
        require_callable("reward_fn", reward_fn)

    answers = policy.sample_group(group_size)
    rewards = verifiable_reward(answers, correct) if reward_fn is None else reward_fn(answers)
    if not isinstance(rewards, Tensor):  # the hook's answer, checked where it comes back
        raise TypeError(f"reward_fn must return a torch.Tensor, got {type(rewards).__name__}")
    if rewards.shape != answers.shape:
        raise ValueError(f"reward_fn must return a tensor of shape {tuple(answers.shape)}")
    rewards = _as_rewards(rewards)
    adv = group_relative_advantages(rewards)
    logp_old = policy.log_probs(answers).detach()
    logp_ref = policy.ref_log_probs(answers)

    def step_loss() -> tuple[Tensor, None]:
        # grpo_surrogate's checks, less the ones its other inputs passed above: the answers
        # are the policy's own draws, and only the new log-probs change from one step to the next.
        logp_new = policy._log_probs(answers)
        require_finite_where("logp_new", logp_new, None)
        return _grpo_loss(logp_new, logp_old, adv, None, low, high, logp_ref, beta), None

    loss, _ = toy_sgd(policy.logits, step_loss, inner_steps, lr)
    return {
        "mean_reward": float(rewards.mean()),
        "p_correct": float(policy.probabilities()[correct]),
        "kl": policy.kl_to_reference(),
        "loss": float(loss.detach()),
    }


def demonstrate_grpo(
    num_answers: int = 6,
    correct: int = 3,
    steps: int = 40,
    group_size: int = 32,
    lr: float = 0.5,
    beta: float = 0.04,
    seed: int = 0,
    verbose: bool = True,
) -> list[dict[str, float]]:
    """Train a uniform ``ToyReasoningPolicy`` with GRPO and record the learning curve.

    Returns:
        One record per step ``{"step", "p_correct", "mean_reward", "kl"}``; step 0 is the
        untrained policy (its ``mean_reward`` is the expected reward, ``p_correct``), step
        ``k`` is the policy after ``k`` updates with the mean reward of the group it learned from.
    """
    steps = require_int("steps", steps, low=0, high=MAX_STEPS)
    policy = ToyReasoningPolicy(num_answers, seed=seed)
    correct = require_int("correct", correct, low=0, high=policy.num_answers - 1)
    group_size = require_int("group_size", group_size, low=1, high=MAX_GROUP)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    beta = require_float("beta", beta, low=0.0)
    p0 = float(policy.probabilities()[correct])
    history: list[dict[str, float]] = [{"step": 0, "p_correct": p0, "mean_reward": p0, "kl": 0.0}]
    for step in range(1, steps + 1):
        stats = grpo_step(policy, correct, group_size=group_size, lr=lr, beta=beta)
        history.append(
            {
                "step": step,
                "p_correct": stats["p_correct"],
                "mean_reward": stats["mean_reward"],
                "kl": stats["kl"],
            }
        )
    if verbose:
        print(f"{'step':>4}  {'p(correct)':>10}  {'mean reward':>11}  {'KL(ref)':>8}")
        for rec in history:
            print(
                f"{rec['step']:>4}  {rec['p_correct']:>10.3f}  {rec['mean_reward']:>11.3f}  "
                f"{rec['kl']:>8.4f}"
            )
    return history


def grpo_learning_curves(
    group_sizes: tuple[int, ...] = (4, 16, 64),
    betas: tuple[float, ...] = (0.0, 0.04, 0.5),
    num_answers: int = 6,
    correct: int = 3,
    steps: int = 40,
    lr: float = 0.5,
    seed: int = 0,
) -> list[dict[str, float]]:
    """GRPO learning curves over a grid of group sizes and KL weights (for a widget).

    Every run starts from a fresh uniform policy with the same ``seed``.

    Returns:
        Records ``{"group_size", "beta", "step", "p_correct"}``, steps ``0..steps`` per run.
    """
    group_sizes = [
        require_int("group_sizes", g, low=1, high=MAX_GROUP)
        for g in require_sequence("group_sizes", group_sizes, min_len=1)
    ]
    betas = [
        require_float("betas", b, low=0.0) for b in require_sequence("betas", betas, min_len=1)
    ]
    steps = require_int("steps", steps, low=0, high=MAX_STEPS)
    if len(group_sizes) * len(betas) * (steps + 1) > MAX_RECORDS:
        raise ValueError(f"group_sizes x betas x steps asks for more than {MAX_RECORDS} records")
    records: list[dict[str, float]] = []
    for g in group_sizes:
        for b in betas:
            curve = demonstrate_grpo(
                num_answers=num_answers,
                correct=correct,
                steps=steps,
                group_size=g,
                lr=lr,
                beta=b,
                seed=seed,
                verbose=False,
            )
            records.extend(
                {"group_size": g, "beta": float(b), "step": r["step"], "p_correct": r["p_correct"]}
                for r in curve
            )
    return records
