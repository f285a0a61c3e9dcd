"""Write data/beam_sweep.json: beam width x judge error rate, over every solvable Game-of-24 puzzle.

For each of the 1362 solvable puzzles in data/game24.json, run ``tree_of_thoughts.bfs_search``
at every beam width 1..8 under the exact oracle (error rate 0) and under
``noisy_evaluator(rate, salt=0)`` for rates 0.3, 0.5, 0.7 and 0.9, and record which searches
returned a checked derivation. The per-puzzle rows come from ``solve_rate_sweep([puzzle], ...)``
(the module's own sweep, one puzzle at a time); the summary adds them up. The chapter reads this
file rather than recomputing 54,480 searches on every render.

    python scripts/make_beam_sweep.py              # writes data/beam_sweep.json
    python scripts/make_beam_sweep.py --check      # exit 1 if the file is stale
    python scripts/make_beam_sweep.py --limit 12   # only the first 12 puzzles (a quick look)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "code"))

from game24 import load_puzzles  # noqa: E402
from tree_of_thoughts import BEAM_SWEEP_PATH, solve_rate_sweep  # noqa: E402

BEAM_WIDTHS = (1, 2, 3, 4, 5, 6, 7, 8)
ERROR_RATES = (0.0, 0.3, 0.5, 0.7, 0.9)
SALT = 0


def build_sweep(limit: int | None = None) -> dict:
    """The sweep over the solvable puzzles (the first ``limit`` of them, in data order)."""
    puzzles = [p["numbers"] for p in load_puzzles() if p["solvable"]]
    if limit is not None:
        puzzles = puzzles[:limit]
    rows = []
    for numbers in puzzles:
        records = solve_rate_sweep([numbers], BEAM_WIDTHS, ERROR_RATES, salt=SALT)
        solved = {(r["error_rate"], r["beam_width"]): r["solved"] for r in records}
        rows.append(
            {
                "numbers": numbers,
                "solved": [[solved[(e, b)] for b in BEAM_WIDTHS] for e in ERROR_RATES],
            }
        )
    summary = []
    for i, rate in enumerate(ERROR_RATES):
        for j, width in enumerate(BEAM_WIDTHS):
            count = sum(row["solved"][i][j] for row in rows)
            summary.append(
                {
                    "beam_width": width,
                    "error_rate": rate,
                    "solve_rate": count / len(rows),
                    "solved": count,
                    "total": len(rows),
                }
            )
    return {
        "generated_by": "scripts/make_beam_sweep.py",
        "salt": SALT,
        "beam_widths": list(BEAM_WIDTHS),
        "error_rates": list(ERROR_RATES),
        "count": len(rows),
        "summary": summary,
        "puzzles": rows,
    }


def render(sweep: dict) -> str:
    """JSON with sorted keys; one summary record and one puzzle per line."""
    fields = []
    for key in sorted(sweep):
        if key in ("summary", "puzzles"):
            lines = ",\n".join(f"    {json.dumps(r, sort_keys=True)}" for r in sweep[key])
            fields.append(f"  {json.dumps(key)}: [\n{lines}\n  ]")
        else:
            fields.append(f"  {json.dumps(key)}: {json.dumps(sweep[key])}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    """Build the sweep and write (or ``--check``) the file; ``--limit`` prints instead."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the file")
    parser.add_argument("--out", type=Path, default=BEAM_SWEEP_PATH, help="output path")
    parser.add_argument("--limit", type=int, default=None, help="only the first N puzzles")
    args = parser.parse_args(argv)
    sweep = build_sweep(args.limit)
    if args.limit is not None:  # a partial sweep is never written over the data
        for rec in sweep["summary"]:
            print(f"error {rec['error_rate']:.1f}  b={rec['beam_width']}  {rec['solve_rate']:.3f}")
        return 0
    text = render(sweep)
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
