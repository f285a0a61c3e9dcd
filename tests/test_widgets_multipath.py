"""Chapter 2's two-model widgets in Chromium: the vote-curve chart shows the recorded numbers of
data/multipath_eval.json, and the live sampler switches to the multi-path checkpoint and shows
each chain's route."""

from __future__ import annotations

import pytest
import torch

from arithmetic_task import ROUTES
from conftest import executed
from data_paths import MULTIPATH_PATH
from tiny_gpt import load_checkpoint, sample

pytestmark = pytest.mark.browser

STEM = "02-self-consistency"


def test_vote_curve_widget_reads_the_recorded_numbers(open_chapter):
    page = open_chapter(STEM)
    page.assert_clean()
    defines = executed(STEM).defines
    rows, models = defines["mp_curve_rows"], defines["mp_curve_models"]
    assert page.data_marks("vote-routes") > 0
    for temperature in sorted({r["temperature"] for r in rows}):
        page.set_input("Temperature of the voted chains", temperature)
        for m in models:
            last = max(
                (r for r in rows if r["model"] == m["model"] and r["temperature"] == temperature),
                key=lambda r: r["k"],
            )
            assert page.readout("vote-routes", f"{m['model']}-cons") == pytest.approx(last["value"])
            gap = page.readout("vote-routes", f"{m['model']}-gap")
            assert gap == pytest.approx(last["value"] - m["greedy"])
            rho = m["correlation"][str(temperature)]
            assert page.readout("vote-routes", f"{m['model']}-rho") == pytest.approx(rho)
    page.assert_clean()


def test_live_sampler_switches_model_and_shows_routes(open_chapter):
    # A page of its own (another viewport width, so another cache key): the shared page that
    # test_widgets_tiny_reasoner drives keeps the default model and inputs.
    page = open_chapter(STEM, width=1000)
    problems = executed(STEM).defines["tr_problems"]
    page.current_problem = problems[0]["problem"]
    page.set_input("Model", "multi-path (three routes)")
    page.set_input("Chains to sample n", 4)
    page.set_input("Sampling temperature", 0)
    page.page.wait_for_function(
        """() => {
             const w = document.querySelector('[data-widget="tiny-reasoner"]');
             const v = k => w?.querySelector(`[data-readout="${k}"]`)?.getAttribute('data-value');
             return v('done') === '1' && Number(v('finished')) === 4
               && Number(v('temperature')) === 0;
           }""",
        timeout=60_000,
    )
    chains = page.widget("tiny-reasoner").evaluate(
        "w => [...w.querySelectorAll('li[data-chain]')].map(li => [li.getAttribute('data-chain'),"
        " li.getAttribute('data-route')])"
    )
    torch.set_num_threads(1)
    model, _ = load_checkpoint(MULTIPATH_PATH)
    expected = sample(model, [page.current_problem + "="], 0.0).completions[0]
    assert [c for c, _ in chains] == [expected] * 4  # the multi-path model's greedy chain
    assert all(route in ROUTES for _, route in chains)
    routes = page.readout_text("tiny-reasoner", "routes")
    assert sum(int(part.split(":")[1]) for part in routes.split(",")) == 4
    page.assert_clean()
