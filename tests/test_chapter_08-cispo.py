"""Chapter 9 (CISPO) executes, prints the seed's lines and states its numbers from code."""

from __future__ import annotations

import pytest

from conftest import ROOT, executed
from objectives import OBJECTIVE_LABELS

STEM = "08-cispo"

# The lines the seed prints for its calls; the chapter must print them exactly.
SEED_OUTPUT = [
    "Anchor 1  grad == -A/N : True\n          grad = [-0.3333, 0.3333, -0.1667]",
    "fork token (r=3.0, A=+1):  GRPO grad +0.000   CISPO grad -0.600\n"
    "GRPO silences it : True  |  CISPO keeps -(1+ε)·A/N : True",
    "mask == where GRPO keeps a gradient : True",
    "unified(mask=False) ≡ CISPO : True",
    "each fork needs eps >= r - 1: {'However': 0.615, 'Recheck': 0.835, 'Wait': 0.455}",
    "\n".join(
        [
            "  eps   forks learning: GRPO  CISPO",
            "  0.20                     0      3",
            "  0.40                     0      3",
            "  0.50                     1      3",
            "  0.70                     2      3",
            "  0.90                     3      3",
            "GRPO keeps exactly the forks with r - 1 <= eps: True",
        ]
    ),
    "\n".join(  # the reflection table, trailing spaces included
        [
            "    token  ratio    adv   GRPO grad  CISPO grad  fork",
            "      the  1.015   0.10     -0.0127     -0.0127  ",
            "   answer  0.985   0.20     -0.0246     -0.0246  ",
            "       is  1.035  -0.15      0.0194      0.0194  ",
            "  However  1.615   0.90      0.0000     -0.1350  ★",
            "       we  1.005   0.05     -0.0063     -0.0063  ",
            "  Recheck  1.835   0.75      0.0000     -0.1125  ★",
            "     step  0.995  -0.10      0.0124      0.0124  ",
            "     Wait  1.455   0.85      0.0000     -0.1275  ★",
            "",
            "fork tokens still learning →  GRPO: 0/3   CISPO: 3/3",
        ]
    ),
]


@pytest.fixture(scope="module")
def run():
    return executed(STEM)


@pytest.mark.parametrize("line", SEED_OUTPUT)
def test_prints_the_seeds_lines(run, line):
    assert line in run.stdout()


def test_autograd_checks_print_true(run):
    out = run.stdout()
    assert "autograd agrees with both closed forms on 201 ratios: True" in out
    assert "unified(mask=True) gradient ≡ GRPO's : True" in out


def test_exercise_numbers(run):
    values = {cell.source.strip(): text for cell, text in run.inline}
    assert values["frac"] == "0.56"  # GRPO's clipped fraction at eps = 0.2
    assert values["alive"] == "50"  # CISPO keeps every token
    assert values["frac_lo"] == "0.58"
    assert values["frac_hi"] == "0.48"
    assert values["below_floor"] == "0.32"
    assert values["kept_grpo"] == "0"
    assert values["kept_cispo"] == "3"
    assert values["eps_all"] == "0.835"  # the largest fork ratio minus one, not a sweep point
    assert (values["region_lo"], values["region_hi"]) == ("0.165", "1.835")
    assert values["r_wait"] == "1.455"


def test_slider_is_the_grid_the_unit_tests_nudge():
    # tests/test_cispo.py checks every claim at each position of this slider (0.05..0.95 by 0.01)
    text = (ROOT / "chapters" / f"{STEM}.qmd").read_text()
    assert 'Inputs.range([0.05, 0.95], {step: 0.01, value: 0.2, label: "ε_high sweep"})' in text


def test_pitfall_numbers(run):
    values = {cell.source.strip(): text for cell, text in run.inline}
    assert float(values["share_raw"]) > 80  # one r = 50 token dominates unclipped REINFORCE
    assert float(values["share_cis"]) < 20
    assert float(values["blowup"]) == pytest.approx(50 / 1.2, abs=0.05)


def test_payload(run):
    assert set(run.defines) == {"cispo_tokens", "objective_labels", "rt_setup"}
    assert run.defines["objective_labels"] == OBJECTIVE_LABELS  # names defined once, in Python
    assert [t["label"] for t in run.defines["cispo_tokens"]] == [
        "the",
        "answer",
        "is",
        "However",
        "we",
        "Recheck",
        "step",
        "Wait",
    ]


def test_structure_and_citations():
    text = (ROOT / "chapters" / f"{STEM}.qmd").read_text()
    assert text.startswith('---\ntitle: "CISPO: clip the weight, not the token"\n')
    assert "@minimax2025m1" in text
    assert "Pitfall: CISPO is not no clipping" in text
    for section in (
        "## Cliff and plateau",
        "## One template",
        "## Two anchors",
        "## Watch the reflection token survive",
        "## Pitfalls",
        "## Exercises",
        "## Summary",
    ):
        assert section in text, section
