"""Write data/search_trees.json: the beam-search trees chapter 9's tree widget draws.

For each of four puzzles, every beam width 1..8 and every judge error rate the widget offers
(0, the exact oracle, and ``noisy_evaluator(rate, salt=0)`` for 0.3, 0.5, 0.7, 0.9), record
``tree_of_thoughts.bfs_trace`` compactly: per level 1-3, one row per thought
``[parent index, expr, state, score, kept, on_path, winnable]`` (winnable is the oracle's
verdict on the state, which the widget rings when the judge gave up on it). 160 trees, about
0.7 MB: the widget loads the file with FileAttachment rather than the page carrying it inline.

    python scripts/make_search_trees.py            # writes data/search_trees.json
    python scripts/make_search_trees.py --check    # exit 1 if the file is stale
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))

from data_file import write_or_check  # noqa: E402

from game24 import state_is_solvable  # noqa: E402
from tree_of_thoughts import bfs_trace, noisy_evaluator, oracle_evaluator  # noqa: E402

OUT = ROOT / "data" / "search_trees.json"
PUZZLES = ([4, 9, 10, 13], [3, 3, 8, 8], [2, 3, 7, 7], [2, 5, 5, 13])
BEAMS = (1, 2, 3, 4, 5, 6, 7, 8)
ERRORS = (0.0, 0.3, 0.5, 0.7, 0.9)
SALT = 0


def judge_for(rate: float):
    """The exact oracle at rate 0, else the seeded noisy judge that gives up at that rate."""
    return oracle_evaluator if rate == 0 else noisy_evaluator(rate, salt=SALT)


def compact(trace: dict, winnable: dict[tuple[str, ...], int]) -> list[list[list]]:
    """bfs_trace's levels 1-3 as rows [parent, expr, state, score, kept, on_path, winnable]."""
    levels = []
    for depth in (1, 2, 3):
        parent_at = {node["id"]: i for i, node in enumerate(trace["levels"][depth - 1])}
        rows = []
        for n in trace["levels"][depth]:
            key = tuple(n["state"])
            if key not in winnable:
                winnable[key] = int(state_is_solvable([Fraction(x) for x in key]))
            rows.append(
                [parent_at[n["parent"]], n["expr"], " ".join(n["state"]), n["score"],
                 int(n["kept"]), int(n["on_path"]), winnable[key]]
            )  # fmt: skip
        levels.append(rows)
    return levels


def build() -> dict:
    """Every tree the widget can show, with the puzzles in the order its select lists them."""
    winnable: dict[tuple[str, ...], int] = {}
    trees = []
    for numbers in PUZZLES:
        for beam in BEAMS:
            for rate in ERRORS:
                trace = bfs_trace(numbers, beam, judge_for(rate))
                trees.append(
                    {
                        "puzzle": " ".join(map(str, numbers)),
                        "beam": beam,
                        "error": rate,
                        "solution": trace["solution"],
                        "levels": compact(trace, winnable),
                    }
                )
    return {"puzzles": [" ".join(map(str, p)) for p in PUZZLES], "trees": trees}


def main() -> None:
    """Write the file, or with --check report whether it is stale."""
    write_or_check(OUT, build, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
