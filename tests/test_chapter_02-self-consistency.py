"""Chapter 2's claims in prose hold for the numbers it computes."""

from __future__ import annotations

from conftest import executed
from data_paths import VOTE_SIMS_PATH


def inline(stem: str) -> dict[str, float]:
    return {cell.source: float(text) for cell, text in executed(stem).inline}


def test_slipping_reasoner_is_right_less_than_half_the_time():
    values = inline("02-self-consistency")
    assert values["per_sample_pct"] < 50  # "a single chain is right ... less than half"
    assert values["condorcet_41"] < values["p_low"]  # colluding voters are worse off with 41 votes
    assert values["plurality_41"] > 0.95  # scattered ones are almost always right


def test_verifier_beats_a_stuck_vote():
    values = inline("02-self-consistency")
    assert values["vote_64"] == 0.2 and values["bon_64"] > 0.99


def test_exercise_answers():
    values = inline("02-self-consistency")
    assert values["n_scattered"] < values["n_condorcet"]


def test_recorded_vote_simulations_are_the_seeded_simulations():
    """data/vote_sims.json (the widgets' dots, which the chapter reads) holds what
    demonstrate_self_consistency and simulate_vote_vs_verifier return for each point's seed."""
    import json

    import numpy as np

    from reasoning import demonstrate_self_consistency, simulate_vote_vs_verifier

    sims = json.loads(VOTE_SIMS_PATH.read_text())
    defines = executed("02-self-consistency").defines
    assert defines["condorcet_mc"] == sims["condorcet"]["rows"]
    assert defines["vv_mc"] == sims["vote_vs_verifier"]["rows"]
    ps = np.round(np.arange(0.05, 0.951, 0.05), 2)
    assert len(sims["condorcet"]["rows"]) == len(ps) * 4 * 8
    for i, d in ((0, 1), (10, 4), (18, 8)):  # spot checks: each point has its own seed
        acc = demonstrate_self_consistency(
            p=float(ps[i]), num_distractors=d, trials=sims["condorcet"]["trials"],
            seed=1000 + 10 * i + d, ns=(1, 3, 5, 9, 15, 21, 31, 41), verbose=False,
        )  # fmt: skip
        rows = [r for r in sims["condorcet"]["rows"] if r["p"] == float(ps[i]) and r["D"] == d]
        assert {r["n"]: r["acc"] for r in rows} == acc
    assert len(sims["vote_vs_verifier"]["rows"]) == 6 * 4 * 7
    for p, sep in ((0.1, 0.0), (0.4, 2.0), (0.6, 3.0)):
        sim = simulate_vote_vs_verifier(
            p=p, num_distractors=4, separation=sep, ns=(1, 2, 4, 8, 16, 32, 64),
            trials=sims["vote_vs_verifier"]["trials"], seed=int(100 * p + 10 * sep),
        )  # fmt: skip
        vv_rows = sims["vote_vs_verifier"]["rows"]
        rows = [r for r in vv_rows if (r["p"], r["separation"]) == (p, sep)]
        assert rows == [{"p": p, "separation": sep, **row} for row in sim]
