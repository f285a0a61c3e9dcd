"""Chapter 6 prints the seed's lines, and its prose claims hold for the numbers it computes."""

from __future__ import annotations

import re

import pytest

from conftest import executed
from objectives import OBJECTIVE_LABELS

STEM = "05-dr-grpo"

SEED_LINES = [
    "Dr.GRPO(centered): [0.5, 0.5, -0.5, -0.5]",
    "p= 0.5:  std=0.500   GRPO weight=  1.96\n"
    "p= 0.9:  std=0.300   GRPO weight=  3.23\n"
    "p=0.99:  std=0.099   GRPO weight=  9.13",
]


def inline(stem: str = STEM) -> dict[str, float]:
    return {cell.source: float(text) for cell, text in executed(stem).inline}


@pytest.mark.parametrize("line", SEED_LINES)
def test_prints_the_seed_output(line):
    assert line in executed(STEM).stdout()


def test_grpo_advantages_of_a_balanced_group_print():
    out = executed(STEM).stdout()
    values = re.search(r"GRPO   \(÷ std\): \[(.*)\]", out).group(1).split(", ")
    assert [round(float(x), 5) for x in values] == [1.0, 1.0, -1.0, -1.0]


def test_length_bias_numbers():
    v = inline()
    assert v["wrong_10"] == -0.05 and v["wrong_1000"] == -0.0005 and v["shrink"] == 100
    assert v["grpo_total"] == -0.5
    assert v["dr_token"] == -0.0005
    assert v["dr_total_10"] == -0.005 and v["dr_total_1000"] == -0.5


def test_score_function_bias_check():
    out = executed(STEM).stdout()
    dr = float(re.search(r"E\[score\]\s+\(Dr\. GRPO\) : ([-+\d.]+)", out).group(1))
    grpo, exact = map(
        float,
        re.search(r"E\[score / L\]\s+\(GRPO\)\s+: ([-+\d.]+)\s+exact: ([-+\d.]+)", out).groups(),
    )
    assert abs(dr) < 0.01  # the unweighted score has mean zero
    assert grpo == pytest.approx(exact, abs=0.003) and exact > 0.1


def test_length_drift_claims():
    v = inline()
    assert v["grpo_wrong_end"] > 5 * 20  # wrong chains grow from 20 tokens
    assert v["grpo_right_end"] < 5  # right chains shrink
    assert abs(v["dr_wrong_end"] - 20) < 3  # Dr. GRPO: no trend
    drift = executed(STEM).defines["drift"]
    assert {r["method"] for r in drift} == {"grpo", "dr_grpo"}
    # the widgets name the methods with code/objectives.py's labels, not a copy in JS
    assert executed(STEM).defines["objective_labels"] == OBJECTIVE_LABELS


def test_difficulty_claims():
    v = inline()
    assert (v["w_half"], v["w_90"], v["w_99"]) == (1.96, 3.23, 9.13)
    assert v["w_ratio"] > 4  # "more than four times the pull"


def test_ragged_group_pushes():
    out = executed(STEM).stdout()
    assert "GRPO     right: [0.0833, 0.0833, 0.0833]  wrong: [-0.0417" in out
    assert "Dr. GRPO right: [0.0312, 0.0312, 0.0312]  wrong: [-0.0312" in out


def test_exercise_dapo_normaliser():
    v = inline()
    assert v["dapo_wrong"] == pytest.approx(-1 / 440, abs=1e-6)
    assert v["dapo_wrong_long"] == pytest.approx(v["dapo_wrong"] / 2, abs=1e-6)
