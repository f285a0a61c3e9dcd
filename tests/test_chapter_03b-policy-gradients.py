"""The policy-gradient chapter executes, prints what its modules compute, and its prose holds."""

from __future__ import annotations

import re

import pytest

from conftest import executed
from policy_gradient import gradient_variance_study
from ppo import gae_bias_variance, ppo_memory

STEM = "03b-policy-gradients"


def inline() -> dict[str, float]:
    return {cell.source: float(text) for cell, text in executed(STEM).inline}


def test_autograd_matches_the_formula():
    out = executed(STEM).stdout()
    auto = re.search(r"autograd: \[(.*)\]", out).group(1)
    hand = re.search(r"by hand : \[(.*)\]", out).group(1)
    assert auto == hand


def test_baseline_claims():
    v = inline()
    assert v["bv_var_mean"] < v["bv_var_none"]
    assert v["bv_best"] < v["bv_mean_reward"]  # "below the mean reward"
    # "beyond twice the best baseline it is worse than no baseline at all"
    from policy_gradient import exact_gradient_variance

    probs, rewards = [0.4, 0.3, 0.2, 0.1], [1.0, 0.0, 0.0, 0.0]
    for b, worse in ((v["bv_worse"] - 0.01, False), (v["bv_worse"] + 0.01, True)):
        var = exact_gradient_variance(probs, rewards, b)["variance"]
        assert (var > v["bv_var_none"]) is worse


def test_variance_study_claims():
    v = inline()
    rows = {r["estimator"]: r for r in gradient_variance_study()}
    assert v["var_none"] == round(rows["none"]["variance"], 3)
    assert v["var_group"] < v["var_rtg"] < v["var_none"]
    assert v["var_true"] < v["var_none"] / 100
    assert v["cut_group"] > 100
    # "within a couple of standard errors of zero" for the first three
    for name in ("none", "reward_to_go", "true_value"):
        assert rows[name]["bias"] < 2.5 * rows[name]["std_error"], name
    # "... which is 1/G" (G = 8)
    assert v["group_bias"] == pytest.approx(1 / 8, abs=0.03)


def test_outcome_reward_to_go_printed():
    assert "outcome rewards -> reward-to-go: [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]" in (
        executed(STEM).stdout()
    )


def test_kl_lines():
    out = executed(STEM).stdout()
    k1 = [float(x) for x in re.search(r"k1 per token\): \[(.*)\]", out).group(1).split(", ")]
    k3 = [float(x) for x in re.search(r"k3 per token\): \[(.*)\]", out).group(1).split(", ")]
    assert k1[1] > 0  # "the k1 term of the second token is negative ... it acts as a bonus"
    assert all(x >= 0 for x in k3)


def test_importance_ratio_line():
    out = executed(STEM).stdout()
    a, b = re.search(r"E_old\[rho f\] = (\S+)\s+E_new\[f\] = (\S+)", out).groups()
    assert a == b


def test_clip_table():
    out = executed(STEM).stdout()
    assert "A = +1: ratios [0.5, 0.8999999761581421, 1.100000023841858, 1.5] -> terms " \
           "[0.5, 0.9, 1.1, 1.2]" in out
    assert "terms [-0.8, -0.9, -1.1, -1.5]" in out


def test_gae_claims():
    v = inline()
    dial = gae_bias_variance()
    assert v["bias0"] == round(dial[0]["bias"], 3) and v["bias0"] < -0.1
    assert abs(v["bias1"]) < 0.02  # "noise"
    assert v["gvar1"] > 2 * v["gvar0"]


def test_memory_claims():
    v = inline()
    rows = ppo_memory(671e9)
    assert v["critic_tb"] == round(671e9 * 16 / 1e12, 1)
    assert v["mem_ppo"] == round(sum(r["bytes"] for r in rows if r["method"] == "ppo") / 1e12, 1)
    assert v["mem_grpo"] == round(sum(r["bytes"] for r in rows if r["method"] == "grpo") / 1e12, 1)
    assert v["mem_grpo"] < v["mem_ppo"]


def test_exercise_solutions():
    out = executed(STEM).stdout()
    m = re.search(r"leave-one-out: bias (\S+) \(std. error (\S+)\)", out)
    assert float(m.group(1)) < 3 * float(m.group(2))
    grads = re.findall(r"d loss / d logp = ([-+.\d]+)", out)
    assert len(grads) == 4 and all(float(g) != 0 for g in grads)  # "None is clipped"
