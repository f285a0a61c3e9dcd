"""Write data/vote_sims.json: the seeded Monte-Carlo dots of chapter 2's two voting widgets.

    python scripts/make_vote_sims.py            # writes data/vote_sims.json (a few seconds)
    python scripts/make_vote_sims.py --check    # exit 1 if the file is stale

* "condorcet": ``reasoning.demonstrate_self_consistency`` at p = 0.05, 0.10, ..., 0.95 and
  D = 1, 2, 4, 8 wrong answers, 2000 simulated questions per point, for n = 1 ... 41 voters;
* "vote_vs_verifier": ``reasoning.simulate_vote_vs_verifier`` at p = 0.1 ... 0.6 and verifier
  separation 0, 1, 2, 3, 1500 questions per point, for N = 1 ... 64 samples.

Every point has its own seed, so the file is the same on every machine. The chapter reads it
rather than re-running a hundred simulations on every render; its lines are exact formulas the
widgets compute live.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))

from data_file import write_or_check  # noqa: E402

from reasoning import demonstrate_self_consistency, simulate_vote_vs_verifier  # noqa: E402

OUT = ROOT / "data" / "vote_sims.json"
CONDORCET_TRIALS = 2000
CONDORCET_NS = (1, 3, 5, 9, 15, 21, 31, 41)
VV_TRIALS = 1500
VV_NS = (1, 2, 4, 8, 16, 32, 64)


def condorcet_rows() -> list[dict]:
    """Simulated plurality-vote accuracy for every (p, D, n) the Condorcet widget shows."""
    rows = []
    for i, p in enumerate(np.round(np.arange(0.05, 0.951, 0.05), 2)):
        for d in (1, 2, 4, 8):
            acc = demonstrate_self_consistency(
                p=float(p), num_distractors=d, trials=CONDORCET_TRIALS, seed=1000 + 10 * i + d,
                ns=CONDORCET_NS, verbose=False,
            )  # fmt: skip
            rows += [{"p": float(p), "D": d, "n": n, "acc": a} for n, a in acc.items()]
    return rows


def vote_vs_verifier_rows() -> list[dict]:
    """Simulated vote, best-of-N and weighted vote for every (p, separation) of the widget."""
    rows = []
    for p in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
        for sep in (0.0, 1.0, 2.0, 3.0):
            sim = simulate_vote_vs_verifier(
                p=p, num_distractors=4, separation=sep, ns=VV_NS, trials=VV_TRIALS,
                seed=int(100 * p + 10 * sep),
            )  # fmt: skip
            rows += [{"p": p, "separation": sep, **row} for row in sim]
    return rows


def build() -> dict:
    """Both grids with the trial counts the chapter's prose quotes."""
    return {
        "condorcet": {"trials": CONDORCET_TRIALS, "rows": condorcet_rows()},
        "vote_vs_verifier": {"trials": VV_TRIALS, "rows": vote_vs_verifier_rows()},
    }


def main() -> None:
    """Write the file, or with --check report whether it is stale."""
    write_or_check(OUT, build, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
