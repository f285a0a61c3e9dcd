"""Chapter 11 executes, prints the seed's lines (and our own draw), and hands its widgets exactly
what Python computes."""

from __future__ import annotations

import pytest

from conftest import executed
from prm import aggregation_examples, demonstrate_prm, first_error_index, orm_score, step_rewards

STEM = "10-process-reward-models"

SEED_OUTPUT = [
    "per-step PRM rewards: [1, 0, 1]\n"
    "ORM (outcome) score : 1.0\n"
    "PRM (process) score : 0.0\n"
    "first error at step : 1",
    "HE (any reach?) : 1\nSE (fraction)   : 0.4",
    # our draw of the reranking experiment (the seed's draw had 103 / 142 / 155)
    "pool mix: {'valid': 92, 'flawed': 141, 'wrong': 167}\n\n"
    "  N     PRM     ORM  majority\n"
    "  1   0.203   0.203     0.203\n"
    "  2   0.403   0.337     0.247\n"
    "  4   0.683   0.363     0.363\n"
    "  8   0.840   0.347     0.330\n"
    " 16   0.983   0.430     0.400\n"
    " 32   1.000   0.403     0.390\n"
    " 64   1.000   0.423     0.410",
]


def inline() -> dict[str, float]:
    return {cell.source: float(text) for cell, text in executed(STEM).inline}



@pytest.mark.parametrize("line", SEED_OUTPUT)
def test_seed_lines_are_printed(line):
    assert line in executed(STEM).stdout()


def test_prose_numbers():
    values = inline()
    assert values["crux_first"] == 1
    assert values["bad_min"] < 0.3 < 0.6 < values["bad_mean"]  # the mean forgives the bad step
    assert (values["n_valid"], values["n_flawed"], values["n_wrong"]) == (92, 141, 167)
    assert values["ceiling_r"] == round(92 / (92 + 141), 3)
    # ORM and majority stall near the valid share of right answers; the PRM does not
    assert abs(values["orm_64"] - values["ceiling_r"]) < 0.06
    assert abs(values["maj_64"] - values["ceiling_r"]) < 0.06
    assert values["prm_16"] > 0.95
    assert values["miss_16"] > 0.5  # sampled hard estimates miss most winnable states
    assert values["valid_24"] < values["votes_24"]


def test_math_shepherd_agrees_with_the_oracle():
    out = executed(STEM).stdout()
    line = next(x for x in out.splitlines() if x.startswith("HE from exhaustive rollouts"))
    agree, total = (int(w) for w in line.split() if w.isdigit())
    assert agree == total > 100


def test_exercise_output():
    out = executed(STEM).stdout()
    assert "majority vote:      24 (107 votes)" in out
    assert "PRM-weighted vote:  24 (weight 39)" in out
    assert "weight on wrong answers: 0.0" in out


def test_payloads_are_python():
    defines = executed(STEM).defines
    chains = defines["crux_chains"]
    assert chains[0]["steps"] == ["3 * 4 = 12", "12 + 8 = 21", "21 + 3 = 24"]
    verdicts = [(step_rewards(c["steps"]), orm_score(c["steps"], 24)) for c in chains]
    assert len(set(map(str, verdicts))) == len(chains)  # every example chain shows something else
    assert any(first_error_index(c["steps"]) is None for c in chains)
    assert defines["agg_examples"] == aggregation_examples(seed=0)
    assert defines["rerank_demo"] == demonstrate_prm(seed=0)
    mix = defines["rerank_demo"]["pool_mix"]
    assert defines["rerank_ceiling"] == mix["valid"] / (mix["valid"] + mix["flawed"])
