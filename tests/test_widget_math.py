"""Every formula a widget computes in JS agrees with the Python function it mirrors."""

from __future__ import annotations

import itertools

import pytest

from evaluation import cons_at_k_counts, naive_pass_at_k, pass_at_k
from reasoning import (
    best_of_n_accuracy,
    condorcet_majority_prob,
    majority_vote,
    plurality_vote_prob,
    vote_distribution,
)

pytestmark = pytest.mark.browser


def test_votes_match(js):
    cases = [
        ["42", "36", "42", "42", "17", "42"],
        ["7", "9", "9", "7"],
        ["9", "7", "7", "9"],
        [None, None],
        [],
        ["1", None, "2", "2", None, "1", "3"],
    ]
    dists = js.call_many("voting.js", "voteDistribution", [[c] for c in cases])
    votes = js.call_many("voting.js", "majorityVote", [[c] for c in cases])
    for case, d, v in zip(cases, dists, votes, strict=True):
        # same counts in the same order (first appearance), despite numeric-looking answers
        assert [(r["answer"], r["votes"]) for r in d] == list(vote_distribution(case).items())
        assert v == majority_vote(case)


@pytest.mark.parametrize(
    "fn_js,fn_py",
    [
        ("condorcetMajorityProb", condorcet_majority_prob),
    ],
)
def test_condorcet_grid(js, fn_js, fn_py):
    grid = [
        [p, n] for p in (0.0, 0.05, 0.3, 0.5, 0.55, 0.9, 1.0) for n in (1, 2, 3, 10, 41, 101, 1000)
    ]
    got = js.call_many("voting.js", fn_js, grid)
    for (p, n), g in zip(grid, got, strict=True):
        assert g == pytest.approx(fn_py(p, n), abs=1e-9), (p, n)


def test_plurality_grid(js):
    grid = [
        [p, n, d]
        for p in (0.05, 0.25, 0.45, 0.55, 0.9)
        for n in (1, 2, 5, 12, 41)
        for d in (1, 2, 4, 8)
    ]
    got = js.call_many("voting.js", "pluralityVoteProb", grid)
    for (p, n, d), g in zip(grid, got, strict=True):
        assert g == pytest.approx(plurality_vote_prob(p, n, d), abs=1e-9), (p, n, d)


def test_best_of_n_grid(js):
    grid = [
        [p, n, s]
        for p in (0.0, 0.1, 0.3, 0.6, 1.0)
        for n in (1, 2, 8, 64)
        for s in (0.0, 1.0, 3.0, -1.0)
    ]
    got = js.call_many("voting.js", "bestOfNAccuracy", grid)
    for (p, n, s), g in zip(grid, got, strict=True):
        assert g == pytest.approx(best_of_n_accuracy(p, n, s), abs=1e-6), (p, n, s)


def test_pass_at_k_grid(js):
    grid = [
        [n, c, k]
        for n in (1, 5, 100, 1000)
        for c in (0, 1, 3, 30, 100)
        for k in (1, 5, 50, 100)
        if c <= n and k <= n
    ]
    got = js.call_many("voting.js", "passAtK", grid)
    naive = js.call_many("voting.js", "naivePassAtK", grid)
    for (n, c, k), g, nv in zip(grid, got, naive, strict=True):
        assert g == pytest.approx(pass_at_k(n, c, k), abs=1e-12), (n, c, k)
        assert nv == pytest.approx(naive_pass_at_k(n, c, k), abs=1e-12), (n, c, k)


# (answer counts, unreadable answers): ties, a right answer outvoted, a lone right answer.
CONS_TALLIES = [
    ({"42": 30, "41": 25, "43": 25, "40": 20}, 0),
    ({"42": 3, "7": 3}, 0),
    ({"7": 2, "42": 1}, 2),
    ({"42": 5}, 3),
    ({"1": 4, "2": 4, "42": 4, "3": 1}, 1),
]


def test_cons_at_k_grid(js):
    tallies = CONS_TALLIES
    args, expected = [], []
    for (counts, none), k in itertools.product(tallies, (1, 2, 3, 5, 8, 13)):
        n = sum(counts.values()) + none
        if k <= n:
            args.append([counts, "42", k, none])
            expected.append(cons_at_k_counts(counts, "42", k, num_none=none))
    got = js.call_many("voting.js", "consAtKCounts", args)
    for a, g, e in zip(args, got, expected, strict=True):
        assert g == pytest.approx(e, abs=1e-9), a


def test_cons_at_k_curve_matches_every_k(js):
    """consAtKCurve (every k in one pass, what the pass@k explorer draws) is cons_at_k_counts."""
    tallies = [
        *CONS_TALLIES,
        ({"7": 9}, 0),  # no right answer at all
        ({"42": 7, "1": 2, "2": 2, "3": 1}, 0),
    ]
    got = js.call_many("voting.js", "consAtKCurve", [[c, "42", none] for c, none in tallies])
    for (counts, none), curve in zip(tallies, got, strict=True):
        n = sum(counts.values()) + none
        assert len(curve) == n + 1
        for k in range(1, n + 1):
            expected = cons_at_k_counts(counts, "42", k, num_none=none)
            assert curve[k] == pytest.approx(expected, abs=1e-9), (counts, none, k)


def test_pass_at_k_explorer_curves_at_widget_sizes(js):
    """The explorer's cached curves at its own slider sizes (n up to 200) match Python."""
    cases = [[200, 30, 4], [200, 199, 10], [137, 60, 2], [100, 0, 3], [2, 1, 1], [200, 20, 10]]
    got = js.call_many("pass_at_k.js", "passAtKCurves", cases)
    for (n, c, d), rows in zip(cases, got, strict=True):
        tally = {"right": c}
        wrong = n - c
        for i in range(d):  # pass_at_k.evenTally
            share = wrong // d + (1 if i < wrong % d else 0)
            if share:
                tally[f"wrong{i + 1}"] = share
        cons = [r for r in rows if r["estimator"] == "cons@k"]
        assert cons[0]["k"] == 1 and cons[-1]["k"] == n
        for row in cons[:: max(1, len(cons) // 12)] + [cons[-1]]:
            expected = cons_at_k_counts(tally, "right", row["k"])
            assert row["value"] == pytest.approx(expected, abs=1e-9), (n, c, d, row["k"])


def test_js_rejects_bad_input_like_python(js):
    assert "p" in js.call("voting.js", "condorcetMajorityProb", 1.5, 3)["error"]
    assert "n" in js.call("voting.js", "condorcetMajorityProb", 0.5, 0)["error"]
    assert "c" in js.call("voting.js", "passAtK", 5, 7, 1)["error"]
