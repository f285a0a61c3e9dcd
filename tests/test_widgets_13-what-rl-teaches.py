"""Chapter 14's widgets in Chromium: each reads out the recorded value its inputs pick."""

from __future__ import annotations

import pytest

from conftest import executed

pytestmark = pytest.mark.browser

STEM = "13-what-rl-teaches"


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


def _row(rows, model, k):
    return next(r for r in rows if (r["model"], r["k"]) == (model, k))


def test_passk_widget_follows_k_and_the_comparison(open_chapter):
    run = executed(STEM)
    rows = run.defines["debate_passk"]
    page = open_chapter(STEM)
    for log_k in (0, 5, 8):
        page.set_input("log2 k", log_k)
        for model in ("cold", "rl_grpo_s0", "rl_grpo_s1"):
            assert page.readout("passk", model) == pytest.approx(
                _row(rows, model, 2**log_k)["value"], rel=1e-12)
    page.set_input("Compare", "base and R1-Zero")
    for model in ("base4", "zero_s0"):
        assert page.readout("passk", model) == pytest.approx(_row(rows, model, 256)["value"])


def test_reach_map_counts_the_records(open_chapter):
    run = executed(STEM)
    columns = run.defines["debate_cells"]
    cells = [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]
    page = open_chapter(STEM)
    for label, after in (("GRPO, seed 0", "rl_grpo_s0"), ("R1-Zero", "zero_s0")):
        page.set_input("After RL", label)
        for status in ("gained by RL", "lost to RL", "solved by both"):
            want = sum(c["after"] == after and c["status"] == status for c in cells)
            assert page.readout("reach", status.replace(" ", "_")) == want


def test_run_chart_follows_the_reward(open_chapter):
    run = executed(STEM)
    runs = run.defines["debate_runs"]
    page = open_chapter(STEM)
    for label, reward in (("format only", "format"), ("random", "random")):
        page.set_input("Reward", label)
        for r in (r for r in runs if r["reward"] == reward):
            assert page.readout("runs", r["run"]) == pytest.approx(r["pass_at_1"], rel=1e-12)


def test_run_chart_shows_reward_and_training_accuracy(open_chapter):
    """Beside held-out pass@1, the runs chart draws each run's reward paid and training
    accuracy at every step (the spurious-reward paper's reward curves beside accuracy)."""
    run = executed(STEM)
    runs, curves = run.defines["debate_runs"], run.defines["debate_curves"]
    page = open_chapter(STEM)
    page.set_input("Reward", "random")
    for shown, key in (("reward paid", "paid"), ("training accuracy", "accuracy")):
        page.set_input("Show", shown)
        for r in (r for r in runs if r["reward"] == "random"):
            values = curves[r["run"]][key]
            assert page.readout("runs", f"{r['run']}_mean") == pytest.approx(
                sum(values) / len(values), rel=1e-9)
        assert page.data_marks("runs") > 0
