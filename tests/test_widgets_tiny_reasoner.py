"""The tiny reasoner in Chromium: the JS forward pass agrees with PyTorch, the live widget's
tally is the book's majority vote over the chains it shows."""

from __future__ import annotations

import random

import pytest
import torch

from arithmetic_task import VOCAB, encode
from conftest import executed
from reasoning import extract_answer, majority_vote, vote_distribution
from tiny_gpt import sample

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("one_thread")]

STEM = "02-self-consistency"
FORWARD = "tiny_gpt_forward.js"

PROMPTS = [
    "7+5-3-6+7=",
    "2-9=",
    "0+0+0+0+0=",
    "9-8+7=",
    "7+5-3-6+7=7+5=12;12-3=9;9-6=3;3+7=10;####10",  # a whole chain, teacher-forced
    "3-9-9-9-9=3-9=-6;-6-9=-15;-15-9=-24;",
    "1+2=1+2=3;####3;####3;####3;####3;####3;####3;####3",  # off-distribution, 52 chars
]


@pytest.fixture
def model(tiny_reasoner):
    """Chapter 2's tiny reasoner (conftest's shared checkpoint)."""
    return tiny_reasoner


def js_eval(js, body: str, *args):
    """Run `body` (an async function of (m, model, ...args)) with the forward module loaded."""
    return js.page.evaluate(
        f"""async ([url, json, args]) => {{
              const m = await import(url);
              window.__tinyModel ??= await m.loadTinyGPT(json);
              return await ({body})(m, window.__tinyModel, ...args);
            }}""",
        [f"{js.origin}/widgets/{FORWARD}", f"{js.origin}/data/tiny_reasoner.json", list(args)],
    )


def test_js_logits_match_pytorch(js, model):
    got = js_eval(js, "(m, model, prompts) => prompts.map(p => m.promptLogits(model, p))", PROMPTS)
    worst = 0.0
    for prompt, logits in zip(PROMPTS, got, strict=True):
        ids = torch.tensor([[1, *encode(prompt)]])
        with torch.no_grad():
            expected = model(ids)[0]
        diff = (torch.tensor(logits, dtype=torch.float64) - expected.double()).abs().max().item()
        worst = max(worst, diff)
        assert diff < 1e-3, (prompt, diff)
    assert worst > 0  # a real comparison, not two copies of one array


def test_js_greedy_chain_matches_pytorch(js, model):
    problems = ["7+5-3-6+7", "2-9", "4+4+4+4", "9-0-8+1-5"]
    got = js_eval(
        js,
        "(m, model, ps) => ps.map(p => m.sampleChain(model, p + '=', {temperature: 0}))",
        problems,
    )
    expected = sample(model, [p + "=" for p in problems], 0.0).completions
    assert got == expected


def test_js_lockstep_rows_match_one_row(js, model):
    """Chains decoded together (four rows per matrix pass) see the logits a lone chain sees."""
    got = js_eval(
        js,
        """(m, model, prompt) => {
             const ids = m.encodePrompt(model, prompt);
             const alone = m.forwardLogits(model, ids).at(-1);
             const cache = m.newCache(model, 6);
             const rows = [0, 1, 2, 3, 4, 5];
             let logits;
             for (const id of ids) logits = m.forwardRows(model, cache, rows, rows.map(() => id));
             return {alone, rows: logits.map((l) => Array.from(l)),
                     lengths: Array.from(cache.lengths)};
           }""",
        "7+5-3-6+7=",
    )
    assert got["lengths"] == [11] * 6
    for row in got["rows"]:
        assert max(abs(a - b) for a, b in zip(row, got["alone"], strict=True)) < 1e-9
    greedy = js_eval(
        js, "(m, model, p) => m.sampleChains(model, p, 5, {temperature: 0})", "9-0-8+1-5="
    )
    assert greedy == sample(model, ["9-0-8+1-5="], 0.0).completions * 5


def test_js_decodes_fp16(js):
    bits = [0x0000, 0x8000, 0x3C00, 0xC000, 0x7BFF, 0x0001, 0x03FF, 0x3555, 0x7C00, 0xFC00]
    decode = "(m, model, b) => Array.from(m.decodeFloat16(Uint16Array.from(b)), String)"
    got = js_eval(js, decode, bits)
    expected = torch.tensor(bits, dtype=torch.int32).to(torch.int16).view(torch.float16).float()
    assert [float(g) for g in got] == expected.tolist()


def test_js_refuses_bad_prompts(js):
    bad = ["", "7+a=", "7+5=^", "1+" * 32 + "1="]
    got = js_eval(
        js,
        """(m, model, prompts) => prompts.map(p => {
             try { m.encodePrompt(model, p); return 'accepted'; } catch (e) { return e.message; }
           })""",
        bad,
    )
    assert "empty" in got[0]
    assert "outside the vocabulary" in got[1] and "outside the vocabulary" in got[2]
    assert "context" in got[3]


def test_js_refuses_bad_checkpoints(js):
    got = js_eval(
        js,
        """async (m, model, _) => {
             const meta = model.meta;
             const url = new URL(meta.bin, location.origin + '/data/');
             const buffer = await (await fetch(url)).arrayBuffer();
             const attempt = async (metaEdit, bytes) => {
               try { await m.checkAndBuildTinyGPT(metaEdit, bytes); return 'accepted'; }
               catch (e) { return e.message; }
             };
             const flipped = buffer.slice(0);
             new Uint8Array(flipped)[1234] ^= 1;
             const shape = structuredClone(meta);
             shape.tensors[0].shape = [128, 18];
             const config = structuredClone(meta);
             config.config.n_layer = 3;
             return {
               ok: await attempt(meta, buffer),
               corrupted: await attempt(meta, flipped),
               truncated: await attempt(meta, buffer.slice(0, buffer.byteLength - 2)),
               shape: await attempt(shape, buffer),
               config: await attempt(config, buffer),
               format: await attempt({...meta, format: 'x'}, buffer),
             };
           }""",
        None,
    )
    assert got["ok"] == "accepted"
    assert "SHA-256" in got["corrupted"]
    assert "truncated" in got["truncated"]
    assert "shape" in got["shape"]
    assert "tensors" in got["config"]
    assert "format" in got["format"]


def test_js_extract_answer_matches_python(js):
    rng = random.Random(0)
    alphabet = VOCAB[3:]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(400)]
    texts += [
        "7+5=12;####12",
        "####-3",
        "####+-5",
        "3-4",
        "=-3",
        "####",
        "#####7",
        "-0",
        "007",
        "####007;1",
        "9-6=3;3+7=10;####10####",
        "+5",
        "--5",
        "1-####2",
    ]
    got = js_eval(js, "(m, model, ts) => ts.map(t => m.extractAnswer(t))", texts)
    for text, answer in zip(texts, got, strict=True):
        assert answer == extract_answer(text), text


def test_js_sampler_temperature_and_top_p(js):
    got = js_eval(
        js,
        """(m, model, _) => {
             // PAD and BOS (ids 0, 1) get the largest logits but must never be drawn
             const logits = [5, 9, -5, 3, 1, 2.5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5, -5];
             const draw = (T, p, seed, n) => {
               const rand = m.mulberry32(seed);
               return Array.from({length: n}, () => m.sampleToken(model, logits, T, p, rand));
             };
             return {greedy: draw(0, 1, 1, 5), nucleus: draw(1, 0.8, 2, 300),
                     hot: draw(1, 1, 3, 2000), again: draw(1, 1, 3, 2000)};
           }""",
        None,
    )
    assert set(got["greedy"]) == {3}  # PAD (0) and BOS (1) are never written
    assert set(got["nucleus"]) == {3, 5}  # 3 and 5 hold 0.92 of the rest: the top-0.8 nucleus
    assert got["hot"] == got["again"]  # seeded
    assert 0 not in got["hot"] and 1 not in got["hot"]
    assert set(got["hot"]) >= {3, 4, 5}


# ------------------------------------------------------------------ the live widget


def wait_done(page, n: int, temperature: float) -> None:
    page.page.wait_for_function(
        """([n, T]) => {
             const w = document.querySelector('[data-widget="tiny-reasoner"]');
             if (!w) return false;
             const v = k => w.querySelector(`[data-readout="${k}"]`)?.getAttribute('data-value');
             return v('done') === '1' && Number(v('finished')) === n
               && Number(v('temperature')) === T;
           }""",
        arg=[n, temperature],
        timeout=60_000,
    )


def shown_chains(page) -> list[str]:
    return page.widget("tiny-reasoner").evaluate(
        "w => [...w.querySelectorAll('li[data-chain]')].map(li => li.getAttribute('data-chain'))"
    )


def check_tally(page, problems) -> list[str]:
    chains = shown_chains(page)
    answers = [extract_answer(c) for c in chains]
    assert page.readout_text("tiny-reasoner", "vote") == (majority_vote(answers) or "")
    assert page.readout("tiny-reasoner", "finished") == len(chains)
    correct = next(p["answer"] for p in problems if p["problem"] == page.current_problem)
    assert page.readout("tiny-reasoner", "right") == sum(a == correct for a in answers)
    bars = page.widget("tiny-reasoner").evaluate(
        "w => [...w.querySelectorAll('svg g[aria-label=\"bar\"] rect')].length"
    )
    assert bars == len(vote_distribution(answers))
    return chains


def test_live_widget_samples_and_votes(open_chapter, model):
    page = open_chapter(STEM)
    page.assert_clean()
    problems = executed(STEM).defines["tr_problems"]
    page.current_problem = problems[0]["problem"]
    wait_done(page, 15, 1.0)
    assert page.data_marks("tiny-reasoner") > 0
    first = check_tally(page, problems)
    assert len(first) == 15 and len(set(first)) > 1  # T = 1: the chains disagree
    assert page.readout("tiny-reasoner", "ms-per-chain") > 0

    page.click_button("Sample")  # a new seed: new chains
    wait_done(page, 15, 1.0)
    second = check_tally(page, problems)
    assert second != first

    page.set_input("Chains to sample n", 6)
    page.set_input("Sampling temperature", 0)
    wait_done(page, 6, 0)
    greedy = check_tally(page, problems)
    expected = sample(model, [page.current_problem + "="], 0.0).completions[0]
    assert greedy == [expected] * 6  # greedy decoding: six copies of PyTorch's greedy chain

    page.current_problem = problems[2]["problem"]
    page.set_input("Held-out problem", page.current_problem)
    wait_done(page, 6, 0)
    check_tally(page, problems)
    page.assert_clean()
