"""Write data/game24.json: every Game-of-24 puzzle with numbers 1..13, solved by the book's solver.

A puzzle is a multiset of four numbers from 1 to 13, so there are C(13 + 4 - 1, 4) = 1820 of them.
For each, ``game24.puzzle_dataset`` records whether it is solvable (``game24.is_solvable``, the
exhaustive oracle) and one derivation (``game24.solve``) or null; it refuses a universe that
disagrees with the known 1362 solvable multisets. This script is its command line.

    python scripts/make_game24_data.py            # writes data/game24.json
    python scripts/make_game24_data.py --check    # exit 1 if the file is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "code"))

from data_paths import GAME24_PATH  # noqa: E402
from game24 import puzzle_dataset, render_puzzle_dataset  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Build the dataset and write (or ``--check``) the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the file")
    parser.add_argument("--out", type=Path, default=GAME24_PATH, help="output path")
    args = parser.parse_args(argv)
    dataset = puzzle_dataset()
    text = render_puzzle_dataset(dataset)
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
