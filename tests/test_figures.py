"""code/figures.py: each widget's Plotly twin carries exactly the data the widget draws.

Each test builds a twin from the values the chapter hands its widget (the harness's ojs_define
payload, as the widget receives it) and reads the figure's traces back: every line, dot and bar
must be the payload's numbers (or, where the widget computes its curve in JS, the Python function
its maths mirrors), at every stop of the twin's slider.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from collections import Counter

import pytest

from booktools.notebooks import figure_call
from conftest import ROOT, book_chapters, executed

pytest.importorskip("plotly")
import figures  # noqa: E402
from data_paths import SEARCH_TREES_PATH  # noqa: E402
from evaluation import cons_at_k_counts, naive_pass_at_k, pass_at_k  # noqa: E402
from reasoning import (  # noqa: E402
    best_of_n_accuracy,
    condorcet_majority_prob,
    plurality_vote_prob,
)

STEMS = [p.stem for p in book_chapters()]


def _defines(stem: str) -> dict:
    return executed(stem).defines


def _trace(fig, name: str, stop: int | None = None):
    """The one trace called ``name`` (at slider stop ``stop``)."""
    found = [t for t in fig.data if t.name == name
             and (stop is None or (t.meta or {}).get("stop") == stop)]
    assert len(found) == 1, f"{len(found)} traces named {name!r} at stop {stop}"
    return found[0]


def _xy(trace) -> tuple[list, list]:
    return list(trace.x), list(trace.y)


def _stops(fig) -> list[str]:
    return [s["label"] for s in fig.layout.sliders[0]["steps"]]


def test_the_module_imports_no_plotly() -> None:
    """Importing figures costs nothing: plotly is imported inside the functions."""
    code = "import sys, figures; assert 'plotly' not in sys.modules, 'figures imported plotly'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT / "code")


@pytest.mark.parametrize("stem", STEMS)
def test_each_named_twin_is_a_figure_of_the_chapters_values(stem: str) -> None:
    """Every `// notebook:` call names a function here and the chapter's ojs_define values, and
    returns a Plotly figure with a title and data."""
    from types import SimpleNamespace

    import plotly.graph_objects as go

    run = executed(stem)
    ojs = SimpleNamespace(**run.defines)
    for cell in run.ojs_cells:
        call = figure_call(cell.source)
        if call is None:
            continue
        fig = eval(call, {"figures": figures, "ojs": ojs})  # noqa: S307 (the chapter's own call)
        assert isinstance(fig, go.Figure) and fig.data and fig.layout.title.text, call


def test_vote_budget_twin() -> None:
    rows = _defines("01-test-time-compute")["vote_budget"]
    fig = figures.vote_budget_figure(rows)
    for p in {r["accuracy"] for r in rows}:
        mine = [r for r in rows if r["accuracy"] == p]
        name = f"one chain right {round(100 * p)}% of the time"
        assert _xy(_trace(fig, name)) == ([r["tokens"] for r in mine], [r["value"] for r in mine])
    assert len(fig.data) == len({r["accuracy"] for r in rows})


def test_self_consistency_twin_counts_the_votes_at_every_stop() -> None:
    d = _defines("02-self-consistency")
    fig = figures.self_consistency_figure(d["sc_batches"], d["sc_correct"], d["sc_problem"])
    assert _stops(fig) == [str(k) for k in range(1, 16)]
    for stop in range(15):
        k = stop + 1
        bars = _trace(fig, f"votes after {k} chains", stop)
        tally = Counter(c["answer"] for c in d["sc_batches"][0][:k])
        assert dict(zip(bars.y, bars.x, strict=True)) == dict(tally)
        assert bars.visible == (k == 5)  # the widget's default: 5 chains revealed


def test_condorcet_twin() -> None:
    mc = _defines("02-self-consistency")["condorcet_mc"]
    fig = figures.condorcet_figure(mc, p=0.55, D=4, n_max=41)
    ps = sorted({r["p"] for r in mc})
    ns = list(range(1, 42, 2))
    for stop, p in enumerate(ps):
        dots = [r for r in mc if r["p"] == p and r["D"] == 4]
        assert _xy(_trace(fig, "simulated", stop)) == ([r["n"] for r in dots],
                                                      [r["acc"] for r in dots])
        assert _xy(_trace(fig, "Plurality, D = 4", stop)) == (
            ns, [plurality_vote_prob(p, n, 4) for n in ns])
        assert _xy(_trace(fig, "Condorcet (colluding)", stop)) == (
            ns, [condorcet_majority_prob(p, n) for n in ns])


def test_vote_vs_verifier_twin() -> None:
    mc = _defines("02-self-consistency")["vv_mc"]
    fig = figures.vote_vs_verifier_figure(mc, p=0.2, separation=1, D=4)
    ns = [1, 2, 4, 8, 16, 32, 64]
    for stop, p in enumerate(sorted({r["p"] for r in mc})):
        sims = sorted((r for r in mc if r["p"] == p and r["separation"] == 1), key=lambda r: r["n"])
        for key, label in [("vote", "majority vote"), ("best_of_n", "best-of-N"),
                           ("weighted", "weighted vote")]:
            assert _xy(_trace(fig, f"{label} (simulated)", stop)) == (
                [r["n"] for r in sims], [r[key] for r in sims])
        assert _xy(_trace(fig, "best-of-N", stop)) == (
            ns, [best_of_n_accuracy(p, n, 1) for n in ns])


def test_real_vote_twin() -> None:
    curve = _defines("02-self-consistency")["tr_vote_curve"]
    fig = figures.real_vote_figure(curve)
    rows = curve["rows"]
    n = [r["n"] for r in rows]
    assert _xy(_trace(fig, "real chains")) == (n, [r["value"] for r in rows])
    assert _xy(_trace(fig, f"simulated: p = {curve['p1']}, D = {curve['D']}")) == (
        n, [r["simulated"] for r in rows])
    assert _xy(_trace(fig, f"simulated: per-problem p, D = {curve['D']}")) == (
        n, [r["simulated_per_problem"] for r in rows])
    band = _trace(fig, "95% interval")
    assert list(band.y) == [r["hi"] for r in rows] + [r["lo"] for r in rows][::-1]
    assert set(_trace(fig, "greedy").y) == {curve["greedy"]}


def test_vote_routes_twin() -> None:
    d = _defines("02-self-consistency")
    fig = figures.vote_routes_figure(d["mp_curve_rows"], d["mp_curve_models"], d["mp_T"])
    temps = sorted({r["temperature"] for r in d["mp_curve_rows"]})
    assert _stops(fig) == [str(t) for t in temps]
    for stop, T in enumerate(temps):
        for m in d["mp_curve_models"]:
            mine = sorted((r for r in d["mp_curve_rows"]
                           if r["temperature"] == T and r["model"] == m["model"]),
                          key=lambda r: r["k"])
            line = _trace(fig, m["label"], stop)
            assert _xy(line) == ([r["k"] for r in mine], [r["value"] for r in mine])
            assert line.visible == (T == d["mp_T"])
            assert set(_trace(fig, f"greedy, {m['label']}", stop).y) == {m["greedy"]}


def test_pass_at_k_twin() -> None:
    fig = figures.pass_at_k_figure(n=100, c=30, D=4)
    ks = figures.pass_at_k_ks(100)
    assert ks[:20] == list(range(1, 21)) and ks[-1] == 100
    stops = [int(s) for s in _stops(fig)]
    for stop, c in enumerate(stops):
        tally = figures.even_tally(100, c, 4)
        assert sum(tally.values()) == 100 and tally["right"] == c
        assert _xy(_trace(fig, "pass@k (unbiased)", stop)) == (
            ks, [pass_at_k(100, c, k) for k in ks])
        assert _xy(_trace(fig, "1-(1-c/n)^k (naive)", stop))[1] == [
            naive_pass_at_k(100, c, k) for k in ks]
        assert _xy(_trace(fig, "cons@k", stop))[1] == [
            cons_at_k_counts(tally, "right", k) for k in ks]


def test_temperature_twin() -> None:
    curves = _defines("03-evaluating-reasoners")["temp_curves"]
    fig = figures.temperature_figure(curves, T=0.7)
    temps = sorted({r["temperature"] for r in curves})
    for stop, T in enumerate(temps):
        for metric in ["pass@k", "cons@k"]:
            mine = sorted((r for r in curves if r["temperature"] == T and r["metric"] == metric),
                          key=lambda r: r["k"])
            line = _trace(fig, metric, stop)
            assert _xy(line) == ([r["k"] for r in mine], [r["value"] for r in mine])
            assert line.visible == (T == 0.7)


def test_score_curves_twins() -> None:
    d = _defines("03-evaluating-reasoners")
    curves = d["temp_curves"]
    K = max(r["k"] for r in curves)
    fig = figures.scores_by_temperature_figure(curves)
    for metric, k in [("pass@k", 1), ("pass@k", K), ("cons@k", K)]:
        mine = sorted((r for r in curves if r["metric"] == metric and r["k"] == k),
                      key=lambda r: r["temperature"])
        line = _trace(fig, metric.replace("k", str(k)))
        assert _xy(line) == ([r["temperature"] for r in mine], [r["value"] for r in mine])
        assert list(line.error_y.array) == [r["hi"] - r["value"] for r in mine]
    real = d["real_curves"]
    fig = figures.tiny_reasoner_scores_figure(real, d["real_setup"])
    for T in {r["temperature"] for r in real}:
        for metric in ["pass@k"] if T == 0 else ["pass@k", "cons@k"]:
            mine = sorted((r for r in real if r["temperature"] == T and r["metric"] == metric),
                          key=lambda r: r["k"])
            name = "greedy" if T == 0 else f"{metric}, T = {T:.1f}"
            assert _xy(_trace(fig, name)) == ([r["k"] for r in mine], [r["value"] for r in mine])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: figures.vote_budget_figure("rows"), "rows must be a list"),
    (lambda: figures.vote_budget_figure([]), "rows must not be empty"),
    (lambda: figures.vote_budget_figure([{"accuracy": 0.4}]), "rows[0] lacks"),
    (lambda: figures.pass_at_k_figure(n=100, c=101), "c must be <= 100"),
    (lambda: figures.temperature_figure([{"temperature": 0.7, "metric": "pass@k", "k": 1,
                                          "value": 0.5, "lo": 0.4, "hi": 0.6}], T=0.3),
     "T must be one of"),
])
def test_bad_input_is_refused_by_name(call, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message.replace("[", r"\[")):
        call()


def test_grpo_curves_twin() -> None:
    d = _defines("04-grpo")
    records, reference = d["grpo_curves"], d["grpo_curve"]
    fig = figures.grpo_curves_figure(records, reference, group_size=16, beta=0.04)
    sizes = sorted({r["group_size"] for r in records if abs(r["beta"] - 0.04) < 1e-12})
    assert _stops(fig) == [f"G = {g}" for g in sizes]
    for stop, chosen in enumerate(sizes):
        for g in sizes:
            run = sorted((r for r in records if r["group_size"] == g
                          and abs(r["beta"] - 0.04) < 1e-12), key=lambda r: r["step"])
            line = _trace(fig, f"G = {g}", stop)
            assert _xy(line) == ([r["step"] for r in run], [r["p_correct"] for r in run])
            assert (line.line.width == 4) == (g == chosen)
        assert _xy(_trace(fig, "reference run", stop))[1] == [
            r["p_correct"] for r in sorted(reference, key=lambda r: r["step"])]


def test_length_drift_twin() -> None:
    d = _defines("05-dr-grpo")
    fig = figures.length_drift_figure(d["drift"], d["objective_labels"])
    for method in ["grpo", "dr_grpo"]:
        mine = sorted((r for r in d["drift"] if r["method"] == method), key=lambda r: r["step"])
        for track in ["wrong", "right"]:
            name = f"{d['objective_labels'][method]}, {track} chains"
            assert _xy(_trace(fig, name)) == ([r["step"] for r in mine],
                                              [r[f"{track}_length"] for r in mine])


def test_beam_sweep_twin() -> None:
    d = _defines("09-tree-of-thoughts")
    full, demo = d["sweep_full"], d["sweep_demo"]
    fig = figures.beam_sweep_figure(full, demo, error_rate=0.7)
    rates = sorted({r["error_rate"] for r in full})
    stops = [r for r in rates if r != 0]
    assert _stops(fig) == [str(r) for r in stops]
    for stop, chosen in enumerate(stops):
        for rate in rates:
            mine = sorted((r for r in full if r["error_rate"] == rate),
                          key=lambda r: r["beam_width"])
            line = _trace(fig, "oracle (error 0)" if rate == 0 else f"error {rate}", stop)
            assert _xy(line) == ([r["beam_width"] for r in mine], [r["solve_rate"] for r in mine])
            assert (line.line.width == 4) == (rate == chosen)
        dots = sorted((r for r in demo if r["error_rate"] == chosen), key=lambda r: r["beam_width"])
        assert _xy(_trace(fig, "demo puzzles", stop)) == (
            [r["beam_width"] for r in dots], [r["solve_rate"] for r in dots])


def test_budget_twin() -> None:
    d = _defines("12-controlling-thinking")
    labels = {"ch2": "Chapter 2's reasoner", "cold": "The cold-start model",
              "rl_grpo_s0": "The GRPO-trained model"}
    fig = figures.budget_figure(d["r1_budget"], d["r1_budget_problems"], labels)
    assert _stops(fig) == list(labels.values())
    for stop, model in enumerate(labels):
        for mode, name in [("cut", "cut at the budget"), ("extend", "extended to the budget")]:
            mine = sorted((r for r in d["r1_budget"] if r["model"] == model and r["mode"] == mode),
                          key=lambda r: r["budget"])
            assert mine
            assert _xy(_trace(fig, name, stop)) == ([r["budget"] for r in mine],
                                                    [r["accuracy"] for r in mine])


def _columns_to_rows(train: dict) -> list[dict]:
    return [dict(zip(train, row, strict=True)) for row in zip(*train.values(), strict=True)]


def test_r1_objective_curves_twin() -> None:
    from r1_pipeline import smooth

    d = _defines("11-r1-pipeline")
    train, curves, labels = d["r1_train"], d["r1_curves"], d["r1_labels"]
    fig = figures.r1_objective_curves_figure(train, curves, labels, d["r1_setup"])
    assert _stops(fig) == list(figures.R1_METRICS)
    rows = _columns_to_rows(train)
    for stop, (source, key, _) in enumerate(figures.R1_METRICS.values()):
        for objective in ["grpo", "dr_grpo", "dapo"]:
            for seed in [0, 1]:
                line = _trace(fig, f"{labels[objective]}, seed {seed}", stop)
                assert line.visible == (stop == 0)
                if source == "curves":
                    mine = sorted((r for r in curves if r["objective"] == objective
                                   and r["seed"] == seed), key=lambda r: r["step"])
                    assert _xy(line) == ([r["step"] for r in mine], [r["pass1"] for r in mine])
                    assert list(line.error_y.array) == [r["hi"] - r["pass1"] for r in mine]
                else:
                    mine = sorted((r for r in rows if r["objective"] == objective
                                   and r["seed"] == seed), key=lambda r: r["step"])
                    means = smooth([r[key] for r in mine], 8)
                    assert _xy(line) == ([r["step"] for r, v in zip(mine, means, strict=True)
                                          if v is not None], [v for v in means if v is not None])
        assert len([t for t in fig.data if t.meta["stop"] == stop]) == 6


def test_r1_zero_twin() -> None:
    d = _defines("11-r1-pipeline")
    rows = d["r1_zero"]
    fig = figures.r1_zero_figure(rows, d["r1_setup"])
    assert _stops(fig) == list(figures.R1_ZERO_METRICS)
    runs = {r["run"] for r in rows}
    for stop, (key, _) in enumerate(figures.R1_ZERO_METRICS.values()):
        for run in runs:
            mine = sorted((r for r in rows if r["run"] == run), key=lambda r: r["step"])
            line = _trace(fig, f"{mine[0]['start']}, seed {mine[0]['seed']}", stop)
            assert _xy(line) == ([r["step"] for r in mine], [r[key] for r in mine])
            assert (line.line.dash == "dash") == bool(mine[0]["seed"])
        assert len([t for t in fig.data if t.meta["stop"] == stop]) == len(runs)


def test_r1_pass_at_k_twin() -> None:
    d = _defines("11-r1-pipeline")
    finals = d["r1_finals"]
    fig = figures.r1_pass_at_k_figure(finals, d["r1_setup"], before="cold", after="rl_grpo_s0")
    n = finals["cold"]["n"]
    ks = [2 ** i for i in range(n.bit_length()) if 2 ** i <= n]
    ks = ks if ks[-1] == n else [*ks, n]
    assert _stops(fig) == [str(k) for k in ks]
    for stop, k in enumerate(ks):
        for m in ["cold", "rl_grpo_s0"]:
            counts = finals[m]["counts"]
            want = [sum(pass_at_k(n, c, kk) for c in counts) / len(counts) for kk in ks]
            x, y = _xy(_trace(fig, finals[m]["label"], stop))
            assert x == ks and y == pytest.approx(want, abs=1e-12)
        rule = _trace(fig, f"k = {k}", stop)
        assert list(rule.x) == [k, k] and rule.visible == (k == 1)


def test_r1_length_twin() -> None:
    from r1_pipeline import smooth

    d = _defines("11-r1-pipeline")
    train, labels = d["r1_train"], d["r1_labels"]
    fig = figures.r1_length_figure(train, labels, d["r1_setup"])
    rows = _columns_to_rows(train)
    assert len(fig.data) == 2 * 2 * 2
    for chains, axis in [("right", "y"), ("wrong", "y2")]:
        for objective in ["grpo", "dr_grpo"]:
            for seed in [0, 1]:
                mine = sorted((r for r in rows if r["objective"] == objective
                               and r["seed"] == seed), key=lambda r: r["step"])
                means = smooth([r[f"length_{chains}"] for r in mine], 8)
                line = _trace(fig, f"{labels[objective]}, seed {seed}, {chains} chains")
                assert line.yaxis == axis
                assert _xy(line) == ([r["step"] for r, v in zip(mine, means, strict=True)
                                      if v is not None], [v for v in means if v is not None])


def test_gspo_weights_twin_matches_the_python_weights_at_every_stop() -> None:
    from gspo import per_token_vs_sequence_weights

    noise = _defines("06-gspo")["gspo_weight_noise"]
    fig = figures.gspo_weights_figure(noise, jump_a=1.4, jump_b=-1.1, length=12)
    stops = [float(s) for s in _stops(fig)]
    assert stops[0] == -3.0 and stops[-1] == 3.0 and len(stops) == 61
    for stop, a in enumerate(stops):
        rows = per_token_vs_sequence_weights(seq_len=12, spikes=((3, a), (8, -1.1)))
        odd = _trace(fig, "misbehaving token", stop)
        assert list(odd.x) == [3, 8]
        assert list(odd.y) == pytest.approx([rows[3]["token_weight"], rows[8]["token_weight"]],
                                            rel=1e-12)
        plain = _trace(fig, "ordinary token", stop)
        assert list(plain.y) == pytest.approx([r["token_weight"] for r in rows
                                               if not r["misbehaving"]], rel=1e-12)
        s = _trace(fig, "GSPO: s for every token", stop)
        assert list(s.y) == pytest.approx([rows[0]["seq_weight"]] * 2, rel=1e-12)
        assert s.visible == (a == 1.4)


def test_length_variance_twin() -> None:
    from gspo import log_ratio_variances

    mc = _defines("06-gspo")["variance_mc"]
    fig = figures.length_variance_figure(mc, v=0.04, length=128)
    vs = sorted({r["v"] for r in mc})
    assert _stops(fig) == [str(v) for v in vs]
    for stop, v in enumerate(vs):
        dots = sorted((r for r in mc if r["v"] == v), key=lambda r: r["length"])
        lengths = list(range(1, max(r["length"] for r in dots) + 1))
        for key, name in [("token", "one token's weight (GRPO): v"),
                          ("product", "raw product of ratios: L·v"), ("seq", "GSPO's s: v / L")]:
            assert _xy(_trace(fig, name, stop)) == (
                lengths, [log_ratio_variances(v, L)[key] for L in lengths])
            assert _xy(_trace(fig, f"{name} (simulated)", stop)) == (
                [r["length"] for r in dots], [r[f"{key}_mc"] for r in dots])


def test_routing_flips_twin() -> None:
    records = _defines("06-gspo")["routing_flips"]
    fig = figures.routing_flips_figure(records, jump=2, k=4)
    rows = sorted((r for r in records if r["jump"] == 2), key=lambda r: r["num_flipped"])
    ks = [r["num_flipped"] for r in rows]
    assert _stops(fig) == [str(k) for k in ks] and ks[0] == 0 and ks[-1] == 32
    for stop, k in enumerate(ks):
        here = rows[stop]
        for key, name in [("max_token_ratio", "largest token ratio (GRPO)"),
                          ("product_ratio", "raw product of all ratios"),
                          ("seq_ratio", "GSPO's s")]:
            assert _xy(_trace(fig, name, stop)) == (ks, [r[key] for r in rows])
            dot = _trace(fig, f"{name} at k = {k}", stop)
            assert _xy(dot) == ([k], [here[key]]) and dot.visible == (k == 4)


def test_gspo_training_twin() -> None:
    d = _defines("06-gspo")
    default = "GSPO, clip 0.03 / 0.04 (the toy's)"
    fig = figures.gspo_training_figure(d["gspo_curve"], d["clip_runs"], default)
    rows = [{"run": default, **r} for r in d["gspo_curve"]] + d["clip_runs"]
    runs = list(dict.fromkeys(r["run"] for r in rows))
    assert _stops(fig) == runs and len(runs) > 1
    for stop, chosen in enumerate(runs):
        for run in runs:
            mine = [r for r in rows if r["run"] == run]
            line = _trace(fig, run, stop)
            assert _xy(line) == ([r["step"] for r in mine], [r["p_correct"] for r in mine])
            assert (line.line.width == 3.5) == (run == chosen)
        updates = [r for r in rows if r["run"] == chosen and r["step"] > 0]
        assert _xy(_trace(fig, f"share clipped, {chosen}", stop)) == (
            [r["step"] for r in updates], [r["clip_fraction"] for r in updates])


def test_dynamic_sampling_twin() -> None:
    from dapo import wasted_fraction

    curves = _defines("07-dapo")["dyn_data"]
    fig = figures.dynamic_sampling_figure(curves, p=0.9, G=8)
    ps = [float(s) for s in _stops(fig)]
    assert len(ps) == 99 and ps[0] == 0.01 and ps[-1] == 0.99
    sizes = list(dict.fromkeys(r["group_size"] for r in curves))
    for stop, p in enumerate(ps):
        for g in sizes:
            mine = [r for r in curves if r["group_size"] == g]
            assert _xy(_trace(fig, f"G = {g}", stop)) == ([r["p"] for r in mine],
                                                          [r["wasted"] for r in mine])
        bold = _trace(fig, "G = 8 (chosen)", stop)
        assert list(bold.y) == [wasted_fraction(x, 8) for x in bold.x] and len(bold.x) == 201
        assert list(_trace(fig, f"each G at p = {p}", stop).y) == [
            p ** g + (1 - p) ** g for g in sizes]
        dot = _trace(fig, f"G = 8 at p = {p}", stop)
        assert list(dot.y) == [p ** 8 + (1 - p) ** 8] and dot.visible == (p == 0.9)


def test_overlong_twin() -> None:
    from dapo import overlong_penalty

    ramp = _defines("07-dapo")["over_data"]
    fig = figures.overlong_figure(ramp, max_len=20480, cache_len=4096, length=18432)
    lengths = [int(s) for s in _stops(fig)]
    assert lengths == list(range(0, 40961, 256))
    for stop, n in enumerate(lengths):
        assert _xy(_trace(fig, "Python's ramp", stop)) == ([r["length"] for r in ramp],
                                                          [r["penalty"] for r in ramp])
        soft = _trace(fig, "soft penalty", stop)
        assert list(soft.y) == [overlong_penalty(x, 20480, 4096) for x in soft.x]
        assert list(soft.x)[1:3] == [16384, 20480]
        dot = _trace(fig, f"|y| = {n}", stop)
        assert _xy(dot) == ([n], [overlong_penalty(n, 20480, 4096)])
        assert dot.visible == (n == 18432)


def test_reflection_tokens_twin() -> None:
    import torch

    from cispo import demonstrate_reflection_token

    d = _defines("08-cispo")
    tokens, labels = d["cispo_tokens"], d["objective_labels"]
    fig = figures.reflection_tokens_figure(tokens, labels, eps_high=0.2)
    stops = [float(s) for s in _stops(fig)]
    assert len(stops) == 91 and stops[0] == 0.05 and stops[-1] == 0.95
    spec = tuple((t["label"], t["ratio"], t["advantage"], t["is_fork"]) for t in tokens)
    names = [f"★ {t['label']}" if t["is_fork"] else t["label"] for t in tokens]
    for stop, eps in enumerate(stops):
        res = demonstrate_reflection_token(eps_high=eps, grpo_eps=eps, tokens=spec,
                                           dtype=torch.float64)
        n = len(tokens)
        for m in ["grpo", "cispo"]:
            bars = _trace(fig, f"{labels[m]} ({res[f'kept_{m}']} of {res['n_fork']} forks "
                               "learning)", stop)
            assert list(bars.y) == names
            assert list(bars.x) == [-n * t[f"grad_{m}"] for t in res["tokens"]]
            assert bars.visible == (eps == 0.2)


def _fixed(fig) -> list:
    """The traces drawn the same at every slider stop."""
    return [t for t in fig.data if (t.meta or {}).get("stop", "none") is None]


def _step_layout(fig, stop: int) -> dict:
    return fig.layout.sliders[0]["steps"][stop]["args"][1]


def test_grpo_step_twin_grades_the_first_g_answers_at_every_stop() -> None:
    import torch

    from grpo import group_relative_advantages

    fig = figures.grpo_step_figure(group_size=4, right=["o1", "o2", "o4"])
    assert _stops(fig) == [str(g) for g in range(2, 9)]
    for stop, g in enumerate(range(2, 9)):
        rewards = [1 if i in (0, 1, 3) else 0 for i in range(g)]
        adv = group_relative_advantages(torch.tensor(rewards, dtype=torch.float64)).tolist()
        for r, name in [(1, "right (r = 1)"), (0, "wrong (r = 0)")]:
            bars = _trace(fig, name, stop)
            mine = [i for i in range(g) if rewards[i] == r]
            assert _xy(bars) == ([i + 1 for i in mine], [adv[i] for i in mine])
            assert bars.visible == (g == 4)
        ticks = _step_layout(fig, stop)["xaxis.ticktext"]
        assert ticks == [f"o{i + 1}<br>r = {rewards[i]}" for i in range(g)]
    # G = 2 with o1 and o2 right: a tied group, every advantage exactly 0
    assert list(_trace(fig, "right (r = 1)", 0).y) == [0.0, 0.0]
    assert list(fig.layout.xaxis.ticktext) == ["o1<br>r = 1", "o2<br>r = 1", "o3<br>r = 0",
                                               "o4<br>r = 1"]


def test_length_push_twin() -> None:
    from dr_grpo import per_token_push

    d = _defines("05-dr-grpo")
    demo, labels = d["length_bias"], d["objective_labels"]
    fig = figures.length_push_figure(demo, labels, right_length=40, wrong_length=400,
                                     max_len=1000)
    stops = [int(s) for s in _stops(fig)]
    assert stops == [*range(1, 10), *range(10, 1001, 10)]
    grpo, dr = labels["grpo"], labels["dr_grpo"]
    lengths = figures.push_lengths(1000)
    assert lengths[:4] == [1, 2, 3, 4] and lengths[-1] <= 1000 < math.ceil(lengths[-1] * 1.15)
    for name, key in [(grpo, "grpo"), (dr, "dr_grpo")]:
        curve = _trace(fig, name)
        assert curve.meta["stop"] is None and list(curve.x) == lengths
        assert list(curve.y) == [abs(per_token_push([n, 1000], [1, -1], 1000)[0][key])
                                 for n in lengths]
        dots = _trace(fig, f"{name}: demonstrate_length_bias")
        assert _xy(dots) == ([r["length"] for r in demo],
                             [abs(r[f"{key}_incorrect"]) for r in demo])
    for stop, wrong in enumerate(stops):
        recs = per_token_push([40, wrong], [1, -1], 1000)
        for name, key in [(grpo, "grpo"), (dr, "dr_grpo")]:
            pts = _trace(fig, f"{name}: right (○) and wrong (×) answer", stop)
            assert _xy(pts) == ([40, wrong], [abs(r[key]) for r in recs])
            bars = _trace(fig, f"{name}: push summed over the response", stop)
            assert list(bars.y) == [r[f"{key}_total"] for r in recs]
            assert pts.visible == bars.visible == (wrong == 400)


def test_difficulty_weight_twin() -> None:
    from dr_grpo import difficulty_weight

    d = _defines("05-dr-grpo")
    labels = d["objective_labels"]
    fig = figures.difficulty_weight_figure(d["dw_table"], labels, p=0.9)
    ps = [float(s) for s in _stops(fig)]
    assert ps == [k / 100 for k in range(1, 100)]
    curve = _trace(fig, labels["grpo"])
    assert list(curve.y) == [difficulty_weight(p, 1e-2) for p in curve.x] and list(curve.x) == ps
    assert set(_trace(fig, labels["dr_grpo"]).y) == {1.0}
    assert _xy(_trace(fig, "printed above")) == ([r["p"] for r in d["dw_table"]],
                                                  [r["weight"] for r in d["dw_table"]])
    for stop, p in enumerate(ps):
        dots = _trace(fig, f"{labels['grpo']} and {labels['dr_grpo']} at p = {p:.2f}", stop)
        assert _xy(dots) == ([p, p], [difficulty_weight(p, 1e-2), 1.0])
        assert dots.visible == (p == 0.9)


def test_clip_higher_twin() -> None:
    from dapo import clip_gradient_coefficient

    curve = _defines("07-dapo")["grpo_clip_curve"]
    fig = figures.clip_higher_figure(curve, eps_high=0.28, eps_low=0.2, ratio=1.25)
    highs = [float(s) for s in _stops(fig)]
    assert len(highs) == 46 and highs[0] == 0.1 and highs[-1] == 0.55
    assert list(_trace(fig, "GRPO at r = 1.25").y) == [0.0, -1.25]
    for stop, high in enumerate(highs):
        for adv, branch in [(1, "A = +1"), (-1, "A = -1")]:
            line = _trace(fig, f"DAPO ({branch})", stop)
            assert list(line.y) == [clip_gradient_coefficient(x, adv, 0.2, high) for x in line.x]
            assert len(line.x) >= 221 and {1 + high, 0.8}.issubset(set(line.x))
        for key, branch in [("grpo_grad", "A = +1"), ("grpo_grad_neg", "A = -1")]:
            assert _xy(_trace(fig, f"GRPO, ε = 0.2 ({branch})", stop)) == (
                [r["ratio"] for r in curve], [r[key] for r in curve])
        dots = _trace(fig, "DAPO at r = 1.25", stop)
        assert list(dots.y) == [clip_gradient_coefficient(1.25, a, 0.2, high) for a in (1, -1)]
        assert _trace(fig, f"wall 1+ε_high = {1 + high:.2f}", stop).x[0] == 1 + high
        assert dots.visible == (high == 0.28)


def test_token_level_twin() -> None:
    from dapo import demonstrate_token_level

    tok = _defines("07-dapo")["tok_data"]
    fig = figures.token_level_figure(tok, length=32)
    assert _stops(fig) == [str(n) for n in range(1, 65)]
    first = [r["length"] for r in tok[:-1]]
    for stop, n in enumerate(range(1, 65)):
        rows = demonstrate_token_level([*first, n], verbose=False)
        for name, key in [("sample-level (GRPO)", "sample"), ("token-level (DAPO)", "token")]:
            total = _trace(fig, name, stop)
            assert list(total.y) == [r[f"{key}_weight"] for r in rows]
            assert list(_trace(fig, f"{name}, one token", stop).y) == [
                r[f"{key}_per_token"] for r in rows]
            assert total.visible == (n == 32)
        assert _step_layout(fig, stop)["xaxis.ticktext"][-1] == f"response 4<br>{n} tok"


def test_cispo_cliff_twin_moves_the_dots_along_fixed_curves() -> None:
    from cispo import cispo_gradient_coefficient
    from dapo import clip_gradient_coefficient

    fig = figures.cispo_cliff_figure(ratio=1.6, eps_high=0.2)
    ratios = [float(s) for s in _stops(fig)]
    assert len(ratios) == 251 and ratios[0] == 0.5 and ratios[-1] == 3.0
    grpo, cispo = "GRPO (clip the update)", "CISPO (clip the weight)"
    g, c = _trace(fig, grpo), _trace(fig, cispo)
    assert g.meta["stop"] is None and c.meta["stop"] is None
    assert list(g.y) == [clip_gradient_coefficient(x, 1.0, 0.2, 0.2) for x in g.x]
    assert list(c.y) == [cispo_gradient_coefficient(x, 1.0, 0.2) for x in c.x]
    assert 1.2 in g.x and 1.2 + 1e-9 in g.x and len(g.x) == 252
    for stop, r in enumerate(ratios):
        dots = _trace(fig, f"GRPO and CISPO at r = {r:.2f}", stop)
        assert _xy(dots) == ([r, r], [clip_gradient_coefficient(r, 1.0, 0.2, 0.2),
                                      cispo_gradient_coefficient(r, 1.0, 0.2)])
        assert dots.visible == (r == 1.6)
    steps = fig.layout.sliders[0]["steps"]
    assert all(s["args"][0]["visible"][:len(_fixed(fig))] == [True] * len(_fixed(fig))
               for s in steps)


def test_search_tree_twin_draws_every_recorded_state_at_every_beam() -> None:
    import json

    doc = json.loads(SEARCH_TREES_PATH.read_text(encoding="utf-8"))
    fig = figures.search_tree_figure(puzzle="4 9 10 13", beam=3, error=0.5, shown=3)
    beams = sorted(t["beam"] for t in doc["trees"]
                   if t["puzzle"] == "4 9 10 13" and t["error"] == 0.5)
    assert _stops(fig) == [str(b) for b in beams] and beams == list(range(1, 9))
    kinds = ["pruned", "winnable but judged hopeless", "kept in the beam",
             "kept, though judged hopeless", "on the winning derivation (hollow: judged hopeless)",
             "the winning derivation's 24"]
    for stop, b in enumerate(beams):
        tree = next(t for t in doc["trees"] if t["puzzle"] == "4 9 10 13" and t["beam"] == b
                    and t["error"] == 0.5)
        rows = [(d + 1, r) for d, level in enumerate(tree["levels"]) for r in level]
        drawn = {k: list(_trace(fig, k, stop).hovertext) for k in kinds}
        # every recorded state is drawn once (the puzzle too), in the class its row says; the
        # orange ring is drawn over the dot of a winnable state the judge gave up on
        assert sum(len(v) for k, v in drawn.items()
                   if k != "winnable but judged hopeless") == len(rows) + 1
        expect = {k: [] for k in kinds}
        for d, (_, expr, state, score, kept, on_path, winnable) in rows:
            text = f"{expr} → {state}"
            if not kept:
                expect["pruned"].append(text)
            if d < 3 and winnable and not score > 0:
                expect["winnable but judged hopeless"].append(text)
            if kept and d < 3:
                kind = ("on the winning derivation (hollow: judged hopeless)" if on_path
                        else "kept in the beam" if score > 0 else "kept, though judged hopeless")
                expect[kind].append(text)
            if d == 3 and on_path:
                expect["the winning derivation's 24"].append(text)
        root = ("on the winning derivation (hollow: judged hopeless)" if tree["solution"]
                else "kept in the beam")
        expect[root].append("4 9 10 13")
        assert {k: sorted(v) for k, v in drawn.items()} == {k: sorted(v) for k, v in expect.items()}
        star = _trace(fig, "the winning derivation's 24", stop)
        assert len(star.x) == (1 if tree["solution"] else 0)
        assert star.visible == (b == 3)
        edges = _trace(fig, "path edges", stop)
        assert list(edges.x).count(None) == (3 if tree["solution"] else 0)
        assert str([len(level) for level in tree["levels"]][0]) in _step_layout(
            fig, stop)["title.text"]


def test_crux_chain_twin_judges_every_step_of_every_chain() -> None:
    from prm import first_error_index, orm_score, step_rewards

    chains = _defines("10-process-reward-models")["crux_chains"]
    fig = figures.crux_chain_figure(chains, chain=0)
    assert _stops(fig) == [c["name"] for c in chains]
    for stop, chain in enumerate(chains):
        steps = chain["steps"]
        rewards, orm = step_rewards(steps), orm_score(steps, 24)
        prm_cells = {v: [y for x, y in zip(_trace(fig, v, stop).x, _trace(fig, v, stop).y,
                                           strict=True) if x == 1]
                     for v in ["valid", "invalid", "not read"]}
        assert prm_cells["valid"] == [t + 1 for t, r in enumerate(rewards) if r]
        assert prm_cells["invalid"] == [t + 1 for t, r in enumerate(rewards) if not r]
        assert prm_cells["not read"] == []
        orm_cells = {v: [y for x, y in zip(_trace(fig, v, stop).x, _trace(fig, v, stop).y,
                                           strict=True) if x == 2]
                     for v in ["valid", "invalid", "not read"]}
        assert orm_cells["not read"] == list(range(1, len(steps)))
        assert orm_cells["valid" if orm else "invalid"] == [len(steps)]
        first = first_error_index(steps)
        assert list(_trace(fig, "first error", stop).y) == ([] if first is None else [first + 1])
        assert _step_layout(fig, stop)["yaxis.ticktext"] == [
            f"{t + 1}. {s.strip()}" for t, s in enumerate(steps)]
        assert _trace(fig, "valid", stop).visible == (stop == 0)
    assert any(first_error_index(c["steps"]) is not None for c in chains)


def test_prm_aggregation_twin() -> None:
    from prm import AGGREGATIONS, prm_score

    examples = _defines("10-process-reward-models")["agg_examples"]
    fig = figures.prm_aggregation_figure(examples, example=1, agg="min")
    assert _stops(fig) == [e["name"] for e in examples]
    for stop, ex in enumerate(examples):
        for ok, name in [(1, "valid step"), (0, "invalid step")]:
            bars = _trace(fig, name, stop)
            mine = [t for t, r in enumerate(ex["rewards"]) if bool(r) == bool(ok)]
            assert (list(bars.x), list(bars.y)) == ([ex["scores"][t] for t in mine],
                                                    [t + 1 for t in mine])
        chosen = prm_score(ex["scores"], "min")
        assert list(_trace(fig, f"min = {chosen:.3f}", stop).x) == [chosen, chosen]
        scores = _trace(fig, "solution score", stop)
        assert list(scores.x) == [prm_score(ex["scores"], a) for a in AGGREGATIONS]
        assert list(scores.x) == pytest.approx([ex[a] for a in AGGREGATIONS], abs=5e-5)
        assert scores.visible == (stop == 1)


def test_rerank_twin_moves_the_points_along_pythons_curves() -> None:
    d = _defines("10-process-reward-models")
    demo, ceiling = d["rerank_demo"], d["rerank_ceiling"]
    fig = figures.rerank_figure(demo, ceiling, n=8)
    ns = demo["curves"]["n"]
    assert _stops(fig) == [str(n) for n in ns]
    names = [("prm", "PRM (every step)"), ("orm", "ORM (final answer)"),
             ("majority", "majority vote")]
    for key, name in names:
        assert _xy(_trace(fig, name)) == (ns, demo["curves"][key])
    line = _trace(fig, f"right-answer candidates that are valid: {ceiling:.3f}")
    assert list(line.y) == [ceiling, ceiling]
    for stop, n in enumerate(ns):
        dots = _trace(fig, f"at N = {n}", stop)
        assert _xy(dots) == ([n] * 3, [demo["curves"][k][stop] for k, _ in names])
        assert dots.visible == (n == 8)


def test_r1_pipeline_twin_shows_each_stages_card() -> None:
    stages = _defines("11-r1-pipeline")["r1_stages"]
    fig = figures.r1_pipeline_figure(stages, stage="rl_grpo_s0")
    assert _stops(fig) == [s["title"] for s in stages]
    boxes = _trace(fig, "stages")
    assert _xy(boxes) == ([s["col"] for s in stages], [-s["row"] for s in stages])
    arrows = {((a.ax, a.ay), (a.x, a.y)) for a in fig.layout.annotations if a.showarrow}
    by = {s["id"]: (s["col"], -s["row"]) for s in stages}
    assert arrows == {(by[f], by[s["id"]]) for s in stages for f in s["from"]}
    for stop, s in enumerate(stages):
        card = _trace(fig, f"card: {s['title']}", stop)
        labels, values = card.cells.values
        assert list(labels) == [s["what"], *[n[0] for n in s["numbers"]]]
        assert list(values)[1:] == [f"{v:.0f}" if v >= 100 else f"{v:.3f}"
                                    if isinstance(v, (int, float)) else str(v)
                                    for _, v, _ in s["numbers"]]
        chosen = _trace(fig, f"chosen: {s['title']}", stop)
        assert _xy(chosen) == ([s["col"]], [-s["row"]])
        assert chosen.visible == (s["id"] == "rl_grpo_s0")


def test_baseline_variance_twin() -> None:
    from policy_gradient import exact_gradient_variance

    d = _defines("03b-policy-gradients")
    probs, rewards = d["bv_probs"], d["bv_rewards"]
    fig = figures.baseline_variance_figure(probs, rewards, baseline=0.0)
    bs = [float(s) for s in _stops(fig)]
    assert bs == [round(-1 + 0.01 * i, 2) for i in range(301)]
    curve = _trace(fig, "variance of the estimate")
    assert len(curve.x) == 201 and curve.x[0] == min(rewards) - 1
    assert list(curve.y) == [exact_gradient_variance(probs, rewards, b)["variance"]
                             for b in curve.x]
    none = exact_gradient_variance(probs, rewards, 0.0)
    assert _xy(_trace(fig, "best b")) == ([none["best_baseline"]], [none["best_variance"]])
    assert list(_trace(fig, "no baseline").y) == [none["variance"]]
    assert list(_trace(fig, "mean reward").x) == [none["mean_reward"]]
    for stop, b in enumerate(bs):
        here = exact_gradient_variance(probs, rewards, b)["variance"]
        dot = _trace(fig, f"b = {b:.2f}: variance {here:.4f} "
                          f"({here / none['variance']:.3f}× none)", stop)
        assert (dot.x[-1], dot.y[-1]) == (b, here) and dot.visible == (b == 0.0)


@pytest.mark.parametrize(("sign", "advantage"), [("positive", 1), ("negative", -1)])
def test_ppo_clip_twin(sign: str, advantage: int) -> None:
    def objective(r: float, a: float, e: float) -> float:  # min(rho A, clip(rho) A)
        return min(r * a, min(max(r, 1 - e), 1 + e) * a)

    ratio = 1.37 if advantage > 0 else 0.7
    fig = figures.ppo_clip_figure(eps=0.2, sign=sign, ratio=ratio)
    eps = [float(s) for s in _stops(fig)]
    assert eps == [round(0.05 + 0.01 * i, 2) for i in range(46)]
    assert list(_trace(fig, "ρ·A (unclipped)").y) == [0.01 * k * advantage for k in range(201)]
    for stop, e in enumerate(eps):
        line = _trace(fig, "objective (the min)", stop)
        assert list(line.y) == pytest.approx([objective(r, advantage, e) for r in line.x],
                                             abs=1e-15)
        flat = _trace(fig, "flat: no gradient", stop)
        assert sorted(set(flat.x)) == ([1 + e, 2.0] if advantage > 0 else [0.0, 1 - e])
        clipped = ratio * advantage > min(max(ratio, 1 - e), 1 + e) * advantage
        value = objective(ratio, advantage, e)
        dot = _trace(fig, f"ρ = {ratio:.2f}: objective {value:.3f}, slope "
                          f"{0 if clipped else advantage}", stop)
        assert list(dot.y) == pytest.approx([value], abs=1e-15)
        assert dot.visible == (e == 0.2)


def test_gae_twin() -> None:
    import torch

    from ppo import gae

    d = _defines("03b-policy-gradients")
    chain, curve = d["gae_chain"], d["gae_dial"]
    fig = figures.gae_figure(chain, curve, lam=0.9)
    lams = [float(s) for s in _stops(fig)]
    assert lams == [round(0.1 * i, 1) for i in range(11)]
    assert _xy(_trace(fig, "bias²")) == ([r["lam"] for r in curve],
                                         [r["bias"] ** 2 for r in curve])
    assert _xy(_trace(fig, "variance")) == ([r["lam"] for r in curve],
                                            [r["variance"] for r in curve])
    rewards = torch.tensor([chain["rewards"]], dtype=torch.float64)
    values = torch.tensor([chain["values"]], dtype=torch.float64)
    for stop, lam in enumerate(lams):
        adv = gae(rewards, values, 1.0, lam)[0][0].tolist()
        for good, name in [(True, "good token"), (False, "bad token")]:
            bars = _trace(fig, name, stop)
            mine = [t for t, g in enumerate(chain["good"]) if g == good]
            assert _xy(bars) == ([t + 1 for t in mine], [adv[t] for t in mine])
            assert bars.visible == (lam == 0.9)
        near = min(curve, key=lambda r: abs(r["lam"] - lam))
        rule = _trace(fig, f"measured at λ = {near['lam']:.2f}: bias {near['bias']:.3f}, "
                           f"variance {near['variance']:.3f}", stop)
        assert list(rule.x) == [near["lam"]] * 2


# The widgets that run a model in the reader's browser: the notebook keeps a note for them
# (booktools.notebooks.ojs_note says so), every other widget has a twin.
RUNS_A_MODEL = ("../widgets/rl_trainer.js", "../widgets/tiny_reasoner.js")


@pytest.mark.parametrize("stem", STEMS)
def test_every_widget_but_those_running_a_model_names_its_twin(stem: str) -> None:
    from booktools.qmd import scan, split_front_matter

    lines = (ROOT / "chapters" / f"{stem}.qmd").read_text(encoding="utf-8").splitlines()
    for span in scan(lines, split_front_matter(lines)[1]):
        if span.kind == "cell" and span.lang == "ojs" and figure_call(span.source) is None:
            assert any(w in span.source for w in RUNS_A_MODEL), (
                f"{stem}: the {{ojs}} cell at line {span.start + 1} names no Plotly twin "
                "(`// notebook: figures.name(...)`) and runs no model in the browser")


def test_debate_passk_twin() -> None:
    d = _defines("13-what-rl-teaches")
    rows, groups = d["debate_passk"], d["debate_groups"]
    fig = figures.debate_passk_figure(rows, groups, "cold start and GRPO", d["debate_problems"])
    assert _stops(fig) == list(groups)
    assert fig.layout.yaxis.title.text == f"pass@k, {d['debate_problems']} held-out problems"
    for stop, models in enumerate(groups.values()):
        for model in models:
            mine = sorted((r for r in rows if r["model"] == model), key=lambda r: r["k"])
            line = _trace(fig, mine[0]["label"], stop)
            assert _xy(line) == ([r["k"] for r in mine], [r["value"] for r in mine])
            band = _trace(fig, f"{mine[0]['label']} (95% band)", stop)
            assert list(band.y) == [r["hi"] for r in mine] + [r["lo"] for r in mine][::-1]


def _columns_as_rows(columns: dict) -> list[dict]:
    """OJS's transpose, as the page applies it to a dict of columns."""
    return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def test_debate_reach_twin() -> None:
    d = _defines("13-what-rl-teaches")
    columns, labels = d["debate_cells"], d["debate_labels"]
    assert isinstance(columns, dict), "the page gets the reach cells as columns"
    cells = _columns_as_rows(columns)
    fig = figures.debate_reach_figure(columns, labels, "rl_grpo_s0")
    afters = list(dict.fromkeys(c["after"] for c in cells))
    assert _stops(fig) == [labels[a] for a in labels if a in afters]
    for stop, after in enumerate(a for a in labels if a in afters):
        for status in figures.DEBATE_REACH:
            mine = [c for c in cells if c["after"] == after and c["status"] == status]
            trace = _trace(fig, f"{status} ({len(mine)})", stop)
            assert list(trace.text) == [c["problem"] for c in mine]


def test_debate_reach_colours_are_the_widgets() -> None:
    """The twin's colours are the widget's, status by status, and none is see-through."""
    source = (ROOT / "widgets" / "rl_debates.js").read_text()
    names = re.search(r"export const REACH = \[([^\]]*)\]", source).group(1)
    colours = re.search(r"const REACH_COLOURS = \[([^\]]*)\]", source).group(1)
    widget = dict(zip(re.findall(r'"([^"]+)"', names), re.findall(r'"([^"]+)"', colours),
                      strict=True))
    assert widget == figures.DEBATE_REACH
    assert not {"transparent", "none", "#ffffff", "white"} & set(widget.values())


def test_debate_runs_twin() -> None:
    d = _defines("13-what-rl-teaches")
    curves, runs, series = d["debate_curves"], d["debate_runs"], d["debate_series"]
    assert series == list(figures.DEBATE_SERIES)
    fig = figures.debate_runs_figure(curves, runs, "random", "held-out pass@1")
    rewards = list(dict.fromkeys(r["reward"] for r in runs))
    assert set(d["debate_rewards"].values()) == set(rewards)
    stops = [(rw, s) for rw in rewards for s in series]
    assert _stops(fig) == [f"{rw}: {s}" for rw, s in stops]
    key = {"reward paid": "paid", "training accuracy": "accuracy"}
    for stop, (reward, shown) in enumerate(stops):
        values = []
        for run in (r for r in runs if r["reward"] == reward):
            arm = "clip acting" if run["arm"] == "clip" else "clip never acting"
            c = curves[run["run"]]
            line = _trace(fig, f"{arm}, seed {run['seed']}", stop)
            assert line.line.dash == ("solid", "dash")[run["seed"]]
            if shown == "held-out pass@1":
                assert _xy(line) == (c["check"], c["pass_at_1"])
                band = _trace(fig, f"{arm}, seed {run['seed']} (95% band)", stop)
                assert list(band.y) == c["hi"] + c["lo"][::-1]
                values += c["lo"] + c["hi"]
            else:
                assert _xy(line) == (c["step"], c[key[shown]])
                values += c[key[shown]]
        # The y range fits what the stop shows (the widget's fitDomain), not a fixed 0 to 0.7.
        y_range = fig.layout.sliders[0]["steps"][stop]["args"][1]["yaxis.range"]
        assert y_range[0] <= min(values) and max(values) <= y_range[1]
        assert y_range[1] - y_range[0] <= max(values) - min(values) + 0.25
