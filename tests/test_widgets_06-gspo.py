"""Chapter 7's widgets in Chromium: each draws, and its inputs move it as the maths says."""

from __future__ import annotations

import math

import pytest
import torch

from conftest import executed
from grpo import token_ratios
from gspo import (
    demonstrate_gspo,
    demonstrate_length_variance,
    demonstrate_routing_flip,
    demonstrate_token_grpo,
    log_ratio_variances,
    per_token_vs_sequence_weights,
    sequence_importance_ratio,
)

pytestmark = pytest.mark.browser

STEM = "06-gspo"


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


# ------------------------------------------------------------------ JS maths against Python


def test_token_ratios_match(js):
    cases = [
        [[-1.0, -1.2, -3.0, -0.9], [-1.0, -1.0, -1.0, -1.0]],
        [[[-0.7, -0.9], [-1.3, -1.0]], [[-1.0, -0.8], [-0.9, -1.1]]],
        [[0.0], [-5.0]],
    ]
    got = js.call_many("gspo_math.js", "tokenRatios", cases)
    for (new, old), g in zip(cases, got, strict=True):
        want = token_ratios(
            torch.tensor(new, dtype=torch.float64), torch.tensor(old, dtype=torch.float64)
        )
        assert torch.allclose(torch.tensor(g, dtype=torch.float64), want, rtol=1e-12, atol=0)


def test_sequence_ratio_grid(js):
    gen = torch.Generator().manual_seed(5)
    cases, want = [], []
    for g, t in [(1, 1), (2, 4), (3, 7), (5, 16)]:
        new = torch.randn(g, t, generator=gen, dtype=torch.float64) * 0.5 - 1
        old = torch.randn(g, t, generator=gen, dtype=torch.float64) * 0.5 - 1
        cases.append([new.tolist(), old.tolist(), None])
        want.append(sequence_importance_ratio(new, old))
        lengths = torch.randint(1, t + 1, (g,), generator=gen)
        mask = torch.arange(t) < lengths.unsqueeze(1)
        cases.append([new.tolist(), old.tolist(), mask.tolist()])
        want.append(sequence_importance_ratio(new, old, mask))
    seed_new = [[-0.7, -0.9, -1.0, -0.6], [-1.3, -1.0, -0.9, -1.2]]
    seed_old = [[-1.0, -0.8, -1.2, -0.5], [-0.9, -1.1, -0.7, -1.0]]
    cases.append([seed_new, seed_old, None])
    want.append(
        sequence_importance_ratio(
            torch.tensor(seed_new, dtype=torch.float64), torch.tensor(seed_old, dtype=torch.float64)
        )
    )
    got = js.call_many("gspo_math.js", "sequenceImportanceRatio", cases)
    for case, g, w in zip(cases, got, want, strict=True):
        assert g == pytest.approx(w.tolist(), rel=1e-12), case
    assert [round(v, 4) for v in got[-1]] == [1.0779, 0.8395]  # the seed's group


def _noise(length):
    return [math.log(r["token_weight"]) for r in per_token_vs_sequence_weights(length, spikes=())]


@pytest.mark.parametrize("length", [12, 48, 192])
def test_token_vs_sequence_weights_grid(js, length):
    spike_sets = [
        [],
        [[3, 1.4], [8, -1.1]],
        [[3, 3.0], [8, -3.0]],
        [[3, -2.5], [8, 0.7]],
        [[0, 2.0]],
        [[length - 1, -1.0], [5, 0.3], [6, 0.0]],
    ]
    noise = _noise(length)
    got = js.call_many("gspo_math.js", "tokenVsSequenceWeights", [[noise, s] for s in spike_sets])
    for spikes, g in zip(spike_sets, got, strict=True):
        want = per_token_vs_sequence_weights(length, spikes=[tuple(p) for p in spikes])
        assert [r["position"] for r in g] == [r["position"] for r in want]
        assert [r["misbehaving"] for r in g] == [r["misbehaving"] for r in want]
        for a, b in zip(g, want, strict=True):
            assert a["token_weight"] == pytest.approx(b["token_weight"], rel=1e-12)
            assert a["seq_weight"] == pytest.approx(b["seq_weight"], rel=1e-12)


def test_log_ratio_variances_grid(js):
    grid = [[v, n] for v in (0.001, 0.01, 0.04, 0.1, 2.5) for n in (1, 2, 3, 64, 128, 4096)]
    got = js.call_many("gspo_math.js", "logRatioVariances", grid)
    for (v, n), g in zip(grid, got, strict=True):
        want = log_ratio_variances(v, n)
        assert g == pytest.approx(want, rel=1e-15), (v, n)


def test_js_rejects_bad_input_like_python(js):
    assert "logp_old" in js.call("gspo_math.js", "tokenRatios", [0.0, 1.0], [0.0])["error"]
    assert "logp_new" in js.call("gspo_math.js", "sequenceImportanceRatio", [0.0], [0.0])["error"]
    bad_mask = [[False, False]]
    err = js.call("gspo_math.js", "sequenceImportanceRatio", [[0.0, 1.0]], [[0.0, 0.0]], bad_mask)
    assert "mask" in err["error"]
    assert (
        "spikes"
        in js.call("gspo_math.js", "tokenVsSequenceWeights", [0.0] * 4, [[9, 1.0]])["error"]
    )
    assert "v " in js.call("gspo_math.js", "logRatioVariances", 0.0, 4)["error"]
    assert "length" in js.call("gspo_math.js", "logRatioVariances", 0.04, 0)["error"]


# ------------------------------------------------------------------ widget 1: per-token weights


def test_gspo_weights_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("gspo-weights") >= 12 * 2 + 1  # a dot and a stem per token, the s line

    def check(length, a, b):
        recs = per_token_vs_sequence_weights(length, spikes=((3, a), (8, b)))
        assert page.readout("gspo-weights", "s") == pytest.approx(recs[0]["seq_weight"], rel=1e-9)
        assert page.readout("gspo-weights", "wA") == pytest.approx(
            recs[3]["token_weight"], rel=1e-9
        )
        assert page.readout("gspo-weights", "wB") == pytest.approx(
            recs[8]["token_weight"], rel=1e-9
        )
        product = math.prod(r["token_weight"] for r in recs)
        assert page.readout("gspo-weights", "product") == pytest.approx(product, rel=1e-9)
        outside = sum(not 0.8 <= r["token_weight"] <= 1.2 for r in recs)
        assert page.readout("gspo-weights", "outside") == outside
        return recs

    recs = check(12, 1.4, -1.1)  # the module's default example
    assert abs(recs[0]["seq_weight"] - 1) < 0.05
    drawing = page.svg_signature("gspo-weights")
    page.set_input("Log-ratio jump of token 3", 3)
    page.set_input("Log-ratio jump of token 8", 2)
    check(12, 3.0, 2.0)
    assert page.svg_signature("gspo-weights") != drawing
    s_short = page.readout("gspo-weights", "s")
    page.set_input("Response length (tokens)", 192)
    check(192, 3.0, 2.0)
    assert page.data_marks("gspo-weights") >= 192 * 2 + 1
    assert page.readout("gspo-weights", "s") < s_short  # longer response: s nearer 1
    assert page.readout("gspo-weights", "wA") > 19  # while token 3 still carries e^3


# ------------------------------------------------------------------ widget 2: variance vs length


def test_length_variance_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("length-variance") >= 3 + 3 * 8  # three lines, 24 Monte-Carlo dots

    def check(v, length):
        law = log_ratio_variances(v, length)
        mc = next(r for r in demonstrate_length_variance(v=v, seed=0) if r["length"] == length)
        for key in ("token", "product", "seq"):
            assert page.readout("length-variance", key) == pytest.approx(law[key], rel=1e-12)
            assert page.readout("length-variance", f"{key}_mc") == pytest.approx(
                mc[f"{key}_mc"], rel=1e-9
            )
        assert page.readout("length-variance", "gap") == pytest.approx(length**2, rel=1e-9)

    check(0.04, 128)
    drawing = page.svg_signature("length-variance")
    page.set_input("Per-token log-ratio variance v", 0.08)
    check(0.08, 128)
    assert page.svg_signature("length-variance") != drawing
    page.set_input("Read off at length L", 1)
    check(0.08, 1)
    assert page.readout("length-variance", "product") == page.readout("length-variance", "seq")
    page.set_input("Read off at length L", 16)
    check(0.08, 16)


# ------------------------------------------------------------------ widget 3: routing flips


def test_routing_flips_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("routing-flips") >= 3 + 3  # three curves, three markers

    def check(jump, k):
        rec = demonstrate_routing_flip(seq_len=256, num_flipped=32, jump=jump, seed=0)[k]
        assert page.readout("routing-flips", "max_token") == pytest.approx(
            rec["max_token_ratio"], rel=1e-12
        )
        assert page.readout("routing-flips", "product") == pytest.approx(
            rec["product_ratio"], rel=1e-12
        )
        assert page.readout("routing-flips", "seq") == pytest.approx(rec["seq_ratio"], rel=1e-12)
        assert page.readout("routing-flips", "outside") == rec["tokens_outside_grpo_clip"]

    check(2.0, 4)
    drawing = page.svg_signature("routing-flips")
    page.set_input("Tokens whose expert flipped", 26)
    check(2.0, 26)
    assert page.readout("routing-flips", "product") > 1e20
    assert page.readout("routing-flips", "seq") < 1.25
    assert page.svg_signature("routing-flips") != drawing
    page.set_input("Log-ratio jump of a flipped token", 3)
    check(3.0, 26)
    page.set_input("Tokens whose expert flipped", 0)
    check(3.0, 0)
    assert page.readout("routing-flips", "outside") == 0


# ------------------------------------------------------------------ the training curves


def test_training_curves_widget(open_chapter):
    page = open_chapter(STEM)
    assert page.data_marks("gspo-training") >= 4 + 40  # four runs, a bar per update

    def check(hist):
        assert page.readout("gspo-training", "final") == pytest.approx(
            hist[-1]["p_correct"], rel=1e-9
        )
        mean_clip = sum(r["clip_fraction"] for r in hist[1:]) / (len(hist) - 1)
        assert page.readout("gspo-training", "clipped") == pytest.approx(mean_clip, abs=1e-12)

    check(demonstrate_gspo(steps=40, verbose=False))
    assert executed(STEM).defines["gspo_curve"] == demonstrate_gspo(steps=40, verbose=False)
    drawing = page.svg_signature("gspo-training")
    page.set_input("Training run", "GSPO, clip 3e-4 / 4e-4 (the paper's)")
    check(demonstrate_gspo(steps=40, verbose=False, eps_low=3e-4, eps_high=4e-4))
    assert page.svg_signature("gspo-training") != drawing
    page.set_input("Training run", "GRPO, token ratios, clip 0.2")
    check(demonstrate_token_grpo(steps=40, verbose=False))
    page.set_input("Training run", "GSPO, clip 0.2 / 0.2 (GRPO's)")
    check(demonstrate_gspo(steps=40, verbose=False, eps_low=0.2, eps_high=0.2))
    assert page.readout("gspo-training", "clipped") == 0.0
