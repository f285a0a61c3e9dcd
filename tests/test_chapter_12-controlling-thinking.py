"""Chapter 13 covers all four ways to control thinking with their sources, measures budget
forcing from the records, and trains nothing on the render path."""

from __future__ import annotations

import re

import pytest

import r1_runs
from booktools.qmd import parse_file
from conftest import ROOT, executed

STEM = "12-controlling-thinking"
PATH = ROOT / "chapters" / f"{STEM}.qmd"
TRAINING_CALLS = re.compile(r"\b(train_rl|rl_step|sft|pretrain_base|rejection_sample|train)\(")
APPROACHES = {  # subsection heading -> the source it must cite
    "### A budget in the prompt, chosen per problem": "han2024tokenbudget",
    "### Knowing how much room is left": "anthropic2025context",
    "### Budget forcing at decoding time": "muennighoff2025s1",
    "### Thinking without tokens": "hao2024coconut",
}


def _subsection(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n#", 1)[0]


def test_nothing_trains_on_the_render_path():
    cells = [c for c in parse_file(PATH)
             if c.kind == "python" and c.options.get("eval") is not False]
    assert not [c.line for c in cells if TRAINING_CALLS.search(c.source)]


@pytest.mark.parametrize("heading", APPROACHES)
def test_each_approach_cites_its_source_and_says_what_it_needs(heading):
    body = _subsection(PATH.read_text(), heading)
    assert f"@{APPROACHES[heading]}" in body
    assert "needs" in body, f"{heading}: what does it need (training or none)?"


def test_the_comparison_table_has_one_row_per_approach():
    table = _subsection(PATH.read_text(), "### The four side by side")
    rows = [r for r in table.splitlines() if r.startswith("| ") and "---" not in r]
    header, body = rows[0], rows[1:]
    assert "needs training?" in header
    assert len(body) == len(APPROACHES)
    for key in APPROACHES.values():
        assert any(f"@{key}" in r for r in body), key


def test_budget_forcing_prose_reads_the_records():
    doc = r1_runs.load_records()
    bf = r1_runs.budget_forcing(doc)
    inline = {c.source: text for c, text in executed(STEM).inline}
    assert float(inline['BF["ch2_knee"]']) == bf["ch2_knee"]
    assert float(inline['BF["rl_grpo_s0_ext_big"]']) == bf["rl_grpo_s0_ext_big"]
    assert executed(STEM).defines["r1_budget"] == r1_runs.budget_rows(doc)
