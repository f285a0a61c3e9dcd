"""The in-browser trainer (widgets/rl_trainer.js, its worker rl_trainer_worker.js): it draws,
a Step moves every readout to a finite value, Reset returns to the checkpoint's readouts exactly,
the same seed gives the same first step, every input it cannot use is refused with a message,
and a checkpoint that does not load or a worker that dies is reported in the widget.

Tiny runs only (2 prompts x 4 chains): these tests check the widget, not learning; the engine's
agreement with PyTorch is tests/test_widgets_rl_trainer_parity.py's."""

from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.browser

STEM = "04-grpo"
NAME = "rl-trainer"
KEYS = ("reward", "accuracy", "clip", "kl", "length-wrong")


def wait_state(page, *, step: int | None = None, status: str = "ready", timeout: int = 120_000):
    """Wait until the widget shows `status` (and, if given, the run at `step`, not training)."""
    page.page.wait_for_function(
        """([name, step, status]) => {
             const w = document.querySelector(`[data-widget="${name}"]`);
             if (!w || w.dataset.status !== status) return false;
             if (step === null) return true;
             const v = k => w.querySelector(`[data-readout="${k}"]`)?.getAttribute('data-value');
             return v('step') === String(step) && v('status') !== 'training' && v('pass1') !== '';
           }""",
        arg=[NAME, step, status],
        timeout=timeout,
    )


def readouts(page) -> dict[str, str]:
    return page.widget(NAME).evaluate(
        """w => Object.fromEntries([...w.querySelectorAll('[data-readout]')]
                 .map(e => [e.dataset.readout, e.getAttribute('data-value')]))"""
    )


def messages(page) -> dict[str, str]:
    return page.widget(NAME).evaluate(
        "w => Object.fromEntries([...w.querySelectorAll('[data-message]')]"
        ".map(e => [e.dataset.message, e.textContent]))"
    )


@pytest.fixture(scope="module")
def trainer_page(open_chapter):
    page = open_chapter(STEM)
    page.set_input("Prompts per step", 2)
    page.set_input("Chains per prompt G", 4)
    wait_state(page, step=0)
    return page


def test_step_reset_and_seed(trainer_page):
    page = trainer_page
    page.assert_clean()
    start = readouts(page)
    assert 0 <= float(start["pass1"]) <= 1
    assert all(start[k] == "" for k in KEYS)  # nothing trained yet
    assert page.data_marks(NAME) > 0

    page.click_button("Step")
    wait_state(page, step=1)
    first = readouts(page)
    for key in KEYS + ("ms-per-step",):
        assert math.isfinite(float(first[key])), (key, first[key])
    assert 0 <= float(first["accuracy"]) <= 1 and float(first["kl"]) >= 0
    hist = page.widget(NAME).evaluate(
        "w => [...w.querySelectorAll('svg[aria-label=\"Ratios of the last step\"] rect')].length"
    )
    assert hist > 0

    page.click_button("Reset")
    wait_state(page, step=0)
    assert readouts(page) == start  # back at the checkpoint: the first readouts, exactly

    page.click_button("Step")
    wait_state(page, step=1)
    again = readouts(page)
    again.pop("ms-per-step"), first.pop("ms-per-step")
    assert again == first  # the same seed, the same first step

    page.set_input("Run seed", 1)
    wait_state(page, step=0)
    page.click_button("Step")
    wait_state(page, step=1)
    other = readouts(page)
    assert (other["reward"], other["kl"]) != (first["reward"], first["kl"])
    page.assert_clean()


@pytest.mark.parametrize(
    "label, value, key, words",
    [
        ("Learning rate", "0", "lr", "positive number"),
        ("Learning rate", "NaN", "lr", "positive number"),
        ("Learning rate", "fast", "lr", "positive number"),
        ("Chains per prompt G", 1, "group", "at least 2"),
        ("Your problem", "7+a-3", "problem", "alphabet"),
        ("Your problem", "7+5", "problem", "3-5 single digits"),
    ],
)
def test_each_bad_input_is_refused_with_a_message(trainer_page, label, value, key, words):
    page = trainer_page
    good = {"Learning rate": "1e-4", "Chains per prompt G": 4, "Your problem": "7+5-3-6+7"}
    page.set_input(label, value)
    page.page.wait_for_function(
        "([n, k]) => document.querySelector(`[data-widget=\"${n}\"] [data-message=\"${k}\"]`)",
        arg=[NAME, key],
    )
    assert words in messages(page)[key]
    if key != "problem":  # a run it cannot do is not started: Step does nothing
        page.click_button("Step")
        assert readouts(page)["step"] in ("", "0")
    page.set_input(label, good[label])
    wait_state(page, step=None)
    page.page.wait_for_function(
        "n => !document.querySelector(`[data-widget=\"${n}\"] [data-message]`)", arg=NAME
    )


def session_states(js, url: str, then: str = "") -> list[dict]:
    """Run a trainerSession on a blank page; return the statuses and messages it went through."""
    return js.page.evaluate(
        """async ([origin, url, then]) => {
             const m = await import(`${origin}/widgets/rl_trainer.js`);
             const setup = {records: {}, eval: ['2+8-4-7+6'], eval_samples: 1, eval_every: 5};
             const settings = {objective: 'grpo', prompts: 2, group: 4, lr: '1e-4', clipEps: 0.2,
               clipHigher: true, clipHigh: 0.28, dynamic: false, gspoLow: 3, gspoHigh: 4,
               cispoCap: 0.28, beta: 0.05, temperature: 1, seed: 0, problem: '7+5-3'};
             const session = m.trainerSession(new URL(url, origin + '/chapters/'), setup);
             const seen = [];
             const states = session.states(settings);
             const timeout = new Promise((r) => setTimeout(() => r({timedOut: true}), 30000));
             while (true) {
               const next = await Promise.race([states.next(), timeout]);
               if (next.timedOut) { seen.push({status: 'timed out'}); break; }
               const s = next.value;
               seen.push({status: s.status, message: s.message, step: s.run?.step ?? null});
               if (s.status === 'load-error') break;
               if (s.status === 'ready' && s.run && then === 'kill' && !seen.killed) {
                 seen.killed = true;
                 session.worker.postMessage({type: 'no such message'});
               } else if (s.status === 'dead' && then === 'kill' && !seen.revived) {
                 seen.revived = true;
                 session.reset();
               } else if (s.status === 'ready' && s.run && (then !== 'kill' || seen.revived)) break;
             }
             return seen;
           }""",
        [js.origin, url, then],
    )


def test_a_checkpoint_that_does_not_load_is_reported(js):
    seen = session_states(js, "../data/no_such_checkpoint.json")
    assert seen[-1]["status"] == "load-error"
    assert "did not load" in seen[-1]["message"]


def test_a_worker_that_dies_is_reported_and_reset_revives_it(js):
    seen = session_states(js, "../data/r1_cold_start.json", then="kill")
    dead = [s for s in seen if s["status"] == "dead"]
    assert dead and "worker stopped" in dead[0]["message"]
    assert seen[-1]["status"] == "ready" and seen[-1]["step"] == 0  # Reset: a new worker


# Where the reader meets the trainer: each chapter with its objective pre-selected (the GRPO
# chapter also offers REINFORCE), on the whole page as Quarto lays it out, on a phone, dark.
CHAPTER_OBJECTIVES = [
    ("04-grpo", "GRPO"),
    ("04-grpo", "REINFORCE (group-mean baseline)"),
    ("05-dr-grpo", "Dr. GRPO"),
    ("06-gspo", "GSPO"),
    ("07-dapo", "DAPO"),
    ("08-cispo", "CISPO"),
]
PHONE = 400


@pytest.fixture(scope="module")
def dark_phone(browser, server):
    """dark_phone(stem) -> the chapter's whole page, 400 px wide, dressed in the dark theme."""
    from booktools.harness.browser import ChapterPage
    from booktools.harness.theme import dress_page
    from conftest import executed

    pages, contexts = {}, []

    def _open(stem: str):
        if stem not in pages:
            context = browser.new_context(viewport={"width": PHONE, "height": 1200})
            contexts.append(context)
            page = context.new_page()
            dress_page(page, "dark")
            pages[stem] = ChapterPage(page, executed(stem), server, full=True)
        return pages[stem]

    yield _open
    for context in contexts:
        context.close()


@pytest.mark.parametrize("stem, objective", CHAPTER_OBJECTIVES)
def test_the_trainer_steps_in_its_chapter_on_a_dark_phone(dark_phone, stem, objective):
    """One step of each objective in its chapter at 400 px, dark: no console error, every
    readout finite, nothing drawn wider than the screen."""
    page = dark_phone(stem)
    page.set_input("Objective to train", objective)
    page.set_input("Prompts per step", 2)
    page.set_input("Chains per prompt G", 4)
    wait_state(page, step=0)
    page.click_button("Step")
    wait_state(page, step=1)
    values = readouts(page)
    for key in ("reward", "accuracy", "kl", "ms-per-step"):
        assert math.isfinite(float(values[key])), (objective, key, values[key])
    widest = page.widget(NAME).evaluate(
        "w => Math.max(w.getBoundingClientRect().right,"
        " ...[...w.querySelectorAll('svg')].map(s => s.getBoundingClientRect().right))"
    )
    assert widest <= PHONE, f"the trainer reaches {widest:.0f} px on a {PHONE} px screen"
    # Every chart's y axis reads upwards with a range to read: Quarto's Plot 0.6.11 turns a
    # `zero: true` domain of one positive value upside down ([v, 0], "↓ KL": REINFORCE's first
    # step, with no book curve to widen it) and draws an all-zero series on one "0" tick.
    axes = page.widget(NAME).evaluate(
        "w => [...w.querySelectorAll('svg')].filter(s => s.querySelector('[aria-label=\"y-axis"
        " label\"]')).map(s => [s.getAttribute('aria-label'), s.querySelector('[aria-label="
        "\"y-axis label\"]').textContent, s.querySelectorAll('[aria-label=\"y-axis tick"
        " label\"] text').length])"
    )
    assert axes, "no chart with a y axis"
    for chart, label, ticks in axes:
        assert not label.startswith("↓"), f"{objective}: {chart} is drawn upside down ({label})"
        assert ticks >= 2, f"{objective}: {chart}'s y axis has {ticks} tick(s)"
    page.assert_clean()


def test_the_samplers_log_probs_are_pytorchs(js):
    """The chains the trainer samples (WebAssembly products, float32) carry the log-probs that
    tiny_gpt.completion_logprobs gives the same tokens: the old log-probs of every ratio."""
    import torch

    from arithmetic_task import VOCAB, held_out_problems
    from data_paths import R1_COLD_START_PATH
    from tiny_gpt import Samples, completion_logprobs, load_checkpoint

    problems = held_out_problems(12, 0)
    chains = js.page.evaluate(
        """async ([origin, problems]) => {
             const F = await import(origin + "/widgets/tiny_gpt_forward.js");
             const R = await import(origin + "/widgets/rl_trainer_math.js");
             const model = await F.loadTinyGPT(origin + "/data/r1_cold_start.json");
             return R.sampleGroups(model, problems, 4, 1, F.mulberry32(1));
           }""",
        [js.origin, problems],
    )
    model, _ = load_checkpoint(R1_COLD_START_PATH)
    pad = VOCAB.index("_")  # an input-only symbol: no chain holds it
    width = max(len(c["tokens"]) for c in chains)
    tokens = torch.full((len(chains), width), pad, dtype=torch.long)
    for i, c in enumerate(chains):
        tokens[i, : len(c["tokens"])] = torch.tensor(c["tokens"])
    samples = Samples([f"{c['problem']}=" for c in chains], [c["text"] for c in chains], tokens,
                      torch.zeros(tokens.shape), tokens != pad,
                      torch.tensor([c["finished"] for c in chains]))
    with torch.no_grad():
        want = completion_logprobs(model, samples)
    worst = max(
        float((torch.tensor(c["logp"], dtype=torch.float64) - want[i, : len(c["logp"])].double())
              .abs().max())
        for i, c in enumerate(chains)
    )
    assert sum(len(c["logp"]) for c in chains) > 500 and worst < 1e-4, worst
