"""Benchmark the Game-of-24 search: print (never assert) how long the expensive parts take.

1. Deciding solvability of all 1820 puzzles (multisets of four numbers from 1..13) with the exact
   oracle ``tree_of_thoughts.is_solvable``, from a cold cache (the memo of solved states is
   cleared first) and then warm. Reference floor: about 0.5 s on one core.
2. The beam-width x error-rate sweep of ``tree_of_thoughts.solve_rate_sweep`` over ALL solvable
   puzzles, on the grid of ``scripts/make_beam_sweep.py`` (beam widths 1..8, error rates 0, 0.3,
   0.5, 0.7, 0.9). Reference floor: about 10 s. This is why the chapter reads the recorded
   ``data/beam_sweep.json`` instead of searching live; the benchmark also reports whether its
   numbers match that file.

    python scripts/bench_search.py               # both parts
    python scripts/bench_search.py --limit 100   # the sweep on the first 100 solvable puzzles
    python scripts/bench_search.py --no-sweep    # the solvability part only
"""

from __future__ import annotations

import argparse
import itertools
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "code"))
sys.path.insert(0, str(ROOT / "scripts"))

from make_beam_sweep import BEAM_WIDTHS, ERROR_RATES, SALT  # noqa: E402

import tree_of_thoughts as tot  # noqa: E402


def bench_solvability() -> dict:
    """Time is_solvable over the whole universe, cold (memo cleared) and then warm."""
    universe = [list(c) for c in itertools.combinations_with_replacement(range(1, 14), 4)]
    tot._solvable.cache_clear()  # the oracle's memo of canonical states: start cold
    start = time.perf_counter()
    verdicts = [tot.is_solvable(p) for p in universe]
    cold = time.perf_counter() - start
    start = time.perf_counter()
    again = [tot.is_solvable(p) for p in universe]
    warm = time.perf_counter() - start
    if again != verdicts:  # pragma: no cover - a memo that changes answers is a bug
        raise RuntimeError("warm and cold verdicts differ")
    return {
        "puzzles": len(universe),
        "solvable": sum(verdicts),
        "cold": cold,
        "warm": warm,
        "states_memoised": tot._solvable.cache_info().currsize,
    }


def bench_sweep(limit: int | None = None) -> dict:
    """Time solve_rate_sweep over the solvable puzzles (the first ``limit`` of them)."""
    puzzles = [p["numbers"] for p in tot.load_puzzles() if p["solvable"]]
    if limit is not None:
        puzzles = puzzles[:limit]
    start = time.perf_counter()
    records = tot.solve_rate_sweep(puzzles, BEAM_WIDTHS, ERROR_RATES, salt=SALT)
    seconds = time.perf_counter() - start
    searches = len(puzzles) * len(BEAM_WIDTHS) * len(ERROR_RATES)
    return {"puzzles": len(puzzles), "searches": searches, "seconds": seconds, "records": records}


def print_sweep(result: dict) -> None:
    rows = {(r["error_rate"], r["beam_width"]): r["solve_rate"] for r in result["records"]}
    print("  error  " + "".join(f"  b={b:<4}" for b in BEAM_WIDTHS))
    for rate in ERROR_RATES:
        print(f"  {rate:>5.1f}  " + "".join(f"  {rows[(rate, b)]:.3f} " for b in BEAM_WIDTHS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="sweep only the first N puzzles")
    parser.add_argument("--no-sweep", action="store_true", help="skip the sweep")
    args = parser.parse_args(argv)
    print(f"Python {platform.python_version()} on {platform.machine()}, one process")

    solv = bench_solvability()
    print(f"\n1. Solvability of all {solv['puzzles']} puzzles ({solv['solvable']} solvable)")
    print(f"   cold cache: {solv['cold']:.2f} s   (reference floor ~0.5 s on one core)")
    print(f"   warm cache: {solv['warm']:.4f} s   ({solv['states_memoised']} states memoised)")

    if not args.no_sweep:
        sweep = bench_sweep(args.limit)
        per_search = 1000 * sweep["seconds"] / sweep["searches"]
        print(
            f"\n2. Beam / error-rate sweep over {sweep['puzzles']} solvable puzzles: "
            f"{sweep['searches']} searches"
        )
        print(
            f"   {sweep['seconds']:.1f} s   ({per_search:.2f} ms per search; reference floor ~10 s)"
        )
        print_sweep(sweep)
        if args.limit is None and tot.BEAM_SWEEP_PATH.exists():
            recorded = tot.load_beam_sweep()["summary"]
            print(f"   matches data/beam_sweep.json: {recorded == sweep['records']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
