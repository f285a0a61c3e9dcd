"""The appendix on how the R1 records were made prints the other machine's comparison from
data/r1_other_machine.json (through r1_runs), and it is where chapter 12 points for that story."""

from __future__ import annotations

import r1_runs
from conftest import ROOT, executed

STEM = "appendix-recorded-runs"
PATH = ROOT / "chapters" / f"{STEM}.qmd"


def test_the_page_prints_the_comparison_it_reports():
    # Every inline value on the page is one of the comparison's numbers or the run length.
    other = r1_runs.other_machine()
    steps = r1_runs.settings(r1_runs.load_records())["rl_steps"]
    expected = {str(other["max_seed_gap"]), str(steps)}
    for a in other["agreement"].values():
        expected |= {str(a[k]) for k in ("same_steps", "steps", "rerun_p1", "recorded_p1")}
    shown = [text for _, text in executed(STEM).inline]
    assert shown and set(shown) <= expected, sorted(set(shown) - expected)


def test_chapter_11_points_here_and_no_longer_tells_it():
    chapter = (ROOT / "chapters" / "11-r1-pipeline.qmd").read_text()
    assert "@sec-recorded-runs" in chapter
    assert "r1_other_machine.json" not in chapter  # the story lives in one place
    assert "{#sec-recorded-runs}" in PATH.read_text()
