"""Reinforcement learning on the tiny reasoner: GRPO and its successors, one loop, one switch.

Each step of RL with verifiable rewards (the R1 recipe, at laptop scale):

1. draw a batch of training problems and sample a *group* of G chains for each (temperature 1);
2. grade every chain: 1 if its `####` answer is right (`arithmetic_task.grade`), plus a small
   bonus if it follows the chain format `a+b=c;...;####N` (`arithmetic_task.format_reward`);
3. turn rewards into advantages *within each group* (no critic);
4. take a few gradient steps on the chosen objective, with a k3 KL leash to the starting model.

The objective switch is a lookup table (``LOSSES``) over the book's own loss functions, which
share one signature, ``loss(logp_new, logp_old, advantages, mask, **hyper_parameters)``:

| objective | advantage                          | loss                                         |
|-----------|------------------------------------|----------------------------------------------|
| grpo      | (r - mean) / std                   | grpo.grpo_surrogate (per-response mean)      |
| dr_grpo   | r - mean                           | dr_grpo.dr_grpo_surrogate (constant)         |
| dapo      | (r - mean) / std, dynamic sampling | dapo.dapo_surrogate (token-level mean)       |
| gspo      | (r - mean) / std                   | gspo.gspo_surrogate on the sequence ratio    |
| cispo     | (r - mean) / std                   | cispo.cispo_surrogate (clipped IS weight)    |
| reinforce | r - mean                           | policy_gradient.reinforce_surrogate          |
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import NamedTuple

import torch
from torch import Tensor

from arithmetic_task import format_reward, grade, prompt_of, random_problem, require_problems
from checks import (
    require_bool,
    require_callable,
    require_choice,
    require_clip_eps,
    require_float,
    require_instance,
    require_int,
    require_logp_pair,
    require_open_unit,
    require_seed,
    require_sequence,
    require_str,
    require_tensor,
)
from cispo import cispo_surrogate
from dapo import dapo_surrogate
from dr_grpo import dr_grpo_surrogate
from grpo import clip_acts, group_relative_advantages, grpo_surrogate, kl_divergence
from gspo import gspo_surrogate, sequence_importance_ratio
from objectives import TRAINER_EPS, TRAINER_OBJECTIVES
from policy_gradient import centered_advantages, reinforce_surrogate
from tiny_gpt import Samples, TinyGPT, completion_logprobs, sample

MAX_PER_STEP = 1_000_000  # chains sampled in one step, and other per-step counts
MAX_STEPS = 10_000_000


@dataclass(frozen=True)
class RLConfig:
    """One RL run's settings. The defaults are the feasibility run's: 16 prompts x 16 chains.

    Frozen, like the other configs: every field is checked once, here, and a run reads it
    unchecked at every step. ``eps_low`` / ``eps_high`` are the objective's trust region (the
    floor ``1 - eps_low``, the ceiling ``1 + eps_high``; the names every loss takes); left at
    ``None`` they take the objective's own, ``objectives.TRAINER_EPS`` (GRPO 0.2 / 0.2, DAPO's
    Clip-Higher 0.2 / 0.28, GSPO 3e-3 / 4e-3, CISPO no floor / 0.28, REINFORCE none).
    """

    objective: str = "grpo"
    prompts_per_step: int = 16
    group_size: int = 16
    temperature: float = 1.0
    lr: float = 1e-4
    beta: float = 0.05  # KL leash to the starting model (DAPO drops it: set 0)
    # Gradient steps per batch of samples. With one, every step is on-policy (ratio exactly 1):
    # no clip or importance weight ever acts, and the objectives differ only in how they
    # normalise. The second step is off-policy, so each objective's trust region does its job.
    inner_steps: int = 2
    eps_low: float | None = None  # None: the objective's (objectives.TRAINER_EPS)
    eps_high: float | None = None
    format_weight: float = 0.1
    dynamic_sampling: bool = False  # DAPO: drop unanimous groups and draw more
    max_sampling_rounds: int = 4
    grad_clip: float = 1.0
    dr_grpo_max_len: int = 64  # Dr. GRPO's constant normaliser: the generation cap (context)
    problem_pool: tuple[str, ...] = ()  # train on these problems only; () = the train split
    # What a chain is paid (`rewards_for`): the verifier's grade, or, for the experiments of
    # chapter 14 on what RL teaches, a reward that ignores the answer.
    reward: str = "verifiable"

    def __post_init__(self) -> None:
        # Every field is checked here, on construction: a NaN beta or an inverted clip would
        # otherwise surface deep inside a step, or never.
        require_choice("objective", self.objective, TRAINER_OBJECTIVES)
        for name in ("prompts_per_step", "inner_steps", "max_sampling_rounds"):
            require_int(name, getattr(self, name), low=1, high=MAX_PER_STEP)
        # A group needs a baseline: at least two chains.
        require_int("group_size", self.group_size, low=2, high=MAX_PER_STEP)
        if self.prompts_per_step * self.group_size > MAX_PER_STEP:
            raise ValueError(f"prompts_per_step x group_size must be <= {MAX_PER_STEP} chains")
        for name in ("lr", "temperature", "grad_clip"):
            require_float(name, getattr(self, name), low=0.0, low_open=True)
        for name in ("beta", "format_weight"):
            require_float(name, getattr(self, name), low=0.0)
        self._resolve_trust_region()
        require_bool("dynamic_sampling", self.dynamic_sampling)
        require_int("dr_grpo_max_len", self.dr_grpo_max_len, low=1, high=MAX_PER_STEP)
        require_instance("problem_pool", self.problem_pool, tuple)
        require_problems("problem_pool", self.problem_pool)
        require_choice("reward", self.reward, REWARDS)

    def _resolve_trust_region(self) -> None:
        """Fill ``eps_low`` / ``eps_high`` left at None with the objective's, then check both:
        a PPO-style clip needs both walls in (0, 1); CISPO's weight may go without a floor;
        REINFORCE has no ratio, so a width set for it would silently do nothing."""
        default_low, default_high = TRAINER_EPS[self.objective]
        low = default_low if self.eps_low is None else self.eps_low
        high = default_high if self.eps_high is None else self.eps_high
        if self.objective == "reinforce" and (low, high) != (None, None):
            raise ValueError("eps_low and eps_high must be None for reinforce (it has no ratio)")
        if self.objective != "reinforce":
            low = require_clip_eps("eps_low", low, side="low", optional=self.objective == "cispo")
            high = require_open_unit("eps_high", high)  # (0, 1), as every ceiling here
        object.__setattr__(self, "eps_low", low)  # frozen: set once, while constructing
        object.__setattr__(self, "eps_high", high)

    @classmethod
    def preset(cls, objective: str, **overrides) -> RLConfig:
        """The objective with its paper's companions: DAPO gets dynamic sampling and no KL."""
        extra = {"dynamic_sampling": True, "beta": 0.0} if objective == "dapo" else {}
        return cls(objective=objective, **{**extra, **overrides})


#: The rewards a run can pay: "verifiable" is accuracy (0/1) + format_weight * format (0/1);
#: "format" pays the format alone (the answer may be wrong); "random" pays 1 with probability
#: 1/2, whatever the chain says (a reward that carries no signal at all).
REWARDS = ("verifiable", "format", "random")


def rewards_for(
    problems: list[str],
    completions: list[str],
    format_weight: float,
    reward: str = "verifiable",
    rng: random.Random | None = None,
) -> Tensor:
    """Each completion's reward of kind ``reward`` (see `REWARDS`); "random" draws from ``rng``."""
    problems = require_problems("problems", problems)
    completions = require_sequence("completions", completions)
    for completion in completions:
        require_str("completions", completion)
    if len(problems) != len(completions):
        raise ValueError(
            f"completions must hold one completion per problem ({len(problems)}), "
            f"got {len(completions)}"
        )
    # high: the rewards are a float32 tensor, whose largest value is about 3.4e38 (past it, inf)
    format_weight = require_float("format_weight", format_weight, low=0.0, high=1e30)
    reward = require_choice("reward", reward, REWARDS)
    if reward == "random":
        require_instance("rng", rng, random.Random)  # a seeded draw, never the global one
        return torch.tensor([float(rng.random() < 0.5) for _ in completions])
    if reward == "format":
        return torch.tensor([format_reward(c) for c in completions])
    return torch.tensor(
        [
            grade(p, c) + format_weight * format_reward(c)
            for p, c in zip(problems, completions, strict=True)
        ]
    )


def advantages_for(rewards: Tensor, objective: str) -> Tensor:
    """Group-relative advantages for a (B, G) reward table, flattened to (B * G,)."""
    objective = require_choice("objective", objective, TRAINER_OBJECTIVES)
    require_tensor("rewards", rewards, ndim=2)
    return LOSSES[objective].advantages(rewards).reshape(-1)


class _Objective(NamedTuple):
    """One row of the objective switch: the advantage, the loss, the config fields it reads."""

    advantages: Callable[[Tensor], Tensor]  # (B, G) rewards -> (B, G) advantages
    loss: Callable[..., Tensor]  # loss(logp_new, logp_old, advantages, mask, **hyper(cfg))
    reads: dict[str, str]  # the loss's keyword -> the RLConfig field it takes

    def hyper(self, cfg: RLConfig) -> dict[str, float | int | None]:
        """The loss's keyword hyper-parameters, read from ``cfg``."""
        return {keyword: getattr(cfg, field) for keyword, field in self.reads.items()}


_EPS = {"eps_low": "eps_low", "eps_high": "eps_high"}  # every loss with a ratio names them so

#: The objective switch, as TRL's loss switch: one vocabulary, one row per objective.
LOSSES: dict[str, _Objective] = {
    "grpo": _Objective(group_relative_advantages, grpo_surrogate, _EPS),
    "dr_grpo": _Objective(centered_advantages, dr_grpo_surrogate,
                          {**_EPS, "max_len": "dr_grpo_max_len"}),
    # token-level: every token of the batch weighs the same
    "dapo": _Objective(group_relative_advantages, dapo_surrogate, _EPS),
    "gspo": _Objective(group_relative_advantages, gspo_surrogate, _EPS),
    "cispo": _Objective(group_relative_advantages, cispo_surrogate, _EPS),
    # On-policy REINFORCE with the group-mean baseline: no ratio, so no trust region. Not one of
    # the recorded OBJECTIVES (objectives.TRAINER_OBJECTIVES); the browser trainer offers it.
    "reinforce": _Objective(centered_advantages, reinforce_surrogate, {}),
}


def _require_objective(objective: object, cfg: object) -> str:
    """The objective, which must be the config's: its trust region is that objective's."""
    objective = require_choice("objective", objective, TRAINER_OBJECTIVES)
    require_instance("cfg", cfg, RLConfig)
    if objective != cfg.objective:
        raise ValueError(
            f"objective must be cfg.objective ({cfg.objective!r}), whose eps_low / eps_high the "
            f"config holds, got {objective!r}"
        )
    return objective


def policy_loss(
    objective: str, logp_new: Tensor, logp_old: Tensor, adv: Tensor, mask: Tensor, cfg: RLConfig
) -> Tensor:
    """The chosen objective's loss on (N, T) per-token log-probs of N sampled chains.

    Checks only what is its own (the objective, the config, the mask's type); each objective's
    function checks the tensors it is given.
    """
    objective = _require_objective(objective, cfg)
    require_tensor("mask", mask, ndim=2, dtype="bool")
    return _policy_loss(objective, logp_new, logp_old, adv, mask, cfg)


def _policy_loss(objective, logp_new, logp_old, adv, mask, cfg) -> Tensor:
    row = LOSSES[objective]
    return row.loss(logp_new, logp_old, adv, mask, **row.hyper(cfg))


def clip_fractions(
    objective: str, logp_new: Tensor, logp_old: Tensor, adv: Tensor, mask: Tensor, cfg: RLConfig
) -> dict[str, float]:
    """How often the objective's trust region acted on a batch (the statistic PPO-style logs keep).

    The unit is the one the objective clips: a token for GRPO, Dr. GRPO, DAPO and CISPO, a whole
    chain for GSPO (its ratio ``s_i`` is one per chain). Two shares of the units:

    - ``outside``: the ratio lies outside ``[1 - eps_low, 1 + eps_high]``, whatever the
      advantage's sign (a wall set to None is never crossed);
    - ``clipped``: the clip *acts* (``grpo.clip_acts``). For the PPO-style objectives that is a
      ratio past the wall on the side the advantage pushes towards (``rho > 1 + eps_high`` with
      ``A > 0``, or ``rho < 1 - eps_low`` with ``A < 0``), where the unit's gradient is zero.
      CISPO never zeroes a gradient; its ``clipped`` is the share of tokens whose importance
      weight is truncated, which is every token outside its range.
    """
    objective = _require_objective(objective, cfg)
    if mask is None:
        raise TypeError("mask must be a bool (N, T) tensor, got None")
    logp_new, logp_old, mask = require_logp_pair(
        "logp_new", logp_new, "logp_old", logp_old, mask=mask, ndim=2
    )
    adv = require_tensor("adv", adv, ndim=1, dtype="float")
    if adv.shape[0] != logp_new.shape[0]:
        raise ValueError(
            f"adv must hold one advantage per chain ({logp_new.shape[0]}), got {adv.shape[0]}"
        )
    return _clip_fractions(objective, logp_new, logp_old, adv, mask, cfg)


def _clip_fractions(objective, logp_new, logp_old, adv, mask, cfg) -> dict[str, float]:
    with torch.no_grad():
        low, high = cfg.eps_low, cfg.eps_high
        if objective == "gspo":
            ratio = sequence_importance_ratio(logp_new, logp_old, mask)  # (N,)
            units = torch.ones_like(ratio, dtype=torch.bool)  # every chain counts once
        else:
            ratio = torch.exp(logp_new - logp_old)  # (N, T)
            adv = adv.reshape(-1, 1).expand_as(ratio)  # (N, T)
            units = mask
        above = ratio > 1 + high if high is not None else torch.zeros_like(units)
        below = ratio < 1 - low if low is not None else torch.zeros_like(units)
        outside = above | below
        acts = outside if objective == "cispo" else clip_acts(ratio, adv, low, high)
        count = max(int(units.sum()), 1)  # shares of whole counts, exact in float64
        return {
            "outside": int((outside & units).sum()) / count,
            "clipped": int((acts & units).sum()) / count,
        }


def _next_problem(cfg: RLConfig, rng: random.Random) -> str:
    """A fresh train-split problem, or one from the config's fixed pool."""
    return rng.choice(cfg.problem_pool) if cfg.problem_pool else random_problem(rng, "train")


def _draw_groups(model, cfg, rng, generator) -> tuple[list[str], Samples, Tensor, int]:
    """Sample groups for a step; with dynamic sampling, keep only groups with a reward spread."""
    kept_problems: list[str] = []
    kept: list[tuple[Samples, Tensor, list[int]]] = []
    discarded = 0
    for _ in range(cfg.max_sampling_rounds if cfg.dynamic_sampling else 1):
        need = cfg.prompts_per_step - len(kept_problems)
        problems = [_next_problem(cfg, rng) for _ in range(need)]
        prompts = [prompt_of(p) for p in problems for _ in range(cfg.group_size)]
        expanded = [p for p in problems for _ in range(cfg.group_size)]
        samples = sample(model, prompts, cfg.temperature, generator=generator)
        rewards = rewards_for(expanded, samples.completions, cfg.format_weight, cfg.reward, rng)
        rewards = rewards.reshape(need, -1)
        live = [i for i in range(need) if not cfg.dynamic_sampling or bool(rewards[i].std() > 0)]
        discarded += need - len(live)
        kept_problems += [problems[i] for i in live]
        kept.append((samples, rewards, live))
        if len(kept_problems) >= cfg.prompts_per_step:
            break
    return kept_problems, *_merge(kept, cfg.group_size), discarded


def _merge(parts, group_size: int) -> tuple[Samples, Tensor]:
    """Concatenate the kept groups of several sampling rounds into one Samples and reward table."""
    width = max(s.tokens.shape[1] for s, _, _ in parts)
    rows, rewards, prompts, completions = [], [], [], []
    for samples, table, live in parts:
        for i in live:
            idx = list(range(i * group_size, (i + 1) * group_size))
            rows.append((samples, idx))
            rewards.append(table[i])
            prompts += [samples.prompts[j] for j in idx]
            completions += [samples.completions[j] for j in idx]

    def stack(attr: str, fill) -> Tensor:
        out = []
        for samples, idx in rows:
            t = getattr(samples, attr)[idx]
            pad = torch.full((t.shape[0], width - t.shape[1]), fill, dtype=t.dtype)
            out.append(torch.cat([t, pad], dim=1))
        return torch.cat(out) if out else torch.zeros(0, width)

    pad_id = 0  # arithmetic_task.VOCAB starts with PAD
    merged = Samples(
        prompts,
        completions,
        stack("tokens", pad_id),
        stack("logprobs", 0.0),
        stack("mask", False),
        torch.cat([s.finished[idx] for s, idx in rows])
        if rows
        else torch.zeros(0, dtype=torch.bool),
    )
    return merged, (torch.stack(rewards) if rewards else torch.zeros(0, group_size))


def _check_run(model: object, cfg: object) -> None:
    require_instance("model", model, TinyGPT)
    require_instance("cfg", cfg, RLConfig)


def policy_update(
    model: TinyGPT,
    optimizer: torch.optim.Optimizer,
    samples: Samples,
    adv: Tensor,
    ref: Tensor | None,
    cfg: RLConfig,
) -> tuple[Tensor, Tensor, Tensor]:
    """``rl_step``'s updates on one sampled batch: ``cfg.inner_steps`` times, the objective's loss
    plus ``beta`` x the mean k3 KL to ``ref`` (the reference's log-probs; None when beta is 0),
    backward, global-norm clip to ``grad_clip``, one optimizer step.

    Returns the last pass's (log-probs, policy loss, KL), computed before its step. The browser
    trainer (``widgets/rl_trainer_math.js``, ``updateOnBatch``) is tested against this function.
    """
    _check_run(model, cfg)
    require_instance("optimizer", optimizer, torch.optim.Optimizer)
    require_instance("samples", samples, Samples)
    rows = samples.tokens.shape[0]
    adv = require_tensor("adv", adv, ndim=1, dtype="float")
    if adv.shape[0] != rows:
        raise ValueError(f"adv must hold one advantage per chain ({rows}), got {adv.shape[0]}")
    if ref is not None:
        ref = require_tensor("ref", ref, ndim=2, dtype="float")
        if ref.shape != samples.logprobs.shape:
            raise ValueError(
                f"ref must have the shape of samples.logprobs {tuple(samples.logprobs.shape)}, "
                f"got {tuple(ref.shape)}"
            )
    elif cfg.beta > 0:
        raise ValueError(f"ref is required when cfg.beta > 0 (beta={cfg.beta})")
    return _policy_update(model, optimizer, samples, adv, ref, cfg)


def _policy_update(model, optimizer, samples, adv, ref, cfg) -> tuple[Tensor, Tensor, Tensor]:
    old, mask = samples.logprobs, samples.mask
    model.train()
    for _ in range(cfg.inner_steps):
        new = completion_logprobs(model, samples)  # (N, T)
        loss = _policy_loss(cfg.objective, new, old, adv, mask, cfg)  # cfg checked once, built
        kl = (
            (kl_divergence(new, ref) * mask).sum() / mask.sum()
            if ref is not None
            else torch.zeros(())
        )
        optimizer.zero_grad()
        (loss + cfg.beta * kl).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        optimizer.step()
    return new, loss, kl


def rl_step(
    model: TinyGPT,
    reference: TinyGPT,
    optimizer: torch.optim.Optimizer,
    cfg: RLConfig,
    rng: random.Random,
    generator: torch.Generator,
) -> dict[str, float]:
    """One RL step: sample groups, grade, standardise, `inner_steps` updates. Returns statistics.

    A statistic with nothing to average (``reward`` when dynamic sampling kept no group,
    ``length_correct`` when no chain was right) is NaN, meaning "missing"; the run script
    writes it as JSON null.
    """
    _check_run(model, cfg)
    require_instance("reference", reference, TinyGPT)
    require_instance("optimizer", optimizer, torch.optim.Optimizer)
    require_instance("rng", rng, random.Random)
    require_instance("generator", generator, torch.Generator)
    problems, samples, rewards, discarded = _draw_groups(model, cfg, rng, generator)
    stats = {"discarded_groups": float(discarded), "groups": float(len(problems))}
    if not problems:
        return {**stats, "loss": 0.0, "reward": float("nan"), "kl": 0.0}
    correct = torch.tensor(
        [
            grade(p, c)
            for p, c in zip(
                [p for p in problems for _ in range(cfg.group_size)],
                samples.completions,
                strict=True,
            )
        ]
    )
    lengths = samples.mask.sum(dim=1).float()
    adv = advantages_for(rewards, cfg.objective)
    zero_groups = float(
        (advantages_for(rewards, "grpo").reshape(len(problems), -1).abs().max(dim=1).values == 0)
        .float()
        .mean()
    )
    old, mask = samples.logprobs, samples.mask
    ref = completion_logprobs(reference, samples).detach() if cfg.beta > 0 else None
    new, loss, kl = _policy_update(model, optimizer, samples, adv, ref, cfg)
    # The trust region's work, measured on the last (off-policy) pass's ratios.
    clip = _clip_fractions(cfg.objective, new.detach(), old, adv, mask, cfg)
    model.eval()
    return {
        **stats,
        "loss": float(loss.detach()),
        "kl": float(kl.detach()),
        "reward": float(rewards.mean()),
        "accuracy": float(correct.mean()),
        "zero_advantage_groups": zero_groups,
        "clip_outside": clip["outside"],
        "clip_fraction": clip["clipped"],
        "length_correct": float(lengths[correct == 1].mean())
        if bool((correct == 1).any())
        else math.nan,
        "length_wrong": float(lengths[correct == 0].mean())
        if bool((correct == 0).any())
        else math.nan,
    }


def train_rl(
    model: TinyGPT, cfg: RLConfig, steps: int, seed: int = 0, callback=None
) -> list[dict[str, float]]:
    """Run `steps` RL steps from `model` (updated in place); the reference is a frozen copy.

    ``callback(step, model, row)``, if given, is called after each step with the step's
    statistics; it observes and returns None (a value returned would be silently dropped, so
    it is refused with a TypeError naming the hook).
    """
    _check_run(model, cfg)
    steps = require_int("steps", steps, low=0, high=MAX_STEPS)
    seed = require_seed("seed", seed)
    if callback is not None:
        require_callable("callback", callback)
    reference = copy.deepcopy(model).eval()
    for p in reference.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    rng, generator = random.Random(seed), torch.Generator().manual_seed(seed)
    history = []
    for step in range(1, steps + 1):
        row = {"step": step, **rl_step(model, reference, optimizer, cfg, rng, generator)}
        history.append(row)
        if callback is not None:
            returned = callback(step, model, row)
            if returned is not None:
                raise TypeError(
                    f"callback must return None (it observes the run), got "
                    f"{type(returned).__name__} at step {step}"
                )
    return history


def config_dict(cfg: RLConfig) -> dict:
    """JSON-able settings, for the run records in data/."""
    require_instance("cfg", cfg, RLConfig)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(cfg).items()}
