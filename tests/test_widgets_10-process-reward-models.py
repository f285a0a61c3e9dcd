"""Chapter 11's widgets in Chromium, and prm_math.js against code/prm.py."""

from __future__ import annotations

import random

import pytest

from conftest import executed
from prm import (
    AGGREGATIONS,
    aggregation_examples,
    demonstrate_prm,
    first_error_index,
    generate_candidate_pool,
    orm_score,
    parse_step,
    prm_score,
    soft_step_rewards,
    step_is_valid,
    step_rewards,
)

pytestmark = pytest.mark.browser
STEM = "10-process-reward-models"
SHOTS = "/tmp"

STEPS = [
    "3 * 4 = 12",
    "12 + 8 = 21",
    "12 + 8 = 20",
    "8 / 3 = 8/3",
    "3 - 8/3 = 1/3",
    "8 / 1/3 = 24",
    "-6 * -4 = 24",
    "4-9=-5",
    "  20 + 4 = 24\n",
    "\u300020 + 4 = 24\u2028",
    "8 / 0 = 0",
    "1/0 + 1 = 1",
    "4 + 9",
    "4 ^ 9 = 13",
    "4.5 + 1 = 5.5",
    "(4 + 9) = 13",
    "\u0663 + 1 = 4",
    "4 + 9 = 13;",
    "4 +\t9 =\t13",
    "- 4 + 9 = 5",
    "007 + 1 = 8",
    "6/4 * 2 = 3",
    "9" * 41 + " + 1 = 1",
    "",
    "24",
]


def random_steps(n: int, seed: int) -> list[str]:
    """Near-miss step text: digits, operators, spaces, slashes, minus signs."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b = rng.randint(-20, 20), rng.randint(-20, 20)
        op = rng.choice("+-*/")
        c = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0}[op]
        c = int(c) if rng.random() < 0.7 else int(c) + rng.choice([-1, 1])
        text = f"{a} {op} {b} = {c}"
        if rng.random() < 0.2:  # scramble a character
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice("0123456789+-*/= ;\t") + text[i + 1 :]
        out.append(text)
    return out


# ------------------------------------------------------------------ prm_math.js against prm.py


def test_parse_step_matches(js):
    texts = STEPS + random_steps(300, 1)
    got = js.page.evaluate(
        """async ([url, texts]) => {
             const m = await import(url);
             const f = m.formatRational;
             return texts.map((t) => {
               try {
                 const p = m.parseStep(t);
                 return [f(p.left), p.op, f(p.right), f(p.result)];
               } catch (e) {
                 return null;
               }
             });
           }""",
        [f"{js.origin}/widgets/prm_math.js", texts],
    )
    valid = js.call_many("prm_math.js", "stepIsValid", [[t] for t in texts])
    for text, g, v in zip(texts, got, valid, strict=True):
        try:
            p = parse_step(text)
            want = [str(p.left), p.op, str(p.right), str(p.result)]
        except ValueError:
            want = None
        assert g == want, text
        assert v == step_is_valid(text), text


def test_step_is_valid_with_prev_matches(js):
    cases = [[s, p] for s in STEPS[:10] for p in (None, 12, 20, 24)]
    cases += [[s, 21] for s in random_steps(100, 2)]
    js_cases = [[s, None if p is None else {"n": str(p), "d": "1"}] for s, p in cases]
    got = js.page.evaluate(
        """async ([url, cases]) => {
             const m = await import(url);
             const prev = (p) => (p === null ? null : {n: BigInt(p.n), d: 1n});
             return cases.map(([s, p]) => m.stepIsValid(s, prev(p)));
           }""",
        [f"{js.origin}/widgets/prm_math.js", js_cases],
    )
    for (step, prev), g in zip(cases, got, strict=True):
        assert g == step_is_valid(step, prev), (step, prev)


def test_chain_verdicts_match(js):
    chains = [c["steps"] for c in generate_candidate_pool(400, target=24, seed=0)]
    chains += [c["steps"] for c in aggregation_examples()]
    rng = random.Random(3)
    pieces = random_steps(200, 4)
    chains += [rng.sample(pieces, rng.randint(1, 5)) for _ in range(150)]
    chains += [[""], ["garbage", "12 + 8 = 20"], ["3 * 4 = 12", "junk", "12 + 1 = 13"]]
    rewards = js.call_many("prm_math.js", "stepRewards", [[c] for c in chains])
    orms = js.call_many("prm_math.js", "ormScore", [[c, 24] for c in chains])
    firsts = js.call_many("prm_math.js", "firstErrorIndex", [[c] for c in chains])
    for chain, r, o, f in zip(chains, rewards, orms, firsts, strict=True):
        assert r == step_rewards(chain), chain
        assert o == orm_score(chain, 24), chain
        assert f == first_error_index(chain), chain


def test_prm_score_matches(js):
    rng = random.Random(5)
    score_lists = [[round(rng.random(), 3) for _ in range(rng.randint(1, 7))] for _ in range(60)]
    score_lists += [soft_step_rewards(c["steps"]) for c in generate_candidate_pool(40, seed=1)]
    score_lists += [[0.0], [1.0, 1.0], [0.5] * 9]
    chains = [c["steps"] for c in generate_candidate_pool(30, seed=2)]
    for agg in AGGREGATIONS:
        got = js.call_many("prm_math.js", "prmScore", [[s, agg] for s in score_lists + chains])
        for arg, g in zip(score_lists + chains, got, strict=True):
            assert g == pytest.approx(prm_score(arg, agg), abs=1e-12), (arg, agg)


def test_js_rejects_bad_input_like_python(js):
    assert "agg" in js.call("prm_math.js", "prmScore", [0.5], "median")["error"]
    assert "[0, 1]" in js.call("prm_math.js", "prmScore", [1.5], "min")["error"]
    assert "empty" in js.call("prm_math.js", "prmScore", [], "min")["error"]
    assert "chain" in js.call("prm_math.js", "stepRewards", [])["error"]
    assert "step" in js.call("prm_math.js", "parseStep", "4 ^ 9 = 13")["error"]


# ------------------------------------------------------------------ the widgets


def test_chapter_ojs_runs_clean(open_chapter):
    open_chapter(STEM).assert_clean()


def check_chain(page, chain):
    want = step_rewards(chain)
    assert page.readout_text("crux-chain", "rewards") == ",".join(map(str, want))
    assert page.readout("crux-chain", "prm") == prm_score(chain, "min")
    assert page.readout("crux-chain", "orm") == orm_score(chain, 24)
    first = first_error_index(chain)
    assert page.readout_text("crux-chain", "first-error") == ("" if first is None else str(first))


def test_crux_chain_widget(open_chapter):
    page = open_chapter(STEM)
    chains = executed(STEM).defines["crux_chains"]
    assert page.data_marks("crux-chain") >= 6
    check_chain(page, chains[0]["steps"])  # the crux: [1, 0, 1], ORM 1.0, first error at 1
    assert page.readout("crux-chain", "orm") == 1.0 and page.readout("crux-chain", "prm") == 0.0
    page.screenshot('[data-widget="crux-chain"]', f"{SHOTS}/crux_chain.png")
    drawing = page.svg_signature("crux-chain")
    for chain in chains[1:]:
        page.set_input("Chain", chain["name"])
        check_chain(page, chain["steps"])
    assert page.svg_signature("crux-chain") != drawing
    typed = [
        "3 * 4 = 12; 12 + 8 = 20; 21 + 3 = 24",
        "3 * 4 = 12; 12 + 8 = 20; 20 + 4 = 24",
        "3 * 4 = 12; 12 + 8 = 20",
        "8 / 3 = 8/3; 8/3 * 9 = 24",
        "8 / 3 = 8/3; 8/3 * 9 = 24;",
        "nonsense",
        "",
    ]
    for text in typed:
        page.set_input("Steps, separated by ;", text)
        check_chain(page, text.split(";"))
    page.set_input("Chain", chains[0]["name"])  # picking a chain resets the text
    check_chain(page, chains[0]["steps"])
    page.assert_clean()


def test_prm_aggregation_widget(open_chapter):
    page = open_chapter(STEM)
    examples = aggregation_examples(seed=0)
    assert page.data_marks("prm-aggregation") > 10
    # defaults: the compensated chain under min
    assert page.readout("prm-aggregation", "score") == pytest.approx(
        prm_score(examples[1]["scores"], "min")
    )
    page.screenshot('[data-widget="prm-aggregation"]', f"{SHOTS}/prm_aggregation.png")
    drawing = page.svg_signature("prm-aggregation")
    for ex in examples:
        page.set_input("Example chain", ex["name"])
        for agg in AGGREGATIONS:
            page.set_input("Aggregation", agg)
            assert page.readout("prm-aggregation", "score") == pytest.approx(
                prm_score(ex["scores"], agg), abs=1e-12
            )
            assert page.readout("prm-aggregation", agg) == pytest.approx(ex[agg], abs=5e-5)
        assert page.readout("prm-aggregation", "orm") == ex["orm"]
    assert page.svg_signature("prm-aggregation") != drawing
    page.assert_clean()


def test_rerank_widget(open_chapter):
    page = open_chapter(STEM)
    demo = demonstrate_prm(seed=0)
    cur = demo["curves"]
    assert page.data_marks("rerank") > 20
    mix = demo["pool_mix"]
    assert page.readout("rerank", "ceiling") == pytest.approx(
        mix["valid"] / (mix["valid"] + mix["flawed"])
    )
    page.screenshot('[data-widget="rerank"]', f"{SHOTS}/rerank.png")
    drawing = page.svg_signature("rerank")
    for i, n in enumerate(cur["n"]):
        page.set_input("Candidates per problem N", n)
        assert page.readout("rerank", "n") == n
        for key in ("prm", "orm", "majority"):
            assert page.readout("rerank", key) == pytest.approx(cur[key][i], abs=1e-12)
    assert page.svg_signature("rerank") != drawing
    page.assert_clean()
