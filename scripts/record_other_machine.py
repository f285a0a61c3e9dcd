"""Record how long a run made on one machine and its rerun on another stay the same run.

    python scripts/record_other_machine.py            # writes data/r1_other_machine.json

The first edition's stage-2 records were made on 2026-11-29 on another machine. Before they were
replaced, the seed-0 job of each objective was rerun on this book's current machine from the
*same* cold-start model (the ``rerun_rl_<objective>_s0`` jobs), so each pair is one job, one seed,
one thread count, two CPUs. Both live in git at ``REV``'s ``data/r1_runs.json``; this script reads
them from there and keeps (`r1_runs.other_machine_record`), per objective, what
`r1_runs.rerun_agreement` measures (how many leading steps agree, and both final pass@1 values),
with that edition's largest seed-to-seed gap for scale. Chapter 11 reads the result (through
`r1_runs.other_machine`); nothing here trains.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))

import r1_runs  # noqa: E402

REV = "e92358b"  # the last commit whose data/r1_runs.json holds the other machine's records
OUT = ROOT / "data" / "r1_other_machine.json"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rev", default=REV, help="the git revision holding both sets of runs")
    args = p.parse_args(argv)
    text = subprocess.run(["git", "show", f"{args.rev}:data/r1_runs.json"], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout
    record = r1_runs.other_machine_record(json.loads(text), args.rev)
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {record['agreement']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
