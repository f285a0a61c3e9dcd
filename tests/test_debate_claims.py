"""The words of chapter 14 (what RL teaches) that the recorded debate runs must keep true.

The chapter prints its numbers inline from `data/rl_debates.json`, so a new record changes
them by itself; the words around them ("the curves meet", "the base leads", "the random reward
moved nothing without the clip") do not. As in `tests/test_r1_claims.py`, each claim is

- a check that computes the quantity behind it from the records (through `debate_findings`)
  and says whether the claim holds, with the numbers it looked at,
- the phrases of the prose that make it (whitespace aside), so that rewording fails here too,
- a doctor: an edit of a copy of the records under which the claim is false, so that every
  check is seen to fail,
- and, where the chapter once said the opposite, the denials: phrases that contradict the
  claim and must not come back (a Quarto render found "here, the clip" in an exercise's
  solution beside a Result that says the clip is not what moves the run).

A vague word gets its criterion in the check's comment. After a re-record, a failing
`test_the_records_support_the_claim` prints the numbers: fix the prose and the phrases, not the
check.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pytest

import debate_findings as F
from conftest import ROOT

DOC = F.load_debates()
CHAPTER = ROOT / "chapters" / "13-what-rl-teaches.qmd"
GRPO = ("rl_grpo_s0", "rl_grpo_s1")

Verdict = tuple[bool, dict]


@dataclass(frozen=True)
class Claim:
    check: Callable[[Mapping], Verdict]
    words: tuple[str, ...]
    doctor: Callable[[dict], None]
    denials: tuple[str, ...] = ()


CLAIMS: dict[str, Claim] = {}


def claim(*words: str, doctor: Callable[[dict], None], denials: tuple[str, ...] = ()):
    def register(check):
        CLAIMS[check.__name__] = Claim(check, words, doctor, denials)
        return check
    return register


# --------------------------------------------------------------------------- doctoring helpers


def _counts(doc: dict, name: str) -> list[int]:
    final = doc["deep"].get(name) or doc["runs"][name]["final"]
    return final["counts"]


def _samples(doc: dict, name: str) -> int:
    final = doc["deep"].get(name) or doc["runs"][name]["final"]
    return final["samples_per_problem"]


def _scale(doc: dict, name: str, frac: float) -> None:
    """Every problem's right count of ``name`` multiplied by ``frac`` (kept in range)."""
    n = _samples(doc, name)
    counts = _counts(doc, name)
    counts[:] = [min(n, max(0, round(c * frac))) for c in counts]


def _copy_counts(doc: dict, source: str, target: str) -> None:
    """``target``'s counts made ``source``'s, rescaled to ``target``'s samples."""
    n_s, n_t = _samples(doc, source), _samples(doc, target)
    _counts(doc, target)[:] = [round(c * n_t / n_s) for c in _counts(doc, source)]


def _lose_all(doc: dict, name: str, where: Callable[[str], bool]) -> None:
    """``name`` never solves the problems ``where`` picks (they leave its reach)."""
    counts = _counts(doc, name)
    for i, p in enumerate(doc["held_out"]):
        if where(p):
            counts[i] = 0


# --------------------------------------------------------------------------- question 1


@claim("GRPO raised pass@1 from", "R1-Zero goes further. It raises the base's pass@1",
       doctor=lambda d: _copy_counts(d, "cold", "rl_grpo_s1"))
def rl_wins_at_pass1(doc: Mapping) -> Verdict:
    # "raised": the paired gain's whole interval above 0, for both GRPO seeds and for R1-Zero.
    gaps = {a: F.paired_gap(doc, b, a, 1) for a, b in F.PAIRS.items()}
    return all(g["lo"] > 0 for g in gaps.values()), {a: round(g["lo"], 3) for a, g in gaps.items()}


@claim("The lead shrinks as $k$ grows", "its interval reaches zero: the two models can no longer",
       "it is spent by $k$ in the tens", "The curves meet only in the tens of samples",
       doctor=lambda d: _lose_all(d, "cold", lambda p: F.operands(p) == 5))
def the_lead_shrinks_and_vanishes(doc: Mapping) -> Verdict:
    # "shrinks": the gap at the largest k is below the gap at k = 1; "reaches zero": some k's
    # interval includes 0, for both GRPO seeds.
    out = {}
    for after in GRPO:
        rows = F.crossover(doc, after)["rows"]
        out[after] = (round(rows[0]["gap"], 3), round(rows[-1]["gap"], 3),
                      F.crossover(doc, after)["k_meet"])
    # "in the tens of samples": the interval first reaches zero at a k from 10 to 99.
    ok = all(top < first and meet is not None and 10 <= meet < 100
             for first, top, meet in out.values())
    return ok, out


@claim("At no $k$ is the cold start's lead certain for either seed",
       "From the cold start the curves meet and neither model overtakes within the noise",
       "pass@$k$ curves meet in the tens of samples and neither overtakes",
       doctor=lambda d: _scale(d, "rl_grpo_s0", 0.3))
def the_cold_start_never_surely_leads(doc: Mapping) -> Verdict:
    sure = {a: F.crossover(doc, a)["k_sure"] for a in GRPO}
    return all(k is None for k in sure.values()), sure


@claim("the base leads with an interval wholly below zero",
       doctor=lambda d: _copy_counts(d, "base4", "zero_s0"))
def the_base_surely_overtakes_r1_zero(doc: Mapping) -> Verdict:
    c = F.crossover(doc, "zero_s0")
    return c["k_sure"] is not None, {"k_sure": c["k_sure"], "k_meet": c["k_meet"]}


def _sure_ks(doc: Mapping, after: str) -> list[int]:
    """The recorded ks at which the start model's lead is certain (the whole interval < 0)."""
    return [r["k"] for r in F.crossover(doc, after)["rows"] if r["hi"] < 0]


@claim("and at no other recorded $k$", "only at $k$ =",
       "clear of zero at $k$ =", "and at no other $k$ of the table",
       doctor=lambda d: _scale(d, "zero_s0", 0.6),
       denials=("the base is ahead at large $k$ with an interval clear of zero",
                "a small but certain loss"))
def the_base_surely_leads_at_one_k_only(doc: Mapping) -> Verdict:
    # The base's lead over R1-Zero is certain at k_sure and at no other recorded k: at the
    # largest k the interval reaches zero (its upper end 0.0), so "at large k" would overstate.
    sure = _sure_ks(doc, "zero_s0")
    rows = {r["k"]: (round(r["lo"], 4), round(r["hi"], 4))
            for r in F.crossover(doc, "zero_s0")["rows"] if r["k"] >= 32}
    # The prose names k_cross and the largest k as the ks where the interval reaches zero.
    c = F.crossover(doc, "zero_s0")
    k_top = doc["settings"]["deep_ks"][-1]
    ok = sure == [c["k_sure"]] and c["k_cross"] not in sure and k_top not in sure
    return ok, {"sure": sure, "k_cross": c["k_cross"], **rows}


@claim("solves nearly every problem at least once in",
       doctor=lambda d: _lose_all(d, "cold", lambda p: F.operands(p) == 5))
def the_cold_start_reaches_nearly_everything(doc: Mapping) -> Verdict:
    # "nearly every": at least 98% of the held-out problems.
    solved = sum(c > 0 for c in _counts(doc, "cold"))
    return solved >= 0.98 * len(doc["held_out"]), {"solved": solved}


# --------------------------------------------------------------------------- question 2


@claim("Every problem that moved in or out of reach combines four or five numbers",
       doctor=lambda d: _lose_all(d, "rl_grpo_s0", lambda p: F.operands(p) == 3))
def only_long_problems_move(doc: Mapping) -> Verdict:
    moved = {a: F.reach(doc, a)["gained"] + F.reach(doc, a)["lost"] for a in F.PAIRS}
    short = {a: [p for p in ps if F.operands(p) < 4] for a, ps in moved.items()}
    return not any(short.values()), short


@claim("they are a handful among hundreds",
       "gains and losses differ by at most two problems for every pair",
       doctor=lambda d: _lose_all(d, "rl_grpo_s1", lambda p: F.operands(p) == 5 and "-" in p[:3]))
def few_problems_move(doc: Mapping) -> Verdict:
    # "a handful": at most 5 problems gained plus lost per pair.
    r = {a: (len(F.reach(doc, a)["gained"]), len(F.reach(doc, a)["lost"])) for a in F.PAIRS}
    ok = all(g + lost <= 5 and abs(g - lost) <= 2 for g, lost in r.values())
    return ok, r


@claim("RL raised pass@1 on every kind of problem in the table",
       "all of them four- or five-number problems, while raising pass@1 on every kind",
       doctor=lambda d: _lose_all(d, "zero_s0", lambda p: F.operands(p) == 5))
def rl_helps_every_kind_at_pass1(doc: Mapping) -> Verdict:
    rows = {(a, r["kind"]): (round(r["before_p1"], 3), round(r["after_p1"], 3))
            for a in F.PAIRS for r in F.reach(doc, a)["by_kind"]}
    return all(after > before for before, after in rows.values()), rows


def _cold_solves_the_lost_often(doc: dict) -> None:
    lost = set(F.reach(doc, "rl_grpo_s0")["lost"])
    n = _samples(doc, "cold")
    counts = _counts(doc, "cold")
    for i, p in enumerate(doc["held_out"]):
        if p in lost:
            counts[i] = n // 2


@claim("Each combines five numbers, and the cold start solved none of them in more than one"
       " sample in five",
       doctor=_cold_solves_the_lost_often)
def the_lost_problems_were_long_and_rarely_solved(doc: Mapping) -> Verdict:
    # Exercise 2: the problems GRPO seed 0 lost.
    lost = F.reach(doc, "rl_grpo_s0")["lost"]
    share = dict(zip(doc["held_out"], _counts(doc, "cold"), strict=True))
    n = _samples(doc, "cold")
    rows = {p: (F.operands(p), share[p] / n) for p in lost}
    return bool(lost) and all(o == 5 and s <= 0.2 for o, s in rows.values()), rows


@claim("so a study that stopped at $k = 16$ would report a model improved at every budget",
       doctor=lambda d: _copy_counts(d, "cold", "rl_grpo_s0"))
def rl_surely_ahead_up_to_16(doc: Mapping) -> Verdict:
    # Exercise 1: every k <= 16 has the interval of seed 0's gain above zero.
    rows = {k: round(F.paired_gap(doc, "cold", "rl_grpo_s0", k)["lo"], 4)
            for k in doc["settings"]["deep_ks"] if k <= 16}
    return all(lo > 0 for lo in rows.values()), rows


# --------------------------------------------------------------------------- question 3


def _runs(doc: Mapping, reward: str, arm: str | None = None) -> list[dict]:
    return [r for r in F.spurious_table(doc)
            if r["reward"] == reward and (arm is None or r["arm"] == arm)]


def _give_gain(doc: dict, run: str) -> None:
    """``run`` made as good as full training (its final counts: GRPO seed 0's, rescaled)."""
    _copy_counts(doc, "rl_grpo_s0", run)


def _set_history(doc: dict, prefix: str, key: str, value: float) -> None:
    for name, run in doc["runs"].items():
        if name.startswith(prefix):
            for h in run["history"]:
                h[key] = value


def _set_malformed(doc: dict, prefix: str, value: float) -> None:
    for name, run in doc["runs"].items():
        if name.startswith(prefix):
            run["final"]["mode_share"]["malformed"] = value


@claim("The random reward did not raise accuracy in either arm; it lowered it",
       "a random reward lowered accuracy with the clip acting and without it",
       doctor=lambda d: _give_gain(d, "spurious_random_clip_s1"))
def a_random_reward_lowers_accuracy(doc: Mapping) -> Verdict:
    # "lowered": every random-reward run's fall has its whole interval below 0.
    rows = {r["run"]: round(r["hi"], 3) for r in _runs(doc, "random")}
    return len(rows) >= 4 and all(hi < 0 for hi in rows.values()), rows


def _clip_lower_on_every_seed(doc: dict) -> None:
    for seed in (0, 1):
        clip = doc["runs"][f"spurious_random_clip_s{seed}"]
        _copy_counts(doc, f"spurious_random_noclip_s{seed}", f"spurious_random_clip_s{seed}")
        clip["final"]["counts"][:] = [max(0, c - 8) for c in clip["final"]["counts"]]


@claim("The clip made no consistent difference: seed 0 fell further with it, seed 1 without it",
       "by about as much;", "they lowered accuracy in both arms, by about as much",
       "the clip made no consistent difference: the runs in which it never acts fell too",
       doctor=_clip_lower_on_every_seed, denials=("not an unbiased gradient: here, the clip",))
def the_clip_makes_no_consistent_difference(doc: Mapping) -> Verdict:
    # "no consistent difference": the clip arm is lower on one seed and higher on the other
    # (seed 0 lower, as the prose says which).
    diff = {r["seed"]: r["gap"] for r in _runs(doc, "random", "clip")}
    for r in _runs(doc, "random", "noclip"):
        diff[r["seed"]] -= r["gap"]
    return diff[0] < 0 < diff[1], {s: round(v, 3) for s, v in diff.items()}


@claim("What moves a random-reward run is the noise of finite batches",
       "the runs in which it never acts fell too",
       doctor=lambda d: _copy_counts(d, "cold", "spurious_random_noclip_s1"),
       denials=("not an unbiased gradient: here, the clip",))
def the_noclip_arm_falls_too(doc: Mapping) -> Verdict:
    # Exercise 3: with the clip never acting the random reward still moved the model: every
    # no-clip run's change has its whole interval below 0.
    rows = {r["run"]: round(r["hi"], 3) for r in _runs(doc, "random", "noclip")}
    return len(rows) >= 2 and all(hi < 0 for hi in rows.values()), rows


@claim("(its clip fraction is", "as it must be",
       doctor=lambda d: _set_history(d, "spurious_random_noclip", "clip_fraction", 0.01))
def the_noclip_arm_never_clips(doc: Mapping) -> Verdict:
    rows = {n: max(h["clip_fraction"] for h in r["history"]) for n, r in doc["runs"].items()
            if "_noclip_" in n}
    return all(v == 0 for v in rows.values()), rows


@claim("The share of malformed chains", "rose to",
       doctor=lambda d: _set_malformed(d, "spurious_random", 0.0))
def a_random_reward_breaks_the_format(doc: Mapping) -> Verdict:
    cold = doc["deep"]["cold"]["mode_share"]["malformed"]
    rows = {r["run"]: r["malformed"] for r in _runs(doc, "random")}
    return all(m > cold for m in rows.values()), {"cold": cold, **rows}


@claim("so most groups are unanimous",
       doctor=lambda d: _set_history(d, "spurious_format", "zero_advantage_groups", 0.1))
def format_groups_are_mostly_unanimous(doc: Mapping) -> Verdict:
    # "most": more than half the groups a step, on average, and more than the verifier's runs.
    fmt = {r["run"]: r["unanimous"] for r in _runs(doc, "format")}
    real = {r["run"]: r["unanimous"] for r in _runs(doc, "verifiable")}
    ok = all(v > 0.5 and v > max(real.values()) for v in fmt.values())
    return ok, {**fmt, **real}


@claim("malformed chains fell to", doctor=lambda d: _set_malformed(d, "spurious_format", 0.5))
def the_format_reward_fixes_the_format(doc: Mapping) -> Verdict:
    cold = doc["deep"]["cold"]["mode_share"]["malformed"]
    rows = {r["run"]: r["malformed"] for r in _runs(doc, "format")}
    return all(m < cold for m in rows.values()), {"cold": cold, **rows}


@claim("Accuracy fell anyway, in both arms",
       "a format-only reward fixed the format and lowered accuracy too",
       doctor=lambda d: _give_gain(d, "spurious_format_noclip_s0"))
def the_format_reward_lowers_accuracy(doc: Mapping) -> Verdict:
    rows = {r["run"]: round(r["hi"], 3) for r in _runs(doc, "format")}
    return len(rows) >= 2 and all(hi < 0 for hi in rows.values()), rows


# --------------------------------------------------------------------------- question 4


def _few1(doc: Mapping) -> list[dict]:
    return [r for r in F.few_table(doc) if r["problems"] == 1]


@claim("One problem did not raise held-out accuracy; it lowered it",
       "they lost accuracy", "and lost held-out accuracy", "and then cost held-out accuracy",
       doctor=lambda d: _give_gain(d, "few1_s1"))
def one_problem_lowers_accuracy(doc: Mapping) -> Verdict:
    rows = {r["run"]: round(r["hi"], 3) for r in _few1(doc)}
    return len(rows) >= 2 and all(hi < 0 for hi in rows.values()), rows


@claim("Four problems (seed 0) lowered it too",
       doctor=lambda d: _give_gain(d, "few4_s0"))
def four_problems_lower_accuracy(doc: Mapping) -> Verdict:
    rows = {r["run"]: round(r["hi"], 3) for r in F.few_table(doc) if r["problems"] == 4}
    return len(rows) >= 1 and all(hi < 0 for hi in rows.values()), rows


@claim("while the model learned its problem within a few steps",
       "the model learned its one problem in a few steps",
       doctor=lambda d: _set_history(d, "few1", "accuracy", 0.3))
def the_one_problem_is_learned(doc: Mapping) -> Verdict:
    # "within a few steps": the training accuracy of the 10th step is above 0.9, every seed.
    rows = {n: r["history"][9]["accuracy"] for n, r in doc["runs"].items() if n.startswith("few1")}
    return all(a > 0.9 for a in rows.values()), rows


@claim("nearly every group is unanimous and gives no gradient",
       doctor=lambda d: _set_history(d, "few1", "zero_advantage_groups", 0.2))
def late_one_problem_groups_are_unanimous(doc: Mapping) -> Verdict:
    # "nearly every": at least 80% of the groups a step over the last ten steps, every seed.
    rows = {n: sum(h["zero_advantage_groups"] for h in r["history"][-10:]) / 10
            for n, r in doc["runs"].items() if n.startswith("few1")}
    return all(v >= 0.8 for v in rows.values()), rows


@claim("and its chains lost their format", doctor=lambda d: _set_malformed(d, "few1", 0.0))
def one_problem_breaks_the_format(doc: Mapping) -> Verdict:
    cold = doc["deep"]["cold"]["mode_share"]["malformed"]
    rows = {r["run"]: r["malformed"] for r in _few1(doc)}
    return all(m > cold for m in rows.values()), {"cold": cold, **rows}


# --------------------------------------------------------------------------- question 5


def _lengthen_right(doc: dict) -> None:
    for model in doc["deep"]:
        doc["deep"][model]["length_right"] = doc["deep"][model]["length_wrong"] + 5


@claim("wrong chains are longer on average than the right ones",
       "Wrong chains are longer than right ones in every model", doctor=_lengthen_right)
def wrong_chains_are_longer(doc: Mapping) -> Verdict:
    rows = F.length_rows(doc)
    return all(r["length_wrong"] > r["length_right"] for r in rows), {
        r["model"]: (r["length_right"], r["length_wrong"]) for r in rows}


def _cold_right_short(doc: dict) -> None:
    doc["deep"]["cold"]["length_right"] = 10.0


@claim("RL made the *right* chains shorter", "so the gap between them widened",
       doctor=_cold_right_short)
def rl_shortened_right_chains(doc: Mapping) -> Verdict:
    d = doc["deep"]
    gap = {m: d[m]["length_wrong"] - d[m]["length_right"] for m in ("cold", *GRPO)}
    ok = all(d[m]["length_right"] < d["cold"]["length_right"] and gap[m] > gap["cold"]
             for m in GRPO)
    return ok, {m: round(g, 2) for m, g in gap.items()}


# --------------------------------------------------------------------------- the tests


def _prose() -> str:
    return " ".join(CHAPTER.read_text().split())


@pytest.mark.parametrize("name", CLAIMS)
def test_the_prose_still_makes_the_claim(name):
    for phrase in CLAIMS[name].words:
        assert " ".join(phrase.split()) in _prose(), f"the chapter no longer says {phrase!r}"


@pytest.mark.parametrize("name", [n for n, c in CLAIMS.items() if c.denials])
def test_the_prose_does_not_say_the_opposite(name):
    for phrase in CLAIMS[name].denials:
        assert " ".join(phrase.split()) not in _prose(), (
            f"the chapter says {phrase!r}, which {name} contradicts")


@pytest.mark.parametrize("name", CLAIMS)
def test_the_records_support_the_claim(name):
    holds, evidence = CLAIMS[name].check(DOC)
    assert holds, f"{name}: {evidence}"


@pytest.mark.parametrize("name", CLAIMS)
def test_the_check_can_fail(name):
    doctored = copy.deepcopy(DOC)
    CLAIMS[name].doctor(doctored)
    holds, evidence = CLAIMS[name].check(doctored)
    assert not holds, f"{name} on the doctored records: {evidence}"
