"""The words of chapters 12 and 13 that the recorded R1 runs must keep true.

Both chapters print their numbers inline from `data/r1_runs.json`, so a new record changes
every number by itself. The prose around the numbers does not change by itself: "DAPO moved
furthest", "the distilled student beats its teacher", "extending does not help". Each such claim
is one entry below, with

- a check that computes the quantity behind it from the records (through `r1_runs`) and says
  whether the claim holds, with the numbers it looked at,
- the phrases of the prose that make the claim (whitespace aside), so that rewording the prose
  fails here too and the entry gets revisited, and
- a doctor: an edit of a copy of the records under which the claim is false, so that the file
  itself shows every check can fail (for a claim that is false already, an edit that makes it
  true).

A vague word gets a criterion stated in the check's comment ("close": no further apart than two
seeds of one objective, say). After a re-record, a failing `test_the_records_support_the_claim`
prints the numbers it looked at: fix the prose (and the entry's phrases), not the check.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pytest

import r1_runs
from conftest import ROOT

DOC = r1_runs.load_records()
EXERCISE = r1_runs.load_exercise3()
CHAPTERS = {"11": ROOT / "chapters" / "11-r1-pipeline.qmd",
            "12": ROOT / "chapters" / "12-controlling-thinking.qmd"}
OBJECTIVES = tuple(r1_runs.OBJECTIVE_LABELS)

Verdict = tuple[bool, dict]


@dataclass(frozen=True)
class Claim:
    """One claim of the prose: where it is said, how to check it, how to make it false."""

    check: Callable[[Mapping], Verdict]
    words: tuple[tuple[str, str], ...]  # (chapter, phrase): where the prose makes the claim
    doctor: Callable[[dict], None]  # edits a copy of the records in place
    source: str = "records"  # "records" (r1_runs.json) or "exercise" (r1_exercise3.json)
    false_now: str | None = None  # why the claim is already false on the shipped records


CLAIMS: dict[str, Claim] = {}


def claim(*words: tuple[str, str], doctor: Callable[[dict], None], source: str = "records",
          false_now: str | None = None):
    """Register a check under its function's name."""
    def register(check: Callable[[Mapping], Verdict]) -> Callable[[Mapping], Verdict]:
        CLAIMS[check.__name__] = Claim(check, words, doctor, source, false_now)
        return check
    return register


def ch11(phrase: str) -> tuple[str, str]:
    return ("11", phrase)


def ch12(phrase: str) -> tuple[str, str]:
    return ("12", phrase)


# --------------------------------------------------------------------------- doctoring helpers


def _set_p(doc: dict, name: str, value: float, k: int = 1) -> None:
    """Give a run a recorded pass@k (and a narrow interval around it)."""
    final = doc["runs"][name]["final"]
    final["pass_at_k"][str(k)] = value
    final["pass_at_k_ci"][str(k)] = [max(0.0, value - 0.01), min(1.0, value + 0.01)]


def _set_history(doc: dict, name: str, field: str, value: float, last: int | None = None) -> None:
    """Set a training statistic at every step of a run (or at its last `last` steps)."""
    history = doc["runs"][name]["history"]
    for h in history[-last:] if last else history:
        h[field] = value


def _set_budget(doc: dict, model: str, mode: str, field: str, value: float,
                budgets: Callable[[int], bool] = lambda b: True) -> None:
    for row in doc["runs"]["budget"]["rows"]:
        if row["model"] == model and row["mode"] == mode and budgets(row["budget"]):
            row[field] = value


def _seeds(prefix: str) -> list[str]:
    return [f"{prefix}_s{s}" for s in r1_runs.SEEDS]


def _n(doc: Mapping, name: str) -> int:
    """A run's samples per problem in its final evaluation: the largest k it records."""
    return doc["runs"][name]["final"]["samples_per_problem"]


def _set_counts(doc: dict, name: str, count: int, first: int | None = None) -> None:
    """Give a run `count` right chains on every problem (or on its `first` problems)."""
    counts = doc["runs"][name]["final"]["counts"]
    for i in range(len(counts) if first is None else first):
        counts[i] = count


# ------------------------------------------------------------------------- chapter 12: stages 0, 1


@claim(ch11("it imitates its mix"),
       doctor=lambda d: d["runs"]["base4"]["final"]["mode_share"].update(
           chain=1.0, answer_only=0.0))
def base_imitates_its_mix(doc: Mapping) -> Verdict:
    # Ch. 12, stage 0: the base "writes a chain X% of the time and answers bare Y% of the time:
    # it imitates its mix". Criterion: both shares within 10 points of the mix's (bare answers
    # are `answer_only_share` of the mix, chains the rest). The mix is a recorded setting.
    b = r1_runs.stage0_and_1(doc)
    mix_bare = 100 * doc["runs"]["base4"]["mix"]["answer_only_share"]
    ok = (abs(b["base_answer_only"] - mix_bare) <= 10
          and abs(b["base_chain"] - (100 - mix_bare)) <= 10)
    return ok, {"base_answer_only": b["base_answer_only"], "base_chain": b["base_chain"],
                "mix_answer_only": mix_bare}


@claim(ch11("It changes the *form* of the output at once: bare answers fall from"),
       ch11("and well-formed chains rise from"),
       ch11("**SFT moves form cheaply.**"),
       doctor=lambda d: d["runs"]["cold"]["final"]["mode_share"].update(
           chain=0.3, answer_only=0.6))
def cold_start_moves_form(doc: Mapping) -> Verdict:
    # Ch. 12, stage 1: bare answers *fall* and well-formed chains *rise* from base to cold start.
    b = r1_runs.stage0_and_1(doc)
    ok = b["cold_answer_only"] < b["base_answer_only"] and b["cold_chain"] > b["base_chain"]
    return ok, {k: b[k] for k in ("base_answer_only", "cold_answer_only", "base_chain",
                                  "cold_chain")}


@claim(ch11("It changes the *substance* much less"),
       ch11("and barely changed how often it is right"),
       ch11("**The cold start** fixes form, not skill"),
       doctor=lambda d: _set_p(d, "cold", 0.9))
def cold_start_barely_moves_substance(doc: Mapping) -> Verdict:
    # Ch. 12: the cold start "changes the *substance* much less" than the form; "barely changed
    # how often it is right"; summary "fixes form, not skill". Criterion: the change of pass@1,
    # in points, is at most half the fall of the bare-answer share, in points.
    b = r1_runs.stage0_and_1(doc)
    substance = abs(100 * (b["cold_p1"] - b["base_p1"]))
    form = abs(b["base_answer_only"] - b["cold_answer_only"])
    return substance <= form / 2, {"pass1_change_points": round(substance, 1),
                                   "bare_share_change_points": round(form, 1)}


@claim(ch11("A few hundred examples of correct arithmetic"),
       ch11("a few hundred clean chains"),
       ch11("the few hundred curated chains"),
       doctor=lambda d: d["runs"]["cold"].update(examples=5000))
def a_few_hundred_cold_chains(doc: Mapping) -> Verdict:
    # Ch. 12 (stage 1, stage 3, R1-Zero): the cold start is "a few hundred" chains. Criterion:
    # at least 100 and fewer than 1000 (a recorded setting, not a measurement).
    n = r1_runs.stage0_and_1(doc)["cold_examples"]
    return 100 <= n < 1000, {"cold_examples": n}


# --------------------------------------------------------------------------- chapter 12: stage 2


def _gains(doc: Mapping) -> dict[str, float]:
    """Each objective's final pass@1 (mean of its seeds) minus the cold start's."""
    o, cold = r1_runs.stage2_objectives(doc), r1_runs.stage0_and_1(doc)["cold_p1"]
    return {k: round(o[k] - cold, 3) for k in OBJECTIVES}


@claim(ch11("a model twice as accurate came out"),
       doctor=lambda d: _set_p(d, "rl_grpo_s0", 0.9))
def stage2_doubles_accuracy(doc: Mapping) -> Verdict:
    # Ch. 12, stages 3 and 4: "careless text and a few hundred clean chains went in, and a model
    # twice as accurate came out". Criterion: stage 2's pass@1 over the cold start's rounds to 2
    # (between 1.5 and 2.5).
    t, b = r1_runs.stages3_and_4(doc), r1_runs.stage0_and_1(doc)
    ratio = t["s2_p1"] / b["cold_p1"]
    return 1.5 <= ratio < 2.5, {"s2_p1": t["s2_p1"], "cold_p1": b["cold_p1"],
                                "ratio": round(ratio, 2)}


@claim(ch11("DAPO drops the KL penalty, as its paper does, and it moved furthest"),
       ch11("DAPO, with no KL leash, went furthest"),
       doctor=lambda d: [_set_p(d, n, 0.0) for n in _seeds("rl_dapo")])
def dapo_moved_furthest(doc: Mapping) -> Verdict:
    # Ch. 12, stage 2 and summary: DAPO "moved furthest". Measured as the final pass@1, mean of
    # the two seeds (the numbers the paragraph before it prints).
    o = r1_runs.stage2_objectives(doc)
    top = max(OBJECTIVES, key=o.get)
    return top == "dapo", {"furthest": top, **{k: o[k] for k in OBJECTIVES}}


@claim(ch11("holds it much closer to the start, and it moved least"),
       ch11("Dr. GRPO, whose unnormalised loss makes the same leash relatively tighter, least"),
       doctor=lambda d: [_set_p(d, n, 0.99) for n in _seeds("rl_dr_grpo")])
def dr_grpo_moved_least(doc: Mapping) -> Verdict:
    # Ch. 12, stage 2 and summary: Dr. GRPO "moved least" (final pass@1, mean of the seeds).
    o = r1_runs.stage2_objectives(doc)
    bottom = min(OBJECTIVES, key=o.get)
    return bottom == "dr_grpo", {"least": bottom, **{k: o[k] for k in OBJECTIVES}}


@claim(ch11("holds it much closer to the start"),
       ch11("Dr. GRPO ran on a much tighter leash"),
       ch11("and it learned less"),
       doctor=lambda d: [_set_history(d, n, "kl", 1.0) for n in _seeds("rl_dr_grpo")])
def dr_grpo_on_a_tighter_leash(doc: Mapping) -> Verdict:
    # Ch. 12, stage 2 and the length section: the same KL weight "holds it much closer to the
    # start"; "its KL to the start was X per token at the end against GRPO's Y, and it learned
    # less". Criterion for "much": Dr. GRPO's end KL at most half of GRPO's; "learned less":
    # lower final pass@1 (mean of the seeds).
    length, o = r1_runs.output_length(doc), r1_runs.stage2_objectives(doc)
    ok = length["kl_dr_grpo"] <= length["kl_grpo"] / 2 and o["dr_grpo"] < o["grpo"]
    return ok, {"kl_dr_grpo": length["kl_dr_grpo"], "kl_grpo": length["kl_grpo"],
                "dr_grpo": o["dr_grpo"], "grpo": o["grpo"]}


@claim(ch11("and they end close"),
       ch11("more than some gaps between objectives"),
       doctor=lambda d: [_set_p(d, n, 0.9) for n in _seeds("rl_gspo")])
def grpo_and_gspo_end_close(doc: Mapping) -> Verdict:
    # Ch. 12, stage 2: GRPO and GSPO "end close". Criterion: their final pass@1 (mean of the
    # seeds) differ by no more than the largest gap between two seeds of one objective.
    o = r1_runs.stage2_objectives(doc)
    gap = round(abs(o["grpo"] - o["gspo"]), 3)
    return gap <= o["max_seed_gap"], {"grpo": o["grpo"], "gspo": o["gspo"], "gap": gap,
                                      "max_seed_gap": o["max_seed_gap"]}


@claim(ch11("Machinery that rarely engages"),
       ch11("so the per-token fixes have little to fix"),
       doctor=lambda d: [_set_history(d, n, "clip_fraction", 0.5) for n in
                         [*_seeds("rl_grpo"), "rerun_rl_grpo_s0"] if n in d["runs"]])
def per_token_clips_rarely_engage(doc: Mapping) -> Verdict:
    # Ch. 12, stage 2: the per-token clips (GRPO, Dr. GRPO, DAPO, CISPO) "rarely engage" and
    # "have little to fix". Criterion: each clips at most 5% of the token ratios (`clip_activity`,
    # as the paragraph prints them; an objective with no clip statistics fails).
    c = r1_runs.clip_activity(doc)
    per_token = {o: c[o]["clipped"] for o in OBJECTIVES if o != "gspo"}
    return all(v is not None and v <= 5 for v in per_token.values()), per_token


# --------------------------------------------------------------------------- chapter 12: R1-Zero


@claim(ch11('Within `{python} S["eval_every"]` steps the bare answers all but vanish'),
       ch11("RL turns an occasional habit into the only one"),
       ch11('RL alone turns bare answers into chains within `{python} S["eval_every"]` steps'),
       doctor=lambda d: d["runs"]["zero_s0"]["curve"][1]["mode_share"].update(answer_only=0.2))
def r1_zero_bare_answers_vanish(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero and summary: within one check-up interval the bare answers "all but
    # vanish", and "RL turns an occasional habit into the only one". Criterion: at the second
    # check-up at most 2% of samples are bare and at most a tenth of the first check-up's share;
    # at the last check-up of both seeds at most 2%.
    z = r1_runs.r1_zero(doc)
    rows = [r for r in r1_runs.r1_zero_curves(doc) if r["run"].startswith("zero")]
    last = {n: 100 * max((r for r in rows if r["run"] == n), key=lambda r: r["step"])["bare"]
            for n in _seeds("zero")}
    ok = (z["bare_second"] <= 2 and z["bare_second"] <= z["bare_first"] / 10
          and all(v <= 2 for v in last.values()))
    return ok, {"bare_first": z["bare_first"], "bare_second": z["bare_second"],
                **{f"bare_last_{n}": round(v, 1) for n, v in last.items()}}


@claim(ch11("and the mean response grows from"),
       ch11("The response length first grows, as the paper's did"),
       doctor=lambda d: d["runs"]["zero_s0"]["curve"][1].update(length=20.0))
def r1_zero_length_grows(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero and summary: in the first check-up interval "the mean response grows".
    z = r1_runs.r1_zero(doc)
    return z["length_second"] > z["length_first"], {
        "length_first": z["length_first"], "length_second": z["length_second"]}


@claim(ch11("Then the length drifts back down"),
       ch11("as the model sheds re-checks"),
       ch11("then falls back as the model sheds its re-checks"),
       doctor=lambda d: d["runs"]["zero_s0"]["curve"][-1].update(length=40.0, rechecks=0.9))
def r1_zero_length_drifts_down(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero: "Then the length drifts back down ... as the model sheds re-checks".
    z = r1_runs.r1_zero(doc)
    ok = z["length_last"] < z["length_second"] and z["rechecks_last"] < z["rechecks_first"]
    return ok, {k: z[k] for k in ("length_second", "length_last", "rechecks_first",
                                  "rechecks_last")}


@claim(ch11("Accuracy follows: held-out pass@1 goes from"),
       doctor=lambda d: d["runs"]["zero_s1"]["curve"][-1]["pass_at_k"].update({"1": 0.0}))
def r1_zero_accuracy_rises(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero: "Accuracy follows": both seeds end above where they started.
    z = r1_runs.r1_zero(doc)
    ok = min(z["zero_end_s0"], z["zero_end_s1"]) > z["zero_start"]
    return ok, {k: z[k] for k in ("zero_start", "zero_end_s0", "zero_end_s1")}


@claim(ch11("The cold-start runs begin higher"),
       ch11("Here it also gives the same RL a head start"),
       doctor=lambda d: d["runs"]["rl_grpo_s0"]["curve"][0]["pass_at_k"].update({"1": 0.0}))
def cold_runs_begin_higher(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero: the cold-started runs "begin higher" (first check-up).
    z = r1_runs.r1_zero(doc)
    return z["cold_start"] > z["zero_start"], {"cold_start": z["cold_start"],
                                               "zero_start": z["zero_start"]}


@claim(ch11("The cold start's lead shrinks"),
       doctor=lambda d: [d["runs"][n]["curve"][-1]["pass_at_k"].update({"1": 0.0})
                         for n in _seeds("zero")])
def cold_lead_shrinks(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero: "The cold start's lead shrinks, from X at step 0 to Y at step N".
    z = r1_runs.r1_zero(doc)
    return z["gap_end"] < z["gap_start"], {"gap_start": z["gap_start"], "gap_end": z["gap_end"]}


@claim(ch11("and what is left of it is within seed noise"),
       ch11("the two final intervals overlap"),
       ch11("whether the few hundred curated chains are still worth something"),
       doctor=lambda d: [d["runs"][n]["curve"][-1]["pass_at_k"].update({"1": 0.0})
                         for n in _seeds("zero")])
def cold_lead_within_seed_noise(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero: what is left of the cold start's lead "is within seed noise". Criterion:
    # the last check-up's gap (mean of the seeds) is no larger than the largest gap between two
    # seeds of one stage 2 objective, and the final 95% intervals of R1-Zero's and the
    # cold-started GRPO's seed 0 overlap.
    z, gap = r1_runs.r1_zero(doc), r1_runs.stage2_objectives(doc)["max_seed_gap"]
    ok = abs(z["gap_end"]) <= gap and z["zero_final_hi"] >= z["grpo_final_lo"]
    return ok, {"gap_end": z["gap_end"], "max_seed_gap": gap,
                "zero_final_hi": z["zero_final_hi"], "grpo_final_lo": z["grpo_final_lo"]}


@claim(ch11("RL alone gets most of the way"),
       doctor=lambda d: [d["runs"][n]["curve"][-1]["pass_at_k"].update({"1": 0.2})
                         for n in _seeds("zero")])
def rl_alone_gets_most_of_the_way(doc: Mapping) -> Verdict:
    # Ch. 12, R1-Zero: "RL alone gets most of the way". Criterion: from R1-Zero's start, its
    # runs cover more than half the distance to where the cold-started runs end (last
    # check-up, mean of the seeds).
    z = r1_runs.r1_zero(doc)
    zero_end = (z["zero_end_s0"] + z["zero_end_s1"]) / 2
    cold_end = (z["cold_end_s0"] + z["cold_end_s1"]) / 2
    share = (zero_end - z["zero_start"]) / (cold_end - z["zero_start"])
    return share > 0.5, {"share_of_the_way": round(share, 2)}


# --------------------------------------------------------------------------- chapter 12: groups


@claim(ch11("It grows with skill, as predicted"),
       doctor=lambda d: [_set_history(d, n, "zero_advantage_groups", 0.0, last=10)
                         for n in _seeds("rl_grpo")])
def stage2_unanimous_share_grows(doc: Mapping) -> Verdict:
    # Ch. 12, groups that teach nothing: the unanimous share "grows with skill": later than
    # early, under GRPO and under DAPO (its discarded share).
    u = r1_runs.unanimous_groups(doc)
    ok = u["grpo_late"] > u["grpo_early"] and u["dapo_late"] > u["dapo_early"]
    return ok, {k: u[k] for k in ("grpo_early", "grpo_late", "dapo_early", "dapo_late")}


@claim(ch11("The waste is small here because the models are still weak"),
       ch11("a group rarely agrees"),
       doctor=lambda d: [_set_history(d, n, "zero_advantage_groups", 0.5)
                         for n in _seeds("rl_grpo")])
def stage2_waste_is_small(doc: Mapping) -> Verdict:
    # Ch. 12, groups that teach nothing: "The waste is small here". Criterion: at most 10% of
    # the groups, early and late, under GRPO and DAPO.
    u = r1_runs.unanimous_groups(doc)
    shares = {k: u[k] for k in ("grpo_early", "grpo_late", "dapo_early", "dapo_late")}
    return all(v <= 10 for v in shares.values()), shares


@claim(ch11("and there the unanimous share rises from"),
       ch11("the share of unanimous, useless groups grows from"),
       doctor=lambda d: _set_history(d, "stage4_s0", "zero_advantage_groups", 0.0))
def stage4_waste_larger_and_growing(doc: Mapping) -> Verdict:
    # Ch. 12: stage 4 "starts from a much better model, and there the unanimous share rises
    # from X% to Y%". Criterion: it rises, and it starts above both stage-2 late shares.
    u = r1_runs.unanimous_groups(doc)
    ok = (u["stage4_late"] > u["stage4_early"]
          and u["stage4_early"] > max(u["grpo_late"], u["dapo_late"]))
    return ok, {k: u[k] for k in ("stage4_early", "stage4_late", "grpo_late", "dapo_late")}


# --------------------------------------------------------------------------- chapter 12: pass@k


@claim(ch11("RL raises pass@1; every curve above shows it"),
       doctor=lambda d: d["runs"]["rl_cispo_s1"]["curve"][-1]["pass_at_k"].update({"1": 0.0}))
def every_rl_curve_rises(doc: Mapping) -> Verdict:
    # Ch. 12, sharpening: "RL raises pass@1; every curve above shows it". Every stage-2 run's
    # held-out pass@1 ends above where it started.
    rows = r1_runs.curve_rows(doc)
    change = {}
    for run in sorted({r["run"] for r in rows}):
        own = sorted((r for r in rows if r["run"] == run), key=lambda r: r["step"])
        change[run] = round(own[-1]["pass1"] - own[0]["pass1"], 3)
    return all(v > 0 for v in change.values()), change


@claim(ch11("RL mostly **sharpens**"),
       ch11("where the cold start already solves nearly everything"),
       ch11("On this task RL mostly *sharpens*"),
       doctor=lambda d: _set_p(d, "cold", 0.5, k=_n(d, "cold")))
def rl_mostly_sharpens(doc: Mapping) -> Verdict:
    # Ch. 12, sharpening and summary: RL "mostly sharpens": "worth a lot at k = 1 and little at
    # the largest k, where the cold start already solves nearly everything". Criterion, for
    # every objective's seed-0 model against the cold start: the pass@1 intervals do not overlap
    # (RL is above), the pass@n intervals (n = all samples) do overlap or RL's is below (no new
    # skill that the evaluation can see), and the cold start's pass@n is at least 0.95.
    n = r1_runs.settings(doc)["n_final"]
    cold1, cold_n = r1_runs.pass_interval(doc, "cold"), r1_runs.pass_interval(doc, "cold", n)
    evidence = {"cold_pass1": cold1, f"cold_pass{n}": cold_n}
    ok = r1_runs.pass_at(doc, "cold", n) >= 0.95
    for o in OBJECTIVES:
        one, full = (r1_runs.pass_interval(doc, f"rl_{o}_s0", k) for k in (1, n))
        evidence[o] = {"pass1": one, f"pass{n}": full}
        ok = ok and one[0] > cold1[1] and full[0] <= cold_n[1]
    return ok, evidence


@claim(ch11("within the model's reach: pass@`{python} S[\"n_final\"]` did not rise"),
       doctor=lambda d: (_set_counts(d, "rl_grpo_s0", _n(d, "rl_grpo_s0")),
                         _set_counts(d, "cold", 0, first=100)))
def stage2_pass_at_full_did_not_rise(doc: Mapping) -> Verdict:
    # Ch. 12, SFT and RL: after stage 2 (GRPO, seed 0) "pass@n did not rise" (n = all samples,
    # recomputed from the per-problem counts as the sharpening section does).
    k = r1_runs.sharpening(doc)
    return k["after_full"] <= k["before_full"], {"before_full": k["before_full"],
                                                 "after_full": k["after_full"]}


@claim(ch11("is again no higher than the cold start's"),
       doctor=lambda d: (_set_p(d, "stage4_s0", 1.0, k=_n(d, "stage4_s0")),
                         _set_p(d, "cold", 0.9, k=_n(d, "cold"))))
def stage4_pass_at_full_no_higher(doc: Mapping) -> Verdict:
    # Ch. 12, stages 3 and 4: stage 4's pass@n "is again no higher than the cold start's".
    t = r1_runs.stages3_and_4(doc)
    return t["s4_full"] <= t["cold_full"], {"s4_full": t["s4_full"], "cold_full": t["cold_full"]}


@claim(ch11("it lifted the mean count from"),
       doctor=lambda d: _set_counts(d, "rl_grpo_s0", 0))
def hard_problems_lifted(doc: Mapping) -> Verdict:
    # Ch. 12, sharpening: on the problems the cold start almost never solved, GRPO "lifted the
    # mean count".
    k = r1_runs.sharpening(doc)
    return k["hard_after"] > k["hard_before"], {"hard_before": k["hard_before"],
                                                "hard_after": k["hard_after"]}


@claim(ch11("But it solved only"),
       doctor=lambda d: _set_counts(d, "cold", 0, first=100))  # all zero: pass@1 0, no ratio
def few_problems_newly_solved(doc: Mapping) -> Verdict:
    # Ch. 12, sharpening: "But it solved only N problems that the cold start never solved".
    # Criterion for "only": at most 2% of the held-out problems.
    k, s = r1_runs.sharpening(doc), r1_runs.settings(doc)
    return k["newly_solved"] <= 0.02 * s["n_eval"], {"newly_solved": k["newly_solved"],
                                                     "problems": s["n_eval"]}


# --------------------------------------------------------------------------- chapter 12: length


@claim(ch11("Under GRPO the wrong chains hardly move"),
       ch11("and its two seeds moved them in opposite directions"),
       ch11("while the right ones shrink from"),
       doctor=lambda d: [_set_history(d, n, "length_wrong", 50.0, last=10)
                         for n in _seeds("rl_grpo")])
def grpo_wrong_chains_hardly_move(doc: Mapping) -> Verdict:
    # Ch. 12, length: under GRPO the wrong chains "hardly move", its two seeds moving them "in
    # opposite directions", "while the right ones shrink". Criterion for "hardly": the seeds'
    # changes of the wrong chains' length differ in sign; the right chains end shorter.
    change, length = r1_runs.length_changes(doc)["grpo"], r1_runs.output_length(doc)
    wrong = [change[s]["wrong"] for s in r1_runs.SEEDS]
    ok = min(wrong) < 0 < max(wrong) and length["grpo_right_last"] < length["grpo_right_first"]
    return ok, {"wrong_by_seed": wrong, "right_first": length["grpo_right_first"],
                "right_last": length["grpo_right_last"]}


@claim(ch11("The one objective whose wrong chains grew on both seeds is Dr. GRPO"),
       ch11("only Dr. GRPO, the objective without the bias, let its wrong chains grow on both"
            " seeds"),
       doctor=lambda d: [_set_history(d, n, "length_wrong", 20.0, last=10)
                         for n in _seeds("rl_dr_grpo")])
def only_dr_grpo_grew_its_wrong_chains(doc: Mapping) -> Verdict:
    # Ch. 12, length: Dr. GRPO is "the one objective whose wrong chains grew on both seeds".
    change = r1_runs.length_changes(doc)
    grew = [o for o in OBJECTIVES if all(change[o][s]["wrong"] > 0 for s in r1_runs.SEEDS)]
    return grew == ["dr_grpo"], {"grew_on_both_seeds": grew,
                                 "wrong_by_seed": {o: [change[o][s]["wrong"] for s in
                                                       r1_runs.SEEDS] for o in OBJECTIVES}}


@claim(ch11("Every objective made its right chains shorter"),
       doctor=lambda d: [_set_history(d, f"rl_{o}_s{s}", "length_correct", 40.0, last=10)
                         for o in OBJECTIVES for s in r1_runs.SEEDS])
def every_objective_shortened_its_right_chains(doc: Mapping) -> Verdict:
    # Ch. 12, length: "Every objective made its right chains shorter" (the table's right-chain
    # lengths, first against last steps, mean of the seeds).
    length = r1_runs.output_length(doc)
    change = {o: round(length[f"{o}_right_last"] - length[f"{o}_right_first"], 1)
              for o in OBJECTIVES}
    return all(v < 0 for v in change.values()), change


@claim(ch11("and it kept most of its re-checks"),
       doctor=lambda d: [d["runs"][n]["final"].update(rechecks=0.0) for n in _seeds("rl_dr_grpo")])
def dr_grpo_kept_most_rechecks(doc: Mapping) -> Verdict:
    # Ch. 12, length: Dr. GRPO "kept most of its re-checks": its re-checks per chain after RL
    # (mean of the seeds) above half the cold start's.
    length, cold = r1_runs.output_length(doc), r1_runs.stage0_and_1(doc)["cold_rechecks"]
    return length["rechecks_dr_grpo"] > cold / 2, {"dr_grpo": length["rechecks_dr_grpo"],
                                                   "cold": cold}


@claim(ch11("by dropping the re-checks"),
       ch11("The accuracy reward alone therefore pushes the re-checks out, under every objective"),
       doctor=lambda d: d["runs"]["rl_dr_grpo_s1"]["final"].update(rechecks=5.0))
def every_objective_dropped_rechecks(doc: Mapping) -> Verdict:
    # Ch. 12, length: re-checks are pushed out "under every objective": each objective's
    # re-checks per chain after RL (mean of the seeds) are below the cold start's.
    length, cold = r1_runs.output_length(doc), r1_runs.stage0_and_1(doc)["cold_rechecks"]
    rechecks = {o: length[f"rechecks_{o}"] for o in OBJECTIVES}
    return all(v < cold for v in rechecks.values()), {"cold": cold, **rechecks}


@claim(ch11("so long chains were wrong more often from the start"),
       doctor=lambda d: d["runs"]["cold"]["final"].update(length_wrong=10.0))
def long_chains_were_wrong_more_often(doc: Mapping) -> Verdict:
    # Ch. 12, length: the cold start's wrong chains are longer than its right ones.
    length = r1_runs.output_length(doc)
    return length["cold_wrong"] > length["cold_right"], {
        "cold_right": length["cold_right"], "cold_wrong": length["cold_wrong"]}


@claim(ch11("at this scale the bias leaves no trace"),
       ch11("GRPO's wrong chains end as long as those of CISPO"),
       doctor=lambda d: [_set_history(d, n, "length_wrong", 20.0, last=10)
                         for n in _seeds("rl_cispo")])
def grpo_and_cispo_wrong_chains_end_alike(doc: Mapping) -> Verdict:
    # Ch. 12, length and summary: GRPO's and CISPO's wrong chains end "as long as" each other,
    # "the bias leaves no trace". Criterion: their last-steps wrong-chain lengths (mean of the
    # seeds) differ by no more than the two seeds of either objective differ from each other.
    length = r1_runs.output_length(doc)
    seed_gap = max(abs(s[0]["wrong_last"] - s[1]["wrong_last"])
                   for s in (r1_runs.seed_lengths(doc, o) for o in ("grpo", "cispo")))
    gap = abs(length["grpo_wrong_last"] - length["cispo_wrong_last"])
    return gap <= seed_gap, {"grpo_wrong_last": length["grpo_wrong_last"],
                             "cispo_wrong_last": length["cispo_wrong_last"],
                             "gap": round(gap, 2), "seed_gap": round(seed_gap, 2)}


def _final_length_change(doc: Mapping) -> dict[str, float]:
    """Each objective's final mean length (mean of the seeds) minus the cold start's."""
    cold = r1_runs.final_length(doc, "cold")
    return {o: round(sum(r1_runs.final_length(doc, n) for n in _seeds(f"rl_{o}")) / 2 - cold, 2)
            for o in OBJECTIVES}


@claim(ch11("Dr. GRPO, the fix designed for this problem, barely changed length at all"),
       doctor=lambda d: [d["runs"][n]["final"].update(length=20.0) for n in _seeds("rl_dr_grpo")])
def dr_grpo_barely_changed_length(doc: Mapping) -> Verdict:
    # Ch. 12, length: Dr. GRPO "barely changed length at all". Criterion: its final mean length
    # (mean of the seeds) moved from the cold start's by at most half as much as any other
    # objective's did.
    change = _final_length_change(doc)
    others = min(abs(v) for o, v in change.items() if o != "dr_grpo")
    return abs(change["dr_grpo"]) <= others / 2, change


@claim(ch11("every objective *shortened* its chains"),
       doctor=lambda d: [d["runs"][n]["final"].update(length=r1_runs.final_length(d, "cold") + 5)
                         for n in _seeds("rl_dr_grpo")])
def every_objective_shortened_its_chains(doc: Mapping) -> Verdict:
    # Ch. 12, summary: "every objective *shortened* its chains". Criterion: each objective's
    # final mean response length (all its chains, mean of the seeds) is below the cold start's.
    # (By the length table's wrong chains alone Dr. GRPO lengthened them: see
    # no_objective_lengthened_wrong_chains.)
    change = _final_length_change(doc)
    return all(v < 0 for v in change.values()), change


# --------------------------------------------------------------------------- chapter 12: stages 3-4


@claim(ch11("the fine-tuned base is *better than the model whose chains it learned from*"),
       ch11("better than stage 2 itself"),
       ch11("consolidates it, here beyond the RL model it came from"),
       ch12("The stage 3 student beat its teacher because rejection"),
       doctor=lambda d: _set_p(d, "stage3", 0.0))
def stage3_beats_its_teacher(doc: Mapping) -> Verdict:
    # Ch. 12, stage 3 and summary: the SFT'd base beats the stage 2 model it learned from.
    # Criterion: the teacher's pass@1 lies below the student's 95% interval.
    t = r1_runs.stages3_and_4(doc)
    return t["s3_lo"] > t["s2_p1"], {"s3_p1": t["s3_p1"], "s3_lo": t["s3_lo"],
                                     "s2_p1": t["s2_p1"]}


@claim(ch11("malformed outputs fall from"),
       doctor=lambda d: d["runs"]["stage3"]["final"]["mode_share"].update(malformed=0.5))
def stage3_fewer_malformed(doc: Mapping) -> Verdict:
    # Ch. 12, stage 3: "malformed outputs fall from X% to Y%".
    t = r1_runs.stages3_and_4(doc)
    return t["s3_malformed"] < t["s2_malformed"], {"s2_malformed": t["s2_malformed"],
                                                   "s3_malformed": t["s3_malformed"]}


@claim(ch11("the best model of the chapter"),
       ch11("**RL again** builds on the consolidated model"),
       doctor=lambda d: _set_p(d, "stage4_s0", 0.0))
def stage4_is_the_best_model(doc: Mapping) -> Verdict:
    # Ch. 12, stage 4 and summary: RL from stage 3 improves on it and gives "the best model of
    # the chapter": the highest final pass@1 of every recorded model (the reruns aside).
    t = r1_runs.stages3_and_4(doc)
    others = {n: r1_runs.pass_at(doc, n) for n, run in doc["runs"].items()
              if "final" in run and n != "stage4_s0" and not n.startswith("rerun_")}
    best_other = max(others, key=others.get)
    ok = t["s4_p1"] > t["s3_p1"] and t["s4_p1"] > others[best_other]
    return ok, {"s4_p1": t["s4_p1"], "s3_p1": t["s3_p1"], "next_best": best_other,
                "next_best_p1": others[best_other]}


@claim(ch11("They differ a little"),
       doctor=lambda d: d["runs"]["rs"]["stats"].update(problems_covered=1000))
def coverage_prediction_close(doc: Mapping) -> Verdict:
    # Ch. 12, exercise 1: predicted (held-out pass@8 of stage 2) and observed coverage of
    # rejection sampling "differ a little". Criterion: by at most 0.05.
    t = r1_runs.stages3_and_4(doc)
    predicted = r1_runs.pass_at(doc, "rl_grpo_s0", t["rs_per"])
    observed = round(t["rs_covered"] / t["rs_problems"], 3)
    return abs(predicted - observed) <= 0.05, {"predicted": predicted, "observed": observed}


@claim(ch11("That is memorisation as much as reasoning"),
       doctor=lambda ex: ex.update(pass_at_1_after=0.0), source="exercise")
def exercise_rl_raises_training_pass(ex: Mapping) -> Verdict:
    # Ch. 12, exercise 2: "Does it go up?" The recorded run "goes from X to Y" and the answer
    # calls that memorisation: pass@1 on the training problems rose.
    return ex["pass_at_1_after"] > ex["pass_at_1_before"], {
        "before": ex["pass_at_1_before"], "after": ex["pass_at_1_after"]}


@claim(ch11("in about an hour of training on two CPU cores"),
       doctor=lambda d: d["runs"]["base4"]["timing"].update(wall_seconds=100_000.0))
def recipe_runs_in_about_an_hour(doc: Mapping) -> Verdict:
    # Ch. 12, summary: the recipe runs "in about an hour of training on two CPU cores".
    # Criterion: the recorded jobs' wall-clock minutes (one core each), over two cores, between
    # 40 and 90. A job's clock covers its training and check-ups, not the evaluations of the
    # model it starts from and ends with, hence "of training".
    minutes = r1_runs.recorded_minutes(doc)
    return 40 <= minutes / 2 <= 90, {"job_minutes": minutes, "per_two_cores": minutes / 2}


# ----------------------------------------------------------------------- chapter 13: distillation


@claim(ch12("higher than its own teacher"),
       ch12("The distilled student beats its teacher at pass@1"),
       ch12("and even the teacher at pass@1"),
       ch12("the student can even beat its teacher"),
       doctor=lambda d: _set_p(d, "distill", 0.0))
def distilled_student_beats_its_teacher(doc: Mapping) -> Verdict:
    # Ch. 13, distillation, exercise 2 and summary: the distilled student's pass@1 is "higher
    # than its own teacher".
    d = r1_runs.distillation(doc)
    return d["distill_p1"] > d["teacher_p1"], {"distill_p1": d["distill_p1"],
                                               "teacher_p1": d["teacher_p1"]}


@claim(ch12("beats discovering them by trial and error"),
       ch12("distilling a strong teacher beat running RL on the small model"),
       ch12("**Distillation beats RL for the small model**"),
       ch12("outscored RL on the same"),
       ch11("**SFT transfers what RL found.**"),
       doctor=lambda d: _set_p(d, "student_rl_s1", 1.0))
def distillation_beats_rl_for_the_small_model(doc: Mapping) -> Verdict:
    # Ch. 13's verdict ("imitating a strong teacher's verified chains ... beats discovering them
    # by trial and error") and ch. 12's "SFT transfers what RL found": the distilled student
    # beats both seeds of the RL'd student.
    d = r1_runs.distillation(doc)
    ok = d["distill_p1"] > max(d["student_p1_s0"], d["student_p1_s1"])
    return ok, {k: d[k] for k in ("distill_p1", "student_p1_s0", "student_p1_s1")}


@claim(ch12("and costs less once the teacher exists"),
       doctor=lambda d: d["runs"]["distill"]["timing"].update(wall_seconds=100_000.0))
def distillation_costs_less(doc: Mapping) -> Verdict:
    # Ch. 13: distillation "costs less once the teacher exists": fewer minutes than the RL.
    d = r1_runs.distillation(doc)
    return d["distill_minutes"] < d["student_minutes"], {
        "distill_minutes": d["distill_minutes"], "student_minutes": d["student_minutes"]}


@claim(ch12("The margin is modest here"),
       doctor=lambda d: _set_p(d, "distill", 0.9))
def distillation_margin_is_modest(doc: Mapping) -> Verdict:
    # Ch. 13: "The margin is modest here". Criterion: the distilled student leads the RL'd
    # student (mean of its seeds) by less than 0.1 of pass@1.
    d = r1_runs.distillation(doc)
    margin = round(d["distill_p1"] - (d["student_p1_s0"] + d["student_p1_s1"]) / 2, 3)
    return margin < 0.1, {"margin": margin}


@claim(ch12("and hardly at all when many tries are allowed"),
       ch12("since both models can already reach almost every answer"),
       doctor=lambda d: _set_p(d, "distill", 0.5, k=_n(d, "distill")))
def students_lead_vanishes_at_large_k(doc: Mapping) -> Verdict:
    # Ch. 13, exercise 2: the student's lead over its teacher matters at k = 1 "and hardly at
    # all when many tries are allowed, since both models can already reach almost every
    # answer". Criterion: the lead at the largest k is at most a quarter of the lead at k = 1
    # in size, and both models' pass@n is at least 0.95.
    n = r1_runs.distillation(doc)["full_k"]
    p = {(m, k): r1_runs.pass_at(doc, m, k) for m in ("distill", "rl_grpo_s0") for k in (1, n)}
    lead_1 = p["distill", 1] - p["rl_grpo_s0", 1]
    lead_n = p["distill", n] - p["rl_grpo_s0", n]
    ok = (lead_1 > 0 and abs(lead_n) <= lead_1 / 4
          and min(p["distill", n], p["rl_grpo_s0", n]) >= 0.95)
    return ok, {"lead_1": round(lead_1, 3), "lead_n": round(lead_n, 3),
                "distill_n": p["distill", n], "teacher_n": p["rl_grpo_s0", n]}


# --------------------------------------------------------------------------- chapter 13: budgets


def _budgets(doc: Mapping) -> list[int]:
    return sorted({r["budget"] for r in r1_runs.budget_rows(doc)})


def _cost(doc: Mapping, model: str, budget: int) -> float:
    """Tokens per right answer when cut at `budget` (chapter 13's exercise 1)."""
    r = r1_runs.budget_row(doc, model, "cut", budget)
    return (r["thinking_tokens"] + r["answer_tokens"]) / r["accuracy"]


@claim(ch12("measures on three tiny models"),
       ch12("any of the three"),
       doctor=lambda d: d["runs"]["budget"].update(models=["ch2", "cold"]))
def three_models_in_the_sweep(doc: Mapping) -> Verdict:
    # Ch. 13: budget forcing is measured "on three tiny models": chapter 2's reasoner, the cold
    # start and the GRPO model, as the prose names them.
    models = r1_runs.budget_models(doc)
    return models == ["ch2", "cold", "rl_grpo_s0"], {"models": models}


@claim(ch12("RL made the model both more accurate and *briefer* than its cold start"),
       ch12("because it dropped many of its re-checks"),
       doctor=lambda d: _set_budget(d, "rl_grpo_s0", "cut", "thinking_tokens", 100.0))
def rl_made_the_model_more_accurate_and_briefer(doc: Mapping) -> Verdict:
    # Ch. 13: left alone, the GRPO model is more accurate and thinks for fewer tokens than the
    # cold start, "because it dropped many of its re-checks". Criterion for "many": GRPO's
    # re-checks per chain after RL (mean of the seeds) at most two thirds of the cold start's.
    bf, length = r1_runs.budget_forcing(doc), r1_runs.output_length(doc)
    cold_rechecks = r1_runs.stage0_and_1(doc)["cold_rechecks"]
    ok = (bf["rl_grpo_s0_acc"] > bf["cold_acc"] and bf["rl_grpo_s0_think"] < bf["cold_think"]
          and length["rechecks_grpo"] <= cold_rechecks * 2 / 3)
    return ok, {"grpo_acc": bf["rl_grpo_s0_acc"], "cold_acc": bf["cold_acc"],
                "grpo_think": bf["rl_grpo_s0_think"], "cold_think": bf["cold_think"],
                "grpo_rechecks": length["rechecks_grpo"], "cold_rechecks": cold_rechecks}


@claim(ch12("Accuracy climbs steeply while the budget is shorter than the chains"),
       doctor=lambda d: _set_budget(d, "ch2", "cut", "accuracy", 0.926))
def cutting_climbs_steeply(doc: Mapping) -> Verdict:
    # Ch. 13: cut accuracy "climbs steeply while the budget is shorter than the chains".
    # Criterion: for every model, from the short budget the prose quotes to the knee, cut
    # accuracy gains at least half of the model's natural accuracy.
    bf = r1_runs.budget_forcing(doc)
    climb = {m: round(r1_runs.budget_row(doc, m, "cut", bf[f"{m}_knee"])["accuracy"]
                      - bf[f"{m}_short"], 3) for m in r1_runs.budget_models(doc)}
    ok = all(climb[m] >= bf[f"{m}_acc"] / 2 for m in climb)
    return ok, {"climb_short_to_knee": climb,
                "natural": {m: bf[f"{m}_acc"] for m in climb}}


@claim(ch12("and flattens once it covers them"),
       ch12("its useful range ends where the model's own chains do"),
       ch12("up to the length of the model's own chains"),
       doctor=lambda d: _set_budget(d, "ch2", "cut", "accuracy", 0.0,
                                    lambda b: b == _budgets(d)[-2]))
def cutting_flattens_once_chains_fit(doc: Mapping) -> Verdict:
    # Ch. 13: cut accuracy "flattens once it covers them", "its useful range ends where the
    # model's own chains do". Criterion, per model: at every budget from the knee on, cutting
    # keeps the knee's share (95%) of the natural accuracy, and at the knee the chains already
    # think at least 95% of their natural thinking tokens (the budget covers them).
    bf = r1_runs.budget_forcing(doc)
    ok, evidence = True, {}
    for m in r1_runs.budget_models(doc):
        knee, natural = bf[f"{m}_knee"], bf[f"{m}_acc"]
        after = [r1_runs.budget_row(doc, m, "cut", b)["accuracy"] for b in _budgets(doc)
                 if b >= knee]
        think = r1_runs.budget_row(doc, m, "cut", knee)["thinking_tokens"]
        ok = ok and min(after) >= r1_runs.KNEE_SHARE * natural
        ok = ok and think >= r1_runs.KNEE_SHARE * bf[f"{m}_think"]
        evidence[m] = {"knee": knee, "lowest_after_knee": round(min(after), 3),
                       "natural": natural, "think_at_knee": round(think, 1),
                       "think_natural": bf[f"{m}_think"]}
    return ok, evidence


@claim(ch12("**Extending** does not help any of the three"),
       ch12("only hurts"),
       ch12("which none of the tiny ones was"),
       doctor=lambda d: _set_budget(d, "ch2", "extend", "accuracy", 1.0,
                                    lambda b: b == _budgets(d)[-1]))
def extending_helps_no_model(doc: Mapping) -> Verdict:
    # Ch. 13: "Extending does not help any of the three"; summary: it "only hurts". Every
    # model's best extended accuracy is below its natural accuracy.
    bf = r1_runs.budget_forcing(doc)
    pairs = {m: (bf[f"{m}_ext_peak"], bf[f"{m}_acc"]) for m in r1_runs.budget_models(doc)}
    return all(peak < acc for peak, acc in pairs.values()), {"(ext_peak, natural)": pairs}


@claim(ch12("and fall to"),
       ch12("the GRPO model falls to"),
       doctor=lambda d: _set_budget(d, "rl_grpo_s0", "extend", "accuracy", 0.3))
def extended_accuracy_falls(doc: Mapping) -> Verdict:
    # Ch. 13: extended, each model peaks and then "falls to" a lower accuracy at the largest
    # budget.
    bf = r1_runs.budget_forcing(doc)
    pairs = {m: (bf[f"{m}_ext_big"], bf[f"{m}_ext_peak"]) for m in r1_runs.budget_models(doc)}
    return all(big < peak for big, peak in pairs.values()), {"(ext_big, ext_peak)": pairs}


def _grow_costs_beyond_the_knee(doc: dict) -> None:
    """From each model's knee on, every budget is thought through in full at the natural accuracy.

    (The natural accuracy, at the largest budget, stays what it was, so the knee stays put.)
    """
    for m in r1_runs.budget_models(doc):
        knee, natural = r1_runs.budget_knee(doc, m), r1_runs.budget_forcing(doc)[f"{m}_acc"]
        for row in doc["runs"]["budget"]["rows"]:
            if row["model"] == m and row["mode"] == "cut" and row["budget"] >= knee:
                row.update(accuracy=natural, thinking_tokens=float(row["budget"]))


@claim(ch12("beyond the knee, a larger cap buys little accuracy and costs little either"),
       ch12("so the cost per right answer stays about where it was at the knee"),
       doctor=_grow_costs_beyond_the_knee)
def beyond_the_knee_cost_stays(doc: Mapping) -> Verdict:
    # Ch. 13, exercise 1: past the knee the cost per right answer "stays about where it was at
    # the knee". Criterion: cutting at every budget from the knee on costs within 5% of the
    # knee's tokens per right answer.
    evidence, ok = {}, True
    for m in r1_runs.budget_models(doc):
        knee = r1_runs.budget_knee(doc, m)
        costs = [round(_cost(doc, m, b), 2) for b in _budgets(doc) if b >= knee]
        ok = ok and all(abs(c - costs[0]) <= 0.05 * costs[0] for c in costs)
        evidence[m] = costs
    return ok, evidence


@claim(ch12("The models that re-check their steps spend more tokens for the same answer"),
       doctor=lambda d: _set_budget(d, "ch2", "cut", "thinking_tokens", 200.0))
def rechecking_models_pay_more_per_right_answer(doc: Mapping) -> Verdict:
    # Ch. 13, exercise 1: the re-checking models (cold start, GRPO) pay more tokens per right
    # answer, at their knees, than chapter 2's reasoner, which never re-checks.
    cost = {m: round(_cost(doc, m, r1_runs.budget_knee(doc, m)), 1)
            for m in r1_runs.budget_models(doc)}
    return cost["cold"] > cost["ch2"] and cost["rl_grpo_s0"] > cost["ch2"], cost


# --------------------------------------------------------------------------- the tests


def _prose(chapter: str) -> str:
    return " ".join(CHAPTERS[chapter].read_text().split())


def _source(c: Claim) -> dict:
    return EXERCISE if c.source == "exercise" else DOC


def _params(mark_false: bool) -> list:
    """One parameter per claim; with `mark_false`, a claim false already is a strict xfail."""
    out = []
    for name, c in CLAIMS.items():
        false_now = mark_false and c.false_now
        marks = [pytest.mark.xfail(strict=True, reason=c.false_now)] if false_now else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _params(mark_false=False))
def test_the_prose_still_makes_the_claim(name):
    # If this fails the prose was reworded: revisit the claim (is it still made? is the check
    # still the right one?) and update its phrases here.
    for chapter, phrase in CLAIMS[name].words:
        said = " ".join(phrase.split()) in _prose(chapter)
        assert said, f"ch. {chapter} no longer says {phrase!r}"


@pytest.mark.parametrize("name", _params(mark_false=True))
def test_the_records_support_the_claim(name):
    # If this fails after a re-record, the prose makes a claim the new records do not support:
    # fix the prose (and the claim's phrases), not the check.
    c = CLAIMS[name]
    holds, evidence = c.check(_source(c))
    assert holds, f"{name}: {evidence}"


@pytest.mark.parametrize("name", _params(mark_false=False))
def test_the_check_can_fail(name):
    # The doctored copy makes the claim false (for a claim false already: true), and the check
    # must notice; otherwise the check above proves nothing.
    c = CLAIMS[name]
    doctored = copy.deepcopy(_source(c))
    c.doctor(doctored)
    holds, evidence = c.check(doctored)
    assert bool(holds) == (c.false_now is not None), f"{name} on the doctored records: {evidence}"


def test_swapping_dapo_and_dr_grpo_flips_the_ranking_claims():
    # The claim the chapter makes twice: DAPO furthest, Dr. GRPO least. Swapping the two
    # objectives' final evaluations swaps the names the checks find, and so their verdicts
    # (whatever the records rank first and last, which test_the_records_support_the_claim tests).
    doc = copy.deepcopy(DOC)
    for s in r1_runs.SEEDS:
        a, b = doc["runs"][f"rl_dapo_s{s}"], doc["runs"][f"rl_dr_grpo_s{s}"]
        a["final"], b["final"] = b["final"], a["final"]
    swap = {"dapo": "dr_grpo", "dr_grpo": "dapo"}
    for check, key in ((dapo_moved_furthest, "furthest"), (dr_grpo_moved_least, "least")):
        found = check(DOC)[1][key]
        assert check(doc)[1][key] == swap.get(found, found)
        if found in swap:  # the ranking named one of the two: the verdict flips
            assert check(doc)[0] is not check(DOC)[0]


def test_every_claim_names_its_words_and_source():
    for name, c in CLAIMS.items():
        assert c.words and all(ch in CHAPTERS for ch, _ in c.words), name
        assert c.source in ("records", "exercise"), name
