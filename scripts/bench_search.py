"""Benchmark the Game-of-24 search: print (never assert) how long the expensive parts take.

1. Deciding solvability of all 1820 puzzles (multisets of four numbers from 1..13) with the exact
   oracle ``game24.is_solvable``, from a cold cache (``clear_caches()`` first) and then
   warm. Floor: 0.5 s of CPU on one core.
2. The beam-width x error-rate sweep of ``tree_of_thoughts.solve_rate_sweep`` over ALL solvable
   puzzles, on the grid of the recorded sweep (``tree_of_thoughts.SWEEP_*``: beam widths 1..8,
   error rates 0, 0.3, 0.5, 0.7, 0.9), also from a cold cache. Floor: 10 s of CPU. The chapter
   still reads the recorded ``data/beam_sweep.json`` instead of searching live; the benchmark
   also reports whether its numbers match that file.

Each figure is CPU time (``time.process_time``: this process only, so other jobs on a busy
machine do not inflate it) and wall time; the verdicts are judged on CPU time.

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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "code"))
import game24  # noqa: E402
import tree_of_thoughts as tot  # noqa: E402
from data_paths import BEAM_SWEEP_PATH  # noqa: E402

# The recorded sweep's grid (data/beam_sweep.json), so the timing and the file are comparable.
BEAM_WIDTHS, ERROR_RATES, SALT = tot.SWEEP_BEAM_WIDTHS, tot.SWEEP_ERROR_RATES, tot.SWEEP_SALT

SOLVABILITY_FLOOR = 0.5  # CPU seconds, all 1820 puzzles from a cold cache
SWEEP_FLOOR = 10.0  # CPU seconds, the full sweep over all solvable puzzles


def timed(fn: Callable, *args: object) -> tuple[object, float, float]:
    """``fn(*args)`` and the CPU and wall seconds it took."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn(*args)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def bench_solvability() -> dict:
    """Time is_solvable over the whole universe, cold (every cache cleared) and then warm."""
    universe = [list(c) for c in itertools.combinations_with_replacement(range(1, 14), 4)]

    def decide() -> list[bool]:
        return [game24.is_solvable(p) for p in universe]

    tot.clear_caches()
    verdicts, cold_cpu, cold_wall = timed(decide)
    again, warm_cpu, warm_wall = timed(decide)
    if again != verdicts:  # pragma: no cover - a memo that changes answers is a bug
        raise RuntimeError("warm and cold verdicts differ")
    return {
        "puzzles": len(universe),
        "solvable": sum(verdicts),
        "cold_cpu": cold_cpu,
        "cold_wall": cold_wall,
        "warm_cpu": warm_cpu,
        "warm_wall": warm_wall,
    }


def bench_sweep(limit: int | None = None) -> dict:
    """Time solve_rate_sweep from a cold cache over the solvable puzzles (the first ``limit``)."""
    puzzles = [p["numbers"] for p in game24.load_puzzles() if p["solvable"]]
    if limit is not None:
        puzzles = puzzles[:limit]
    tot.clear_caches()
    records, cpu, wall = timed(tot.solve_rate_sweep, puzzles, BEAM_WIDTHS, ERROR_RATES, SALT)
    searches = len(puzzles) * len(BEAM_WIDTHS) * len(ERROR_RATES)
    return {
        "puzzles": len(puzzles),
        "searches": searches,
        "cpu": cpu,
        "wall": wall,
        "records": records,
    }


def verdict(cpu: float, floor: float, what: str) -> str:
    """One line: does ``cpu`` meet the floor?"""
    status = "PASS" if cpu <= floor else "FAIL"
    return f"   verdict: {status} -- {what} {cpu:.2f} s CPU vs floor {floor:g} s"


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
    print(f"   cold cache: {solv['cold_cpu']:.3f} s CPU, {solv['cold_wall']:.3f} s wall")
    print(f"   warm cache: {solv['warm_cpu']:.4f} s CPU, {solv['warm_wall']:.4f} s wall")
    print(verdict(solv["cold_cpu"], SOLVABILITY_FLOOR, "cold solvability"))

    if not args.no_sweep:
        sweep = bench_sweep(args.limit)
        per_search = 1000 * sweep["cpu"] / sweep["searches"]
        print(
            f"\n2. Beam / error-rate sweep over {sweep['puzzles']} solvable puzzles: "
            f"{sweep['searches']} searches, cold cache"
        )
        print(
            f"   {sweep['cpu']:.2f} s CPU, {sweep['wall']:.2f} s wall"
            f"   ({per_search:.3f} ms CPU per search)"
        )
        if args.limit is None:
            print(verdict(sweep["cpu"], SWEEP_FLOOR, "full sweep"))
        else:
            print(f"   verdict: n/a -- the {SWEEP_FLOOR:g} s floor is for the full sweep")
        print_sweep(sweep)
        if args.limit is None and BEAM_SWEEP_PATH.exists():
            recorded = tot.load_beam_sweep()["summary"]
            print(f"   matches data/beam_sweep.json: {recorded == sweep['records']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
