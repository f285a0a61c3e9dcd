"""Tests for code/dr_grpo.py: Dr. GRPO's advantage, its constant normaliser, the length demos."""

from __future__ import annotations

import json
import math

import pytest
import torch

from dr_grpo import (
    centered_advantages,
    demonstrate_length_bias,
    difficulty_weight,
    difficulty_weight_curve,
    dr_grpo_surrogate,
    length_drift_simulation,
    per_token_push,
)
from grpo import group_relative_advantages

# ------------------------------------------------------------------ Dr. GRPO


def test_seed_grpo_vs_dr_grpo_advantages():
    rewards = torch.tensor([1.0, 1.0, 0.0, 0.0])
    grpo = group_relative_advantages(rewards)
    assert torch.allclose(grpo, torch.tensor([1.0, 1.0, -1.0, -1.0]), atol=1e-5)
    assert centered_advantages(rewards).tolist() == [0.5, 0.5, -0.5, -0.5]
    assert centered_advantages(torch.ones(5)).tolist() == [0.0] * 5
    with pytest.raises(ValueError, match="rewards"):
        centered_advantages(torch.tensor([]))


def test_seed_difficulty_weights():
    printed = {p: f"{difficulty_weight(p, eps=1e-2):6.2f}" for p in (0.5, 0.9, 0.99)}
    assert printed == {0.5: "  1.96", 0.9: "  3.23", 0.99: "  9.13"}
    # "nearly solved ~ 9, more than four times the balanced group"
    assert difficulty_weight(0.99) > 4 * difficulty_weight(0.5)
    assert math.isclose(difficulty_weight(0.0), 100.0)  # 1 / eps at a unanimous group


def test_difficulty_weight_equals_grpo_scale_of_a_binary_group():
    # GRPO's advantage of a correct answer in a group with fraction p correct is
    # (1 - p) * weight (with the same eps): the weight is literally GRPO's 1 / (std + eps).
    rewards = torch.tensor([1.0] * 9 + [0.0], dtype=torch.float64)
    adv = group_relative_advantages(rewards, eps=1e-2)
    assert math.isclose(float(adv[0]), (1 - 0.9) * difficulty_weight(0.9), rel_tol=1e-9)


@pytest.mark.parametrize("p", [-0.1, 1.1, float("nan")])
def test_difficulty_weight_bad_p(p):
    with pytest.raises(ValueError, match="p "):
        difficulty_weight(p)


def test_difficulty_weight_bad_eps():
    with pytest.raises(ValueError, match="eps"):
        difficulty_weight(0.5, eps=0.0)
    with pytest.raises(TypeError, match="p"):
        difficulty_weight("0.5")


def test_difficulty_curve_for_widget():
    curve = difficulty_weight_curve()
    assert len(curve) == 99
    assert json.loads(json.dumps(curve)) == curve
    low = min(curve, key=lambda r: r["grpo"])
    assert math.isclose(low["p"], 0.5) and math.isclose(low["grpo"], 1 / 0.51)
    assert curve[0]["grpo"] > 10 and curve[-1]["grpo"] > 10  # "past x10 at the edges"
    assert all(r["dr_grpo"] == 1.0 for r in curve)
    with pytest.raises(ValueError, match="p_min"):
        difficulty_weight_curve(p_min=0.6, p_max=0.4)


def test_dr_grpo_surrogate_uses_a_constant_normaliser():
    mask = torch.tensor([[True] * 2 + [False] * 4, [True] * 6])
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    x = torch.zeros(2, 6, dtype=torch.float64, requires_grad=True)
    loss = dr_grpo_surrogate(x, torch.zeros(2, 6, dtype=torch.float64), adv, mask=mask, max_len=8)
    (g,) = torch.autograd.grad(loss, x)
    # every valid token gets -A / (G * max_len), whatever its response's length
    assert torch.allclose(g[0, :2], torch.full((2,), -1 / 16, dtype=torch.float64))
    assert torch.allclose(g[1], torch.full((6,), 1 / 16, dtype=torch.float64))
    assert bool((g[0, 2:] == 0).all())
    assert math.isclose(float(loss.detach()), -(2 * 1 - 6 * 1) / 16)
    with pytest.raises(ValueError, match="max_len"):
        dr_grpo_surrogate(x, x.detach(), adv, mask=mask, max_len=5)
    with pytest.raises(ValueError, match="logp_new"):
        dr_grpo_surrogate(torch.zeros(3), torch.zeros(3), torch.ones(3))


def test_demonstrate_length_bias_shows_wrong_answers_are_cheaper_when_long():
    recs = demonstrate_length_bias(lengths=(10, 100, 1000))
    assert json.loads(json.dumps(recs)) == recs
    by_len = {r["length"]: r for r in recs}
    for n, r in by_len.items():
        assert math.isclose(r["grpo_correct"], 1 / (2 * n))
        assert math.isclose(r["grpo_incorrect"], -1 / (2 * n))
        assert math.isclose(r["dr_grpo_incorrect"], -1 / (2 * 1000))
        assert math.isclose(r["grpo_incorrect_total"], -0.5)
        assert math.isclose(r["dr_grpo_incorrect_total"], -n / 2000)
    # GRPO: per-token penalty of a wrong answer shrinks with length; Dr. GRPO: constant.
    assert abs(by_len[1000]["grpo_incorrect"]) < abs(by_len[10]["grpo_incorrect"])
    assert by_len[1000]["dr_grpo_incorrect"] == by_len[10]["dr_grpo_incorrect"]
    with pytest.raises(ValueError, match="max_len"):
        demonstrate_length_bias(lengths=(10, 100), max_len=50)
    with pytest.raises(ValueError, match="lengths"):
        demonstrate_length_bias(lengths=())


def test_per_token_push_closed_form_on_a_ragged_group():
    recs = per_token_push([10, 400, 37], [1.0, -1.0, 0.25], max_len=1000)
    assert json.loads(json.dumps(recs)) == recs
    G = 3
    for r in recs:
        n, a = r["length"], r["advantage"]
        assert math.isclose(r["grpo"], a / (G * n), rel_tol=1e-12)
        assert math.isclose(r["grpo_total"], a / G, rel_tol=1e-12)
        assert math.isclose(r["dr_grpo"], a / (G * 1000), rel_tol=1e-12)
        assert math.isclose(r["dr_grpo_total"], a * n / (G * 1000), rel_tol=1e-12)
    # the default budget is the longest response
    assert math.isclose(per_token_push([5, 20], [1.0, -1.0])[0]["dr_grpo"], 1 / 40)


def test_demonstrate_length_bias_is_per_token_push_on_equal_pairs():
    for rec in demonstrate_length_bias(lengths=(7, 70), max_len=100):
        right, wrong = per_token_push([rec["length"]] * 2, [1.0, -1.0], max_len=100)
        assert rec["grpo_correct"] == right["grpo"]
        assert rec["dr_grpo_incorrect_total"] == wrong["dr_grpo_total"]


@pytest.mark.parametrize(
    "args, exc, word",
    [
        (([], []), ValueError, "lengths"),
        (([3, 4], [1.0]), ValueError, "advantages"),
        (([0, 4], [1.0, -1.0]), ValueError, "lengths"),
        (([3.5, 4], [1.0, -1.0]), TypeError, "lengths"),
        (([3, 4], [1.0, float("nan")]), ValueError, "advantages"),
        (([3, 4], "ab"), TypeError, "advantages"),
        ((3, [1.0]), TypeError, "lengths"),
        (([3, 40], [1.0, -1.0], 39), ValueError, "max_len"),
    ],
)
def test_per_token_push_bad_input(args, exc, word):
    with pytest.raises(exc, match=word):
        per_token_push(*args)


def test_length_drift_grpo_grows_wrong_chains_dr_grpo_does_not():
    grpo = length_drift_simulation("grpo", steps=120, seed=3)
    dr = length_drift_simulation("dr_grpo", steps=120, lr=50.0, seed=3)
    assert json.loads(json.dumps(grpo)) == grpo
    assert [r["step"] for r in grpo] == list(range(121))
    assert grpo[0]["wrong_length"] == pytest.approx(20.0, rel=1e-6)  # capped mean ~ 1 / s
    assert grpo[0]["right_length"] == grpo[0]["wrong_length"]
    # GRPO: wrong chains grow, right chains shrink, though length never changes the reward
    assert grpo[-1]["wrong_length"] > 2.5 * grpo[0]["wrong_length"]
    assert grpo[-1]["right_length"] < 0.5 * grpo[0]["right_length"]
    # Dr. GRPO, with per-token steps as large as GRPO's: no trend either way
    for key in ("wrong_length", "right_length"):
        assert all(abs(r[key] - 20.0) < 3.0 for r in dr)
    assert length_drift_simulation("grpo", steps=5, seed=1) == length_drift_simulation(
        "grpo", steps=5, seed=1
    )


def test_length_drift_respects_the_cap():
    recs = length_drift_simulation("grpo", steps=60, max_len=40, start_length=20.0, lr=2.0)
    assert all(r["wrong_length"] <= 40 for r in recs)


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        ({"method": "ppo"}, ValueError, "method"),
        ({"p_correct": 1.0}, ValueError, "p_correct"),
        ({"start_length": 1.0}, ValueError, "start_length"),
        ({"start_length": 2000.0}, ValueError, "start_length"),
        ({"lr": 0.0}, ValueError, "lr"),
        ({"group_size": 1}, ValueError, "group_size"),
        ({"steps": 2.5}, TypeError, "steps"),
    ],
)
def test_length_drift_bad_input(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        length_drift_simulation(**kwargs)
