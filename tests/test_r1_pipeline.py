"""The tiny R1 recipe: the pre-training mix, cold start, SFT, rejection sampling, evaluation."""

from __future__ import annotations

import random

import pytest
import torch

from arithmetic_task import (
    add_rechecks,
    answer_of,
    batch_of,
    encode_example,
    format_reward,
    grade,
    held_out_problems,
    make_batch,
    make_trace,
    recheck_count,
    write_chain,
)
from evaluation import pass_at_k
from r1_pipeline import (
    PRETRAIN_MIX,
    cold_start_set,
    evaluate,
    rejection_sample,
    sft,
)
from tiny_gpt import TinyGPT, TinyGPTConfig


def test_rechecks_only_lengthen():
    rng = random.Random(0)
    for problem in ("7+5-3", "9-9-9-9-9", "1+2+3+4"):
        chain = write_chain(problem)
        for _ in range(50):
            longer = add_rechecks(chain, rng, 0.5, 52)
            assert len(longer) <= 52 and len(longer) >= len(chain)
            assert grade(problem, longer) == 1.0 and format_reward(longer) == 1.0
            # Removing consecutive duplicates gives the chain back.
            steps = longer.split(";")
            dedup = [s for i, s in enumerate(steps) if i == 0 or s != steps[i - 1]]
            assert ";".join(dedup) == chain
    assert add_rechecks("7+5=12;####12", random.Random(1), 0.0, 40) == "7+5=12;####12"
    with pytest.raises(ValueError, match="max_chars"):
        add_rechecks("7+5=12;12-3=9;####9", random.Random(0), 0.3, 5)
    with pytest.raises(ValueError, match="recheck_share"):
        add_rechecks("7+5=12;####12", random.Random(0), 1.5, 40)


def test_pretraining_mix_has_its_three_kinds():
    rng = random.Random(3)
    traces = [make_trace("7+5-3-6+7", rng, 0.45, 0.3, 0.3, 52) for _ in range(2000)]
    answer_only = sum(t.startswith("####") for t in traces) / len(traces)
    rechecked = sum(recheck_count(t) > 0 for t in traces) / len(traces)
    right = sum(grade("7+5-3-6+7", t) for t in traces) / len(traces)
    assert answer_only == pytest.approx(0.3, abs=0.03)
    assert rechecked > 0.4
    # Bare answers are always right; chains are right unless they slipped (45%).
    assert right == pytest.approx(0.3 + 0.7 * 0.55, abs=0.04)
    assert all(t == "####10" for t in traces if t.startswith("####"))


def test_default_batch_is_unchanged_by_the_mix_options():
    """Off by default, the new options make no draws: chapter 2's data stay the same."""
    a = make_batch(random.Random(5), 16, 0.45)
    b = make_batch(random.Random(5), 16, 0.45, recheck_share=0.0, answer_only_share=0.0)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    x, y = make_batch(random.Random(5), 64, context=64, **PRETRAIN_MIX)
    assert x.shape == y.shape == (64, 64)


def test_encode_example_masks_the_prompt():
    x, y = encode_example("7+5-3", "7+5=12;12-3=9;####9", 64)
    prompt_len = len("^7+5-3=")
    assert (y[: prompt_len - 1] == -100).all()
    assert int((y != -100).sum()) == len("7+5=12;12-3=9;####9") + 1  # the completion and EOS
    with pytest.raises(ValueError, match="context"):
        encode_example("7+5-3", "7+5=12;12-3=9;####9", 12)
    with pytest.raises(ValueError, match="pairs"):
        batch_of([])


def test_cold_start_set_is_clean_and_seeded():
    pairs = cold_start_set(200, seed=4)
    assert pairs == cold_start_set(200, seed=4) and pairs != cold_start_set(200, seed=5)
    assert all(grade(p, c) == 1.0 and format_reward(c) == 1.0 for p, c in pairs)
    assert sum(recheck_count(c) > 0 for _, c in pairs) > 50


def test_sft_fits_its_data():
    torch.manual_seed(0)
    model = TinyGPT(TinyGPTConfig(n_layer=1, n_embd=32, n_head=2), seed=0)
    pairs = [("7+5-3", "7+5=12;12-3=9;####9")]
    losses = sft(model, pairs, steps=60, batch_size=4, lr=1e-2)
    assert losses[-1] < 0.2 * losses[0]
    with pytest.raises(ValueError, match="pairs"):
        sft(model, [], steps=1)
    with pytest.raises(ValueError, match="steps"):
        sft(model, pairs, steps=0)


def test_rejection_sampling_keeps_only_verified_chains(tiny_reasoner):
    problems = held_out_problems(12, seed=9)
    pairs, stats = rejection_sample(tiny_reasoner, problems, 8, seed=0)
    assert pairs and all(grade(p, c) == 1.0 and format_reward(c) == 1.0 for p, c in pairs)
    assert len(set(pairs)) == len(pairs)
    assert stats["samples"] == 96 and 0 < stats["kept"] <= 96 * stats["right_share"]
    assert stats["problems_covered"] == len({p for p, _ in pairs})
    assert (pairs, stats) == rejection_sample(tiny_reasoner, problems, 8, seed=0)


def test_evaluate_uses_the_unbiased_estimator(tiny_reasoner):
    problems = held_out_problems(10, seed=2)
    ev = evaluate(tiny_reasoner, problems, 16, seed=1, ks=(1, 4, 16))
    counts = ev["counts"]
    assert len(counts) == 10 and all(0 <= c <= 16 for c in counts)
    for k in (1, 4, 16):
        want = sum(pass_at_k(16, c, k) for c in counts) / 10
        assert ev["pass_at_k"][k] == pytest.approx(want)
        lo, hi = ev["pass_at_k_ci"][k]
        assert lo <= want <= hi
    assert sum(ev["mode_share"].values()) == pytest.approx(1.0)
    assert ev["mode_share"]["chain"] > 0.9  # chapter 2's reasoner always writes chains
    assert ev == evaluate(tiny_reasoner, problems, 16, seed=1, ks=(1, 4, 16))
    assert answer_of(problems[0])  # the problems are well-formed
