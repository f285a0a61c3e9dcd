"""code/r1_runs.py: the tables of the recorded R1 runs, checked against the records themselves.

The records are regenerated from time to time (scripts/run_r1.py), so nothing here pins a value:
each test recomputes a quantity from the raw records by its definition, or checks an invariant
that holds for any run, and compares it with what the module returns.
"""

from __future__ import annotations

import copy
import json
import math

import pytest

import r1_runs
from evaluation import mean_pass_at_k

DOC = r1_runs.load_records()
RUNS = DOC["runs"]


def _passk(name: str, k: int) -> float:
    f = RUNS[name]["final"]
    return mean_pass_at_k([(f["samples_per_problem"], c) for c in f["counts"]], k)


def test_every_entry_point_refuses_a_document_that_is_not_the_records():
    for fn in (r1_runs.settings, r1_runs.stage0_and_1, r1_runs.cast_table, r1_runs.training_rows,
               r1_runs.curve_rows, r1_runs.stage2_table, r1_runs.stage2_objectives,
               r1_runs.r1_zero, r1_runs.r1_zero_table, r1_runs.unanimous_groups,
               r1_runs.finals_payload, r1_runs.pass_at_k_table, r1_runs.sharpening,
               r1_runs.output_length, r1_runs.output_length_table, r1_runs.stages3_and_4,
               r1_runs.distillation, r1_runs.stage_cards, r1_runs.budget_rows,
               r1_runs.budget_forcing, r1_runs.budget_table):
        with pytest.raises(TypeError, match="doc"):
            fn([1, 2])
        with pytest.raises(ValueError, match="doc"):
            fn({"runs": [], "settings": {}})


# --------------------------------------------------------------------------- one run's numbers


def test_pass_at_is_the_recorded_estimate_rounded():
    for name in ("base4", "cold", "rl_grpo_s0", "stage3", "distill"):
        n = RUNS[name]["final"]["samples_per_problem"]
        for k in (1, n):
            recorded = RUNS[name]["final"]["pass_at_k"][str(k)]
            assert r1_runs.pass_at(DOC, name, k) == round(recorded, 3)
            assert r1_runs.pass_at(DOC, name, k) == pytest.approx(_passk(name, k), abs=2e-3)
    with pytest.raises(ValueError, match="name"):
        r1_runs.pass_at(DOC, "no_such_run")
    with pytest.raises(ValueError, match="k"):
        r1_runs.pass_at(DOC, "cold", 3)  # not a recorded k
    with pytest.raises(TypeError, match="k"):
        r1_runs.pass_at(DOC, "cold", 1.5)


def test_settings_are_the_records_settings():
    s = r1_runs.settings(DOC)
    cfg = RUNS["rl_grpo_s0"]["config"]
    assert s["batch_chains"] == cfg["prompts_per_step"] * cfg["group_size"]
    assert s["n_final"] == RUNS["cold"]["final"]["samples_per_problem"]
    acc = [h["accuracy"] for n in RUNS if n.startswith("rl_") for h in RUNS[n]["history"]]
    assert s["train_acc_lo"] == round(min(acc), 2) and s["train_acc_hi"] == round(max(acc), 2)
    assert s["rl_minutes_lo"] <= s["rl_minutes_hi"]


# --------------------------------------------------------------------------- stage 2


def test_training_rows_cover_every_step_of_every_objective_and_seed():
    rows = r1_runs.training_rows(DOC)
    names = {f"rl_{o}_s{s}" for o in r1_runs.OBJECTIVE_LABELS for s in r1_runs.SEEDS}
    assert {r["run"] for r in rows} == names
    assert len(rows) == sum(len(RUNS[n]["history"]) for n in names)
    assert all(v is None or math.isfinite(v) for r in rows for v in r.values()
               if isinstance(v, float))


def test_unanimous_share_is_the_discarded_share_under_dynamic_sampling():
    doc = copy.deepcopy(DOC)
    h = doc["runs"]["rl_dapo_s0"]["history"][0]
    h.update(groups=16.0, discarded_groups=4.0, zero_advantage_groups=0.0)
    g = doc["runs"]["rl_grpo_s0"]["history"][0]
    g.update(groups=16.0, discarded_groups=0.0, zero_advantage_groups=0.25)
    rows = {(r["run"], r["step"]): r for r in r1_runs.training_rows(doc)}
    assert rows["rl_dapo_s0", h["step"]]["zero_adv"] == pytest.approx(4 / 20)
    assert rows["rl_dapo_s0", h["step"]]["drawn"] == 20
    assert rows["rl_grpo_s0", g["step"]]["zero_adv"] == 0.25


def test_missing_statistics_become_null_for_the_browser():
    doc = copy.deepcopy(DOC)
    doc["runs"]["rl_gspo_s1"]["history"][3]["length_correct"] = float("nan")
    row = [r for r in r1_runs.training_rows(doc) if r["run"] == "rl_gspo_s1"][3]
    assert row["length_right"] is None


def test_objective_means_and_seed_gap():
    o = r1_runs.stage2_objectives(DOC)
    for key in r1_runs.OBJECTIVE_LABELS:
        p0 = RUNS[f"rl_{key}_s0"]["final"]["pass_at_k"]["1"]
        p1 = RUNS[f"rl_{key}_s1"]["final"]["pass_at_k"]["1"]
        assert o[key] == round((p0 + p1) / 2, 3)
        assert o["max_seed_gap"] >= round(abs(p0 - p1), 3)
    table = r1_runs.stage2_table(DOC)
    assert [r["objective"] for r in table] == list(r1_runs.OBJECTIVE_LABELS.values())


def test_every_objective_the_records_hold_has_a_label():
    recorded = {RUNS[n]["objective"] for n in RUNS if n.startswith("rl_")}
    assert recorded == set(r1_runs.OBJECTIVE_LABELS)


# --------------------------------------------------------------------------- R1-Zero, groups


def test_r1_zero_reads_the_first_and_last_check_ups():
    z = r1_runs.r1_zero(DOC)
    curve = RUNS["zero_s0"]["curve"]
    assert z["zero_start"] == round(curve[0]["pass_at_k"]["1"], 3)
    assert z["last_step"] == curve[-1]["step"]
    assert z["bare_first"] == round(100 * curve[0]["mode_share"]["answer_only"], 1)
    assert z["zero_final_lo"] <= z["zero_final"] <= z["zero_final_hi"]
    table = r1_runs.r1_zero_table(DOC)
    assert len(table) == 2 * len(r1_runs.SEEDS)
    assert f"pass@1 step {curve[-1]['step']}" in table[0]


def test_unanimous_groups_follow_the_steps_they_name():
    u = r1_runs.unanimous_groups(DOC)
    early = [h["zero_advantage_groups"] for s in r1_runs.SEEDS
             for h in RUNS[f"rl_grpo_s{s}"]["history"][: r1_runs.EDGE_STEPS]]
    assert u["grpo_early"] == round(100 * sum(early) / len(early), 1)
    assert 0 <= u["dapo_early"] <= 100 and u["dapo_drawn"] >= DOC["runs"]["rl_dapo_s0"][
        "config"]["prompts_per_step"]


# --------------------------------------------------------------------------- pass@k


def test_sharpening_counts_are_consistent_with_the_counts():
    k = r1_runs.sharpening(DOC)
    n = RUNS["cold"]["final"]["samples_per_problem"]
    assert (k["k_half"], k["k_full"]) == (n // 2, n)
    assert k["before_full"] == round(_passk("cold", n), 3)
    assert k["n_up"] + k["n_down"] <= DOC["settings"]["eval_problems"]
    # unsolved after = unsolved before - newly solved + newly lost
    assert k["unsolved_after"] == k["unsolved_before"] - k["newly_solved"] + k["newly_lost"]
    assert k["after_min"] <= k["after_full"] <= k["after_max"]
    with pytest.raises(ValueError, match="name"):
        r1_runs.sharpening(DOC, before="rs")  # rejection sampling has no evaluation


def test_pass_at_k_table_recomputes_from_counts():
    ks = r1_runs.pass_at_k_ks(DOC)
    assert ks[0] == 1 and ks[-1] == RUNS["cold"]["final"]["samples_per_problem"]
    assert ks == sorted(set(ks))
    row = r1_runs.pass_at_k_table(DOC)[0]
    assert row[f"pass@{ks[-1]}"] == round(_passk("cold", ks[-1]), 3)
    finals = r1_runs.finals_payload(DOC)
    assert finals["cold"]["counts"] == RUNS["cold"]["final"]["counts"]


# --------------------------------------------------------------------------- length, stages


def test_output_length_summary_matches_its_table():
    summary, table = r1_runs.output_length(DOC), r1_runs.output_length_table(DOC)
    for row in table:
        key = next(k for k, v in r1_runs.OBJECTIVE_LABELS.items() if v == row["objective"])
        first, last = [v for c, v in row.items() if c.startswith("steps ")]
        assert (first, last) == (summary[f"{key}_{row['chains']}_first"],
                                 summary[f"{key}_{row['chains']}_last"])
        assert row["change"] == round(last - first, 1)


def test_stages3_and_4_read_rejection_sampling():
    t = r1_runs.stages3_and_4(DOC)
    stats = RUNS["rs"]["stats"]
    assert t["rs_samples"] == RUNS["rs"]["problems"] * RUNS["rs"]["samples_per_problem"]
    assert t["rs_kept"] == int(stats["kept"]) and t["rs_covered"] <= t["rs_problems"]
    assert t["s3_lo"] <= t["s3_p1"] <= t["s3_hi"]


def test_distillation_reads_both_routes():
    d = r1_runs.distillation(DOC)
    assert d["small_layers"] < d["big_layers"]
    assert d["distill_examples"] == RUNS["distill"]["examples"]
    assert d["distill_lo"] <= d["distill_p1"] <= d["distill_hi"]


def test_stage_cards_form_a_diagram_of_recorded_runs():
    cards = r1_runs.stage_cards(DOC)
    ids = {c["id"] for c in cards}
    assert all(parent in ids for c in cards for parent in c["from"])
    assert len({(c["row"], c["col"]) for c in cards}) == len(cards)  # no two boxes overlap
    for c in cards:
        f = RUNS[c["id"]]["final"]
        assert c["numbers"][0][1] == round(f["pass_at_k"]["1"], 4)
    # The sentences carry the records' settings, not typed copies of them.
    base = next(c for c in cards if c["id"] == "base4")
    assert f"{RUNS['base4']['steps']} steps" in base["what"]


# --------------------------------------------------------------------------- budget forcing


def test_budget_knee_is_the_smallest_budget_keeping_the_share():
    rows = r1_runs.budget_rows(DOC)
    big = max(DOC["settings"]["budgets"])
    for model in r1_runs.budget_models(DOC):
        knee = r1_runs.budget_knee(DOC, model)
        best = round(r1_runs.budget_row(DOC, model, "cut", big)["accuracy"], 3)
        cut = {r["budget"]: r["accuracy"] for r in rows
               if r["model"] == model and r["mode"] == "cut"}
        assert cut[knee] >= r1_runs.KNEE_SHARE * best
        assert all(acc < r1_runs.KNEE_SHARE * best for b, acc in cut.items() if b < knee)
        assert r1_runs.budget_knee(DOC, model, 0.0) == min(cut)


def test_budget_forcing_summary_reads_the_rows():
    bf = r1_runs.budget_forcing(DOC)
    for model in r1_runs.budget_models(DOC):
        ext = [r for r in r1_runs.budget_rows(DOC) if r["model"] == model and r["mode"] == "extend"]
        assert bf[f"{model}_ext_peak"] == round(max(r["accuracy"] for r in ext), 3)
        assert bf[f"{model}_knee"] == r1_runs.budget_knee(DOC, model)
    assert bf["big"] == max(DOC["settings"]["budgets"])
    assert bf["short"] in DOC["settings"]["budgets"]


def test_budget_row_refuses_unrecorded_points():
    with pytest.raises(ValueError, match="model"):
        r1_runs.budget_row(DOC, "gpt", "cut", 0)
    with pytest.raises(ValueError, match="mode"):
        r1_runs.budget_row(DOC, "ch2", "stretch", 0)
    with pytest.raises(ValueError, match="budget"):
        r1_runs.budget_row(DOC, "ch2", "cut", 5)
    with pytest.raises(TypeError, match="models"):
        r1_runs.budget_table(DOC, "ch2")
    table = r1_runs.budget_table(DOC)
    assert {r["budget"] for r in table} <= set(DOC["settings"]["budgets"])


def test_zero_curves_are_the_check_ups_of_both_starts():
    rows = r1_runs.r1_zero_curves(DOC)
    runs = {r["run"] for r in rows}
    assert runs == {f"{p}_s{s}" for p in ("zero", "rl_grpo") for s in r1_runs.SEEDS}
    assert len(rows) == sum(len(RUNS[n]["curve"]) for n in runs)
    first = next(r for r in rows if r["run"] == "zero_s0")
    assert first["bare"] == RUNS["zero_s0"]["curve"][0]["mode_share"]["answer_only"]
    setup = r1_runs.widget_setup(DOC)
    assert setup["problems"] == DOC["settings"]["eval_problems"]


def test_clip_activity_reads_both_seeds_clip_fields():
    doc = copy.deepcopy(DOC)
    for seed in (0, 1):
        for i, h in enumerate(doc["runs"][f"rl_gspo_s{seed}"]["history"]):
            h["clip_outside"], h["clip_fraction"] = 0.5, (0.2 if i % 2 else float("nan"))
    activity = r1_runs.clip_activity(doc)
    assert activity["gspo"] == {"outside": 50.0, "clipped": 20.0}  # NaN steps are skipped
    rows = DOC["runs"]["rl_grpo_s0"]["history"] + DOC["runs"]["rl_grpo_s1"]["history"]
    want = 100 * sum(h["clip_fraction"] for h in rows) / len(rows)
    assert r1_runs.clip_activity(DOC)["grpo"]["clipped"] == pytest.approx(want, abs=0.05)
    for seed in (0, 1):  # runs that predate the statistics: nothing to report, not a zero
        for h in doc["runs"][f"rl_gspo_s{seed}"]["history"]:
            del h["clip_outside"], h["clip_fraction"]
    assert r1_runs.clip_activity(doc)["gspo"] == {"outside": None, "clipped": None}


def test_rerun_agreement_counts_the_leading_steps_that_match():
    doc = copy.deepcopy(DOC)
    run = doc["runs"]["rl_grpo_s0"]
    rerun = doc["runs"]["rerun_rl_grpo_s0"]
    rerun["history"] = copy.deepcopy(run["history"])
    rerun["final"] = {k: v for k, v in run["final"].items() if k != "counts"}
    a = r1_runs.rerun_agreement(doc)["grpo"]
    assert a["same_steps"] == len(run["history"]) and a["same_final"]
    rerun["history"][3]["reward"] = -1.0
    assert r1_runs.rerun_agreement(doc)["grpo"]["same_steps"] == 3
    rerun["final"]["length"] += 1.0
    assert not r1_runs.rerun_agreement(doc)["grpo"]["same_final"]
    # Records made before the clip statistics existed are compared on what both hold.
    for h in run["history"]:
        h.pop("clip_outside", None), h.pop("clip_fraction", None)
    assert r1_runs.rerun_agreement(doc)["grpo"]["same_steps"] == 3


def test_trainer_setup_is_each_objectives_first_seed_and_the_records_eval_problems():
    from arithmetic_task import held_out_problems, is_held_out

    doc = r1_runs.load_records()
    setup = r1_runs.trainer_setup(doc, n_eval=12)
    assert set(setup["records"]) == set(r1_runs.OBJECTIVE_LABELS)
    for objective, rec in setup["records"].items():
        run = doc["runs"][f"rl_{objective}_s0"]
        assert rec["steps"]["step"] == [h["step"] for h in run["history"]]
        assert rec["steps"]["clip"] == [h["clip_fraction"] for h in run["history"]]
        assert rec["curve"][-1]["pass1"] == run["curve"][-1]["pass_at_k"]["1"]
        assert (rec["prompts"], rec["group"]) == (run["config"]["prompts_per_step"],
                                                  run["config"]["group_size"])
    assert setup["eval"] == held_out_problems(500, seed=doc["settings"]["eval_seed"])[:12]
    assert all(is_held_out(p) for p in setup["eval"])
    json.dumps(setup, allow_nan=False)
    with pytest.raises(ValueError, match="n_eval"):
        r1_runs.trainer_setup(doc, n_eval=0)
