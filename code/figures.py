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

from checks import require_float, require_int, require_str

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
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title,
                      template="plotly_white", legend={"orientation": "h", "y": -0.25},
                      margin={"t": 60, "r": 20, "b": 40, "l": 60}, **layout)
    return fig


def _with_slider(fig, stops: Sequence[Any], traces_of: Callable[[Any], list], active: Any,
                 label: str, fmt: Callable[[Any], str] = str):
    """Add every stop's traces to ``fig`` and a slider that shows one stop's set at a time.

    Each trace carries ``meta = {"stop": index}``, so a reader (or a test) can tell which stop it
    belongs to; the stop ``active`` (the widget's default) is shown first.
    """
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
        visible = [first <= j < first + count for j in range(total)]
        steps.append({"method": "restyle", "args": [{"visible": visible}], "label": fmt(stop)})
        first += count
    fig.update_layout(sliders=[{
        "active": list(stops).index(active), "steps": steps,
        "currentvalue": {"prefix": f"{label}: "}, "pad": {"t": 50},
    }])
    return fig


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
