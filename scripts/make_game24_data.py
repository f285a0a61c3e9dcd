"""Write data/game24.json: every Game-of-24 puzzle with numbers 1..13, solved by the book's solver.

A puzzle is a multiset of four numbers from 1 to 13, so there are C(13 + 4 - 1, 4) = 1820 of them.
For each we record whether it is solvable (``game24.is_solvable``, the exhaustive oracle)
and one derivation (``game24.solve``) or null. The known number of solvable
multisets is 1362; this script refuses to write a file that disagrees.

    python scripts/make_game24_data.py            # writes data/game24.json
    python scripts/make_game24_data.py --check    # exit 1 if the file is stale
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "code"))

from game24 import check_derivation, is_solvable, solve  # noqa: E402

OUT_PATH = ROOT / "data" / "game24.json"
EXPECTED_SOLVABLE = 1362


def build_dataset() -> dict:
    """Every multiset of four numbers in 1..13, in lexicographic order, with its verdict."""
    puzzles = []
    for combo in itertools.combinations_with_replacement(range(1, 14), 4):
        numbers = list(combo)
        solution = solve(numbers)
        solvable = is_solvable(numbers)
        if (solution is not None) != solvable:
            raise RuntimeError(f"solver and oracle disagree on {numbers}")
        if solution is not None and not check_derivation(solution.expr, numbers):
            raise RuntimeError(f"unsound derivation for {numbers}: {solution.expr}")
        puzzles.append(
            {
                "numbers": numbers,
                "solvable": solvable,
                "solution": None if solution is None else solution.expr,
            }
        )
    return {
        "generated_by": "scripts/make_game24_data.py",
        "count": len(puzzles),
        "solvable_count": sum(p["solvable"] for p in puzzles),
        "puzzles": puzzles,
    }


def render(dataset: dict) -> str:
    """JSON with sorted keys, kept compact: one puzzle per line."""
    fields = []
    for key in sorted(dataset):
        if key == "puzzles":
            rows = ",\n".join(f"    {json.dumps(p, sort_keys=True)}" for p in dataset[key])
            fields.append(f'  "puzzles": [\n{rows}\n  ]')
        else:
            fields.append(f"  {json.dumps(key)}: {json.dumps(dataset[key])}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    """Build the dataset, check the solvable count, and write (or ``--check``) the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the file")
    parser.add_argument("--out", type=Path, default=OUT_PATH, help="output path")
    args = parser.parse_args(argv)
    dataset = build_dataset()
    if dataset["solvable_count"] != EXPECTED_SOLVABLE:
        raise SystemExit(
            f"expected {EXPECTED_SOLVABLE} solvable puzzles, found {dataset['solvable_count']}"
        )
    text = render(dataset)
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale; rerun scripts/make_game24_data.py", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}: {dataset['count']} puzzles, {dataset['solvable_count']} solvable")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
