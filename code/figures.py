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

from checks import require_float, require_int, require_sequence, require_str

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
