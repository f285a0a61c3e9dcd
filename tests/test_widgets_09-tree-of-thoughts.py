"""Chapter 10's widgets in Chromium: each draws, and each input moves the drawing as Python says."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from conftest import executed
from data_paths import SEARCH_TREES_PATH
from game24 import state_is_solvable
from tree_of_thoughts import (
    bfs_search,
    bfs_trace,
    load_beam_sweep,
    noisy_evaluator,
    oracle_evaluator,
)

pytestmark = pytest.mark.browser
STEM = "09-tree-of-thoughts"
SHOTS = "/tmp"


def judge(rate: float):
    return oracle_evaluator if rate == 0 else noisy_evaluator(rate, salt=0)


def expected_tree(numbers: list[int], b: int, rate: float) -> dict:
    """What the search-tree widget should report, straight from bfs_trace and bfs_search."""
    trace = bfs_trace(numbers, b, judge(rate))
    levels = trace["levels"]
    missed = sum(
        node["score"] == 0 and state_is_solvable([Fraction(x) for x in node["state"]])
        for depth in (1, 2)
        for node in levels[depth]
    )
    found = bfs_search(numbers, b, judge(rate))
    return {
        "nodes1": len(levels[1]),
        "nodes2": len(levels[2]),
        "nodes3": len(levels[3]),
        "kept1": sum(n["kept"] for n in levels[1]),
        "kept2": sum(n["kept"] for n in levels[2]),
        "missed": missed,
        "solved": int(found is not None),
        "derivation": "" if found is None else found.expr,
    }


def check_tree(page, numbers, b, rate):
    want = expected_tree(numbers, b, rate)
    for key in ("nodes1", "nodes2", "nodes3", "kept1", "kept2", "missed", "solved"):
        assert page.readout("search-tree", key) == want[key], (numbers, b, rate, key)
    assert page.readout_text("search-tree", "derivation") == want["derivation"]
    return want


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


def test_search_tree_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("search-tree") > 100  # links, dots and labels of a whole search
    check_tree(page, [4, 9, 10, 13], 3, 0.5)  # the defaults
    assert page.readout("search-tree", "shown") == 3
    page.screenshot('[data-widget="search-tree"]', f"{SHOTS}/search_tree_default.png")
    drawing = page.svg_signature("search-tree")

    page.set_input("Puzzle", "2 3 7 7")
    page.set_input("Judge's error rate", 0.7)
    page.set_input("Beam width b", 1)
    want = check_tree(page, [2, 3, 7, 7], 1, 0.7)
    assert want["solved"] == 0 and want["missed"] > 0  # the greedy chain dead-ends
    assert page.svg_signature("search-tree") != drawing
    page.set_input("Beam width b", 8)
    want = check_tree(page, [2, 3, 7, 7], 8, 0.7)
    assert want["solved"] == 1  # a wide beam kept a winnable backup
    page.screenshot('[data-widget="search-tree"]', f"{SHOTS}/search_tree_2377_b8.png")

    page.set_input("Puzzle", "3 3 8 8")
    page.set_input("Judge's error rate", 0.3)
    assert check_tree(page, [3, 3, 8, 8], 8, 0.3)["solved"] == 0  # one route, misjudged
    page.set_input("Judge's error rate", 0)
    assert check_tree(page, [3, 3, 8, 8], 8, 0.0)["missed"] == 0  # the oracle misses nothing

    page.set_input("Puzzle", "2 5 5 13")
    page.set_input("Beam width b", 5)
    page.set_input("Judge's error rate", 0.5)
    check_tree(page, [2, 5, 5, 13], 5, 0.5)

    full = page.data_marks("search-tree")
    page.set_input("Thoughts revealed", 1)  # step back to the first level of thoughts
    assert page.readout("search-tree", "shown") == 1
    assert page.data_marks("search-tree") < full
    page.set_input("Thoughts revealed", 2)
    assert page.readout("search-tree", "shown") == 2
    page.assert_clean()


def test_search_tree_every_combination_is_recorded(open_chapter):
    """Every puzzle / beam / error-rate the inputs can reach has a recorded tree (no OJS error)."""
    page = open_chapter(STEM, fresh=True)
    record = json.loads(SEARCH_TREES_PATH.read_text())
    trees = record["trees"]
    for puzzle in record["puzzles"]:
        page.set_input("Puzzle", puzzle)
        for rate in (0, 0.9):
            page.set_input("Judge's error rate", rate)
            for b in (2, 7):
                page.set_input("Beam width b", b)
                tree = next(
                    t for t in trees if (t["puzzle"], t["beam"], t["error"]) == (puzzle, b, rate)
                )
                assert page.readout_text("search-tree", "derivation") == (tree["solution"] or "")
    page.assert_clean()


def test_beam_sweep_widget(open_chapter):
    page = open_chapter(STEM)
    summary = load_beam_sweep()["summary"]
    demo = executed(STEM).defines["sweep_demo"]

    def rate(records, e, b):
        return next(
            r["solve_rate"] for r in records if r["error_rate"] == e and r["beam_width"] == b
        )

    def check(e, b):
        assert page.readout("beam-sweep", "full") == pytest.approx(rate(summary, e, b), abs=1e-12)
        assert page.readout("beam-sweep", "demo") == pytest.approx(rate(demo, e, b), abs=1e-12)
        assert page.readout("beam-sweep", "oracle") == 1.0
        assert page.readout("beam-sweep", "greedy") == pytest.approx(rate(summary, e, 1))
        assert page.readout("beam-sweep", "widest") == pytest.approx(rate(summary, e, 8))

    assert page.data_marks("beam-sweep") > 15
    check(0.7, 5)  # the defaults
    page.screenshot('[data-widget="beam-sweep"]', f"{SHOTS}/beam_sweep.png")
    drawing = page.svg_signature("beam-sweep")
    page.set_input("Evaluator error rate", 0.9)
    check(0.9, 5)
    assert page.svg_signature("beam-sweep") != drawing
    page.set_input("Beam width to read off", 8)
    check(0.9, 8)
    assert page.readout("beam-sweep", "demo") == pytest.approx(0.7)  # the brief's 0.20 -> 0.70
    page.set_input("Beam width to read off", 1)
    assert page.readout("beam-sweep", "demo") == pytest.approx(0.2)
    page.set_input("Evaluator error rate", 0.3)
    check(0.3, 1)
    page.assert_clean()
