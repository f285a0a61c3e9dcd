"""The tiny reasoner's task and model: format, split, shapes, sampling with and without cache."""

from __future__ import annotations

import random
from collections import Counter

import pytest
import torch

from arithmetic_task import (
    EOS,
    VOCAB,
    answer_of,
    decode,
    encode,
    first_slip,
    grade,
    held_out_problems,
    is_held_out,
    make_batch,
    make_trace,
    prompt_of,
    random_problem,
    write_chain,
)
from reasoning import extract_answer, solve_chain
from tiny_gpt import (
    KVCache,
    Samples,
    TinyGPT,
    TinyGPTConfig,
    _next_tokens,
    completion_logprobs,
    count_parameters,
    sample,
    sample_chains,
    tensor_shapes,
)

SMALL = TinyGPTConfig(n_layer=2, n_embd=32, n_head=2)
PROMPTS = ["7+5-3=", "1+2-3-4+5=", "3-4+5-6=", "9-9-9=", "0+0+0+0+0="]

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def small_model() -> TinyGPT:
    return TinyGPT(SMALL, seed=3).eval()


# ---------------------------------------------------------------------------- the task


def test_chain_format_is_the_books():
    chain = "7+5=12;12-3=9;9-6=3;3+7=10;####10"
    assert write_chain("7+5-3-6+7") == solve_chain("7+5-3-6+7") == chain
    assert write_chain("7+5-3", 0, 1) == "7+5=13;13-3=10;####10"
    assert write_chain("2-5+1", 1, -2) == "2-5=-3;-3+1=-4;####-4"
    assert answer_of("2-5-9") == "-12" == extract_answer(solve_chain("2-5-9"))
    assert prompt_of("7+5-3") == "7+5-3="


@pytest.mark.parametrize("bad", ["7+5", "7+5-3-6+7-1", "75+3", "7*5-3", "", "7+5-3="])
def test_bad_problems(bad):
    with pytest.raises(ValueError, match="problem"):
        answer_of(bad)


def test_slip_share_and_carry():
    rng = random.Random(0)
    problem = "7+5-3-6+7"
    traces = [make_trace(problem, rng, 0.3) for _ in range(4000)]
    wrong = [t for t in traces if t != solve_chain(problem)]
    assert abs(len(wrong) / len(traces) - 0.3) < 0.03
    for t in wrong:
        # exactly one slip, carried: every step's arithmetic is right except the slipped one
        steps = t.split(";")[:-1]
        bad = [s for s in steps if eval_step(s) is False]
        assert len(bad) == 1
        assert extract_answer(t) != "10"
        assert first_slip(problem, t) == steps.index(bad[0])
    assert make_trace(problem, rng, 0.0) == solve_chain(problem)


def eval_step(step: str) -> bool:
    lhs, rhs = step.split("=")
    i = max(lhs.rfind("+"), lhs.rfind("-"))
    a, op, b = int(lhs[:i]), lhs[i], int(lhs[i + 1 :])
    return (a + b if op == "+" else a - b) == int(rhs)


def test_held_out_split_by_hash():
    rng = random.Random(1)
    problems = [random_problem(rng, "train") for _ in range(300)]
    assert not any(is_held_out(p) for p in problems)
    held = held_out_problems(200, seed=5)
    assert len(set(held)) == 200 and all(is_held_out(p) for p in held)
    assert held_out_problems(50, seed=5) == held[:50]  # a prefix: shortened runs share problems
    digits = range(10)
    share = sum(is_held_out(f"{a}+{b}-{c}") for a in digits for b in digits for c in digits)
    assert 60 <= share <= 140  # ~10% of the 1,000 problems of this shape


def test_tokenizer_round_trip_and_errors():
    text = "7+5=12;12-3=9;####9"
    assert decode(encode(text)) == text
    assert decode(encode(text + EOS + "123")) == text
    with pytest.raises(ValueError, match="outside the vocabulary"):
        encode("7+5=a")
    with pytest.raises(TypeError, match="text"):
        encode(7)


def test_batch_masks_the_prompt():
    x, y = make_batch(random.Random(0), 8, 0.5)
    assert x.shape == y.shape == (8, 64)
    for row in range(8):
        text = decode(x[row].tolist())
        prompt_len = text.index("=") + 2  # BOS + problem + "="
        assert (y[row, : prompt_len - 1] == -100).all()
        target = decode([t for t in y[row].tolist() if t != -100])
        assert text.endswith(target)  # the targets are the chain
        assert grade(text[: text.index("=")], target) in (0.0, 1.0)


def test_first_slip():
    assert first_slip("7+5-3", "7+5=12;12-3=9;####9") is None
    assert first_slip("7+5-3", "7+5=13;13-3=10;####10") == 0
    assert first_slip("7+5-3", "7+5=12;12-3=8;####8") == 1
    assert first_slip("7+5-3", "7+5=12;12-3=9;####8") == 2
    assert first_slip("7+5-3", "7+5=12;13-3=10;####10") == 1  # carried the wrong value


# ---------------------------------------------------------------------------- the model


def test_parameter_count_of_the_issue_config():
    model = TinyGPT(TinyGPTConfig())
    assert TinyGPTConfig().vocab_size == len(VOCAB) == 18
    assert count_parameters(model) == 803_840
    logits = model(torch.zeros(3, 64, dtype=torch.long))
    assert logits.shape == (3, 64, 18)


def test_tensor_shapes_match_the_model():
    for config in (TinyGPTConfig(), SMALL):
        model = TinyGPT(config)
        shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
        assert list(tensor_shapes(config).items()) == list(shapes.items())


def test_config_validation():
    with pytest.raises(ValueError, match="n_embd"):
        TinyGPTConfig(n_embd=30, n_head=4)
    with pytest.raises(TypeError, match="n_layer"):
        TinyGPTConfig(n_layer=2.0)
    with pytest.raises(ValueError, match="context"):
        TinyGPTConfig(context=0)
    with pytest.raises(ValueError, match="exactly the keys"):
        TinyGPTConfig.from_dict({**SMALL.to_dict(), "dropout": 0.1})


def test_seeded_init_is_reproducible():
    state = torch.get_rng_state()
    a, b, c = TinyGPT(SMALL, seed=1), TinyGPT(SMALL, seed=1), TinyGPT(SMALL, seed=2)
    assert torch.equal(state, torch.get_rng_state())  # the global RNG is never read
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert not torch.equal(a.wte.weight, c.wte.weight)


def test_cache_forward_matches_full_forward(small_model):
    idx = torch.randint(0, 18, (3, 20), generator=torch.Generator().manual_seed(0))
    full = small_model(idx)
    cache = KVCache(SMALL, 3, torch.float32)
    pieces = [small_model(idx[:, :7], cache), small_model(idx[:, 7:8], cache)]
    pieces += [small_model(idx[:, 8:15], cache)]  # a multi-token step on a warm cache
    pieces += [small_model(idx[:, t : t + 1], cache) for t in range(15, 20)]
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="context"):
        small_model(torch.zeros(1, 65, dtype=torch.long))


@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.7, 0.9), (0.0, 1.0)])
def test_kv_cache_sampling_equals_no_cache(small_model, temperature, top_p):
    prompts = PROMPTS * 3
    runs = []
    for use_cache in (True, False):
        g = torch.Generator().manual_seed(11)
        runs.append(sample(small_model, prompts, temperature, top_p, g, use_cache=use_cache))
    cached, plain = runs
    assert torch.equal(cached.tokens, plain.tokens)
    assert cached.completions == plain.completions
    torch.testing.assert_close(cached.logprobs, plain.logprobs, atol=1e-5, rtol=0)


def test_samples_shapes_and_mask(small_model):
    s = sample(small_model, PROMPTS, 1.0, generator=torch.Generator().manual_seed(0))
    assert isinstance(s, Samples) and s.prompts == PROMPTS
    b, length = s.tokens.shape
    assert b == len(PROMPTS) and s.logprobs.shape == s.mask.shape == (b, length)
    for row, prompt in enumerate(PROMPTS):
        m = s.mask[row]
        generated = int(m.sum())
        assert m[:generated].all() and not m[generated:].any()  # a prefix
        assert len(prompt) + 1 + generated <= 64
        ends_in_eos = s.tokens[row, generated - 1].item() == VOCAB.index(EOS)
        assert bool(s.finished[row]) == ends_in_eos
        assert len(s.completions[row]) == generated - ends_in_eos
        assert (s.logprobs[row, m] <= 0).all() and (s.logprobs[row, ~m] == 0).all()


def test_completion_logprobs_have_gradients(small_model):
    s = sample(small_model, PROMPTS * 2, 1.0, generator=torch.Generator().manual_seed(4))
    lp = completion_logprobs(small_model, s)
    torch.testing.assert_close(lp.detach(), s.logprobs, atol=1e-5, rtol=0)
    small_model.zero_grad()
    (lp * s.mask).sum().backward()
    assert small_model.wte.weight.grad is not None
    assert small_model.wte.weight.grad.abs().sum() > 0
    small_model.zero_grad()


def test_sampling_is_seeded_and_leaves_the_global_rng(small_model):
    state = torch.get_rng_state()
    a = sample(small_model, PROMPTS, 1.0, generator=torch.Generator().manual_seed(9))
    b = sample(small_model, PROMPTS, 1.0, generator=torch.Generator().manual_seed(9))
    c = sample(small_model, PROMPTS, 1.0, generator=torch.Generator().manual_seed(10))
    assert a.completions == b.completions != c.completions
    assert torch.equal(state, torch.get_rng_state())


def test_greedy_is_the_argmax_path(small_model):
    s = sample(small_model, ["7+5-3="], 0.0)
    ids = [1, *encode("7+5-3=")]
    for t in range(int(s.mask[0].sum())):
        logits = small_model(torch.tensor([ids]))[0, -1]
        logits[[0, 1]] = float("-inf")  # PAD and BOS are never written
        assert int(logits.argmax()) == int(s.tokens[0, t])
        ids.append(int(s.tokens[0, t]))
    # a vanishing temperature or nucleus is greedy too
    tiny_t = sample(small_model, PROMPTS, 1e-4, generator=torch.Generator().manual_seed(0))
    tiny_p = sample(small_model, PROMPTS, 1.0, 1e-6, torch.Generator().manual_seed(0))
    greedy = sample(small_model, PROMPTS, 0.0)
    assert tiny_t.completions == tiny_p.completions == greedy.completions


def test_top_p_keeps_the_nucleus_and_its_ratios():
    probs = torch.tensor([0.05, 0.5, 0.15, 0.3])
    logits = probs.log().repeat(20000, 1)
    g = torch.Generator().manual_seed(0)
    drawn = Counter(_next_tokens(logits, 1.0, 0.7, g).tolist())
    assert set(drawn) == {1, 3}  # 0.5 + 0.3 reaches 0.7; 0.15 and 0.05 are cut
    assert drawn[1] / 20000 == pytest.approx(0.5 / 0.8, abs=0.02)
    drawn = Counter(_next_tokens(logits, 1.0, 1.0, g).tolist())
    for token, p in enumerate(probs.tolist()):
        assert drawn[token] / 20000 == pytest.approx(p, abs=0.015)
    # temperature sharpens (T < 1) or flattens (T > 1) the same distribution
    hot = Counter(_next_tokens(logits, 3.0, 1.0, g).tolist())
    cold = Counter(_next_tokens(logits, 0.3, 1.0, g).tolist())
    assert cold[1] > drawn[1] > hot[1] and cold[0] < drawn[0] < hot[0]


def test_temperature_spreads_the_chains(small_model):
    g = torch.Generator().manual_seed(0)
    cold = sample(small_model, ["7+5-3="] * 64, 0.3, generator=g).completions
    hot = sample(small_model, ["7+5-3="] * 64, 1.5, generator=g).completions
    assert len(set(cold)) < len(set(hot))


@pytest.mark.parametrize(
    "prompts,match",
    [
        ([""], "empty"),
        (["7+a="], "outside the vocabulary"),
        (["7+5=^"], "outside the vocabulary"),
        (["1+" * 32 + "1="], "context"),
        ([], "at least one"),
    ],
)
def test_bad_prompts(small_model, prompts, match):
    with pytest.raises(ValueError, match=match):
        sample(small_model, prompts, 0.0)


def test_bad_arguments(small_model):
    g = torch.Generator().manual_seed(0)
    with pytest.raises(TypeError, match="prompts"):
        sample(small_model, "7+5=", 1.0, generator=g)
    with pytest.raises(ValueError, match="temperature"):
        sample(small_model, PROMPTS, -0.5, generator=g)
    with pytest.raises(ValueError, match="top_p"):
        sample(small_model, PROMPTS, 1.0, 0.0, g)
    with pytest.raises(ValueError, match="generator"):
        sample(small_model, PROMPTS, 1.0)
    with pytest.raises(TypeError, match="model"):
        sample("gpt", PROMPTS, 0.0)
    with pytest.raises(TypeError, match="problems"):
        sample_chains(small_model, "7+5-3", 2, 1.0)
