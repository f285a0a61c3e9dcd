"""Write data/beam_sweep.json: beam width x judge error rate, over every solvable Game-of-24 puzzle.

``tree_of_thoughts.build_beam_sweep`` runs ``bfs_search`` on each of the 1362 solvable puzzles
in data/game24.json at every beam width 1..8, under the exact oracle (error rate 0) and under
``noisy_evaluator(rate, salt=0)`` for rates 0.3, 0.5, 0.7 and 0.9, and records which searches
returned a checked derivation. The chapter reads this file rather than recomputing 54,480
searches on every render. This script is its command line.

    python scripts/make_beam_sweep.py              # writes data/beam_sweep.json
    python scripts/make_beam_sweep.py --check      # exit 1 if the file is stale
    python scripts/make_beam_sweep.py --limit 12   # only the first 12 puzzles (a quick look)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "code"))

from data_paths import BEAM_SWEEP_PATH  # noqa: E402
from tree_of_thoughts import build_beam_sweep, render_beam_sweep  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Build the sweep and write (or ``--check``) the file; ``--limit`` prints instead."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the file")
    parser.add_argument("--out", type=Path, default=BEAM_SWEEP_PATH, help="output path")
    parser.add_argument("--limit", type=int, default=None, help="only the first N puzzles")
    args = parser.parse_args(argv)
    sweep = build_beam_sweep(args.limit)
    if args.limit is not None:  # a partial sweep is never written over the data
        for rec in sweep["summary"]:
            print(f"error {rec['error_rate']:.1f}  b={rec['beam_width']}  {rec['solve_rate']:.3f}")
        return 0
    text = render_beam_sweep(sweep)
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale; rerun scripts/make_beam_sweep.py", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}: {sweep['count']} puzzles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
