"""Part I's static figures in Chromium (widgets/vote_curves.js, widgets/score_curves.js).

Each figure draws numbers Python computed or a script recorded. The tests read back what Plot
drew (each line's points, each error bar, through the chart's own scales) and compare it with
the source the chapter reads (the exact vote formula, data/tiny_reasoner_eval.json) rather than
with the payload alone, and check what a reader who cannot see the colours gets: the chart's
accessible name and description, and a shape, dash or label beside each colour.
"""

from __future__ import annotations

import json

import pytest

from conftest import executed
from data_paths import TINY_REASONER_EVAL_PATH, TINY_REASONER_PATH
from reasoning import plurality_vote_prob

pytestmark = pytest.mark.browser

EVAL = json.loads(TINY_REASONER_EVAL_PATH.read_text())
GREEDY = json.loads(TINY_REASONER_PATH.read_text())["metrics"]["greedy"]

# What a chart drew, in data coordinates: Plot's exposed scales invert the pixel positions.
DRAWN = r"""root => {
  const fig = root.querySelector('figure') || root.querySelector('svg');
  const svg = root.querySelector('svg[aria-label]');
  const sx = fig.scale('x'), sy = fig.scale('y');
  // A mark's coordinates are its scales' outputs (a group's translate, Plot's half-pixel offset,
  // comes on top), so the scales invert them.
  const at = (el, px, py) => [sx.invert(px), sy.invert(py)];
  const lines = [...svg.querySelectorAll('g[aria-label="line"] path')].map((p) => {
    const v = (p.getAttribute('d').match(/-?\d*\.?\d+(?:e[-+]?\d+)?/g) || []).map(Number);
    const points = [];
    for (let i = 0; i + 1 < v.length; i += 2) points.push(at(p, v[i], v[i + 1]));
    return {stroke: p.getAttribute('stroke') || p.closest('g').getAttribute('stroke'),
            dash: p.closest('g').getAttribute('stroke-dasharray'), points};
  });
  const rules = [...svg.querySelectorAll('g[aria-label="rule"] line')].map((l) => {
    const n = (a) => Number(l.getAttribute(a));
    return [...at(l, n('x1'), n('y1')), ...at(l, n('x2'), n('y2'))];
  });
  const texts = [...svg.querySelectorAll('g[aria-label="text"] text')].map((t) => t.textContent);
  const legend = [...root.querySelectorAll('[class$="-swatch"]')].map((s) => ({
    text: s.textContent.trim(), shape: s.querySelector('path') && s.querySelector('path').getAttribute('d')}));
  const ticks = [...svg.querySelectorAll('g[aria-label="x-axis tick label"] text')].map((t) => t.textContent);
  const dots = svg.querySelectorAll('g[aria-label="dot"] path, g[aria-label="dot"] circle').length;
  return {label: svg.getAttribute('aria-label'), description: svg.getAttribute('aria-description'),
          lines, rules, texts, legend, ticks, dots};
}"""  # noqa: E501 (JavaScript)


def drawn(page, widget: str) -> dict:
    return page.widget(widget).evaluate(DRAWN)


def assert_curve(points, want, *, x_rel=1e-3, y_abs=4e-3):
    """A drawn line's points against [(x, y)], to about a pixel."""
    assert len(points) == len(want), (len(points), len(want))
    for (x, y), (wx, wy) in zip(points, want, strict=True):
        assert x == pytest.approx(wx, rel=x_rel, abs=1e-6)
        assert y == pytest.approx(wy, abs=y_abs)


def assert_bars(rules, rows, x="x"):
    """Each (x, lo, hi) interval is drawn as a vertical bar."""
    vertical = [r for r in rules if r[0] == pytest.approx(r[2])]
    bars = sorted((r[0], min(r[1], r[3]), max(r[1], r[3])) for r in vertical)
    want = sorted((r[x], r["lo"], r["hi"]) for r in rows)
    assert len(bars) == len(want)
    for got, exp in zip(bars, want, strict=True):
        assert got == pytest.approx(exp, rel=1e-3, abs=4e-3)


def assert_shapes_differ(legend, names):
    """The legend names every series beside a marker of its own shape (not only its colour)."""
    assert [item["text"] for item in legend] == names
    shapes = [item["shape"] for item in legend]
    assert all(shapes) and len(set(shapes)) == len(names), shapes


# ------------------------------------------------------------------ chapter 1


def test_vote_budget_figure(open_chapter):
    run = executed("01-test-time-compute")
    rows = run.defines["vote_budget"]
    page = open_chapter("01-test-time-compute")
    page.assert_clean()
    fig = drawn(page, "vote-budget")
    assert fig["description"] == (
        "Line chart of the probability that the majority answer is right against the tokens "
        "spent on the question, one line for each per-chain accuracy (40%, 55% and 70%); "
        "every line rises towards 1 as more chains are voted, the least accurate one slowest.")
    chain_tokens = rows[0]["tokens"] // rows[0]["n"]
    accuracies = (0.4, 0.55, 0.7)
    assert len(fig["lines"]) == len(accuracies)
    for line, p in zip(fig["lines"], accuracies, strict=True):
        assert_curve(line["points"], [(n * chain_tokens, plurality_vote_prob(p, n, 4))
                                      for n in range(1, 42, 2)])
    assert fig["dots"] == 3 * 21
    names = [f"one chain right {p:.0%} of the time" for p in accuracies]
    assert_shapes_differ(fig["legend"], names)


# ------------------------------------------------------------------ chapter 2


def test_real_vote_figure(open_chapter):
    page = open_chapter("02-self-consistency")
    fig = drawn(page, "real-vote")
    assert fig["description"] == (
        "Line chart of the probability that a vote over n of the tiny reasoner's real chains "
        "is right, for n from 1 to 41, with its 95% interval, beside two simulated curves "
        "(one per-sample accuracy for every problem, and each problem's own accuracy) and a "
        "dotted line at greedy accuracy.")
    rows = EVAL["vote_curve"]["rows"]
    D = EVAL["vote_curve"]["simulated_D"]
    p1 = rows[0]["value"]
    real, sim, own = fig["lines"]
    assert_curve(real["points"], [(r["n"], r["value"]) for r in rows])
    assert_curve(sim["points"], [(r["n"], plurality_vote_prob(p1, r["n"], D)) for r in rows])
    assert_curve(own["points"], [(r["n"], r["simulated_per_problem"]) for r in rows])
    # Three lines, three dashes: solid, dashed, dotted.
    assert len({line["dash"] for line in (real, sim, own)}) == 3
    greedy = [r for r in fig["rules"] if r[1] == pytest.approx(r[3])]
    assert len(greedy) == 1 and greedy[0][1] == pytest.approx(GREEDY["accuracy"], abs=4e-3)
    # The interval band, and each line and the greedy rule named by a label, not by colour alone.
    assert page.widget("real-vote").locator('g[aria-label="area"] path').count() == 1
    assert sorted(fig["texts"]) == sorted(["greedy", "real", "one p", "own p"])
    assert [item["text"] for item in fig["legend"]] == [
        "real chains", f"simulated: p = {round(p1, 3)}, D = {D}",
        f"simulated: per-problem p, D = {D}"]


# ------------------------------------------------------------------ chapter 3


def test_scores_by_temperature_figure(open_chapter):
    curves = executed("03-evaluating-reasoners").defines["temp_curves"]
    page = open_chapter("03-evaluating-reasoners")
    fig = drawn(page, "score-by-temperature")
    assert fig["description"] == (
        "Line chart of pass@1, pass@64 and cons@64 on the toy benchmark against the sampling "
        "temperature, with error bars.")
    picks = [("pass@k", 1), ("pass@k", 64), ("cons@k", 64)]
    shown = []
    for line, (metric, k) in zip(fig["lines"], picks, strict=True):
        own = sorted((r for r in curves if r["metric"] == metric and r["k"] == k),
                     key=lambda r: r["temperature"])
        assert_curve(line["points"], [(r["temperature"], r["value"]) for r in own])
        shown += own
    assert_bars(fig["rules"], shown, x="temperature")
    assert_shapes_differ(fig["legend"], ["pass@1", "pass@64", "cons@64"])


def test_tiny_reasoner_scores_figure(open_chapter):
    page = open_chapter("03-evaluating-reasoners")
    fig = drawn(page, "tiny-reasoner-scores")
    assert fig["description"] == (
        "Line chart, on a logarithmic axis of attempts k, of the tiny reasoner's pass@k and "
        "cons@k on held-out problems at temperatures 0.7 and 1 and of its greedy accuracy, "
        "with error bars.")
    series = [(0.0, "pass@k", "greedy"), (0.7, "pass@k", "pass@k, T = 0.7"),
              (0.7, "cons@k", "cons@k, T = 0.7"), (1.0, "pass@k", "pass@k, T = 1.0"),
              (1.0, "cons@k", "cons@k, T = 1.0")]
    shown = []
    for line, (T, metric, _) in zip(fig["lines"], series, strict=True):
        own = sorted((r for r in EVAL["curves"] if r["temperature"] == T and r["metric"] == metric),
                     key=lambda r: r["k"])
        assert_curve(line["points"], [(r["k"], r["value"]) for r in own])
        shown += own
    assert_bars(fig["rules"], shown, x="k")
    # The log axis is labelled at every recorded k (a base-10 d3 axis would leave 8 blank).
    assert fig["ticks"] == [str(k) for k in EVAL["ks"]], fig["ticks"]
    assert_shapes_differ(fig["legend"], [name for *_, name in series])
    text = page.widget("tiny-reasoner-scores").inner_text()
    assert f"score on {EVAL['problems']} held-out problems" in text
