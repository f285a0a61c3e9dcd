"""Chapter 10 executes, prints the seed's lines, and hands its widgets exactly what Python
computes."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from conftest import executed
from data_paths import SEARCH_TREES_PATH
from game24 import demo_puzzles, state_is_solvable
from tree_of_thoughts import (
    bfs_trace,
    load_beam_sweep,
    noisy_evaluator,
    oracle_evaluator,
    solve_rate_sweep,
)

STEM = "09-tree-of-thoughts"

SEED_OUTPUT = [
    "36 possible thoughts from (4, 9, 10, 13). A few:\n"
    "        4 + 9 = 13   ->  ('10', '13', '13')\n"
    "        4 * 9 = 36   ->  ('10', '13', '36')\n"
    "        4 - 9 = -5   ->  ('-5', '10', '13')\n"
    "         9 - 4 = 5   ->  ('5', '10', '13')",
    "(4, 9, 10, 13) solvable: True\n(1, 1, 1, 1)   solvable: False",
    "solution: 9 - 13 = -4; 4 - 10 = -6; -6 * -4 = 24\nlands on exactly 24: True",
    "(3, 3, 8, 8): 8 / 3 = 8/3; 3 - 8/3 = 1/3; 8 / 1/3 = 24",
]


def inline(name: str) -> str:
    values = {cell.source: text for cell, text in executed(STEM).inline}
    return values[name]



@pytest.mark.parametrize("line", SEED_OUTPUT)
def test_seed_lines_are_printed(line):
    assert line in executed(STEM).stdout()


def test_floats_fumble_the_fractional_route():
    out = executed(STEM).stdout()
    assert "equal to 24? False" in out and "= 24                   equal to 24? True" in out


def test_prose_numbers():
    assert inline("alive") == "7" and inline("len(moves)") == "36"
    assert inline("n_puzzles") == "1820" and inline("n_solvable") == "1362"
    assert int(inline("calls_b5")) > int(inline("calls_b1"))
    # the brief's figures for the 20 demo puzzles, and the full sweep's
    assert (inline("demo_07[0]"), inline("demo_07[1]")) == ("0.35", "0.80")
    assert (inline("demo_09[0]"), inline("demo_09[1]")) == ("0.20", "0.70")
    summary = load_beam_sweep()["summary"]

    def rate(e, b):
        return next(
            r["solve_rate"] for r in summary if r["error_rate"] == e and r["beam_width"] == b
        )

    assert float(inline("full_07[0]")) == round(rate(0.7, 1), 2)
    assert float(inline("full_07[1]")) == round(rate(0.7, 8), 2)
    assert float(inline("full_09[0]")) == round(rate(0.9, 1), 2)
    assert float(inline("full_09[1]")) == round(rate(0.9, 8), 2)
    assert inline("leaves") == "3888"
    assert float(inline("panel_b1")) > 0.35  # the panel of judges beats one judge at b = 1


def test_the_demo_table_and_the_recorded_rows_agree():
    out = executed(STEM).stdout()
    assert "       0.7 0.35   0.65   0.65   0.65   0.80" in out
    assert "recorded rows reproduce the live table: True" in out
    assert "b = 8: 2 * 7 = 14; 3 + 14 = 17; 7 + 17 = 24" in out
    assert "b = 1: dead end: no derivation found" in out


def test_exercise_outputs():
    out = executed(STEM).stdout()
    assert "thoughts from 4, 3, 2 numbers: 36, 18, 6" in out
    assert "b = 1: vote 1.00   oracle 1.00" in out


def test_search_trees_are_bfs_trace():
    """Every tree the widget can show (data/search_trees.json, which it loads) is Python's
    bfs_trace for the same settings."""
    record = json.loads(SEARCH_TREES_PATH.read_text())
    trees = record["trees"]
    assert len(trees) == 4 * 8 * 5
    assert record["puzzles"] == list(dict.fromkeys(t["puzzle"] for t in trees))
    for tree in trees:
        numbers = [int(x) for x in tree["puzzle"].split()]
        judge = oracle_evaluator if tree["error"] == 0 else noisy_evaluator(tree["error"], 0)
        trace = bfs_trace(numbers, tree["beam"], judge)
        assert tree["solution"] == trace["solution"]
        for depth, rows in enumerate(tree["levels"], start=1):
            nodes = trace["levels"][depth]
            parents = [n["id"] for n in trace["levels"][depth - 1]]
            assert len(rows) == len(nodes)
            for row, node in zip(rows, nodes, strict=True):
                parent, expr, state, score, kept, on_path, winnable = row
                assert parents[parent] == node["parent"]
                assert (expr, state.split(), score) == (node["expr"], node["state"], node["score"])
                assert (kept, on_path) == (int(node["kept"]), int(node["on_path"]))
                assert winnable == int(state_is_solvable([Fraction(x) for x in node["state"]]))


def test_sweep_payloads_are_python_sweeps():
    defines = executed(STEM).defines
    assert defines["sweep_full"] == load_beam_sweep()["summary"]
    live = solve_rate_sweep(demo_puzzles(20, 0), tuple(range(1, 9)), (0.0, 0.3, 0.5, 0.7, 0.9), 0)
    key = lambda r: (r["error_rate"], r["beam_width"])  # noqa: E731
    assert sorted(defines["sweep_demo"], key=key) == sorted(live, key=key)
