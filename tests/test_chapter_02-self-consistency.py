"""Chapter 2's claims in prose hold for the numbers it computes."""

from __future__ import annotations

from conftest import executed


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
