"""data/r1_runs.json: every R1 job of `r1_experiments.graph()` recorded, with its settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_paths import R1_COLD_START_PATH, R1_RUNS_PATH
from evaluation import mean_pass_at_k
from r1_experiments import OBJECTIVES, RERUN_OBJECTIVES, Settings, graph
from rl_reasoner import RLConfig, config_dict

ROOT = Path(__file__).resolve().parents[1]
S = Settings()

DOC = json.loads(R1_RUNS_PATH.read_text())
RUNS = DOC["runs"]


def test_every_job_is_recorded_and_nothing_else():
    assert set(RUNS) == set(graph(S))


def test_settings_match_the_script():
    s = DOC["settings"]
    assert s["rl_steps"] == S.rl_steps and s["eval_every"] == S.eval_every
    assert s["eval_problems"] == S.eval_problems and s["eval_seed"] == S.eval_seed
    assert s["cold_start"] == S.cold_start and s["rejection"] == S.rejection
    assert s["sft_large"] == S.sft_large and s["budgets"] == list(S.budgets)
    assert s["final_samples"] == {str(k): v for k, v in S.final_samples.items()}


@pytest.mark.parametrize("name", [n for n, r in RUNS.items() if r["kind"] == "rl"])
def test_rl_runs_are_complete_and_use_todays_config(name):
    run = RUNS[name]
    assert [h["step"] for h in run["history"]] == list(range(1, S.rl_steps + 1))
    assert [c["step"] for c in run["curve"]] == list(
        range(0, S.rl_steps + 1, S.eval_every)
    )
    want = json.loads(json.dumps(config_dict(RLConfig.preset(run["objective"]))))
    if "reward" not in run["config"]:  # made before RLConfig had a `reward`: the verifier's
        assert want.pop("reward") == "verifiable"
    assert run["config"] == want
    for point in run["curve"]:
        assert point["problems"] == 500 and point["samples_per_problem"] == S.curve_samples
    assert run["final"]["samples_per_problem"] == S.final_samples[run["seed"]]


@pytest.mark.parametrize("name", [n for n, r in RUNS.items() if "counts" in r.get("final", {})])
def test_final_evaluations_are_the_unbiased_estimator(name):
    final = RUNS[name]["final"]
    n, counts = final["samples_per_problem"], final["counts"]
    assert final["problems"] == len(counts) >= 500 and n >= 32
    for k, value in final["pass_at_k"].items():
        assert value == pytest.approx(mean_pass_at_k([(n, c) for c in counts], int(k)), abs=1e-4)
        lo, hi = final["pass_at_k_ci"][k]
        assert lo - 1e-4 <= value <= hi + 1e-4
    assert sum(final["mode_share"].values()) == pytest.approx(1.0, abs=1e-3)


def test_headline_models_have_500_by_128():
    for name in (
        "base4",
        "cold",
        "stage3",
        "stage4_s0",
        "zero_s0",
        "base2",
        "distill",
        "student_rl_s0",
        *[f"rl_{o}_s0" for o in OBJECTIVES],
    ):
        final = RUNS[name]["final"]
        assert final["problems"] >= 500 and final["samples_per_problem"] >= 128, name


def test_rejection_sample_is_verified():
    from arithmetic_task import format_reward, grade

    rs = RUNS["rs"]
    assert rs["stats"]["kept"] <= rs["stats"]["samples"] * rs["stats"]["right_share"]
    assert all(grade(p, c) == 1.0 and format_reward(c) == 1.0 for p, c in rs["pairs"])


def test_budget_records_cover_the_grid():
    rows = RUNS["budget"]["rows"]
    for model in RUNS["budget"]["models"]:
        for mode in ("cut", "extend"):
            got = sorted(r["budget"] for r in rows if r["model"] == model and r["mode"] == mode)
            assert got == list(S.budgets)
    assert all(0 <= r["accuracy"] <= 1 for r in rows)


def test_shipped_cold_start_is_the_recorded_stage_1():
    from tiny_gpt import load_checkpoint

    model, meta = load_checkpoint(R1_COLD_START_PATH)  # verifies the SHA-256
    record = RUNS["cold"]
    assert meta["metrics"]["pass_at_1"] == pytest.approx(
        record["final"]["pass_at_k"]["1"], abs=1e-4
    )
    assert meta["training"]["steps"] == record["steps"] == S.cold_start["steps"]
    assert model.config.n_layer == 4


@pytest.mark.parametrize("name", [n for n, r in RUNS.items() if r["kind"] == "rl"])
def test_every_rl_run_records_its_clip_statistics(name):
    for row in RUNS[name]["history"]:
        assert 0 <= row["clip_fraction"] <= row["clip_outside"] <= 1


@pytest.mark.parametrize("objective", RERUN_OBJECTIVES)
def test_reruns_repeat_the_runs_they_name(objective):
    rerun, run = RUNS[f"rerun_rl_{objective}_s0"], RUNS[f"rl_{objective}_s0"]
    assert (rerun["start"], rerun["seed"], rerun["config"]) == (run["start"], 0, run["config"])
    assert "counts" not in rerun["final"]  # the summary only: the file stays small


def test_the_other_machines_agreement_is_what_its_revision_holds():
    """data/r1_other_machine.json is `other_machine_record` of the records git still holds."""
    import subprocess

    import r1_runs

    shipped = r1_runs.other_machine()
    rev = shipped["source"].removeprefix("data/r1_runs.json at ")
    got = subprocess.run(["git", "show", f"{rev}:data/r1_runs.json"], cwd=ROOT,
                         capture_output=True, text=True)
    if got.returncode != 0:
        pytest.skip(f"this checkout has no revision {rev} (a shallow clone)")
    assert r1_runs.other_machine_record(json.loads(got.stdout), rev) == shipped
    # Another machine: every pair parted before the end.
    assert all(a["same_steps"] < a["steps"] for a in shipped["agreement"].values())
