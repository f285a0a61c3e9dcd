"""code/figures.py: each widget's Plotly twin carries exactly the data the widget draws.

Each test builds a twin from the values the chapter hands its widget (the harness's ojs_define
payload, as the widget receives it) and reads the figure's traces back: every line, dot and bar
must be the payload's numbers (or, where the widget computes its curve in JS, the Python function
its maths mirrors), at every stop of the twin's slider.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from booktools.notebooks import figure_call
from conftest import ROOT, book_chapters, executed

pytest.importorskip("plotly")
import figures  # noqa: E402
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
