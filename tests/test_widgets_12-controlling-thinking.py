"""Chapter 13's widget in Chromium: the budget chart draws and follows the recorded sweep."""

from __future__ import annotations

import math

import pytest

from conftest import executed

pytestmark = pytest.mark.browser

STEM = "12-controlling-thinking"


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


def _row(rows, model, mode, budget):
    return next(r for r in rows if (r["model"], r["mode"], r["budget"]) == (model, mode, budget))


def test_budget_widget_reads_the_records(open_chapter):
    run = executed(STEM)
    rows = run.defines["r1_budget"]
    page = open_chapter(STEM)
    for budget in (0, 24, 48):
        page.set_input("Thinking budget", budget)
        cut = _row(rows, "ch2", "cut", budget)
        assert page.readout("budget", "cut") == pytest.approx(cut["accuracy"], rel=1e-12)
        assert page.readout("budget", "cut_thinking") == pytest.approx(cut["thinking_tokens"])
    assert all(not math.isnan(r["accuracy"]) for r in rows)


def test_budget_widget_follows_the_model_input(open_chapter):
    run = executed(STEM)
    rows = run.defines["r1_budget"]
    page = open_chapter(STEM)
    page.set_input("Thinking budget", 24)
    for label, model in (("cold start (stage 1)", "cold"), ("after GRPO (stage 2)", "rl_grpo_s0")):
        page.set_input("Model", label)
        assert page.readout("budget", "cut") == pytest.approx(
            _row(rows, model, "cut", 24)["accuracy"], rel=1e-12)
    page.set_input("Model", "chapter 2's reasoner")
