"""Chapter 12 reads its runs back instead of training, cites what DeepSeek did, and reads the
trust-region shares and the reruns' agreement it reports from the records."""

from __future__ import annotations

import re

import r1_runs
from booktools.qmd import parse_file
from conftest import ROOT, executed
from r1_experiments import RERUN_OBJECTIVES

STEM = "11-r1-pipeline"
PATH = ROOT / "chapters" / f"{STEM}.qmd"
# Calls that train or sample a model at length: they belong in scripts/, not on the render path.
TRAINING_CALLS = re.compile(r"\b(train_rl|rl_step|sft|pretrain_base|rejection_sample|train)\(")


def evaluated_python(path):
    return [c for c in parse_file(path)
            if c.kind == "python" and c.options.get("eval") is not False]


def test_nothing_trains_on_the_render_path():
    offending = [c.line for c in evaluated_python(PATH) if TRAINING_CALLS.search(c.source)]
    assert not offending, f"cells at lines {offending} train a model on every render"


def test_exercise_reads_the_recorded_run():
    record = r1_runs.load_exercise3()
    line = (f"pass@1 on the {len(record['problems'])} training problems: "
            f"{record['pass_at_1_before']:.3f} -> {record['pass_at_1_after']:.3f}")
    assert line in executed(STEM).stdout()


def test_the_trust_region_claims_are_the_reruns_measurements():
    # "a few percent of token ratios leave GRPO's range" and "GSPO's clip catches most chains"
    # were written before anything measured them; now each share is read from the records.
    text = PATH.read_text()
    assert "few percent" not in text and "catches most chains" not in text
    for objective, key in (("grpo", "outside"), ("grpo", "clipped"), ("gspo", "clipped")):
        assert f'`{{python}} C["{objective}"]["{key}"]`%' in text
    activity = r1_runs.clip_activity(r1_runs.load_records())
    assert all(v is not None for entry in activity.values() for v in entry.values())


def test_the_summary_names_the_objectives_the_records_rank_first_and_last():
    # The summary names them in prose ("by between 1.47 (Dr. GRPO) and 2.34 (DAPO)"); a rerun
    # that reorders the objectives must fail here rather than print a wrong sentence.
    k = r1_runs.sharpening(r1_runs.load_records())
    assert (k["gain_min_by"], k["gain_max_by"]) == ("Dr. GRPO", "DAPO")
    text = PATH.read_text()
    assert '`{python} K["gain_min"]`\n  (Dr. GRPO) and `{python} K["gain_max"]` (DAPO)' in text


def test_every_stage_of_what_deepseek_did_is_cited():
    text = PATH.read_text()
    section = text.split("## What DeepSeek did, stage by stage", 1)[1].split("\n## ", 1)[0]
    bullets = [b for b in section.split("\n- ") if b.startswith("**")]
    names = [re.match(r"\*\*(.+?)\*\*", b).group(1) for b in bullets]
    assert names[:3] == ["Stage 0, the base.", "R1-Zero.", "Stage 1, cold start."], names
    assert len(bullets) >= 8
    for bullet in bullets:
        assert "[@deepseek2025r1]" in bullet or "[@deepseek2024v3]" in bullet, bullet[:60]
        assert "Here" in bullet or "next\n  chapter" in bullet, f"no 'here we do' in {bullet[:60]}"


def test_inline_values_are_the_modules_values():
    """The prose prints what r1_runs computes (one implementation for both chapters)."""
    doc = r1_runs.load_records()
    z, t = r1_runs.r1_zero(doc), r1_runs.stages3_and_4(doc)
    inline = {c.source: text for c, text in executed(STEM).inline}
    assert float(inline['Z["gap_end"]']) == z["gap_end"]
    assert float(inline['T["s4_p1"]']) == t["s4_p1"]


def test_every_rerun_on_the_records_machine_is_its_record():
    # "both reruns matched their records at every one of the steps and in the final evaluation"
    agreement = r1_runs.rerun_agreement(r1_runs.load_records())
    assert sorted(agreement) == sorted(RERUN_OBJECTIVES) == ["grpo", "gspo"]  # "GRPO and GSPO"
    for objective, a in agreement.items():
        assert a["same_steps"] == a["steps"] and a["same_final"], objective


def test_other_machine_gaps_are_no_larger_than_the_seed_gap_the_prose_compares_them_with():
    other = r1_runs.other_machine()
    for objective in ("grpo", "gspo"):  # the two the prose quotes
        a = other["agreement"][objective]
        assert abs(a["rerun_p1"] - a["recorded_p1"]) <= other["max_seed_gap"]
        assert a["same_steps"] < a["steps"]  # "parted": the rerun is not the record
