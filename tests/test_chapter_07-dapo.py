"""Chapter 8 (DAPO) executes, prints the seed's lines and states its numbers from code."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT, executed
from dapo import kept_fraction, wasted_fraction

STEM = "07-dapo"

# The lines the seed prints for its calls; the chapter must print them exactly.
SEED_OUTPUT = [
    "eps_low == eps_high  ⇒  DAPO ≡ GRPO : True",
    "equal length  → token == sample : True",
    "unequal length → token-level = length-weighted mean : True",
    "rewards=[1.0, 1.0, 1.0, 1.0]  effective=False  (all advantages zero = True)\n"
    "rewards=[0.0, 0.0, 0.0, 0.0]  effective=False  (all advantages zero = True)\n"
    "rewards=[1.0, 0.0, 1.0, 0.0]  effective=True   (all advantages zero = False)",
    "collected 8 effective groups in 13 rollouts (5 unanimous groups discarded)\n"
    "analytic keep rate at p=0.9, G=8: 0.570",
]


@pytest.fixture(scope="module")
def run():
    return executed(STEM)


@pytest.mark.parametrize("line", SEED_OUTPUT)
def test_prints_the_seeds_lines(run, line):
    assert line in run.stdout()


def test_recipe_table_is_printed(run):
    out = run.stdout()
    for name in ("Clip-Higher", "Dynamic Sampling", "Token-Level Loss", "Overlong Shaping"):
        assert name in out
    assert "fixes: entropy collapse" in out


def test_wasted_fractions_in_prose(run):
    values = {cell.source.strip(): text for cell, text in run.inline}
    # the seed rounds these to 66% and 19%; the chapter computes them
    assert values["waste_4"] == str(round(100 * wasted_fraction(0.9, 4))) == "66"
    assert values["waste_16"] == str(round(100 * wasted_fraction(0.9, 16))) == "19"
    assert float(values["expected_rounds"]) == pytest.approx(8 / kept_fraction(0.9, 8), abs=0.05)
    assert values["rounds_seen"] == "13"
    assert values["long_share"] == "0.696"
    assert values["ramp_start"] == "16384"
    assert values["g_90"] == "22"


def test_wasted_table_rows(run):
    out = run.stdout()
    assert " 0.90   65.6%   43.0%   18.5%" in out
    assert "    32          0.250         0.696" in out  # the 32-token chain's share


def test_payload(run):
    assert set(run.defines) == {"grpo_clip_curve", "dapo_eps", "dyn_data", "tok_data",
                                "over_data", "rt_setup"}
    # the clip widget reads its widths from the data, named as every loss names them
    assert run.defines["dapo_eps"] == {"eps_low": 0.2, "eps_high": 0.28}
    assert {d["group_size"] for d in run.defines["dyn_data"]} == {4, 8, 16}
    assert [d["length"] for d in run.defines["tok_data"]] == [2, 4, 8, 32]
    assert len(run.defines["over_data"]) == 61
    ojs = "\n".join(c.source for c in run.ojs_cells)
    for name in run.defines:
        assert re.search(rf"\b{name}\b", ojs), name


def test_structure_and_citations():
    text = (ROOT / "chapters" / f"{STEM}.qmd").read_text()
    assert text.startswith('---\ntitle: "DAPO: four fixes that make a recipe"\n')
    for key in ("yu2025dapo", "liu2025drgrpo", "shao2024deepseekmath", "deepseek2025r1"):
        assert f"@{key}" in text
    for section in (
        "## Clip-Higher",
        "## Dynamic Sampling",
        "## Token-level loss",
        "## Overlong reward shaping",
        "## Pitfalls",
        "## Summary",
        "Key insight",
    ):
        assert section in text, section
    # DAPO's entropy fix is Clip-Higher; the paper has no entropy bonus
    assert "no entropy term" in text
