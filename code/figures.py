"""Each widget's figure again, as a Plotly figure built in Python from the same data.

The book's pages draw their figures with Observable widgets (`widgets/*.js`); a chapter's
notebook cannot run them, so where the page shows a widget the notebook shows its twin from
here. One function per widget, named after it: it takes the values the chapter hands the widget
(`ojs_define`, as the widget receives them: JSON lists and dicts) and the widget's inputs at
their page defaults, and returns a `plotly.graph_objects.Figure`. Where the widget has a main
slider, the twin has a Plotly slider over the same stops: every stop's traces are drawn once and
the slider shows one stop's set (so the figure needs no kernel to move). Curves the widget
computes in JS come from the Python functions its `_math.js` / `voting.js` mirror.

plotly is imported inside each function: a chapter's page never imports this module, so the
book's render pays only for what Quarto's own kernel set-up does with plotly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from checks import require_choice, require_float, require_int, require_sequence, require_str

COLOURS = ["#e76f51", "#4269d0", "#2a9d8f", "#9c6b30", "#7b4f9d", "#6c757d"]
DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
SYMBOLS = ["circle", "square", "triangle-up", "diamond", "cross", "x"]


def _records(name: str, value: object, keys: Sequence[str], numbers: Sequence[str] = ()) -> list:
    """The widget's rows: a non-empty list of dicts with ``keys``, ``numbers`` finite numbers."""
    if not isinstance(value, list):
        raise TypeError(f"{name} must be a list of records (dicts), got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must not be empty")
    for i, row in enumerate(value):
        if not isinstance(row, dict):
            raise TypeError(f"{name}[{i}] must be a dict, got {type(row).__name__}")
        missing = [k for k in keys if k not in row]
        if missing:
            raise ValueError(f"{name}[{i}] lacks {missing}")
        for k in numbers:
            v = row[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name}[{i}][{k!r}] must be a finite number, got {v!r}")
    return value


def _mapping(name: str, value: object, keys: Sequence[str]) -> dict:
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict, got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} lacks {missing}")
    return value


def _go():
    import plotly.graph_objects as go

    return go


def _figure(traces: list, title: str, x_title: str, y_title: str, **layout: Any):
    """A figure with the book's plain layout: a title (its accessible name), labelled axes."""
    go = _go()
    fig = go.Figure(data=traces)
    layout = {"margin": {"t": 60, "r": 20, "b": 40, "l": 60},
              "legend": {"orientation": "h", "y": -0.25}, **layout}
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title,
                      template="plotly_white", **layout)
    return fig


def _with_slider(fig, stops: Sequence[Any], traces_of: Callable[[Any], list], active: Any,
                 label: str, fmt: Callable[[Any], str] = str, fixed: Sequence[Any] = (),
                 layout_of: Callable[[Any], dict] | None = None):
    """Add every stop's traces to ``fig`` and a slider that shows one stop's set at a time.

    Each trace carries ``meta = {"stop": index}``, so a reader (or a test) can tell which stop it
    belongs to; the stop ``active`` (the widget's default) is shown first. ``fixed`` traces (what
    the widget draws the same at every stop: a curve under a moving dot) are added once, before
    the stops' traces, with ``meta = {"stop": None}``, and stay visible. ``layout_of(stop)`` is the
    layout a stop changes (its ticks, its title): the slider then updates it with the traces.
    """
    for trace in fixed:
        trace.meta = {"stop": None}
        fig.add_trace(trace)
    counts = []
    for i, stop in enumerate(stops):
        traces = traces_of(stop)
        for trace in traces:
            trace.meta = {"stop": i}
            trace.visible = stop == active
            fig.add_trace(trace)
        counts.append(len(traces))
    total = sum(counts)
    steps, first = [], 0
    for stop, count in zip(stops, counts, strict=True):
        visible = [True] * len(fixed) + [first <= j < first + count for j in range(total)]
        if layout_of is None:
            steps.append({"method": "restyle", "args": [{"visible": visible}], "label": fmt(stop)})
        else:
            steps.append({"method": "update", "args": [{"visible": visible}, layout_of(stop)],
                          "label": fmt(stop)})
        first += count
    if layout_of is not None:
        fig.update_layout(_nested(layout_of(active)))
    fig.update_layout(sliders=[{
        "active": list(stops).index(active), "steps": steps,
        "currentvalue": {"prefix": f"{label}: "}, "pad": {"t": 50},
    }])
    return fig


def _nested(dotted: dict) -> dict:
    """{"xaxis.range": r} as {"xaxis": {"range": r}}: what plotly.py's update_layout merges (a
    slider step's relayout takes the dotted keys, which change only what they name)."""
    out: dict = {}
    for key, value in dotted.items():
        *path, last = key.split(".")
        here = out
        for part in path:
            here = here.setdefault(part, {})
        here[last] = value
    return out


def _line(x, y, name: str, i: int, **kw: Any):
    go = _go()
    return go.Scatter(x=list(x), y=list(y), name=name, mode="lines+markers",
                      line={"color": COLOURS[i % len(COLOURS)], "dash": DASHES[i % len(DASHES)]},
                      marker={"symbol": SYMBOLS[i % len(SYMBOLS)]}, **kw)


def _band(x, lo, hi, name: str, i: int):
    """A shaded interval (lo..hi) around a line, as one closed polygon trace."""
    go = _go()
    x = list(x)
    return go.Scatter(x=x + x[::-1], y=list(hi) + list(lo)[::-1], name=name, fill="toself",
                      mode="lines", line={"width": 0}, fillcolor=COLOURS[i % len(COLOURS)],
                      opacity=0.2, hoverinfo="skip", showlegend=False)


def _hline(y: float, name: str, x0: float, x1: float):
    go = _go()
    return go.Scatter(x=[x0, x1], y=[y, y], name=name, mode="lines",
                      line={"color": "#6c757d", "dash": "dot"})


def _percent(p: float) -> str:
    return f"{round(100 * p)}%"


# --- chapter 1 -----------------------------------------------------------------------------


def vote_budget_figure(rows: list[dict]):
    """Chapter 1 (widgets/vote_curves.js voteBudgetChart): the vote's accuracy against the tokens
    spent on the question, one line per per-chain accuracy."""
    _records("rows", rows, ["accuracy", "tokens", "value"], ["accuracy", "tokens", "value"])
    accuracies = sorted({r["accuracy"] for r in rows})
    traces = []
    for i, p in enumerate(accuracies):
        mine = [r for r in rows if r["accuracy"] == p]
        traces.append(_line([r["tokens"] for r in mine], [r["value"] for r in mine],
                            f"one chain right {_percent(p)} of the time", i))
    return _figure(traces, "Accuracy of a majority vote against the tokens spent on the question",
                   "tokens spent on the question (chains x tokens per chain)",
                   "P(majority answer is right)", yaxis_range=[0, 1])


# --- chapter 2 -----------------------------------------------------------------------------


def self_consistency_figure(batches: list[list[dict]], correct: str, problem: str,
                            shown: int = 5):
    """Chapter 2 (widgets/self_consistency.js): the votes each answer has after the first k chains
    of the first batch, k on a slider (1 to 15, the widget's "Chains revealed")."""
    from reasoning import vote_distribution

    if not isinstance(batches, list) or not batches:
        raise TypeError("batches must be a non-empty list of batches (lists of chains)")
    batch = _records("batches[0]", batches[0], ["answer"])
    require_str("correct", correct)
    require_str("problem", problem)
    require_int("shown", shown, low=1, high=min(15, len(batch)))
    go = _go()
    stops = list(range(1, min(15, len(batch)) + 1))

    def bars(k: int) -> list:
        tally = vote_distribution([c["answer"] for c in batch[:k]])
        answers = list(tally)
        return [go.Bar(x=[tally[a] for a in answers], y=answers, orientation="h",
                       name=f"votes after {k} chains",
                       marker={"color": [COLOURS[2] if a == correct else COLOURS[0]
                                         for a in answers]},
                       text=["right" if a == correct else "" for a in answers])]

    fig = _figure([], f"Votes for each answer to {problem} (right answer {correct})",
                  "votes", "answer")
    return _with_slider(fig, stops, bars, shown, "chains revealed")


def condorcet_figure(mc: list[dict], p: float = 0.55, D: int = 4, n_max: int = 41):
    """Chapter 2 (widgets/condorcet.js): Condorcet's colluding bound and the exact plurality vote
    with D scattered wrong answers, against n, with the Monte-Carlo dots; p on a slider."""
    from reasoning import condorcet_majority_prob, plurality_vote_prob

    _records("mc", mc, ["p", "D", "n", "acc"], ["p", "D", "n", "acc"])
    require_int("D", D, low=1, high=64)
    require_int("n_max", n_max, low=1, high=201)
    go = _go()
    stops = sorted({r["p"] for r in mc})
    if p not in stops:
        raise ValueError(f"p must be one of the simulated accuracies {stops}, got {p!r}")
    ns = list(range(1, n_max + 1, 2))

    def curves(q: float) -> list:
        dots = [r for r in mc if r["p"] == q and r["D"] == D and r["n"] <= n_max]
        return [
            _line(ns, [condorcet_majority_prob(q, n) for n in ns], "Condorcet (colluding)", 0),
            _line(ns, [plurality_vote_prob(q, n, D) for n in ns], f"Plurality, D = {D}", 1),
            go.Scatter(x=[r["n"] for r in dots], y=[r["acc"] for r in dots], mode="markers",
                       name="simulated", marker={"color": COLOURS[3], "symbol": "circle-open"}),
        ]

    fig = _figure([], "Majority vote against the number of samples", "samples voted (n)",
                  "P(vote is right)", yaxis_range=[0, 1])
    return _with_slider(fig, stops, curves, p, "per-sample accuracy p")


def vote_vs_verifier_figure(mc: list[dict], p: float = 0.2, separation: float = 1.0,
                            D: int = 4):
    """Chapter 2 (widgets/vote_vs_verifier.js): majority vote against best-of-N (exact lines)
    and the simulated weighted vote, against N on a log axis; p on a slider."""
    from reasoning import best_of_n_accuracy, plurality_vote_prob

    keys = ["p", "separation", "n", "vote", "best_of_n", "weighted"]
    _records("mc", mc, keys, keys)
    require_float("separation", separation, low=0.0, high=10.0)
    require_int("D", D, low=1, high=64)
    go = _go()
    stops = sorted({r["p"] for r in mc})
    if p not in stops:
        raise ValueError(f"p must be one of the simulated accuracies {stops}, got {p!r}")
    ns = [1, 2, 4, 8, 16, 32, 64]
    names = {"vote": "majority vote", "best_of_n": "best-of-N", "weighted": "weighted vote"}

    def curves(q: float) -> list:
        sims = sorted((r for r in mc if r["p"] == q and r["separation"] == separation),
                      key=lambda r: r["n"])
        lines = [_line(ns, [plurality_vote_prob(q, n, D) for n in ns], names["vote"], 0),
                 _line(ns, [best_of_n_accuracy(q, n, separation) for n in ns],
                       names["best_of_n"], 1)]
        dots = [go.Scatter(x=[r["n"] for r in sims], y=[r[key] for r in sims], mode="markers",
                           name=f"{label} (simulated)",
                           marker={"color": COLOURS[i], "symbol": "circle-open"})
                for i, (key, label) in enumerate(names.items())]
        return lines + dots

    fig = _figure([], f"Voting against a verifier's pick (separation {separation})",
                  "samples N", "P(chosen answer is right)", yaxis_range=[0, 1],
                  xaxis_type="log")
    return _with_slider(fig, stops, curves, p, "accuracy of one sample")


def real_vote_figure(curve: dict):
    """Chapter 2 (widgets/vote_curves.js realVoteChart): the vote over n of the tiny reasoner's
    real chains with its 95% interval, two simulated curves and the greedy accuracy."""
    _mapping("curve", curve, ["rows", "p1", "D", "greedy"])
    keys = ["n", "value", "lo", "hi", "simulated", "simulated_per_problem"]
    rows = _records("curve['rows']", curve["rows"], keys, keys)
    n = [r["n"] for r in rows]
    traces = [
        _band(n, [r["lo"] for r in rows], [r["hi"] for r in rows], "95% interval", 2),
        _line(n, [r["value"] for r in rows], "real chains", 2),
        _line(n, [r["simulated"] for r in rows],
              f"simulated: p = {curve['p1']}, D = {curve['D']}", 0),
        _line(n, [r["simulated_per_problem"] for r in rows],
              f"simulated: per-problem p, D = {curve['D']}", 1),
        _hline(curve["greedy"], "greedy", min(n), max(n)),
    ]
    return _figure(traces, "Vote accuracy of the tiny reasoner's real chains",
                   "chains voted (n)", "P(vote is right)", yaxis_range=[0, 1])


def vote_routes_figure(rows: list[dict], models: list[dict], temperature: float):
    """Chapter 2 (widgets/vote_routes.js): cons@k of the single- and multi-path reasoners with
    their 95% intervals and greedy accuracies; the temperature on a slider."""
    keys = ["temperature", "k", "value", "lo", "hi"]
    _records("rows", rows, ["model", *keys], keys)
    _records("models", models, ["model", "label", "greedy"], ["greedy"])
    stops = sorted({r["temperature"] for r in rows})
    if temperature not in stops:
        raise ValueError(f"temperature must be one of {stops}, got {temperature!r}")
    label = {m["model"]: m["label"] for m in models}

    def curves(T: float) -> list:
        traces = []
        for i, m in enumerate(models):
            mine = sorted((r for r in rows if r["temperature"] == T and r["model"] == m["model"]),
                          key=lambda r: r["k"])
            k = [r["k"] for r in mine]
            traces += [_band(k, [r["lo"] for r in mine], [r["hi"] for r in mine], "interval", i),
                       _line(k, [r["value"] for r in mine], label[m["model"]], i),
                       _hline(m["greedy"], f"greedy, {label[m['model']]}", min(k), max(k))]
        return traces

    fig = _figure([], "Vote accuracy against the number of chains voted", "chains voted (k)",
                  "P(vote is right)", yaxis_range=[0, 1], xaxis_type="log")
    return _with_slider(fig, stops, curves, temperature, "temperature")


# --- chapter 3 -----------------------------------------------------------------------------


def even_tally(n: int, c: int, D: int) -> dict[str, int]:
    """The n - c wrong attempts spread as evenly as possible over D wrong answers (pass_at_k.js's
    evenTally): the tally the widget's cons@k is computed on."""
    require_int("n", n, low=1, high=10**6)
    require_int("c", c, low=0, high=n)
    require_int("D", D, low=1, high=10**3)
    counts = {"right": c}
    wrong = n - c
    for d in range(D):
        share = wrong // D + (1 if d < wrong % D else 0)
        if share > 0:
            counts[f"wrong{d + 1}"] = share
    return counts


def pass_at_k_ks(n: int) -> list[int]:
    """The k the widget draws its curves at: every k below 20, then steps of ceil(n / 60), and n."""
    require_int("n", n, low=1, high=10**6)
    ks, k = [], 1
    while k <= n:
        ks.append(k)
        k += 1 if k < 20 else -(-n // 60)
    if ks[-1] != n:
        ks.append(n)
    return ks


def pass_at_k_figure(n: int = 100, c: int = 30, D: int = 4):
    """Chapter 3 (widgets/pass_at_k.js): the unbiased pass@k, the naive plug-in and cons@k of an
    even tally against k; the number correct c on a slider (steps of 10)."""
    from evaluation import cons_at_k_counts, naive_pass_at_k, pass_at_k

    require_int("n", n, low=2, high=200)
    require_int("c", c, low=0, high=n)
    require_int("D", D, low=1, high=10)
    ks = pass_at_k_ks(n)
    stops = sorted({*range(0, n + 1, 10), c})

    def curves(right: int) -> list:
        tally = even_tally(n, right, D)
        return [_line(ks, [pass_at_k(n, right, k) for k in ks], "pass@k (unbiased)", 0),
                _line(ks, [naive_pass_at_k(n, right, k) for k in ks], "1-(1-c/n)^k (naive)", 1),
                _line(ks, [cons_at_k_counts(tally, "right", k) for k in ks], "cons@k", 2)]

    fig = _figure([], f"pass@k and cons@k from n = {n} attempts, D = {D} wrong answers",
                  "attempts drawn k", "score", yaxis_range=[0, 1])
    return _with_slider(fig, stops, curves, c, "correct c")


def _metric_traces(rows: list[dict], key: str = "k") -> list:
    """One line with its interval per metric (pass@k, cons@k), against ``key``."""
    traces = []
    for i, metric in enumerate(["pass@k", "cons@k"]):
        mine = sorted((r for r in rows if r["metric"] == metric), key=lambda r: r[key])
        x = [r[key] for r in mine]
        traces += [_band(x, [r["lo"] for r in mine], [r["hi"] for r in mine], "interval", i),
                   _line(x, [r["value"] for r in mine], metric, i)]
    return traces


def temperature_figure(curves: list[dict], T: float = 0.7):
    """Chapter 3 (widgets/temperature.js): pass@k and cons@k on the toy benchmark against k, with
    their intervals and the greedy accuracy; the temperature on a slider."""
    keys = ["temperature", "k", "value", "lo", "hi"]
    _records("curves", curves, ["metric", *keys], keys)
    stops = sorted({r["temperature"] for r in curves})
    if T not in stops:
        raise ValueError(f"T must be one of {stops}, got {T!r}")
    greedy = next(r["value"] for r in curves
                  if r["temperature"] == 0 and r["metric"] == "pass@k" and r["k"] == 1)

    def at(t: float) -> list:
        rows = [r for r in curves if r["temperature"] == t]
        ks = [r["k"] for r in rows]
        return _metric_traces(rows) + [_hline(greedy, "greedy", min(ks), max(ks))]

    fig = _figure([], "pass@k and cons@k against the number of attempts k", "attempts k",
                  "score on the toy benchmark", yaxis_range=[0, 1])
    return _with_slider(fig, stops, at, T, "temperature T")


def scores_by_temperature_figure(curves: list[dict]):
    """Chapter 3 (widgets/score_curves.js scoresByTemperatureChart): pass@1, pass@K and cons@K
    (K the largest k) against the sampling temperature, with error bars."""
    keys = ["temperature", "k", "value", "lo", "hi"]
    _records("curves", curves, ["metric", *keys], keys)
    K = max(r["k"] for r in curves)
    picks = [("pass@k", 1), ("pass@k", K), ("cons@k", K)]
    traces = []
    for i, (metric, k) in enumerate(picks):
        mine = sorted((r for r in curves if r["metric"] == metric and r["k"] == k),
                      key=lambda r: r["temperature"])
        traces.append(_line(
            [r["temperature"] for r in mine], [r["value"] for r in mine],
            metric.replace("k", str(k)), i,
            error_y={"type": "data", "symmetric": False,
                     "array": [r["hi"] - r["value"] for r in mine],
                     "arrayminus": [r["value"] - r["lo"] for r in mine]}))
    return _figure(traces, f"pass@1, pass@{K} and cons@{K} against the sampling temperature",
                   "temperature T", "score", yaxis_range=[0, 1])


def tiny_reasoner_scores_figure(curves: list[dict], setup: dict):
    """Chapter 3 (widgets/score_curves.js tinyReasonerScoresChart): the tiny reasoner's pass@k
    and cons@k at each sampling temperature, and its greedy accuracy, against k (log axis)."""
    keys = ["temperature", "k", "value", "lo", "hi"]
    _records("curves", curves, ["metric", *keys], keys)
    _mapping("setup", setup, ["problems"])
    traces, colour = [], 0
    for T in sorted({r["temperature"] for r in curves}):
        metrics = ["pass@k"] if T == 0 else ["pass@k", "cons@k"]
        for metric in metrics:
            mine = sorted((r for r in curves if r["temperature"] == T and r["metric"] == metric),
                          key=lambda r: r["k"])
            name = "greedy" if T == 0 else f"{metric}, T = {T:.1f}"
            traces.append(_line(
                [r["k"] for r in mine], [r["value"] for r in mine], name,
                5 if T == 0 else colour,
                error_y={"type": "data", "symmetric": False,
                         "array": [r["hi"] - r["value"] for r in mine],
                         "arrayminus": [r["value"] - r["lo"] for r in mine]}))
        if T != 0:
            colour += 1
    return _figure(traces, "The tiny reasoner's pass@k and cons@k against the attempts k",
                   "attempts k", f"score on {setup['problems']} held-out problems",
                   yaxis_range=[0, 1], xaxis_type="log")


# --- the policy-gradient chapter ----------------------------------------------------------


PG_ORANGE, PG_BLUE = "#e07b00", "#3867d6"  # widgets/policy_gradient.js's two colours


def _rule_and_dot(x: float, y: float, top: float, bottom: float, name: str, colour: str):
    """A dashed vertical rule at ``x`` and a dot at (x, y), as one trace (the rule's ends carry
    markers of size 0), so a slider stop adds one trace, not two."""
    go = _go()
    return go.Scatter(x=[x, x, None, x], y=[bottom, top, None, y], name=name,
                      mode="lines+markers", line={"color": colour, "dash": "dash", "width": 1.5},
                      marker={"size": [0, 0, 0, 13], "color": colour,
                              "line": {"color": "white", "width": 1.5}}, showlegend=False)


def baseline_variance_figure(probs: list[float], rewards: list[float], baseline: float = 0.0):
    """The policy-gradient chapter (widgets/policy_gradient.js baselineVarianceChart): the exact
    variance of one REINFORCE sample's gradient estimate against the baseline b subtracted from
    its reward (a parabola), no baseline, the mean reward and the best b marked
    (policy_gradient.exact_gradient_variance, which the widget's exactGradientVariance mirrors);
    b (the widget's "Baseline b", -1 to 2 by 0.01) on a slider."""
    from policy_gradient import exact_gradient_variance

    exact_gradient_variance(probs, rewards, 0.0)  # checks probs and rewards
    stops = [round(-1 + 0.01 * i, 2) for i in range(301)]
    if require_float("baseline", baseline) not in stops:
        raise ValueError(f"baseline must be one of -1, -0.99, ..., 2, got {baseline!r}")
    go = _go()
    lo, hi = min(rewards) - 1, max(rewards) + 1
    grid = [lo + ((hi - lo) * k) / 200 for k in range(201)]
    curve = [exact_gradient_variance(probs, rewards, b)["variance"] for b in grid]
    none = exact_gradient_variance(probs, rewards, 0.0)
    marks = [(0.0, none["variance"], "no baseline", "circle-open", "middle left"),
             (none["mean_reward"],
              exact_gradient_variance(probs, rewards, none["mean_reward"])["variance"],
              "mean reward", "square-open", "middle right"),
             (none["best_baseline"], none["best_variance"], "best b", "diamond-open",
              "top center")]
    fixed = [go.Scatter(x=grid, y=curve, name="variance of the estimate", mode="lines",
                        line={"color": PG_BLUE, "width": 2})]
    fixed += [go.Scatter(x=[b], y=[v], name=label, mode="markers+text", text=[label],
                         textposition=where, marker={"symbol": symbol, "size": 10,
                                                     "color": "#444444"})
              for b, v, label, symbol, where in marks]
    top = max(curve)

    def at(b: float) -> list:
        here = exact_gradient_variance(probs, rewards, b)
        return [_rule_and_dot(b, here["variance"], top, 0.0,
                              f"b = {b:.2f}: variance {here['variance']:.4f} "
                              f"({here['variance'] / none['variance']:.3f}× none)", PG_ORANGE)]

    fig = _figure([], "Variance of one REINFORCE sample against the baseline subtracted from its "
                  "reward", "baseline b subtracted from the reward", "variance of the estimate",
                  xaxis_range=[lo, hi])
    return _with_slider(fig, stops, at, baseline, "baseline b", fmt=lambda b: f"{b:.2f}",
                        fixed=fixed)


def ppo_clip_figure(eps: float = 0.2, sign: str = "positive", ratio: float = 1.37):
    """The policy-gradient chapter (widgets/policy_gradient.js clipChart): PPO's clipped
    objective min(rho A, clip(rho, 1 - eps, 1 + eps) A) for one token against its ratio rho,
    bold, with its two branches (the unclipped rho A dashed, clip(rho) A dotted), the flat part
    (no gradient) shaded, the walls 1 +- eps and the token at ``ratio`` marked
    (ppo.clipped_surrogate_terms, which the widget's clippedSurrogate mirrors); eps (the
    widget's "Clip width ε", 0.05 to 0.5 by 0.01) on a slider, for the advantage ``sign`` (the
    page's "Advantage" radio buttons: "positive", A = +1, or "negative", A = -1)."""
    import torch

    from ppo import clipped_surrogate_terms

    advantage = 1 if require_choice("sign", sign, ("positive", "negative")) == "positive" else -1
    ratio = require_float("ratio", ratio, low=0.05, high=1.95)
    stops = [round(0.05 + 0.01 * i, 2) for i in range(46)]
    if require_float("eps", eps) not in stops:
        raise ValueError(f"eps must be one of 0.05, 0.06, ..., 0.5, got {eps!r}")
    go = _go()
    a = float(advantage)
    rs = [0.01 * k for k in range(201)]
    grid = torch.tensor(rs, dtype=torch.float64)
    ylo, yhi = (0.0, 2.0) if a > 0 else (-2.0, 0.0)
    fixed = [go.Scatter(x=rs, y=[r * a for r in rs], name="ρ·A (unclipped)", mode="lines",
                        line={"color": PG_BLUE, "dash": "dash", "width": 1.5})]

    def at(e: float) -> list:
        objective = clipped_surrogate_terms(grid, torch.tensor(a, dtype=torch.float64), e, e)
        value = float(clipped_surrogate_terms(torch.tensor([ratio], dtype=torch.float64),
                                              torch.tensor(a, dtype=torch.float64), e, e)[0])
        clipped_here = ratio * a > min(max(ratio, 1 - e), 1 + e) * a
        flat = (1 + e, 2.0) if a > 0 else (0.0, 1 - e)
        return [
            go.Scatter(x=[flat[0], flat[1], flat[1], flat[0], flat[0]],
                       y=[ylo, ylo, yhi, yhi, ylo], name="flat: no gradient", mode="lines",
                       fill="toself", fillcolor="#888888", opacity=0.15, line={"width": 0}),
            go.Scatter(x=rs, y=[min(max(r, 1 - e), 1 + e) * a for r in rs], name="clip(ρ)·A",
                       mode="lines", line={"color": "#444444", "dash": "dot", "width": 1.5}),
            go.Scatter(x=rs, y=[float(v) + 0.0 for v in objective], name="objective (the min)",
                       mode="lines", line={"color": PG_ORANGE, "width": 3.5}, opacity=0.8),
            go.Scatter(x=[1 - e, 1 - e, None, 1 + e, 1 + e], y=[ylo, yhi, None, ylo, yhi],
                       name=f"1 ± ε = {1 - e:.2f}, {1 + e:.2f}", mode="lines",
                       line={"color": "#999999", "width": 1}, showlegend=False),
            go.Scatter(x=[ratio], y=[value], name=f"ρ = {ratio:.2f}: objective {value:.3f}, "
                       f"slope {0 if clipped_here else advantage}", mode="markers",
                       marker={"color": PG_ORANGE, "size": 13,
                               "line": {"color": "white", "width": 1.5}}),
        ]

    fig = _figure([], f"PPO's clipped surrogate against the importance ratio (A = {advantage:+d})",
                  "importance ratio ρ = π_θ / π_old", "objective for this token",
                  xaxis_range=[0, 2], yaxis_range=[ylo, yhi])
    return _with_slider(fig, stops, at, eps, "clip width ε", fmt=lambda e: f"{e:.2f}",
                        fixed=fixed)


def gae_figure(chain: dict, curve: list[dict], lam: float = 0.9):
    """The policy-gradient chapter (widgets/policy_gradient.js gaeChart): left, the advantage GAE
    gives each token of one chain at lambda (ppo.gae, which the widget's gae mirrors; a good
    token a filled bar, a bad one an outlined bar); right, the measured squared bias and
    variance of the policy gradient against lambda (Python's gae_bias_variance rows, as the page
    receives them), lambda marked; lambda (the widget's "GAE's λ", 0 to 1 by 0.1) on a slider."""
    import torch
    from plotly.subplots import make_subplots

    from ppo import gae

    _mapping("chain", chain, ["rewards", "values", "good"])
    _records("curve", curve, ["lam", "bias", "variance", "exact"],
             ["lam", "bias", "variance", "exact"])
    stops = [round(0.1 * i, 1) for i in range(11)]
    if require_float("lam", lam) not in stops:
        raise ValueError(f"lam must be one of 0, 0.1, ..., 1, got {lam!r}")
    go = _go()
    rewards = torch.tensor([chain["rewards"]], dtype=torch.float64)
    values = torch.tensor([chain["values"]], dtype=torch.float64)
    good = [bool(g) for g in chain["good"]]
    tokens = list(range(1, len(good) + 1))
    lams = [d["lam"] for d in curve]
    fixed = [go.Scatter(x=lams, y=[d["bias"] * d["bias"] for d in curve], name="bias²",
                        mode="lines+markers", line={"color": PG_ORANGE},
                        marker={"symbol": "circle"}, xaxis="x2", yaxis="y2"),
             go.Scatter(x=lams, y=[d["variance"] for d in curve], name="variance",
                        mode="lines+markers", line={"color": PG_BLUE},
                        marker={"symbol": "square"}, xaxis="x2", yaxis="y2")]
    top = max(max(d["bias"] ** 2, d["variance"]) for d in curve)

    def at(lm: float) -> list:
        adv, _ = gae(rewards, values, 1.0, lm)
        adv = [float(x) + 0.0 for x in adv[0]]
        nearest = min(curve, key=lambda d: abs(d["lam"] - lm))
        return [
            go.Bar(x=[t for t in tokens if good[t - 1]], y=[adv[t - 1] for t in tokens
                                                           if good[t - 1]],
                   name="good token", marker={"color": PG_BLUE}, width=0.7),
            go.Bar(x=[t for t in tokens if not good[t - 1]],
                   y=[adv[t - 1] for t in tokens if not good[t - 1]], name="bad token",
                   marker={"color": "rgba(0,0,0,0)", "line": {"color": PG_ORANGE, "width": 2}},
                   width=0.7),
            go.Scatter(x=[nearest["lam"]] * 2, y=[0, top], mode="lines",
                       name=f"measured at λ = {nearest['lam']:.2f}: bias {nearest['bias']:.3f}, "
                            f"variance {nearest['variance']:.3f}",
                       line={"color": "#444444", "dash": "dash"}, xaxis="x2", yaxis="y2"),
        ]

    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=["GAE advantage of each token of one chain",
                                        "bias² and variance of the gradient"])
    fig.update_layout(title="GAE's λ: one chain's advantages, and the measured bias and variance",
                      template="plotly_white", legend={"orientation": "h", "y": -0.5},
                      height=560, barmode="overlay", margin={"t": 80, "r": 20, "b": 120, "l": 60})
    fig.update_xaxes(title_text="token", tickvals=tokens, row=1, col=1)
    fig.update_yaxes(title_text="advantage", range=[-1, 1], row=1, col=1)
    fig.update_xaxes(title_text="λ", range=[0, 1], row=1, col=2)
    fig.update_yaxes(title_text="bias² and variance", rangemode="tozero", row=1, col=2)
    return _with_slider(fig, stops, at, lam, "GAE's λ", fmt=lambda x: f"{x:.1f}", fixed=fixed)


# --- chapter 4 -----------------------------------------------------------------------------


def grpo_curves_figure(records: list[dict], reference: list[dict], group_size: int = 16,
                       beta: float = 0.04, chance: float = 1 / 6):
    """Chapter 4 (widgets/grpo_curves.js): p(correct) against the GRPO step, one line per group
    size at KL weight ``beta``, the chosen size bold, the reference run dashed; the group size
    (the widget's "Group size G (curves)") on a slider."""
    keys = ["group_size", "beta", "step", "p_correct"]
    _records("records", records, keys, keys)
    _records("reference", reference, ["step", "p_correct"], ["step", "p_correct"])
    require_float("beta", beta, low=0.0)
    require_float("chance", chance, low=0.0, high=1.0)
    go = _go()
    same_beta = [r for r in records if abs(r["beta"] - beta) < 1e-12]
    sizes = sorted({r["group_size"] for r in same_beta})
    if group_size not in sizes:
        raise ValueError(f"group_size must be one of the recorded sizes {sizes}, "
                         f"got {group_size!r}")
    steps = [r["step"] for r in records]

    def run(g: int) -> list[dict]:
        return sorted((r for r in same_beta if r["group_size"] == g), key=lambda r: r["step"])

    def curves(chosen: int) -> list:
        ref = sorted(reference, key=lambda r: r["step"])
        traces = [go.Scatter(x=[r["step"] for r in ref], y=[r["p_correct"] for r in ref],
                             name="reference run", mode="lines",
                             line={"color": "#6c757d", "dash": "dash"}),
                  _hline(chance, "chance", min(steps), max(steps))]
        for i, g in enumerate(sizes):
            mine = run(g)
            traces.append(go.Scatter(
                x=[r["step"] for r in mine], y=[r["p_correct"] for r in mine], name=f"G = {g}",
                mode="lines", line={"color": COLOURS[i % len(COLOURS)],
                                    "width": 4 if g == chosen else 1.5},
                opacity=1.0 if g == chosen else 0.55))
        return traces

    fig = _figure([], f"p(correct) during GRPO training (beta = {beta})", "GRPO step",
                  "p(correct answer)", yaxis_range=[0, 1])
    return _with_slider(fig, sizes, curves, group_size, "group size G", lambda g: f"G = {g}")


ANSWERS = [f"o{i}" for i in range(1, 9)]


def _minus(x: float, digits: int = 3) -> str:
    """A signed value as the widgets print it: "+1.291", "−0.775" (a true minus), "0"."""
    if x == 0:
        return "0"
    return f"{'+' if x > 0 else '−'}{abs(x):.{digits}f}"


def grpo_step_figure(group_size: int = 4, right: Sequence[str] = ("o1", "o2", "o4")):
    """Chapter 4 (widgets/grpo_step.js): the advantage GRPO gives each answer of one group, the
    bars coloured by the answer's reward, from grpo.group_relative_advantages (float64, as the
    widget's groupRelativeAdvantages mirrors it); the group size (the widget's "Group size G",
    2 to 8) on a slider, the answers ``right`` ticked as the page's checkboxes start (an answer
    past G is outside the group, as the page greys it out)."""
    import torch

    from grpo import group_relative_advantages

    require_int("group_size", group_size, low=2, high=8)
    right = list(require_sequence("right", right))
    for name in right:
        if name not in ANSWERS:
            raise ValueError(f"right must list answers among {ANSWERS}, got {name!r}")
    go = _go()

    def group(g: int) -> tuple[list[int], list[float]]:
        rewards = [1 if f"o{i + 1}" in right else 0 for i in range(g)]
        adv = group_relative_advantages(torch.tensor(rewards, dtype=torch.float64))
        return rewards, [float(a) + 0.0 for a in adv]

    def at(g: int) -> list:
        rewards, adv = group(g)
        traces = []
        for r, name, colour in [(1, "right (r = 1)", "#2e9e5b"), (0, "wrong (r = 0)", "#d1495b")]:
            mine = [i for i in range(g) if rewards[i] == r]
            traces.append(go.Bar(x=[i + 1 for i in mine], y=[adv[i] for i in mine], name=name,
                                 marker={"color": colour}, text=[_minus(adv[i]) for i in mine],
                                 textposition="outside", cliponaxis=False))
        return traces

    def layout(g: int) -> dict:
        rewards, _ = group(g)
        n = sum(rewards)
        mean = n / g
        std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / g)
        signal = ("no signal: every advantage is 0" if n in (0, g)
                  else "the advantages sum to zero")
        return {
            "xaxis.range": [0.5, g + 0.5], "xaxis.tickvals": list(range(1, g + 1)),
            "xaxis.ticktext": [f"o{i + 1}<br>r = {rewards[i]}" for i in range(g)],
            "title.text": f"Advantage of each answer in one GRPO group<br><sup>{n} of {g} "
                          f"right: mean reward {mean:.3f}, population std {std:.3f}; "
                          f"{signal}</sup>",
        }

    fig = _figure([], "Advantage of each answer in one GRPO group",
                  "answer in the group, with its reward", "advantage A_i",
                  yaxis_range=[-2.9, 2.9])
    return _with_slider(fig, list(range(2, 9)), at, group_size, "group size G",
                        layout_of=layout)


# --- chapter 5 -----------------------------------------------------------------------------


def length_drift_figure(records: list[dict], labels: dict):
    """Chapter 5 (widgets/dr_grpo.js lengthDriftChart): the mean length of wrong (solid) and
    right (dashed) chains against the update step, under GRPO and Dr. GRPO."""
    keys = ["step", "wrong_length", "right_length"]
    _records("records", records, ["method", *keys], keys)
    _mapping("labels", labels, ["grpo", "dr_grpo"])
    go = _go()
    traces = []
    for i, method in enumerate(["grpo", "dr_grpo"]):
        mine = sorted((r for r in records if r["method"] == method), key=lambda r: r["step"])
        for track, dash in [("wrong", "solid"), ("right", "dash")]:
            traces.append(go.Scatter(
                x=[r["step"] for r in mine], y=[r[f"{track}_length"] for r in mine],
                name=f"{labels[method]}, {track} chains", mode="lines",
                line={"color": COLOURS[i], "dash": dash}))
    return _figure(traces, "Mean chain length during training, GRPO against Dr. GRPO",
                   "update step", "mean chain length (tokens)")



def _two_methods(labels: dict) -> tuple[str, str]:
    _mapping("labels", labels, ["grpo", "dr_grpo"])
    return require_str("labels['grpo']", labels["grpo"]), require_str("labels['dr_grpo']",
                                                                       labels["dr_grpo"])


DR_COLOURS = ["#e07b00", "#3867d6"]  # GRPO, Dr. GRPO: the widgets' two colours


def push_lengths(max_len: int = 1000) -> list[int]:
    """The lengths widgets/dr_grpo.js pushCurves draws its curves at: 1, then x1.15, rounded up."""
    max_len = require_int("max_len", max_len, low=1, high=10**6)
    lengths, n = [], 1
    while n <= max_len:
        lengths.append(n)
        n = math.ceil(n * 1.15)
    return lengths


def length_push_figure(demo: list[dict], labels: dict, right_length: int = 40,
                       wrong_length: int = 400, max_len: int = 1000):
    """Chapter 5 (widgets/dr_grpo.js lengthPushChart): left, on log axes, the push each token of
    a response gets against its length under GRPO and Dr. GRPO (curves, and
    demonstrate_length_bias's rows as small dots), a right and a wrong answer marked (circle,
    cross); right, the push summed over each response. All from dr_grpo.per_token_push, which
    the widget's perTokenPush mirrors. The wrong answer's length (the widget's "Wrong answer's
    length (tokens)", 1 to 1000 by 1) is on a slider of 1 to 9 and then every 10 tokens: one
    stop per token would make the figure too large to ship."""
    from plotly.subplots import make_subplots

    from dr_grpo import per_token_push

    _records("demo", demo, ["length", "grpo_incorrect", "dr_grpo_incorrect"],
             ["length", "grpo_incorrect", "dr_grpo_incorrect"])
    grpo, dr = _two_methods(labels)
    max_len = require_int("max_len", max_len, low=10, high=10**4)
    right_length = require_int("right_length", right_length, low=1, high=max_len)
    stops = [*range(1, 10), *range(10, max_len + 1, 10)]
    if require_int("wrong_length", wrong_length) not in stops:
        raise ValueError(f"wrong_length must be one of 1, ..., 9, 10, 20, ..., {max_len}, "
                         f"got {wrong_length!r}")
    go = _go()
    methods = [(grpo, "grpo", DR_COLOURS[0]), (dr, "dr_grpo", DR_COLOURS[1])]
    curve = push_lengths(max_len)
    curve_recs = [per_token_push([n, max_len], [1, -1], max_len)[0] for n in curve]
    fixed = []
    for name, key, colour in methods:
        fixed.append(go.Scatter(x=curve, y=[abs(r[key]) for r in curve_recs], name=name,
                                mode="lines", line={"color": colour}, opacity=0.6))
        fixed.append(go.Scatter(x=[d["length"] for d in demo],
                                y=[abs(d[f"{key}_incorrect"]) for d in demo],
                                name=f"{name}: demonstrate_length_bias", mode="markers",
                                marker={"color": colour, "size": 5, "symbol": "circle-open"},
                                showlegend=False))

    def at(wrong: int) -> list:
        recs = per_token_push([right_length, wrong], [1, -1], max_len)
        traces = []
        for name, key, colour in methods:
            traces.append(go.Scatter(
                x=[r["length"] for r in recs], y=[abs(r[key]) for r in recs],
                name=f"{name}: right (○) and wrong (×) answer", mode="markers",
                marker={"color": colour, "size": 12, "symbol": ["circle-open", "x-thin-open"],
                        "line": {"width": 2.5, "color": colour}}))
        for name, key, colour in methods:
            totals = [r[f"{key}_total"] for r in recs]
            traces.append(go.Bar(x=[f"{name}<br>right", f"{name}<br>wrong"], y=totals,
                                 name=f"{name}: push summed over the response",
                                 marker={"color": colour}, text=[f"{t:.3f}" for t in totals],
                                 textposition="outside", cliponaxis=False, showlegend=False,
                                 xaxis="x2", yaxis="y2"))
        return traces

    fig = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], horizontal_spacing=0.12,
                        subplot_titles=["push on each token", "push summed over the response"])
    fig.update_layout(title=f"Push on a right ({right_length} tokens) and a wrong answer, "
                            f"{grpo} against {dr}",
                      template="plotly_white", legend={"orientation": "h", "y": -0.42},
                      height=600, margin={"t": 80, "r": 20, "b": 120, "l": 60})
    fig.update_xaxes(type="log", title_text="response length (tokens)", range=[0, math.log10(
        max_len)], row=1, col=1)
    fig.update_yaxes(type="log", title_text="push on each token (size)", range=[-4, math.log10(
        0.6)], row=1, col=1)
    fig.update_yaxes(title_text="push summed over the response", range=[-0.55, 0.55], row=1,
                     col=2)
    return _with_slider(fig, stops, at, wrong_length, "wrong answer's length (tokens)",
                        fixed=fixed)


def difficulty_weight_figure(table: list[dict], labels: dict, p: float = 0.9,
                             eps: float = 1e-2):
    """Chapter 5 (widgets/dr_grpo.js difficultyWeightChart): the weight each objective puts on a
    question's advantages against the share p of its group that is right, GRPO's
    1 / (sqrt(p(1-p)) + eps) (dr_grpo.difficulty_weight, which the widget's difficultyWeight
    mirrors) against Dr. GRPO's flat 1, the chapter's printed values as open dots; p (the
    widget's "Fraction of the group right, p", 0.01 to 0.99) on a slider."""
    from dr_grpo import difficulty_weight

    _records("table", table, ["p", "weight"], ["p", "weight"])
    grpo, dr = _two_methods(labels)
    eps = require_float("eps", eps, low=0.0, low_open=True, high=1.0)
    stops = [k / 100 for k in range(1, 100)]
    if require_float("p", p) not in stops:
        raise ValueError(f"p must be one of 0.01, 0.02, ..., 0.99, got {p!r}")
    go = _go()
    balanced = difficulty_weight(0.5, eps)
    fixed = [
        go.Scatter(x=stops, y=[difficulty_weight(q, eps) for q in stops], name=grpo,
                   mode="lines", line={"color": DR_COLOURS[0], "width": 2}),
        go.Scatter(x=stops, y=[1.0] * len(stops), name=dr, mode="lines",
                   line={"color": DR_COLOURS[1], "width": 2}),
        go.Scatter(x=[r["p"] for r in table], y=[r["weight"] for r in table],
                   name="printed above", mode="markers",
                   marker={"color": "rgba(0,0,0,0)", "size": 11,
                           "line": {"color": DR_COLOURS[0], "width": 2}}),
    ]

    def at(q: float) -> list:
        w = difficulty_weight(q, eps)
        return [
            go.Scatter(x=[q, q], y=[0, 10], name=f"p = {q:.2f}", mode="lines",
                       line={"color": "#888888", "dash": "dash"}, showlegend=False),
            go.Scatter(x=[q, q], y=[w, 1.0], name=f"{grpo} and {dr} at p = {q:.2f}",
                       mode="markers+text", marker={"color": DR_COLOURS, "size": 11},
                       text=[f"{grpo} ×{w:.2f} ({w / balanced:.2f}× a balanced question)", ""],
                       textposition="top left" if q > 0.5 else "top right",
                       showlegend=False),
        ]

    fig = _figure([], "Weight on a question's advantages against the share of right answers",
                  "fraction of the group that is right, p", "weight on the question's advantages",
                  xaxis_range=[0, 1], yaxis_range=[0, 10])
    return _with_slider(fig, stops, at, p, "fraction of the group right, p",
                        fmt=lambda q: f"{q:.2f}", fixed=fixed)


# --- chapter 6 -----------------------------------------------------------------------------

GSPO_SPIKES = (3, 8)  # widgets/gspo_weights.js SPIKE_POSITIONS: the two misbehaving tokens


def gspo_token_weights(log_ratio: Sequence[float], jump_a: float, jump_b: float) -> tuple:
    """GRPO's per-token ratios w_t and GSPO's one s = exp(mean log-ratio) for a response whose
    tokens GSPO_SPIKES jump by ``jump_a`` and ``jump_b`` (gspo_math.js tokenVsSequenceWeights,
    the mirror of gspo.per_token_vs_sequence_weights given its seeded noise)."""
    logs = [require_float("log_ratio", v) for v in require_sequence("log_ratio", log_ratio)]
    if len(logs) <= max(GSPO_SPIKES):
        raise ValueError(f"log_ratio must hold more than {max(GSPO_SPIKES)} tokens")
    for pos, jump in zip(GSPO_SPIKES, (jump_a, jump_b), strict=True):
        logs[pos] += require_float("jump", jump, low=-3.0, high=3.0)
    return [math.exp(v) for v in logs], math.exp(sum(logs) / len(logs))


def gspo_weights_figure(noise: list[dict], jump_a: float = 1.4, jump_b: float = -1.1,
                        length: int = 12):
    """Chapter 6 (widgets/gspo_weights.js gspoWeightsChart): GRPO's weight on each token of one
    response (log axis), two tokens misbehaving, against GSPO's one weight s for every token, with
    GRPO's clip band; the jump of token 3 (the widget's first slider, -3 to 3 by 0.1) on a
    slider."""
    _records("noise", noise, ["length", "log_ratio"], ["length"])
    mine = [r["log_ratio"] for r in noise if r["length"] == length]
    if not mine:
        raise ValueError(f"length must be one of {[r['length'] for r in noise]}, got {length!r}")
    go = _go()
    stops = [round(-3 + 0.1 * i, 1) for i in range(61)]
    if jump_a not in stops:
        raise ValueError(f"jump_a must be one of -3.0, -2.9, ..., 3.0, got {jump_a!r}")
    positions = list(range(len(mine[0])))

    def at(a: float) -> list:
        w, s = gspo_token_weights(mine[0], a, jump_b)
        odd = [t in GSPO_SPIKES for t in positions]
        return [
            go.Scatter(x=[t for t in positions if not odd[t]], y=[w[t] for t in positions
                                                                  if not odd[t]],
                       name="ordinary token", mode="markers", marker={"color": COLOURS[1]}),
            go.Scatter(x=list(GSPO_SPIKES), y=[w[t] for t in GSPO_SPIKES],
                       name="misbehaving token", mode="markers",
                       marker={"color": "#d62728", "size": 10}),
            go.Scatter(x=[-0.5, len(positions) - 0.5], y=[s, s], name="GSPO: s for every token",
                       mode="lines", line={"color": "#ef8a2f", "width": 3}),
        ]

    fig = _figure([], f"Weight on each token's gradient, GRPO against GSPO ({length} tokens, "
                  f"token 8 jumps by {jump_b})", "token position t",
                  "weight on the token's gradient (log scale)", yaxis_type="log",
                  yaxis_range=[math.log10(0.04), math.log10(25)])
    fig.add_hrect(y0=0.8, y1=1.2, fillcolor=COLOURS[1], opacity=0.1, line_width=0)
    return _with_slider(fig, stops, at, jump_a, "log-ratio jump of token 3")


def length_variance_figure(mc: list[dict], v: float = 0.04, length: int = 128):
    """Chapter 6 (widgets/length_variance.js): on log axes, the variance of one token's
    log-weight, of the raw product over L tokens and of GSPO's geometric mean against L (closed
    forms, gspo.log_ratio_variances) with the Monte-Carlo dots, L marked; v on a slider."""
    from gspo import log_ratio_variances

    keys = ["v", "length", "token_mc", "product_mc", "seq_mc"]
    _records("mc", mc, keys, keys)
    go = _go()
    stops = sorted({r["v"] for r in mc})
    if v not in stops:
        raise ValueError(f"v must be one of {stops}, got {v!r}")
    series = [("token", "one token's weight (GRPO): v"), ("product", "raw product of ratios: L·v"),
              ("seq", "GSPO's s: v / L")]
    colours = ["#4269d0", "#d62728", "#ef8a2f"]

    def at(q: float) -> list:
        dots = sorted((r for r in mc if r["v"] == q), key=lambda r: r["length"])
        lengths = list(range(1, max(r["length"] for r in dots) + 1))
        laws = [log_ratio_variances(q, L) for L in lengths]
        traces = []
        for (key, name), colour in zip(series, colours, strict=True):
            traces += [go.Scatter(x=lengths, y=[law[key] for law in laws], name=name,
                                  mode="lines", line={"color": colour, "width": 2}),
                       go.Scatter(x=[r["length"] for r in dots], y=[r[f"{key}_mc"] for r in dots],
                                  name=f"{name} (simulated)", mode="markers",
                                  marker={"color": colour, "symbol": "circle-open", "size": 8})]
        return traces + [go.Scatter(x=[length, length], y=[1e-5, 20], name=f"L = {length}",
                                    mode="lines", line={"color": "#999999", "dash": "dash"})]

    fig = _figure([], "Variance of the log-weight against response length", "response length L "
                  "(tokens)", "variance of the log-weight", xaxis_type="log", yaxis_type="log")
    return _with_slider(fig, stops, at, v, "per-token log-ratio variance v")


def routing_flips_figure(records: list[dict], jump: float = 2, k: int = 4):
    """Chapter 6 (widgets/routing_flips.js): on a log axis, the largest token ratio, the raw
    product of ratios and GSPO's s against the number of tokens whose expert flipped (log-ratio
    jump ``jump``), the chosen count's dots marked; that count (the widget's "Tokens whose expert
    flipped") on a slider."""
    keys = ["jump", "num_flipped", "max_token_ratio", "product_ratio", "seq_ratio"]
    _records("records", records, keys, keys)
    go = _go()
    rows = sorted((r for r in records if r["jump"] == jump), key=lambda r: r["num_flipped"])
    if not rows:
        raise ValueError(f"jump must be one of {sorted({r['jump'] for r in records})}, "
                         f"got {jump!r}")
    stops = [r["num_flipped"] for r in rows]
    if k not in stops:
        raise ValueError(f"k must be one of {stops}, got {k!r}")
    series = [("max_token_ratio", "largest token ratio (GRPO)"),
              ("product_ratio", "raw product of all ratios"), ("seq_ratio", "GSPO's s")]
    colours = ["#4269d0", "#d62728", "#ef8a2f"]

    def at(kk: int) -> list:
        here = next(r for r in rows if r["num_flipped"] == kk)
        traces = []
        for (key, name), colour in zip(series, colours, strict=True):
            traces += [go.Scatter(x=stops, y=[r[key] for r in rows], name=name, mode="lines",
                                  line={"color": colour, "width": 2}),
                       go.Scatter(x=[kk], y=[here[key]], name=f"{name} at k = {kk}",
                                  mode="markers", marker={"color": colour, "size": 10})]
        return traces

    fig = _figure([], f"Importance weights against the number of flipped experts (jump {jump})",
                  "tokens whose expert flipped (of 256)", "importance weight", yaxis_type="log")
    return _with_slider(fig, stops, at, k, "tokens whose expert flipped")


def gspo_training_figure(curve: list[dict], clip_runs: list[dict],
                         default: str = "GSPO, clip 0.03 / 0.04 (the toy's)"):
    """Chapter 6 (widgets/gspo_weights.js trainingCurvesChart): p(correct token) at each update
    of every toy run, the chosen run bold, and (below) the share of its tokens clipped at each
    update; the run (the widget's "Training run") on a slider. ``curve`` is the toy GSPO run,
    named ``default`` as the page names it."""
    from plotly.subplots import make_subplots

    keys = ["step", "p_correct", "clip_fraction"]
    _records("curve", curve, keys, keys)
    _records("clip_runs", clip_runs, ["run", *keys], keys)
    require_str("default", default)
    rows = [{"run": default, **r} for r in curve] + list(clip_runs)
    runs = list(dict.fromkeys(r["run"] for r in rows))
    go = _go()

    def at(chosen: str) -> list:
        traces = []
        for i, run in enumerate(runs):
            mine = [r for r in rows if r["run"] == run]
            traces.append(go.Scatter(x=[r["step"] for r in mine], y=[r["p_correct"] for r in mine],
                                     name=run, mode="lines", opacity=1 if run == chosen else 0.35,
                                     line={"color": COLOURS[i % len(COLOURS)],
                                           "width": 3.5 if run == chosen else 1.5}))
        updates = [r for r in rows if r["run"] == chosen and r["step"] > 0]
        traces.append(go.Bar(x=[r["step"] for r in updates],
                             y=[r["clip_fraction"] for r in updates],
                             name=f"share clipped, {chosen}", xaxis="x2", yaxis="y2",
                             marker={"color": COLOURS[runs.index(chosen) % len(COLOURS)]}))
        return traces

    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.7, 0.3],
                        vertical_spacing=0.08)
    fig.update_layout(title="p(correct token) during training, and the share of tokens clipped",
                      template="plotly_white", legend={"orientation": "h", "y": -0.3},
                      margin={"t": 60, "r": 20, "b": 40, "l": 60})
    fig.update_yaxes(title_text="p(correct token)", range=[0, 1], row=1, col=1)
    fig.update_yaxes(title_text="share clipped", range=[0, 1], row=2, col=1)
    fig.update_xaxes(title_text="update", row=2, col=1)
    return _with_slider(fig, runs, at, default, "training run")


# --- chapter 7 -----------------------------------------------------------------------------


def dynamic_sampling_figure(curves: list[dict], p: float = 0.9, G: int = 8):
    """Chapter 7 (widgets/dynamic_sampling.js): the share of groups with no gradient,
    p^G + (1-p)^G, against the per-sample accuracy p: Python's curves per group size, the chosen
    G bold (dapo.wasted_fraction, which the widget's wastedFraction mirrors), each size's value at
    p dotted; p (the widget's "Per-sample accuracy p", 0.01 to 0.99) on a slider."""
    from dapo import wasted_fraction

    keys = ["p", "group_size", "wasted"]
    _records("curves", curves, keys, keys)
    require_int("G", G, low=1, high=64)
    go = _go()
    sizes = list(dict.fromkeys(r["group_size"] for r in curves))
    stops = [round(0.01 * i, 2) for i in range(1, 100)]
    if p not in stops:
        raise ValueError(f"p must be one of 0.01, 0.02, ..., 0.99, got {p!r}")
    grid = [k / 200 for k in range(201)]
    colour = {g: COLOURS[i % len(COLOURS)] for i, g in enumerate(sizes)}

    def at(q: float) -> list:
        traces = []
        for g in sizes:
            mine = [r for r in curves if r["group_size"] == g]
            traces.append(go.Scatter(x=[r["p"] for r in mine], y=[r["wasted"] for r in mine],
                                     name=f"G = {g}", mode="lines",
                                     line={"color": colour[g], "width": 1.5}))
        traces.append(go.Scatter(x=grid, y=[wasted_fraction(x, G) for x in grid],
                                 name=f"G = {G} (chosen)", mode="lines",
                                 line={"color": colour.get(G, "#333333"), "width": 3.5}))
        traces.append(go.Scatter(x=[q] * len(sizes), y=[wasted_fraction(q, g) for g in sizes],
                                 name=f"each G at p = {q}", mode="markers",
                                 marker={"color": [colour[g] for g in sizes], "size": 8}))
        traces.append(go.Scatter(x=[q], y=[wasted_fraction(q, G)], name=f"G = {G} at p = {q}",
                                 mode="markers", marker={"color": "white", "size": 12,
                                                         "line": {"color": "black", "width": 2}}))
        return traces

    fig = _figure([], "Wasted share of groups against per-sample accuracy",
                  "per-sample accuracy p", "wasted fraction p^G + (1-p)^G", yaxis_range=[0, 1])
    return _with_slider(fig, stops, at, p, "per-sample accuracy p")


def overlong_figure(ramp: list[dict], max_len: int = 20480, cache_len: int = 4096,
                    length: int = 18432):
    """Chapter 7 (widgets/overlong.js): DAPO's soft overlong penalty (dapo.overlong_penalty,
    which the widget's overlongPenalty mirrors) against the hard cliff, Python's ramp dotted,
    the chosen length marked; the response length (the widget's "Response length |y|", 0 to
    40960 by 256) on a slider."""
    from dapo import overlong_penalty

    _records("ramp", ramp, ["length", "penalty"], ["length", "penalty"])
    require_int("max_len", max_len, low=1)
    cache = min(require_int("cache_len", cache_len, low=1), max_len)
    go = _go()
    stops = list(range(0, 40961, 256))
    if length not in stops:
        raise ValueError(f"length must be one of 0, 256, ..., 40960, got {length!r}")
    start = max_len - cache
    xs = [0, start, max_len, max_len + 1e-6, 40960]

    def at(n: int) -> list:
        soft = overlong_penalty(n, max_len, cache)
        return [
            go.Scatter(x=[r["length"] for r in ramp], y=[r["penalty"] for r in ramp],
                       name="Python's ramp", mode="markers", marker={"color": "#bbbbbb"}),
            go.Scatter(x=xs, y=[0 if x <= max_len else -1 for x in xs], name="hard cliff",
                       mode="lines", line={"color": "#888888", "dash": "dash"}),
            go.Scatter(x=xs, y=[overlong_penalty(x, max_len, cache) for x in xs],
                       name="soft penalty", mode="lines", line={"color": "#ef8a2f", "width": 2.5}),
            go.Scatter(x=[n], y=[soft], name=f"|y| = {n}", mode="markers",
                       marker={"color": COLOURS[1], "size": 10}),
        ]

    fig = _figure([], f"Length penalty against response length (L_max {max_len}, L_cache "
                  f"{cache})", "response length |y| (tokens)", "length penalty added to the reward",
                  yaxis_range=[-1.15, 0.15])
    fig.add_vrect(x0=start, x1=max_len, fillcolor="#ef8a2f", opacity=0.12, line_width=0)
    return _with_slider(fig, stops, at, length, "response length |y|")


def _fixed6(x: float) -> float:
    """JavaScript's +x.toFixed(6): the nearest 6-decimal number (both round the exact double)."""
    return float(f"{x:.6f}")


def clip_higher_ratios(eps_low: float, eps_high: float, r_min: float = 0.5,
                       r_max: float = 1.6, steps: int = 220) -> list[float]:
    """The ratios widgets/clip_higher.js clipHigherCurve draws DAPO's curve at: a grid of
    ``steps`` + 1 points, and each wall inside it with a point a hair either side (so the drop
    is vertical)."""
    low = require_float("eps_low", eps_low, low=0.0, low_open=True, high=1.0)
    high = require_float("eps_high", eps_high, low=0.0, low_open=True, high=1.0)
    r_min = require_float("r_min", r_min, low=0.0, low_open=True)
    r_max = require_float("r_max", r_max, low=r_min, low_open=True, high=1e6)
    steps = require_int("steps", steps, low=1, high=10**5)
    ratios = {_fixed6(r_min + ((r_max - r_min) * k) / steps) for k in range(steps + 1)}
    for wall in (1 + high, 1 - low):
        if r_min < wall < r_max:
            ratios |= {wall, wall + 1e-9, wall - 1e-9}
    return sorted(ratios)


def clip_higher_figure(grpo_curve: list[dict], eps_high: float = 0.28, eps_low: float = 0.2,
                       ratio: float = 1.25, grpo_eps: float = 0.2):
    """Chapter 7 (widgets/clip_higher.js): one token's gradient coefficient d term / d log pi
    against its ratio r, for A = +1 (upper branch) and A = -1 (lower): GRPO's symmetric clip
    dashed grey (Python's autograd curve, as the page receives it), DAPO's decoupled clip solid
    orange (dapo.clip_gradient_coefficient, which the widget's clipGradientCoefficient mirrors),
    the walls dotted, the room Clip-Higher adds shaded, the token at ``ratio`` dotted on both;
    eps_high (the widget's "ε_high (ceiling)", 0.10 to 0.55 by 0.01) on a slider."""
    from dapo import clip_gradient_coefficient

    keys = ["ratio", "grpo_grad", "grpo_grad_neg"]
    _records("grpo_curve", grpo_curve, keys, keys)
    low = require_float("eps_low", eps_low, low=0.0, low_open=True, high=1.0, high_open=True)
    ratio = require_float("ratio", ratio, low=0.5, high=1.6)
    eps = require_float("grpo_eps", grpo_eps, low=0.0, low_open=True, high=1.0, high_open=True)
    stops = [round(0.1 + 0.01 * i, 2) for i in range(46)]
    if require_float("eps_high", eps_high) not in stops:
        raise ValueError(f"eps_high must be one of 0.1, 0.11, ..., 0.55, got {eps_high!r}")
    go = _go()
    orange, grey, blue = "#ef8a2f", "#888888", "#4269d0"
    floor = 1 - low
    fixed = []
    fixed.append(go.Scatter(x=[ratio, ratio], y=[clip_gradient_coefficient(ratio, a, eps, eps)
                                                 for a in (1, -1)],
                            name=f"GRPO at r = {ratio:.2f}", mode="markers",
                            marker={"size": 12, "color": "rgba(0,0,0,0)",
                                    "line": {"color": grey, "width": 2}}))
    fixed.append(go.Scatter(x=[floor, floor], y=[-1.7, 1.7], name=f"floor 1−ε_low = {floor:.2f}",
                            mode="lines", line={"color": blue, "dash": "dot"}))
    if floor < 1 - eps:
        fixed.append(_shade(floor, 1 - eps, "#d62728", "extra room to push bad tokens down"))

    def at(high: float) -> list:
        wall = 1 + high
        xs = clip_higher_ratios(low, high)
        traces = [go.Scatter(x=xs, y=[clip_gradient_coefficient(x, a, low, high) for x in xs],
                             name=f"DAPO ({branch})", mode="lines",
                             line={"color": orange, "width": 3})
                  for a, branch in [(1, "A = +1"), (-1, "A = -1")]]
        # GRPO's curves (the same at every stop) over DAPO's, as the page draws them
        traces += [go.Scatter(x=[d["ratio"] for d in grpo_curve], y=[d[key] for d in grpo_curve],
                              name=f"GRPO, ε = {eps} ({branch})", mode="lines",
                              line={"color": grey, "width": 1.5, "dash": "dash"})
                   for key, branch in [("grpo_grad", "A = +1"), ("grpo_grad_neg", "A = -1")]]
        traces.append(go.Scatter(x=[wall, wall], y=[-1.7, 1.7],
                                 name=f"wall 1+ε_high = {wall:.2f}", mode="lines",
                                 line={"color": orange, "dash": "dot"}))
        traces.append(go.Scatter(x=[ratio, ratio],
                                 y=[clip_gradient_coefficient(ratio, a, low, high)
                                    for a in (1, -1)],
                                 name=f"DAPO at r = {ratio:.2f}", mode="markers",
                                 marker={"size": 8, "color": orange}))
        if wall > 1 + eps:
            traces.append(_shade(1 + eps, wall, orange, "headroom Clip-Higher adds"))
        return traces

    fig = _figure([], "Gradient coefficient against the importance ratio, GRPO and DAPO",
                  "importance ratio r of the token", "gradient coefficient ∂term/∂log π",
                  xaxis_range=[0.5, 1.6], yaxis_range=[-1.7, 1.7])
    return _with_slider(fig, stops, at, eps_high, "ε_high (ceiling)", fixed=fixed)


def _shade(x0: float, x1: float, colour: str, name: str):
    """A vertical band x0..x1 over the y range [-1.7, 1.7], as a filled trace (so it can be one
    slider stop's)."""
    go = _go()
    return go.Scatter(x=[x0, x1, x1, x0, x0], y=[-1.7, -1.7, 1.7, 1.7, -1.7], name=name,
                      mode="lines", fill="toself", fillcolor=colour, opacity=0.13,
                      line={"width": 0}, hoverinfo="name")


TOKEN_SCHEMES = [("sample-level (GRPO)", "sample", "#999999"),
                 ("token-level (DAPO)", "token", "#ef8a2f")]


def token_level_figure(tokens: list[dict], length: int = 32):
    """Chapter 7 (widgets/token_level.js): each response's share of the loss (top) and one of its
    tokens' weight (bottom) under sample-level and token-level averaging, from
    dapo.demonstrate_token_level (the weights autograd reads off the two losses, which the
    widget's responseWeights mirrors); the page's lengths with the last response's length (the
    widget's "Length of response 4", 1 to 64) on a slider."""
    from plotly.subplots import make_subplots

    from dapo import demonstrate_token_level

    _records("tokens", tokens, ["length"], ["length"])
    first = [require_int("tokens[i]['length']", t["length"], low=1, high=10**4)
             for t in tokens[:-1]]
    stops = list(range(1, 65))
    if require_int("length", length) not in stops:
        raise ValueError(f"length must be one of 1, 2, ..., 64, got {length!r}")
    go = _go()
    n = len(first) + 1

    def at(last: int) -> list:
        rows = demonstrate_token_level([*first, last], verbose=False)
        traces = []
        for name, key, colour in TOKEN_SCHEMES:
            totals = [r[f"{key}_weight"] for r in rows]
            traces.append(go.Bar(x=list(range(1, n + 1)), y=totals, name=name,
                                 marker={"color": colour}, text=[f"{t:.3f}" for t in totals],
                                 textposition="outside", cliponaxis=False,
                                 legendgroup=name))
            traces.append(go.Bar(x=list(range(1, n + 1)), y=[r[f"{key}_per_token"] for r in rows],
                                 name=f"{name}, one token", marker={"color": colour},
                                 legendgroup=name, showlegend=False, xaxis="x2", yaxis="y2"))
        return traces

    def layout(last: int) -> dict:
        ticks = [f"response {i + 1}<br>{m} tok" for i, m in enumerate([*first, last])]
        return {"xaxis.tickvals": list(range(1, n + 1)), "xaxis.ticktext": ticks,
                "xaxis2.tickvals": list(range(1, n + 1)), "xaxis2.ticktext": ticks,
                "title.text": f"Each response's share of the loss, sample-level against "
                              f"token-level<br><sup>{n} responses, {sum(first) + last} tokens "
                              "in all</sup>"}

    fig = make_subplots(rows=2, cols=1, row_heights=[0.55, 0.45], vertical_spacing=0.16)
    fig.update_layout(template="plotly_white", barmode="group", height=600,
                      legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
                      margin={"t": 110, "r": 20, "b": 40, "l": 60})
    fig.update_yaxes(title_text="share of the loss (response total)", range=[0, 1], row=1, col=1)
    fig.update_yaxes(title_text="weight of one token", row=2, col=1)
    return _with_slider(fig, stops, at, length, "length of response 4", layout_of=layout)


# --- chapter 8 -----------------------------------------------------------------------------


def reflection_tokens_figure(tokens: list[dict], labels: dict, eps_high: float = 0.2):
    """Chapter 8 (widgets/reflection_tokens.js): the push -N dloss/dlog pi each token of one step
    gets under GRPO and under CISPO (fork tokens starred), from cispo.demonstrate_reflection_token
    (which the widget's reflectionGradients mirrors); eps_high (the widget's "ε_high sweep", 0.05
    to 0.95 by 0.01) on a slider."""
    from cispo import demonstrate_reflection_token

    keys = ["label", "ratio", "advantage", "is_fork"]
    _records("tokens", tokens, keys, ["ratio", "advantage"])
    _mapping("labels", labels, ["grpo", "cispo"])
    go = _go()
    spec = tuple((t["label"], t["ratio"], t["advantage"], bool(t["is_fork"])) for t in tokens)
    stops = [round(0.05 + 0.01 * i, 2) for i in range(91)]
    if eps_high not in stops:
        raise ValueError(f"eps_high must be one of 0.05, 0.06, ..., 0.95, got {eps_high!r}")
    names = [f"★ {t['label']}" if t["is_fork"] else t["label"] for t in tokens]

    def at(eps: float) -> list:
        res = demonstrate_reflection_token(eps_high=eps, grpo_eps=eps, tokens=spec,
                                           dtype=_float64())
        n = len(res["tokens"])
        return [go.Bar(x=[-n * t[f"grad_{m}"] + 0 for t in res["tokens"]], y=names,
                       orientation="h", name=f"{labels[m]} ({res[f'kept_{m}']} of "
                       f"{res['n_fork']} forks learning)",
                       marker={"color": colour})
                for m, colour in [("grpo", "#ef8a2f"), ("cispo", "#3ca951")]]

    fig = _figure([], "Push on each token's log-probability, GRPO against CISPO",
                  "push on log pi (-N dloss/dlog pi)", "token", barmode="group")
    return _with_slider(fig, stops, at, eps_high, "eps_high")


def _float64():
    import torch

    return torch.float64

CISPO_METHODS = [("GRPO (clip the update)", "#ef8a2f"), ("CISPO (clip the weight)", "#3ca951")]


def cliff_plateau_ratios(eps_high: float, r_min: float = 0.5, r_max: float = 3.0,
                         steps: int = 250) -> list[float]:
    """The ratios widgets/cispo_cliff.js cliffPlateauCurves draws at: a grid of ``steps`` + 1
    points, and the wall 1 + eps_high with a point a hair past it (so GRPO's drop is vertical)."""
    high = require_float("eps_high", eps_high, low=0.0, low_open=True, high=1.0, high_open=True)
    r_min = require_float("r_min", r_min, low=0.0, low_open=True)
    r_max = require_float("r_max", r_max, low=r_min, low_open=True, high=1e6)
    steps = require_int("steps", steps, low=1, high=10**5)
    ratios = {_fixed6(r_min + ((r_max - r_min) * k) / steps) for k in range(steps + 1)}
    wall = 1 + high
    if wall < r_max:
        ratios |= {wall, wall + 1e-9}
    return sorted(ratios)


def cispo_cliff_figure(ratio: float = 1.6, eps_high: float = 0.2):
    """Chapter 8 (widgets/cispo_cliff.js): the gradient coefficient of one token with A = +1
    against its ratio r, GRPO's cliff (dapo.clip_gradient_coefficient, floor 0.2: r up to
    1 + eps_high, then 0; dashed) against CISPO's plateau (cispo.cispo_gradient_coefficient:
    min(r, 1 + eps_high); solid), the clip shaded; the token's ratio (the widget's "Token ratio
    r", 0.5 to 3 by 0.01) on a slider that moves the two dots along the fixed curves."""
    from cispo import cispo_gradient_coefficient
    from dapo import clip_gradient_coefficient

    high = require_float("eps_high", eps_high, low=0.0, low_open=True, high=1.0, high_open=True)
    stops = [round(0.5 + 0.01 * i, 2) for i in range(251)]
    if require_float("ratio", ratio) not in stops:
        raise ValueError(f"ratio must be one of 0.5, 0.51, ..., 3.0, got {ratio!r}")
    go = _go()
    wall = 1 + high
    xs = cliff_plateau_ratios(high)
    (grpo, grpo_colour), (cispo, cispo_colour) = CISPO_METHODS

    def grpo_at(r: float) -> float:
        return clip_gradient_coefficient(r, 1.0, 0.2, high)

    def cispo_at(r: float) -> float:
        return cispo_gradient_coefficient(r, 1.0, high)

    fixed = [
        go.Scatter(x=[wall, 3.0, 3.0, wall, wall], y=[0, 0, 2.1, 2.1, 0],
                   name=f"past the clip, r > 1 + ε_high = {wall:.2f}", mode="lines",
                   fill="toself", fillcolor="#d62728", opacity=0.1, line={"width": 0}),
        go.Scatter(x=xs, y=[cispo_at(x) for x in xs], name=cispo, mode="lines",
                   line={"color": cispo_colour, "width": 3}),
        go.Scatter(x=xs, y=[grpo_at(x) for x in xs], name=grpo, mode="lines",
                   line={"color": grpo_colour, "width": 2.5, "dash": "dash"}),
    ]

    def at(r: float) -> list:
        return [
            go.Scatter(x=[r, r], y=[0, 2.1], name=f"r = {r:.2f}", mode="lines",
                       line={"color": "#999999"}, showlegend=False),
            # GRPO's dot is the larger, so CISPO's shows inside it where the two agree.
            go.Scatter(x=[r, r], y=[grpo_at(r), cispo_at(r)], name=f"GRPO and CISPO at r = {r:.2f}",
                       mode="markers", showlegend=False,
                       marker={"color": [grpo_colour, cispo_colour], "size": [14, 9],
                               "line": {"color": "white", "width": [0, 1.5]}}),
        ]

    fig = _figure([], "Gradient coefficient against the importance ratio, GRPO and CISPO",
                  "importance ratio r of the token", "gradient coefficient ∂J/∂log π (A = +1)",
                  xaxis_range=[0.5, 3.0], yaxis_range=[0, 2.1])
    return _with_slider(fig, stops, at, ratio, "token ratio r", fmt=lambda r: f"{r:.2f}",
                        fixed=fixed)


# --- chapter 9 -----------------------------------------------------------------------------


def beam_sweep_figure(full: list[dict], demo: list[dict], error_rate: float = 0.7):
    """Chapter 9 (widgets/beam_sweep.js): the share of puzzles solved against the beam width, one
    line per judge error rate (the oracle dashed, the chosen rate bold), with the demo puzzles'
    dots at the chosen rate; the error rate (the widget's "Evaluator error rate") on a slider."""
    keys = ["error_rate", "beam_width", "solve_rate"]
    _records("full", full, keys, keys)
    _records("demo", demo, keys, keys)
    go = _go()
    rates = sorted({r["error_rate"] for r in full})
    stops = [r for r in rates if r != 0]
    if error_rate not in stops:
        raise ValueError(f"error_rate must be one of {stops}, got {error_rate!r}")

    def curves(chosen: float) -> list:
        traces = []
        for rate in rates:
            mine = sorted((r for r in full if r["error_rate"] == rate),
                          key=lambda r: r["beam_width"])
            name = "oracle (error 0)" if rate == 0 else f"error {rate}"
            style = ({"color": COLOURS[2], "dash": "dash", "width": 2} if rate == 0 else
                     {"color": COLOURS[1], "width": 4} if rate == chosen else
                     {"color": "#c9ced6", "width": 1.5})
            traces.append(go.Scatter(x=[r["beam_width"] for r in mine],
                                     y=[r["solve_rate"] for r in mine], name=name,
                                     mode="lines", line=style))
        dots = sorted((r for r in demo if r["error_rate"] == chosen),
                      key=lambda r: r["beam_width"])
        traces.append(go.Scatter(x=[r["beam_width"] for r in dots],
                                 y=[r["solve_rate"] for r in dots], name="demo puzzles",
                                 mode="markers", marker={"color": COLOURS[0], "size": 9}))
        return traces

    fig = _figure([], "Puzzles solved against beam width", "beam width b", "puzzles solved",
                  yaxis_range=[0, 1.02], yaxis_tickformat=".0%")
    return _with_slider(fig, stops, curves, error_rate, "evaluator error rate")


TREE_COLOURS = {"pruned": "#b7bcc4", "kept": "#4269d0", "missed": "#ef8a2f", "path": "#e3a008"}
TREE_BIG, TREE_SMALL = 32.0, 3.2  # widgets/search_tree.js: room for a labelled node, and others
TREE_FAN = 10  # characters of room for the edges from one thought to the next


def load_search_trees() -> dict:
    """data/search_trees.json, the searches tree_of_thoughts.bfs_trace recorded (the file the
    page's search-tree widget loads)."""
    from data_paths import SEARCH_TREES_PATH, read_json

    doc = read_json(SEARCH_TREES_PATH)
    _mapping("search_trees.json", doc, ["puzzles", "trees"])
    _records("search_trees.json trees", doc["trees"], ["puzzle", "beam", "error", "levels"])
    return doc


def find_tree(trees: list[dict], puzzle: str, beam: int, error: float) -> dict:
    """The recorded search of ``puzzle`` at beam width ``beam`` and judge error rate ``error``
    (widgets/search_tree.js findTree)."""
    _records("trees", trees, ["puzzle", "beam", "error", "levels"])
    require_str("puzzle", puzzle)
    require_int("beam", beam, low=1)
    require_float("error", error, low=0.0, high=1.0)
    for tree in trees:
        if tree["puzzle"] == puzzle and tree["beam"] == beam and abs(tree["error"] - error) < 1e-9:
            return tree
    raise ValueError(f"no recorded search for puzzle {puzzle!r}, beam {beam}, error {error}")


def search_tree_nodes(tree: dict) -> list[dict]:
    """The tree's nodes as widgets/search_tree.js layoutTree orders them: the puzzle, then each
    thought's states grouped under their parents, each with its row's fields, whether it is
    labelled (kept, or at thought 3 on the winning path), its label text, and ``y`` in [0, 1]
    (top to bottom, a labelled node given ten times the room of another, as on the page)."""
    _mapping("tree", tree, ["puzzle", "levels", "solution"])
    levels = [[{"depth": 0, "index": 0, "expr": "", "state": tree["puzzle"], "kept": True,
                "onPath": tree["solution"] is not None, "label": True, "score": 1.0,
                "winnable": True}]]
    for d, rows in enumerate(tree["levels"]):
        levels.append([{"depth": d + 1, "index": i, "parent": p, "expr": e, "state": s,
                        "score": sc, "kept": bool(k), "onPath": bool(on), "winnable": bool(w),
                        "label": bool(k) if d + 1 < 3 else bool(on)}
                       for i, (p, e, s, sc, k, on, w) in enumerate(rows)])
    for d in range(1, len(levels)):
        rank = {n["index"]: i for i, n in enumerate(levels[d - 1])}
        levels[d].sort(key=lambda n: (rank[n["parent"]], n["index"]))
    for d, nodes in enumerate(levels):
        total = sum(TREE_BIG if n["label"] else TREE_SMALL for n in nodes)
        y = 0.0
        for n in nodes:
            slot = TREE_BIG if n["label"] else TREE_SMALL
            n["y"] = 0.5 if d == 0 else (y + slot / 2) / total
            y += slot
            if not n["label"]:
                n["text"] = ""
            elif d == 0 or d == 3:
                n["text"] = n["state"] if d == 0 else n["expr"]
            else:
                n["text"] = f"{n['expr']}<br>[{n['state']}]"
    return [n for nodes in levels for n in nodes]


def search_tree_figure(puzzle: str = "4 9 10 13", beam: int = 3, error: float = 0.5,
                       shown: int = 3, trees: list[dict] | None = None):
    """Chapter 9 (widgets/search_tree.js): one recorded breadth-first search of a Game-of-24
    puzzle, thought by thought (columns): pruned states grey, kept ones blue (hollow where the
    judge called them hopeless), winnable states the judge gave up on ringed orange, the
    winning derivation gold and starred; the beam width (the widget's "Beam width b", 1 to 8)
    on a slider. ``trees`` defaults to data/search_trees.json's, the page's file."""
    trees = load_search_trees()["trees"] if trees is None else trees
    require_int("shown", shown, low=1, high=3)
    beams = sorted({t["beam"] for t in _records("trees", trees, ["puzzle", "beam", "error"])
                    if t["puzzle"] == puzzle and abs(t["error"] - error) < 1e-9})
    if require_int("beam", beam) not in beams:
        raise ValueError(f"beam must be one of the recorded widths {beams} for puzzle "
                         f"{puzzle!r} at error {error}, got {beam!r}")
    go = _go()
    found = {b: search_tree_nodes(find_tree(trees, puzzle, b, error)) for b in beams}
    # Columns in characters: each thought's lane is as wide as its longest label line.
    lanes = [max([len(line) for b in beams for n in found[b] if n["depth"] == d and n["label"]
                  for line in n["text"].split("<br>")] or [4]) + 2 for d in range(4)]
    xs = [sum(lanes[:d]) + TREE_FAN * d for d in range(4)]

    def at(b: int) -> list:
        nodes = [n for n in found[b] if n["depth"] <= shown]
        by = {(n["depth"], n["index"]): n for n in found[b]}
        for n in nodes:
            n["x"] = xs[n["depth"]]
        traces = []
        for kind, pick, width in [("pruned", lambda n: not n["kept"], 1),
                                  ("kept", lambda n: n["kept"] and not n["onPath"], 1.5),
                                  ("path", lambda n: n["onPath"], 3.5)]:
            ex, ey = [], []
            for n in nodes:
                if n["depth"] == 0 or not pick(n):
                    continue
                p = by[(n["depth"] - 1, n["parent"])]
                start = xs[p["depth"]] + (lanes[p["depth"]] if p["label"] else 0)
                ex += [start, n["x"], None]
                ey += [p["y"], n["y"], None]
            traces.append(go.Scatter(x=ex, y=ey, mode="lines", name=f"{kind} edges",
                                     line={"color": TREE_COLOURS[kind], "width": width},
                                     opacity=0.35 if kind == "pruned" else 1, hoverinfo="skip",
                                     showlegend=False))
        inner = [n for n in nodes if n["depth"] > 0]
        path = [n for n in nodes if n["kept"] and n["depth"] < 3 and n["onPath"]]
        groups = [
            ("pruned", [n for n in inner if not n["kept"]],
             {"color": TREE_COLOURS["pruned"], "size": 5}),
            ("winnable but judged hopeless",
             [n for n in inner if n["depth"] < 3 and n["winnable"] and not n["score"] > 0],
             {"color": TREE_COLOURS["missed"], "size": 10, "symbol": "circle-open",
              "line": {"width": 2}}),
            ("kept in the beam",
             [n for n in nodes if n["kept"] and n["depth"] < 3 and not n["onPath"]
              and (n["depth"] == 0 or n["score"] > 0)],
             {"color": TREE_COLOURS["kept"], "size": 10}),
            ("kept, though judged hopeless",
             [n for n in inner if n["kept"] and n["depth"] < 3 and not n["onPath"]
              and not n["score"] > 0],
             {"color": "white", "size": 10, "line": {"color": TREE_COLOURS["kept"], "width": 2}}),
            ("on the winning derivation (hollow: judged hopeless)", path,
             {"color": ["white" if n["depth"] and not n["score"] > 0 else TREE_COLOURS["path"]
                        for n in path], "size": 10,
              "line": {"color": TREE_COLOURS["path"], "width": 2}}),
            ("the winning derivation's 24", [n for n in inner if n["depth"] == 3 and n["onPath"]],
             {"color": TREE_COLOURS["path"], "size": 18, "symbol": "star",
              "line": {"color": "#7a5200", "width": 1}}),
        ]
        for name, mine, marker in groups:
            traces.append(go.Scatter(
                x=[n["x"] for n in mine], y=[n["y"] for n in mine], mode="markers", name=name,
                marker=marker, hovertext=[f"{n['expr']} → {n['state']}" if n["depth"] else
                                          n["state"] for n in mine], hoverinfo="text"))
        labelled = [n for n in nodes if n["text"]]
        traces.append(go.Scatter(
            x=[n["x"] + (2 if n["depth"] == 3 else 1) for n in labelled],
            y=[n["y"] for n in labelled], mode="text",
            text=[n["text"] for n in labelled], textposition="middle right", name="labels",
            textfont={"size": 11, "color": [TREE_COLOURS["path"] if n["onPath"] else
                                            TREE_COLOURS["kept"] for n in labelled]},
            hoverinfo="skip", showlegend=False))
        return traces

    def layout(b: int) -> dict:
        tree = find_tree(trees, puzzle, b, error)
        kept = [sum(1 for r in rows if r[4]) for rows in tree["levels"]]
        states = [len(rows) for rows in tree["levels"]]
        result = f"solved: {tree['solution']}" if tree["solution"] else "not solved"
        return {"title.text": f"Beam search on {puzzle}, beam b = {b}, judge error rate "
                              f"{error}<br><sup>states per thought {states[0]} / {states[1]} / "
                              f"{states[2]}, kept {kept[0]} / {kept[1]}; {result}</sup>"}

    width = sum(lanes) + 3 * TREE_FAN
    fig = _figure([], f"Beam search on {puzzle}", "", "", height=760,
                  legend={"orientation": "h", "y": -0.3},
                  margin={"t": 70, "r": 20, "b": 150, "l": 20},
                  xaxis={"range": [-2, width + 2], "showgrid": False, "zeroline": False,
                         "tickvals": xs[: shown + 1],
                         "ticktext": ["puzzle", "thought 1", "thought 2", "thought 3: = 24?"][
                             : shown + 1], "side": "top"},
                  yaxis={"range": [1.03, -0.03], "visible": False})
    return _with_slider(fig, beams, at, beam, "beam width b", layout_of=layout)


# --- chapter 10 ----------------------------------------------------------------------------


VERDICT_COLOURS = {"valid": "#2a9d8f", "invalid": "#e76f51", "not read": "#c8ccd2"}


def crux_chain_figure(chains: list[dict], chain: int = 0, target: int = 24):
    """Chapter 10 (widgets/crux_chain.js): one chain judged twice, one row per step: the process
    reward model's verdict on every step (prm.step_rewards, ✗ unreadable where the step does not
    parse, the first error outlined) and the outcome model's on the last line only
    (prm.orm_score), which widgets/prm_math.js mirrors; the chain (the widget's "Chain" menu, by
    its index in ``chains``) on a slider. (On the page a reader can also edit the steps; here,
    pass your own ``chains``.)"""
    from prm import first_error_index, orm_score, parse_step, prm_score, step_rewards

    _records("chains", chains, ["name", "steps"])
    require_int("chain", chain, low=0, high=len(chains) - 1)
    require_int("target", target)
    go = _go()

    def readable(step: str) -> bool:
        try:
            parse_step(step)
        except ValueError:
            return False
        return True

    def judged(i: int) -> dict:
        steps = list(require_sequence(f"chains[{i}]['steps']", chains[i]["steps"]))
        return {"steps": steps, "rewards": step_rewards(steps), "orm": orm_score(steps, target),
                "prm": prm_score(steps, "min"), "first": first_error_index(steps)}

    def at(i: int) -> list:
        j = judged(i)
        T = len(j["steps"])
        cells = {v: ([], [], []) for v in VERDICT_COLOURS}  # x, y, text
        for t, (step, r) in enumerate(zip(j["steps"], j["rewards"], strict=True)):
            text = "✓ 1" if r else "✗ 0" if readable(step) else "✗ unreadable"
            if t == j["first"]:
                text += "<br>first error"
            verdict = "valid" if r else "invalid"
            for col, v, s in [(1, verdict, text)] + [
                    (2, ("valid" if j["orm"] else "invalid") if t == T - 1 else "not read",
                     (f"✓ = {target}" if j["orm"] else f"✗ ≠ {target}") if t == T - 1
                     else "not read")]:
                cells[v][0].append(col)
                cells[v][1].append(t + 1)
                cells[v][2].append(s)
        traces = [go.Scatter(x=x, y=y, text=s, name=v, mode="markers+text",
                             marker={"symbol": "square", "size": 40, "color": VERDICT_COLOURS[v]},
                             textfont={"color": "#333333" if v == "not read" else "white",
                                       "size": 11})
                  for v, (x, y, s) in cells.items()]
        first = [] if j["first"] is None else [j["first"] + 1]
        traces.append(go.Scatter(x=[1] * len(first), y=first, name="first error", mode="markers",
                                 marker={"symbol": "square-open", "size": 46,
                                         "color": "#333333", "line": {"width": 3}}))
        return traces

    def layout(i: int) -> dict:
        j = judged(i)
        T = len(j["steps"])
        fooled = j["orm"] == 1 and j["prm"] == 0
        verdict = ("the outcome model is fooled: right answer, broken reasoning" if fooled
                   else "both models accept it" if j["orm"] == 1
                   else f"every step is sound but it misses {target}" if j["prm"] == 1
                   else "both models reject it")
        return {"yaxis.range": [T + 0.6, 0.4], "yaxis.tickvals": list(range(1, T + 1)),
                "yaxis.ticktext": [f"{t + 1}. {s.strip() or '(empty)'}"
                                   for t, s in enumerate(j["steps"])],
                "title.text": f"{chains[i]['name']}<br><sup>step rewards {j['rewards']}, PRM "
                              f"(min) {j['prm']:.1f}, ORM {j['orm']:.1f}: {verdict}</sup>"}

    fig = _figure([], "Verdict on each step of the chain", "", "", height=380,
                  xaxis={"range": [0.4, 2.6], "tickvals": [1, 2], "side": "top",
                         "ticktext": ["process (PRM)", "outcome (ORM)"], "showgrid": False},
                  yaxis={"showgrid": False}, margin={"t": 110, "r": 20, "b": 40, "l": 210})
    return _with_slider(fig, list(range(len(chains))), at, chain, "chain",
                        fmt=lambda i: chains[i]["name"], layout_of=layout)


AGG_NOTES = {"min": "the weakest step", "product": "P(every step is right)",
             "mean": "the average step", "last": "the final step only"}


def prm_aggregation_figure(examples: list[dict], example: int = 1, agg: str = "min"):
    """Chapter 10 (widgets/prm_aggregation.js): one chain's soft step scores as bars (invalid
    steps marked ✗) with the ``agg`` aggregate dashed, and below the chain's score under each of
    the four aggregations (prm.prm_score, which the widget's prmScore mirrors), the chosen one
    darker; the chain (the widget's "Example chain" menu, by its index in ``examples``) on a
    slider."""
    from plotly.subplots import make_subplots

    from prm import AGGREGATIONS, prm_score

    _records("examples", examples, ["name", "steps", "rewards", "scores", "orm"])
    require_int("example", example, low=0, high=len(examples) - 1)
    agg = require_choice("agg", agg, AGGREGATIONS)
    go = _go()

    def at(i: int) -> list:
        ex = examples[i]
        scores = list(require_sequence(f"examples[{i}]['scores']", ex["scores"]))
        traces = []
        for ok, name, colour in [(1, "valid step", "#2a9d8f"), (0, "invalid step", "#e76f51")]:
            mine = [t for t, r in enumerate(ex["rewards"]) if bool(r) == bool(ok)]
            traces.append(go.Bar(
                x=[scores[t] for t in mine], y=[t + 1 for t in mine], orientation="h",
                name=name, marker={"color": colour}, textposition="outside", cliponaxis=False,
                text=[f"{scores[t]:.3f}" + ("" if ok else " ✗") for t in mine]))
        chosen = prm_score(scores, agg)
        traces.append(go.Scatter(x=[chosen, chosen], y=[0.5, len(scores) + 0.5],
                                 name=f"{agg} = {chosen:.3f}", mode="lines",
                                 line={"color": "#333333", "width": 2, "dash": "dash"}))
        values = [prm_score(scores, a) for a in AGGREGATIONS]
        traces.append(go.Bar(
            x=values, y=[f"{a} ({AGG_NOTES[a]})" for a in AGGREGATIONS], orientation="h",
            name="solution score", showlegend=False, xaxis="x2", yaxis="y2",
            marker={"color": ["#4269d0" if a == agg else "#b8c4e8" for a in AGGREGATIONS]},
            text=[f"{v:.3f}" for v in values], textposition="outside", cliponaxis=False))
        return traces

    def layout(i: int) -> dict:
        ex = examples[i]
        T = len(ex["steps"])
        return {"yaxis.range": [T + 0.5, 0.5], "yaxis.tickvals": list(range(1, T + 1)),
                "yaxis.ticktext": [f"{t + 1}. {s}" for t, s in enumerate(ex["steps"])],
                "title.text": f"{ex['name']}: {agg} scores it "
                              f"{prm_score(ex['scores'], agg):.3f}<br><sup>the outcome model "
                              f"gives it {ex['orm']:.1f}</sup>"}

    fig = make_subplots(rows=2, cols=1, row_heights=[0.62, 0.38], vertical_spacing=0.14)
    fig.update_layout(template="plotly_white", height=600,
                      legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
                      margin={"t": 120, "r": 40, "b": 40, "l": 230})
    fig.update_xaxes(range=[0, 1.12], title_text="soft step score", row=1, col=1)
    fig.update_xaxes(range=[0, 1.12], title_text="solution score", row=2, col=1)
    fig.update_yaxes(autorange="reversed", row=2, col=1)
    return _with_slider(fig, list(range(len(examples))), at, example, "example chain",
                        fmt=lambda i: examples[i]["name"], layout_of=layout)


RERANK = [("prm", "PRM (every step)", "#2a9d8f"), ("orm", "ORM (final answer)", "#e76f51"),
          ("majority", "majority vote", "#8d99ae")]


def rerank_figure(demo: dict, ceiling: float, n: int = 8):
    """Chapter 10 (widgets/rerank.js): how often each selection rule's pick among N candidates
    is fully valid, against N (prm.demonstrate_prm's curves, as the page receives them), the
    share of right-answer candidates that are also valid dashed; N (the widget's "Candidates
    per problem N" menu) on a slider that moves the marked points."""
    _mapping("demo", demo, ["curves", "pool_mix", "pool_size", "trials"])
    curves = _mapping("demo['curves']", demo["curves"], ["n", *[k for k, _, _ in RERANK]])
    ns = list(require_sequence("demo['curves']['n']", curves["n"]))
    ceiling = require_float("ceiling", ceiling, low=0.0, high=1.0)
    if require_int("n", n) not in ns:
        raise ValueError(f"n must be one of {ns}, got {n!r}")
    go = _go()
    fixed = [go.Scatter(x=[1, max(ns)], y=[ceiling, ceiling], mode="lines",
                        name=f"right-answer candidates that are valid: {ceiling:.3f}",
                        line={"color": "#e76f51", "dash": "dash"})]
    fixed += [go.Scatter(x=ns, y=list(curves[key]), name=name, mode="lines+markers",
                         line={"color": colour, "width": 2}, marker={"size": 6})
              for key, name, colour in RERANK]

    def at(m: int) -> list:
        i = ns.index(m)
        return [go.Scatter(x=[m, m], y=[0, 1], mode="lines", name=f"N = {m}",
                           line={"color": "#bbbbbb"}, showlegend=False),
                go.Scatter(x=[m] * len(RERANK), y=[curves[k][i] for k, _, _ in RERANK],
                           name=f"at N = {m}", mode="markers+text", showlegend=False,
                           marker={"color": [c for _, _, c in RERANK], "size": 12},
                           text=[f"{curves[k][i]:.3f}" for k, _, _ in RERANK],
                           textposition="middle right")]

    mix = demo["pool_mix"]
    fig = _figure([], f"Share of fully valid selections against the number of candidates<br><sup>"
                  f"pool of {demo['pool_size']}: {mix['valid']} valid, {mix['flawed']} flawed, "
                  f"{mix['wrong']} wrong; {demo['trials']} draws per N</sup>",
                  "candidates per problem N", "P(selected solution is fully valid)",
                  xaxis_type="log", yaxis_range=[0, 1],
                  xaxis={"tickvals": ns, "ticktext": [str(m) for m in ns]})
    return _with_slider(fig, ns, at, n, "candidates per problem N", fixed=fixed)


# --- chapter 12 ----------------------------------------------------------------------------


def budget_figure(rows: list[dict], problems: int, labels: dict, model: str = "ch2"):
    """Chapter 12 (widgets/r1_budget.js): accuracy against the thinking budget when thinking is
    cut at the budget or extended to it; the model (the widget's "Model") on a slider."""
    _records("rows", rows, ["model", "mode", "budget", "accuracy"], ["budget", "accuracy"])
    require_int("problems", problems, low=1)
    _mapping("labels", labels, sorted({r["model"] for r in rows}))
    if model not in labels:
        raise ValueError(f"model must be one of {sorted(labels)}, got {model!r}")
    stops = [m for m in labels if any(r["model"] == m for r in rows)]

    def curves(m: str) -> list:
        traces = []
        for i, (mode, name) in enumerate([("cut", "cut at the budget"),
                                          ("extend", "extended to the budget")]):
            mine = sorted((r for r in rows if r["model"] == m and r["mode"] == mode),
                          key=lambda r: r["budget"])
            traces.append(_line([r["budget"] for r in mine], [r["accuracy"] for r in mine],
                                name, i))
        return traces

    fig = _figure([], "Accuracy against the thinking budget",
                  "thinking budget (tokens before ####)",
                  f"accuracy, greedy, {problems} held-out problems", yaxis_range=[0, 1])
    return _with_slider(fig, stops, curves, model, "model", lambda m: labels[m])


# --- chapter 11 ----------------------------------------------------------------------------

# widgets/r1_runs.js METRICS and ZERO_METRICS: each statistic's source, key and axis label.
R1_METRICS = {
    "held-out pass@1": ("curves", "pass1", "held-out pass@1"),
    "training reward": ("train", "reward", "mean reward of the step's chains"),
    "training accuracy": ("train", "accuracy", "share of the step's chains that are right"),
    "zero-advantage groups": ("train", "zero_adv", "share of groups with all rewards equal"),
    "KL to the reference": ("train", "kl", "k3 KL per token to the starting model"),
}
R1_ZERO_METRICS = {
    "held-out pass@1": ("pass1", "held-out pass@1"),
    "bare answers": ("bare", "share of samples that are bare answers"),
    "mean length": ("length", "mean length of a sample (tokens)"),
}


def _train_rows(train: dict) -> list[dict]:
    """The page's ``transpose(r1_train)``: one dict per run and step from the column dict."""
    _mapping("train", train, ["run", "objective", "seed", "step"])
    lengths = {len(v) for v in train.values()}
    if len(lengths) != 1:
        raise ValueError(f"train's columns must have one length, got {sorted(lengths)}")
    return [dict(zip(train, row, strict=True)) for row in zip(*train.values(), strict=True)]


def _runs(rows: list[dict]) -> dict[str, list[dict]]:
    """Rows grouped by run, each run's rows in step order (r1_runs.js byRun)."""
    runs: dict[str, list[dict]] = {}
    for r in rows:
        runs.setdefault(r["run"], []).append(r)
    return {run: sorted(mine, key=lambda r: r["step"]) for run, mine in runs.items()}


def r1_smoothed(train: dict, objective: str, key: str, window: int = 8) -> dict[str, tuple]:
    """Each run of ``objective``: its steps and the trailing mean of ``key`` (r1_runs.js
    smoothedSeries; r1_pipeline.smooth is the mean its JS mirror computes), gaps dropped."""
    from r1_pipeline import smooth

    out = {}
    for run, mine in _runs([r for r in _train_rows(train) if r["objective"] == objective]).items():
        pairs = [(r["step"], v) for r, v in zip(mine, smooth([r[key] for r in mine], window),
                                               strict=True) if v is not None]
        out[run] = (mine[0]["seed"], [s for s, _ in pairs], [v for _, v in pairs])
    return out


def _seed_line(x, y, name: str, i: int, seed: int, **kw: Any):
    go = _go()
    return go.Scatter(x=list(x), y=list(y), name=name, mode=kw.pop("mode", "lines"),
                      line={"color": COLOURS[i % len(COLOURS)],
                            "dash": "dash" if seed else "solid", "width": 2}, **kw)


def r1_objective_curves_figure(train: dict, curves: list[dict], labels: dict, setup: dict,
                               metric: str = "held-out pass@1",
                               objectives: Sequence[str] = ("grpo", "dr_grpo", "dapo"),
                               window: int = 8):
    """Chapter 11 (widgets/r1_runs.js objectiveCurves): a statistic over the RL steps, one line
    per run of the chosen objectives (seed 1 dashed): the held-out pass@1 with its 95% bars, or
    a training statistic as a trailing mean over ``window`` steps; the statistic (the widget's
    "Statistic") on a slider."""
    _records("curves", curves, ["run", "objective", "seed", "step", "pass1", "lo", "hi"],
             ["seed", "step", "pass1", "lo", "hi"])
    _mapping("labels", labels, list(objectives))
    _mapping("setup", setup, ["problems", "curveSamples"])
    require_int("window", window, low=1)
    if metric not in R1_METRICS:
        raise ValueError(f"metric must be one of {list(R1_METRICS)}, got {metric!r}")
    order = list(labels)

    def at(name: str) -> list:
        source, key, _ = R1_METRICS[name]
        traces = []
        for objective in objectives:
            i = order.index(objective)
            if source == "curves":
                runs = _runs([r for r in curves if r["objective"] == objective])
                for mine in runs.values():
                    seed = mine[0]["seed"]
                    traces.append(_seed_line(
                        [r["step"] for r in mine], [r["pass1"] for r in mine],
                        f"{labels[objective]}, seed {seed}", i, seed, mode="lines+markers",
                        error_y={"type": "data", "symmetric": False,
                                 "array": [r["hi"] - r["pass1"] for r in mine],
                                 "arrayminus": [r["pass1"] - r["lo"] for r in mine]}))
            else:
                for seed, x, y in r1_smoothed(train, objective, key, window).values():
                    traces.append(_seed_line(x, y, f"{labels[objective]}, seed {seed}", i, seed))
        return traces

    fig = _figure([], "A statistic of the RL runs against the RL step (seed 1 dashed)",
                  "RL step", f"{R1_METRICS[metric][2]} (the slider's statistic)")
    return _with_slider(fig, list(R1_METRICS), at, metric, "statistic")


def r1_zero_figure(rows: list[dict], setup: dict, metric: str = "held-out pass@1"):
    """Chapter 11 (widgets/r1_runs.js zeroCurves): R1-Zero (RL from the base) against RL from
    the cold start, a held-out statistic at each check-up, two seeds each (seed 1 dashed); the
    statistic (the widget's "R1-Zero statistic") on a slider."""
    keys = ["seed", "step", "pass1", "bare", "length"]
    _records("rows", rows, ["run", "start", *keys], keys)
    _mapping("setup", setup, ["curveSamples"])
    if metric not in R1_ZERO_METRICS:
        raise ValueError(f"metric must be one of {list(R1_ZERO_METRICS)}, got {metric!r}")
    starts = list(dict.fromkeys(r["start"] for r in rows))

    def at(name: str) -> list:
        key = R1_ZERO_METRICS[name][0]
        traces = []
        for mine in _runs(rows).values():
            seed, start = mine[0]["seed"], mine[0]["start"]
            traces.append(_seed_line([r["step"] for r in mine], [r[key] for r in mine],
                                     f"{start}, seed {seed}", starts.index(start), seed,
                                     mode="lines+markers"))
        return traces

    fig = _figure([], "R1-Zero against RL from the cold start (seed 1 dashed)", "RL step",
                  "the slider's statistic at each held-out check-up "
                  f"({setup['curveSamples']} samples a problem)")
    return _with_slider(fig, list(R1_ZERO_METRICS), at, metric, "statistic")


def r1_pass_at_k_curve(finals: dict, model: str) -> tuple[list[int], list[float]]:
    """A model's benchmark pass@k at k = 1, 2, 4, ... n from its per-problem counts
    (r1_runs.js passAtKCurvesOf; evaluation.mean_pass_at_k is what its meanPassAtK mirrors)."""
    from evaluation import mean_pass_at_k
    from tiny_reasoners import powers_of_two

    _mapping("finals", finals, [require_str("model", model)])
    n, counts = finals[model]["n"], finals[model]["counts"]
    ks = powers_of_two(n)
    return ks, [mean_pass_at_k([(n, c) for c in counts], k) for k in ks]


def r1_pass_at_k_figure(finals: dict, setup: dict, before: str = "cold",
                        after: str = "rl_grpo_s0", k: int = 1):
    """Chapter 11 (widgets/r1_runs.js passAtKBeforeAfter): pass@k against k (log axis) for the
    model before RL and one after it, k marked by a rule; k (the widget's "k (samples per
    problem)") on a slider at the curve's k."""
    _mapping("finals", finals, [require_str("before", before), require_str("after", after)])
    _mapping("setup", setup, ["problems"])
    go = _go()
    curves = {m: r1_pass_at_k_curve(finals, m) for m in (before, after)}
    n = min(finals[before]["n"], finals[after]["n"])
    require_int("k", k, low=1, high=n)
    stops = sorted({*curves[before][0], k})

    def at(kk: int) -> list:
        traces = [go.Scatter(x=list(ks), y=list(ps), name=finals[m]["label"], mode="lines+markers",
                             line={"color": colour, "width": 2.5})
                  for (m, (ks, ps)), colour in zip(curves.items(), ["#888888", "#e07b00"],
                                                   strict=True)]
        traces.append(go.Scatter(x=[kk, kk], y=[0, 1], name=f"k = {kk}", mode="lines",
                                 line={"color": "#999999", "dash": "dash"}))
        return traces

    fig = _figure([], "pass@k before and after RL", "samples per problem k",
                  f"pass@k on {setup['problems']} held-out problems", yaxis_range=[0, 1],
                  xaxis_type="log")
    return _with_slider(fig, stops, at, k, "k")


def r1_length_figure(train: dict, labels: dict, setup: dict,
                     objectives: Sequence[str] = ("grpo", "dr_grpo"), window: int = 8):
    """Chapter 11 (widgets/r1_runs.js lengthCurves): the trailing mean length of the right
    chains (top) and the wrong ones (bottom) over the RL steps, one line per run of the chosen
    objectives (seed 1 dashed)."""
    from plotly.subplots import make_subplots

    objectives = [require_str("objectives", o) for o in require_sequence("objectives", objectives)]
    _mapping("labels", labels, objectives)
    _mapping("setup", setup, ["batchChains"])
    require_int("window", window, low=1)
    order = list(labels)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        subplot_titles=["right chains", "wrong chains"])
    for row, chains in enumerate(["right", "wrong"], start=1):
        for objective in objectives:
            i = order.index(objective)
            for seed, x, y in r1_smoothed(train, objective, f"length_{chains}", window).values():
                fig.add_trace(_seed_line(x, y, f"{labels[objective]}, seed {seed}, {chains} chains",
                                         i, seed), row=row, col=1)
    title = (f"Mean length of the right and of the wrong chains during RL (trailing mean over "
             f"{window} steps, {setup['batchChains']} chains a step)")
    fig.update_layout(title=title, template="plotly_white", legend={"orientation": "h", "y": -0.2},
                      margin={"t": 80, "r": 20, "b": 40, "l": 60})
    fig.update_xaxes(title_text="RL step", row=2, col=1)
    fig.update_yaxes(title_text="mean length (tokens)")
    return fig


def _wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters at spaces, joined by <br>."""
    import textwrap

    return "<br>".join(textwrap.wrap(text, width)) or text


def r1_pipeline_figure(stages: list[dict], stage: str = "rl_grpo_s0"):
    """Chapter 11 (widgets/r1_pipeline.js): the R1 pipeline as its diagram, one box per stage at
    its row and column with an arrow from each stage it was made from, the chosen stage
    highlighted and its card below (what it did, and its recorded numbers from
    r1_runs.stage_cards, as the page receives them); the stage (the page's buttons) on a
    slider."""
    from plotly.subplots import make_subplots

    _records("stages", stages, ["id", "title", "subtitle", "row", "col", "from", "what",
                                "numbers"], ["row", "col"])
    ids = [s["id"] for s in stages]
    if stage not in ids:
        raise ValueError(f"stage must be one of {ids}, got {stage!r}")
    go = _go()
    where = {s["id"]: (s["col"], -s["row"]) for s in stages}
    fig = make_subplots(rows=2, cols=1, row_heights=[0.55, 0.45], vertical_spacing=0.06,
                        specs=[[{"type": "xy"}], [{"type": "table"}]])
    for s in stages:
        for parent in s["from"]:
            (x0, y0), (x1, y1) = where[parent], where[s["id"]]
            fig.add_annotation(x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x",
                               ayref="y", showarrow=True, arrowhead=2, arrowwidth=1.5,
                               arrowcolor="#e07b00", standoff=28, startstandoff=28, text="")
    boxes = go.Scatter(x=[where[i][0] for i in ids], y=[where[i][1] for i in ids],
                       mode="markers+text", name="stages",
                       text=[_wrap(s["title"], 13) for s in stages],
                       textposition="middle center", textfont={"size": 11},
                       hovertext=[s["subtitle"] for s in stages], hoverinfo="text",
                       marker={"symbol": "square", "size": 64, "color": "white",
                               "line": {"color": "#e07b00", "width": 2}}, showlegend=False)

    def value(v: object) -> str:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return f"{v:.0f}" if v >= 100 else f"{v:.3f}"
        return str(v)

    def at(chosen: str) -> list:
        s = stages[ids.index(chosen)]
        x, y = where[chosen]
        return [go.Scatter(x=[x], y=[y], mode="markers", name=f"chosen: {s['title']}",
                           marker={"symbol": "square", "size": 64, "color": "#e07b00",
                                   "opacity": 0.45}, hoverinfo="skip", showlegend=False),
                go.Table(header={"values": [f"<b>{s['title']}</b> ({s['subtitle']})", ""],
                                 "align": "left"},
                         cells={"values": [[s["what"], *[r[0] for r in s["numbers"]]],
                                           ["", *[value(r[1]) for r in s["numbers"]]]],
                                "align": ["left", "right"]},
                         columnwidth=[0.75, 0.25], domain={"x": [0, 1], "y": [0, 0.42]},
                         name=f"card: {s['title']}")]

    cols = max(s["col"] for s in stages)
    rows = max(s["row"] for s in stages)
    title = {s["id"]: s["title"] for s in stages}
    flow = [f"{' + '.join(title[f] for f in s['from'])} → {s['title']}" for s in stages
            if s["from"]]
    fig.add_annotation(text=_wrap(" · ".join(flow), 150), x=0, y=0.44, xref="paper",
                       yref="paper", showarrow=False, align="left", xanchor="left",
                       yanchor="bottom", font={"size": 10})
    fig.update_layout(title="The R1 pipeline: pick a stage to see its run's numbers",
                      template="plotly_white", height=720, showlegend=False,
                      margin={"t": 60, "r": 20, "b": 40, "l": 20})
    fig.update_xaxes(range=[-0.6, cols + 0.6], visible=False, row=1, col=1)
    fig.update_yaxes(range=[-rows - 0.6, 0.6], visible=False, row=1, col=1)
    return _with_slider(fig, ids, at, stage, "stage",
                        fmt=lambda i: stages[ids.index(i)]["title"], fixed=[boxes])


# --- chapter 14 ----------------------------------------------------------------------------

# widgets/rl_debates.js REACH and its colours: who solved a held-out problem at least once
# ("solved by neither" a light grey both themes draw, so its legend swatch shows).
DEBATE_REACH = {"solved by both": "#8a8a8a", "gained by RL": "#2a9d8f", "lost to RL": "#d62828",
                "solved by neither": "#d4d4d4"}
# widgets/rl_debates.js runChart: the arms' colours and words, and a dash per seed.
DEBATE_ARMS = {"clip": ("clip acting", "#d62828"), "noclip": ("clip never acting", "#3867d6")}
DEBATE_SEED_DASH = ("solid", "dash")
DEBATE_SERIES = {"held-out pass@1": None, "reward paid": "paid", "training accuracy": "accuracy"}


def debate_passk_figure(rows: list[dict], groups: dict, group: str, problems: int):
    """Chapter 14 (widgets/rl_debates.js passkChart): pass@k against k (log scale) with 95%
    bands over ``problems`` held-out problems; ``groups`` maps each choice of the widget's
    "Compare" to its models, on a slider."""
    _records("rows", rows, ["model", "label", "k", "value", "lo", "hi"], ["k", "value", "lo", "hi"])
    _mapping("groups", groups, [])
    group = require_choice("group", group, tuple(groups))
    problems = require_int("problems", problems, low=1)

    def curves(g: str) -> list:
        traces = []
        for i, model in enumerate(groups[g]):
            mine = sorted((r for r in rows if r["model"] == model), key=lambda r: r["k"])
            if not mine:
                raise ValueError(f"groups[{g!r}] names {model!r}, which rows do not hold")
            ks = [r["k"] for r in mine]
            traces.append(_band(ks, [r["lo"] for r in mine], [r["hi"] for r in mine],
                                f"{mine[0]['label']} (95% band)", i))
            traces.append(_line(ks, [r["value"] for r in mine], mine[0]["label"], i))
        return traces

    fig = _figure([], "pass@k against k, before and after RL", "k (samples per problem)",
                  f"pass@k, {problems} held-out problems", yaxis_range=[0, 1],
                  xaxis={"type": "log", "dtick": math.log10(2)})
    return _with_slider(fig, list(groups), curves, group, "compare")


def _column_rows(name: str, columns: object, keys: Sequence[str]) -> list[dict]:
    """The page's ``transpose(columns)``: one dict per row from a dict of equal-length lists."""
    _mapping(name, columns, keys)
    lengths = {len(v) if isinstance(v, list) else -1 for v in columns.values()}
    if len(lengths) != 1 or -1 in lengths:
        raise ValueError(f"{name}'s columns must be lists of one length, got {sorted(lengths)}")
    return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def debate_reach_figure(cells: dict, labels: dict, after: str, columns: int = 25):
    """Chapter 14 (widgets/rl_debates.js reachMap): the held-out problems as a grid, coloured by
    who solved each at least once, before or after RL; the model after RL on a slider. ``cells``
    are `debate_findings.reach_columns` (what the page hands over as columns)."""
    cells = _records("cells", _column_rows("cells", cells, ["after", "i", "problem", "status"]),
                     ["after", "i", "problem", "status"], ["i"])
    require_str("after", after)
    stops = [a for a in labels if any(c["after"] == a for c in cells)]
    if after not in stops:
        raise ValueError(f"after must be one of {stops}, got {after!r}")
    require_int("columns", columns, low=1, high=200)
    go = _go()

    def grid(a: str) -> list:
        traces = []
        for status, colour in DEBATE_REACH.items():
            mine = [c for c in cells if c["after"] == a and c["status"] == status]
            traces.append(go.Scatter(
                x=[c["i"] % columns for c in mine], y=[-(c["i"] // columns) for c in mine],
                mode="markers", name=f"{status} ({len(mine)})", text=[c["problem"] for c in mine],
                marker={"symbol": "square", "size": 11, "color": colour,
                        "line": {"width": 1, "color": "#8a8a8a"}}))
        return traces

    fig = _figure([], "Held-out problems solved at least once, before and after RL", "", "",
                  xaxis={"visible": False}, yaxis={"visible": False})
    return _with_slider(fig, stops, grid, after, "after RL", lambda a: labels[a])


def debate_run_points(curve: dict, series: str) -> tuple[list, list, list | None, list | None]:
    """One run's steps, values and band (None but for held-out pass@1) of one series, from
    `debate_findings.run_curves`' columns (widgets/rl_debates.js runRows)."""
    series = require_choice("series", series, tuple(DEBATE_SERIES))
    _mapping("curve", curve, ["check", "pass_at_1", "lo", "hi", "step", "paid", "accuracy"])
    key = DEBATE_SERIES[series]
    if key is None:
        return list(curve["check"]), list(curve["pass_at_1"]), list(curve["lo"]), list(curve["hi"])
    return list(curve["step"]), list(curve[key]), None, None


def debate_fit_domain(values: Sequence[float]) -> list[float]:
    """The runs chart's y domain (widgets/rl_debates.js fitDomain): the values' range padded
    by a tenth of it (at least 0.05), out to the next 0.05, inside [0, 1]. The values are
    shares (pass@1, reward paid, accuracy), so each must lie in [0, 1]."""
    values = [require_float("values", v, low=0.0, high=1.0)
              for v in require_sequence("values", values, min_len=1, max_len=100_000)]
    lo, hi = min(values), max(values)
    pad = max(0.05, (hi - lo) * 0.1)
    return [max(0.0, math.floor((lo - pad) * 20) / 20), min(1.0, math.ceil((hi + pad) * 20) / 20)]


def debate_runs_figure(curves: dict, runs: list[dict], reward: str, show: str = "held-out pass@1"):
    """Chapter 14 (widgets/rl_debates.js runChart): one series of the runs paid one reward, with
    the clip acting (red) and never acting (blue), seed 0 solid and seed 1 dashed. The widget's
    two selects, "Reward" and "Show", are one slider of every (reward, series) pair; ``curves``
    are `debate_findings.run_curves` (each run's columns)."""
    _mapping("curves", curves, [])
    _records("runs", runs, ["run", "reward", "arm", "seed"])
    rewards = list(dict.fromkeys(r["reward"] for r in runs))
    reward = require_choice("reward", reward, tuple(rewards))
    show = require_choice("show", show, tuple(DEBATE_SERIES))
    stops = [(rw, series) for rw in rewards for series in DEBATE_SERIES]
    go = _go()

    def own(rw: str) -> list[dict]:
        mine = [r for r in runs if r["reward"] == rw]
        missing = [r["run"] for r in mine if r["run"] not in curves]
        if missing:
            raise ValueError(f"curves lacks the runs {missing}")
        return mine

    def lines(stop: tuple[str, str]) -> list:
        rw, series = stop
        traces = []
        for run in own(rw):
            x, y, lo, hi = debate_run_points(curves[run["run"]], series)
            arm, colour = DEBATE_ARMS[run["arm"]]
            name = f"{arm}, seed {run['seed']}"
            if lo is not None:
                traces.append(go.Scatter(x=x + x[::-1], y=hi + lo[::-1], name=f"{name} (95% band)",
                                         fill="toself", mode="lines", line={"width": 0},
                                         fillcolor=colour, opacity=0.12, hoverinfo="skip",
                                         showlegend=False))
            traces.append(go.Scatter(
                x=x, y=y, name=name, mode="lines+markers" if lo is not None else "lines",
                line={"color": colour, "dash": DEBATE_SEED_DASH[run["seed"] % 2]}))
        return traces

    def layout(stop: tuple[str, str]) -> dict:
        rw, series = stop
        values = []
        for run in own(rw):
            _, y, lo, hi = debate_run_points(curves[run["run"]], series)
            values += (lo + hi) if lo is not None else y
        return {"yaxis.range": debate_fit_domain(values), "yaxis.title.text": series}

    fig = _figure([], "Runs of GRPO paid a reward: held-out pass@1, reward paid, training accuracy",
                  "RL step", show)
    return _with_slider(fig, stops, lines, (reward, show), "reward, series",
                        lambda stop: f"{stop[0]}: {stop[1]}", layout_of=layout)
