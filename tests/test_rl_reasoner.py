"""The RL loop on the tiny reasoner: rewards, advantages, the objective switch, one step."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest
import torch

from cispo import cispo_surrogate
from dapo import dapo_surrogate
from grpo import grpo_surrogate
from gspo import gspo_surrogate
from objectives import OBJECTIVES, TRAINER_EPS, TRAINER_OBJECTIVES
from rl_reasoner import (
    LOSSES,
    REWARDS,
    RLConfig,
    advantages_for,
    clip_fractions,
    policy_loss,
    rewards_for,
    rl_step,
    train_rl,
)
from tiny_gpt import TinyGPT, TinyGPTConfig


def test_rewards_add_accuracy_and_format():
    r = rewards_for(["7+5-3"] * 3, ["7+5=12;12-3=9;####9", "7+5=12;12-3=8;####8", "####9"], 0.1)
    assert r.tolist() == pytest.approx([1.1, 0.1, 1.0])


def test_spurious_rewards_ignore_the_answer():
    problems = ["7+5-3"] * 4
    chains = ["7+5=12;12-3=9;####9", "7+5=12;12-3=8;####8", "####9", "garbage"]
    # Format only: a well-formed chain is paid whether its answer is right or wrong.
    assert rewards_for(problems, chains, 0.1, "format").tolist() == [1.0, 1.0, 0.0, 0.0]
    # Random: the same seeded coin for any completions (the chains never enter it), about half 1s.
    coins = rewards_for(["7+5-3"] * 400, ["####9"] * 400, 0.1, "random", random.Random(3))
    again = rewards_for(["7+5-3"] * 400, ["x"] * 400, 0.1, "random", random.Random(3))
    assert coins.tolist() == again.tolist() and set(coins.tolist()) == {0.0, 1.0}
    assert 0.4 < float(coins.mean()) < 0.6
    with pytest.raises(TypeError, match="rng"):
        rewards_for(problems, chains, 0.1, "random")  # never the unseeded global generator
    with pytest.raises(ValueError, match="reward"):
        rewards_for(problems, chains, 0.1, "answer")
    with pytest.raises(ValueError, match="reward"):
        RLConfig(reward="none")
    assert RLConfig().reward == "verifiable" and set(REWARDS) == {"verifiable", "format", "random"}


def test_config_validation_and_presets():
    assert RLConfig.preset("dapo").dynamic_sampling and RLConfig.preset("dapo").beta == 0
    assert not RLConfig.preset("grpo").dynamic_sampling
    with pytest.raises(ValueError, match="objective"):
        RLConfig(objective="ppo")
    with pytest.raises(ValueError, match="group_size"):
        RLConfig(group_size=1)
    with pytest.raises(ValueError, match="lr"):
        RLConfig(lr=0)
    with pytest.raises(ValueError, match="steps"):
        train_rl(TinyGPT(TinyGPTConfig(n_layer=1, n_embd=16, n_head=2)), RLConfig(), steps=-1)


def test_advantages_are_group_relative():
    rewards = torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    grpo = advantages_for(rewards, "grpo").reshape(2, 4)
    assert grpo[0].tolist() == pytest.approx([1.732, -0.577, -0.577, -0.577], abs=1e-3)
    assert grpo[1].tolist() == [0.0] * 4  # a unanimous group teaches nothing
    assert advantages_for(rewards, "dr_grpo").reshape(2, 4)[0].tolist() == pytest.approx(
        [0.75, -0.25, -0.25, -0.25]
    )


def _batch(seed=0, n=6, t=5):
    g = torch.Generator().manual_seed(seed)
    new = (torch.randn(n, t, generator=g) * 0.1 - 1).requires_grad_(True)
    old = torch.randn(n, t, generator=g) * 0.1 - 1
    mask = torch.ones(n, t, dtype=torch.bool)
    mask[0, 3:] = False
    mask[2, 1:] = False
    adv = torch.randn(n, generator=g)
    return new, old, adv, mask


def test_objective_switch_is_one_table_row_per_objective():
    assert tuple(LOSSES) == TRAINER_OBJECTIVES == (*OBJECTIVES, "reinforce")
    cfg = RLConfig(objective="dr_grpo")
    assert LOSSES["dr_grpo"].hyper(cfg) == {
        "eps_low": 0.2, "eps_high": 0.2, "max_len": cfg.dr_grpo_max_len
    }


def test_objective_switch_uses_the_books_losses():
    new, old, adv, mask = _batch()
    cfg = {objective: RLConfig(objective=objective) for objective in TRAINER_OBJECTIVES}
    with pytest.raises(ValueError, match="cfg.objective"):  # its widths are another's
        policy_loss("gspo", new, old, adv, mask, cfg["grpo"])
    assert torch.allclose(
        policy_loss("grpo", new, old, adv, mask, cfg["grpo"]),
        grpo_surrogate(new, old, adv, eps_low=0.2, eps_high=0.2, mask=mask),
    )
    ragged_new = [new[i][mask[i]] for i in range(len(new))]
    ragged_old = [old[i][mask[i]] for i in range(len(old))]
    assert torch.allclose(
        policy_loss("dapo", new, old, adv, mask, cfg["dapo"]),
        dapo_surrogate(ragged_new, ragged_old, adv, eps_low=0.2, eps_high=0.28),
        atol=1e-6,
    )
    assert torch.equal(
        policy_loss("gspo", new, old, adv, mask, cfg["gspo"]),
        gspo_surrogate(new, old, adv, mask, eps_low=3e-3, eps_high=4e-3),
    )
    assert torch.allclose(
        policy_loss("cispo", new, old, adv, mask, cfg["cispo"]),
        cispo_surrogate(new, old, adv, mask, eps_low=None, eps_high=0.28),
    )


def test_config_is_frozen_and_takes_each_objectives_trust_region():
    cfg = RLConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.lr = 1.0  # type: ignore[misc]
    for objective in TRAINER_OBJECTIVES:
        got = RLConfig(objective=objective)
        assert (got.eps_low, got.eps_high) == TRAINER_EPS[objective], objective
    assert (RLConfig(objective="dapo", eps_high=0.3).eps_low, RLConfig(eps_low=0.1).eps_high) == (
        0.2, 0.2)
    with pytest.raises(ValueError, match="eps_low"):
        RLConfig(eps_low=1.0)
    with pytest.raises(ValueError, match="eps_high"):
        RLConfig(objective="cispo", eps_high=0.0)
    with pytest.raises(ValueError, match="reinforce"):
        RLConfig(objective="reinforce", eps_high=0.2)  # no ratio: a width would do nothing


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_every_loss_takes_minus_inf_in_the_padding(objective):
    """The five losses treat padding alike: anything there, ``-inf`` included, is ignored.

    A sampler writes ``-inf`` for a token it could not emit and leaves junk past a chain's end;
    the mask says which positions are real, and each loss zeroes the rest (``zero_padding``)
    before any arithmetic. So accepting ``-inf`` there is right, not lax: the value and the
    gradient are those of the same batch with 0 in the padding, and nothing there is read.
    Refusing it (CISPO did, alone of the five) would make a caller scrub padding that no loss
    reads. A ``-inf`` at a real token is still refused: that is a broken log-prob.
    """
    new, old, adv, mask = _batch(seed=3)
    row, cfg = LOSSES[objective], RLConfig(objective=objective)
    zero_new = torch.where(mask, new.detach(), torch.zeros(()))
    clean = torch.where(mask, old, torch.zeros(()))
    inf_new = torch.where(mask, new.detach(), torch.tensor(-math.inf)).requires_grad_(True)
    junk = torch.where(mask, old, torch.tensor(-math.inf))
    a_new = zero_new.clone().requires_grad_(True)
    want = row.loss(a_new, clean, adv, mask, **row.hyper(cfg))
    got = row.loss(inf_new, junk, adv, mask, **row.hyper(cfg))
    want.backward()
    got.backward()
    assert torch.equal(got, want), objective
    assert torch.equal(inf_new.grad, a_new.grad) and bool(inf_new.grad.isfinite().all())
    assert bool((inf_new.grad[~mask] == 0).all())
    at_a_token = new.detach().clone()
    at_a_token[1, 0] = -math.inf
    with pytest.raises(ValueError, match="logp_new"):
        row.loss(at_a_token, old, adv, mask, **row.hyper(cfg))


@pytest.mark.parametrize("objective", TRAINER_OBJECTIVES)
def test_on_policy_gradient_pushes_with_the_advantage(objective):
    """On-policy, every objective raises the log-prob of positive-advantage tokens."""
    new, _, adv, mask = _batch(seed=1)
    old = new.detach().clone()
    loss = policy_loss(objective, new, old, adv, mask, RLConfig(objective=objective))
    loss.backward()
    push = -new.grad  # gradient descent on the loss moves logp along -grad
    for i in range(len(adv)):
        row = push[i][mask[i]]
        if adv[i] > 0:
            assert (row > 0).all(), (objective, i)
        elif adv[i] < 0:
            assert (row < 0).all(), (objective, i)


def test_rl_step_runs_every_objective_on_a_small_model():
    for objective in OBJECTIVES:
        model = TinyGPT(TinyGPTConfig(n_layer=1, n_embd=32, n_head=2), seed=0)
        reference = TinyGPT(TinyGPTConfig(n_layer=1, n_embd=32, n_head=2), seed=0).eval()
        cfg = RLConfig.preset(objective, prompts_per_step=2, group_size=4, max_sampling_rounds=2)
        opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        stats = rl_step(
            model, reference, opt, cfg, random.Random(0), torch.Generator().manual_seed(0)
        )
        assert stats["groups"] + stats["discarded_groups"] >= cfg.prompts_per_step
        if stats["groups"]:
            assert 0 <= stats["zero_advantage_groups"] <= 1
            if objective == "dapo":  # dynamic sampling keeps only groups with a reward spread
                assert stats["zero_advantage_groups"] == 0
            assert 0 <= stats["clip_fraction"] <= stats["clip_outside"] <= 1


def _log(ratios: list[list[float]]) -> torch.Tensor:
    return torch.tensor(ratios, dtype=torch.float64).log()


def test_clip_fractions_count_the_units_each_objective_clips():
    # Two chains of three tokens; the last token of chain 1 is padding. Chain 0 has A > 0 and
    # chain 1 A < 0, so a ratio of 1.5 is clipped in chain 0 and only "outside" in chain 1.
    new = _log([[1.5, 1.0, 0.7], [1.5, 0.7, 9.0]])
    old = torch.zeros_like(new)
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    mask = torch.tensor([[True, True, True], [True, True, False]])
    def shares(objective):
        return clip_fractions(objective, new, old, adv, mask, RLConfig(objective=objective))

    # GRPO, range [0.8, 1.2]: outside = 1.5, 0.7 | 1.5, 0.7 (4 of 5 tokens); the clip acts on
    # chain 0's 1.5 (A > 0, above) and chain 1's 0.7 (A < 0, below): 2 of 5. Padding never counts.
    assert shares("grpo") == {"outside": 0.8, "clipped": 0.4}
    # DAPO's Clip-Higher ceiling 1.28 changes nothing here; CISPO truncates weights above 1.28
    # whatever the sign of A: both 1.5s.
    assert shares("dapo") == {"outside": 0.8, "clipped": 0.4}
    assert shares("cispo") == {"outside": 0.4, "clipped": 0.4}
    # GSPO counts chains: s_0 = (1.5 * 0.7) ** (1/3) = 1.0164 > 1.004 with A > 0 (clipped);
    # s_1 = (1.5 * 0.7) ** (1/2) = 1.0247, outside but A < 0 (not clipped).
    assert shares("gspo") == {"outside": 1.0, "clipped": 0.5}


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_a_few_steps_raise_pass_at_1_on_a_fixed_problem_set(objective, tiny_reasoner_copy):
    """Every objective, trained for a few steps on 8 fixed problems, gets more of them right.

    pass@1 is measured before and after with the same 64 seeded samples per problem
    (`r1_pipeline.evaluate`); the chapter 2 reasoner starts near 0.5 on these problems.
    """
    from arithmetic_task import random_problem
    from r1_pipeline import evaluate

    rng = random.Random(21)
    pool = tuple(random_problem(rng, "train") for _ in range(8))
    model = tiny_reasoner_copy()
    before = evaluate(model, pool, 64, seed=3, ks=(1,))["pass_at_k"][1]
    cfg = RLConfig.preset(objective, prompts_per_step=8, group_size=8, lr=3e-4, problem_pool=pool)
    train_rl(model, cfg, steps=6, seed=0)
    after = evaluate(model, pool, 64, seed=3, ks=(1,))["pass_at_k"][1]
    assert after > before + 0.05, (objective, before, after)


def test_the_callbacks_answer_is_checked_where_it_comes_back():
    """train_rl's hook observes: a value it returns would be dropped, so it is refused."""
    model = TinyGPT(TinyGPTConfig(n_layer=1, n_embd=16, n_head=2), seed=0)
    cfg = RLConfig(prompts_per_step=1, group_size=2)
    seen = []
    train_rl(model, cfg, steps=1, callback=lambda step, m, row: seen.append(step))
    assert seen == [1]
    with pytest.raises(TypeError, match="callback must return None"):
        train_rl(model, cfg, steps=1, callback=lambda step, m, row: True)
    with pytest.raises(TypeError, match="callback"):
        train_rl(model, cfg, steps=1, callback="print")
