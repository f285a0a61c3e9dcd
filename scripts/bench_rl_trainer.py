"""Benchmark the browser's RL trainer against PyTorch's step (a script, not a timed test).

    python scripts/bench_rl_trainer.py                   # ms per step, JS and PyTorch, 3 sizes
    python scripts/bench_rl_trainer.py --skip-steps --curve 3        # 3 minutes in Chromium
    python scripts/bench_rl_trainer.py --skip-steps --torch-curve 20 --prompts 4 --group 8
    python scripts/bench_rl_trainer.py --skip-steps --redraw 30      # the page while it trains
    python scripts/bench_rl_trainer.py --skip-steps --sampler-check  # JS vs PyTorch sampler

From chapter 12's cold start (data/r1_cold_start.*), it prints:

* (default) for the widget's defaults (rl_trainer.js DEFAULTS), 4 x 8, 8 x 16 and chapter 12's
  size (16 x 16), two inner steps each: ms per RL step of widgets/rl_trainer_math.js in headless
  Chromium (sampling, grading, the reference's log-probs, two gradient steps), split into
  sampling and update; ms per step of rl_reasoner.rl_step on one torch thread; their ratio
  (the issue's target: JS within 3x of PyTorch).
* --curve M: the widget's defaults (or --prompts/--group/--lr/--inner) train M minutes in
  Chromium; the policy's weights are copied every --every seconds and each copy's held-out
  pass@1 is measured after the clock stops (so measuring costs the run no time). The held-out
  set is PyTorch's (arithmetic_task.held_out_problems(200, 0)), 4 samples each at T = 1, with a
  95% bootstrap interval over problems, and the change from the cold start with a paired
  bootstrap interval (the issue's target: +8 points within 3 minutes).
* --torch-curve S: the same run in PyTorch on one thread for S steps, pass@1 on the same set
  every --eval-every steps with the same intervals, and the seconds each step took.
* --redraw S: on chapter 5's page another input (the GRPO step widget's group-size slider)
  moves every 250 ms for S / 2 seconds before Train and S seconds while the trainer trains at
  the widget's defaults; prints the median and 90th percentile time from each input event to
  the next painted frame (the issue's target: median <= 16 ms while training).
* --sampler-check: the JS sampler's per-token log-probs against PyTorch's on the 800 chains it
  drew for the held-out set (they agree to ~2e-5).

The machine's load average is printed beside every figure: on a shared machine every figure is
pessimistic, and the JS and PyTorch figures are taken at different moments.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

import torch

from arithmetic_task import held_out_problems
from data_paths import R1_COLD_START_PATH as CHECKPOINT
from r1_pipeline import evaluate
from rl_reasoner import RLConfig, rl_step
from tiny_gpt import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
EVAL_PROBLEMS, EVAL_SAMPLES = 200, 4
# rl_trainer.js's `export const DEFAULTS = Object.freeze({prompts: 4, group: 8, lr: "1e-4"})`
_DEFAULTS = re.search(r"export const DEFAULTS = Object\.freeze\(\{(.*?)\}\)",
                      (ROOT / "widgets" / "rl_trainer.js").read_text()).group(1)
WIDGET = {k: v.strip('"') for k, v in re.findall(r'(\w+): ("[^"]*"|[\d.e-]+)', _DEFAULTS)}
WIDGET["prompts"], WIDGET["group"] = int(WIDGET["prompts"]), int(WIDGET["group"])

JS_STEPS = """async ([origin, P, G, lr, steps, seed]) => {
  const F = await import(origin + "/widgets/tiny_gpt_forward.js");
  const R = await import(origin + "/widgets/rl_trainer_math.js");
  const model = await F.loadTinyGPT(origin + "/data/r1_cold_start.json");
  const trainer = R.createTrainer(model, {prompts_per_step: P, group_size: G, lr,
                                          inner_steps: 2}, seed);
  const out = [];
  for (let s = 0; s < steps; s++) {
    const st = trainer.step();
    out.push({seconds: st.seconds, sample: st.timing.sample_ms, update: st.timing.update_ms,
              accuracy: st.accuracy});
  }
  return out;
}"""

JS_CURVE = """async ([origin, minutes, every, P, G, lr, inner, seed, problems, samples]) => {
  const F = await import(origin + "/widgets/tiny_gpt_forward.js");
  const R = await import(origin + "/widgets/rl_trainer_math.js");
  const model = await F.loadTinyGPT(origin + "/data/r1_cold_start.json");
  const trainer = R.createTrainer(model, {prompts_per_step: P, group_size: G, lr,
                                          inner_steps: inner}, seed);
  const copyWeights = () => Object.fromEntries(
    Object.entries(trainer.model.weights).map(([k, w]) => [k, Float32Array.from(w)]));
  const snaps = [{seconds: 0, step: 0, weights: copyWeights()}];
  const t0 = performance.now();
  const steps = [];
  let next = every;
  while (performance.now() - t0 < minutes * 60000) {
    const st = trainer.step();
    const seconds = (performance.now() - t0) / 1000;
    steps.push({step: st.step, seconds, reward: st.reward_mean});
    if (seconds >= next) {
      snaps.push({seconds, step: st.step, weights: copyWeights()});
      next += every;
    }
  }
  const last = steps.at(-1);
  if (snaps.at(-1).step !== last.step) {
    snaps.push({seconds: last.seconds, step: last.step, weights: copyWeights()});
  }
  const curve = snaps.map(({seconds, step, weights}) => {
    for (const [k, w] of Object.entries(weights)) trainer.model.weights[k].set(w);
    const r = trainer.evaluate(problems, samples, {seed: 1, temperature: 1});
    return {seconds, step, correct: r.correct};
  });
  return {curve, steps};
}"""

JS_SAMPLES = """async ([origin, problems, n, seed]) => {
  const F = await import(origin + "/widgets/tiny_gpt_forward.js");
  const R = await import(origin + "/widgets/rl_trainer_math.js");
  const model = await F.loadTinyGPT(origin + "/data/r1_cold_start.json");
  const chains = R.sampleGroups(model, problems, n, 1, F.mulberry32(seed));
  return chains.map(({problem, text, tokens, logp, finished}) =>
    ({problem, text, tokens, logp, finished}));
}"""

# The page's other input moves while the trainer trains; the time from each input event to the
# next animation frame after it (the frame that shows the redraw) is recorded.
REDRAW = """async ([label, seconds]) => {
  const input = [...document.querySelectorAll('form')].find((f) => f.textContent.includes(label))
    ?.querySelector('input[type=range]');
  if (!input) throw new Error(`no slider labelled ${label}`);
  const lo = Number(input.min), hi = Number(input.max);
  const times = [];
  const t0 = performance.now();
  let k = 0;
  while (performance.now() - t0 < seconds * 1000) {
    input.value = String(k++ % 2 ? lo : hi);
    const start = performance.now();
    input.dispatchEvent(new Event('input', {bubbles: true}));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    times.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 250));
  }
  const step = document.querySelector('[data-widget="rl-trainer"] [data-readout="step"]')
    ?.getAttribute('data-value');
  return {times, step};
}"""


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def browser_run(script: str, args: list):
    """Evaluate `script` in headless Chromium on the book's server (as the widget tests do)."""
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from booktools.harness.browser import CHROMIUM_ARGS, chromium_path
    from booktools.harness.server import BookServer

    server = BookServer()
    server.pages["/chapters/bench.html"] = "<!doctype html><html><body></body></html>"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.set_default_timeout(0)
            page.goto(server.origin + "/chapters/bench.html")
            result = page.evaluate(script, [server.origin, *args])
            browser.close()
    finally:
        server.close()
    return result


def cold_start():
    """The cold-start model, a frozen reference copy, on one torch thread."""
    torch.set_num_threads(1)
    model, _ = load_checkpoint(CHECKPOINT)
    reference = copy.deepcopy(model).eval()
    for p in reference.parameters():
        p.requires_grad_(False)
    return model, reference


def torch_steps(prompts: int, group: int, lr: float, steps: int, seed: int) -> list[float]:
    """Seconds of each rl_step at this size on one thread, from the cold start."""
    model, reference = cold_start()
    cfg = RLConfig(prompts_per_step=prompts, group_size=group, lr=lr, inner_steps=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    rng, generator = random.Random(seed), torch.Generator().manual_seed(seed)
    out = []
    for _ in range(steps):
        start = time.perf_counter()
        rl_step(model, reference, optimizer, cfg, rng, generator)
        out.append(time.perf_counter() - start)
    return out


def bootstrap(correct: list[int], samples: int, base: list[int] | None = None, seed: int = 0,
              rounds: int = 2000):
    """pass@1 (or its change from `base`, paired by problem) and a 95% bootstrap interval."""
    rng = random.Random(seed)
    n = len(correct)
    diff = [c - (base[i] if base else 0) for i, c in enumerate(correct)]
    means = sorted(
        sum(diff[rng.randrange(n)] for _ in range(n)) / (n * samples) for _ in range(rounds)
    )
    return sum(diff) / (n * samples), means[int(0.025 * rounds)], means[int(0.975 * rounds)]


def print_curve(rows: list[dict], samples: int) -> None:
    """rows: {seconds, step, correct}; pass@1 with its interval and the paired change."""
    base = rows[0]["correct"]
    print("| seconds | step | held-out pass@1 (95% bootstrap) | change from cold start (paired) |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        m, lo, hi = bootstrap(r["correct"], samples)
        d, dlo, dhi = bootstrap(r["correct"], samples, base)
        print(
            f"| {r['seconds']:.0f} | {r['step']} | {m:.3f} [{lo:.3f}, {hi:.3f}] "
            f"| {100 * d:+.1f} points [{100 * dlo:+.1f}, {100 * dhi:+.1f}] |",
            flush=True,
        )


def settings(args) -> tuple[int, int, float, int]:
    p = args.prompts or WIDGET["prompts"]
    g = args.group or WIDGET["group"]
    lr = args.lr or float(WIDGET["lr"])
    return p, g, lr, args.inner


def curve(args) -> None:
    """Train args.curve minutes in Chromium; held-out pass@1 of weight copies along the way."""
    p, g, lr, inner = settings(args)
    problems = held_out_problems(EVAL_PROBLEMS, 0)
    print(f"\nJS in Chromium: {p} x {g}, lr {lr:g}, {inner} inner steps, {args.curve:g} minutes "
          f"[{load()}]", flush=True)
    out = browser_run(
        JS_CURVE,
        [args.curve, args.every, p, g, lr, inner, args.seed, problems, EVAL_SAMPLES],
    )
    steps = out["steps"]
    print(f"{len(steps)} steps, {1000 * steps[-1]['seconds'] / len(steps):.0f} ms/step "
          f"[{load()}]")
    print_curve(out["curve"], EVAL_SAMPLES)
    print(f"[{load()}]")


def torch_curve(args) -> None:
    """The same run in PyTorch, one thread: pass@1 every args.eval_every steps."""
    p, g, lr, inner = settings(args)
    problems = held_out_problems(EVAL_PROBLEMS, 0)
    model, reference = cold_start()
    cfg = RLConfig(prompts_per_step=p, group_size=g, lr=lr, inner_steps=inner)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    rng, generator = random.Random(args.seed), torch.Generator().manual_seed(args.seed)
    print(f"\nPyTorch, 1 thread: {p} x {g}, lr {lr:g}, {inner} inner steps, "
          f"{args.torch_curve} steps [{load()}]", flush=True)

    def check(step: int, seconds: float) -> dict:
        counts = evaluate(model, problems, EVAL_SAMPLES, 1.0, seed=1, ks=(1,))["counts"]
        return {"seconds": seconds, "step": step, "correct": counts}

    rows, spent = [check(0, 0.0)], 0.0
    for step in range(1, args.torch_curve + 1):
        start = time.perf_counter()
        rl_step(model, reference, optimizer, cfg, rng, generator)
        spent += time.perf_counter() - start
        if step % args.eval_every == 0 or step == args.torch_curve:
            rows.append(check(step, spent))
    print(f"{spent / args.torch_curve * 1000:.0f} ms/step [{load()}]")
    print_curve(rows, EVAL_SAMPLES)
    print(f"[{load()}]")


def sampler_check(args) -> None:
    """The JS sampler against PyTorch's: the per-token log-probs of the chains JS drew."""
    from arithmetic_task import VOCAB
    from tiny_gpt import Samples, completion_logprobs

    pad = VOCAB.index("_")  # an input-only symbol: no sampled chain holds it

    problems = held_out_problems(EVAL_PROBLEMS, 0)
    model, _ = cold_start()
    chains = browser_run(JS_SAMPLES, [problems, EVAL_SAMPLES, 1])
    width = max(len(c["tokens"]) for c in chains)
    tokens = torch.full((len(chains), width), pad, dtype=torch.long)
    for i, c in enumerate(chains):
        tokens[i, : len(c["tokens"])] = torch.tensor(c["tokens"])
    samples = Samples(
        [f"{c['problem']}=" for c in chains], [c["text"] for c in chains], tokens,
        torch.zeros(tokens.shape), tokens != pad, torch.tensor([c["finished"] for c in chains]),
    )
    with torch.no_grad():
        logp = completion_logprobs(model, samples)
    worst = max(
        float((torch.tensor(c["logp"], dtype=torch.float64)
               - logp[i, : len(c["tokens"])].double()).abs().max())
        for i, c in enumerate(chains)
    )
    print(f"\nJS sampler vs PyTorch: {sum(len(c['tokens']) for c in chains)} tokens, "
          f"max |log p_JS - log p_torch| = {worst:.1e} [{load()}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2, help="RL steps timed per size and side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--curve", type=float, default=0.0, help="minutes of JS training")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between weight copies")
    parser.add_argument("--torch-curve", type=int, default=0, help="PyTorch steps (0: none)")
    parser.add_argument("--eval-every", type=int, default=5, help="PyTorch steps between checks")
    parser.add_argument("--prompts", type=int, default=0, help="prompts per step (0: widget's)")
    parser.add_argument("--group", type=int, default=0, help="chains per prompt (0: widget's)")
    parser.add_argument("--lr", type=float, default=0.0, help="learning rate (0: widget's)")
    parser.add_argument("--inner", type=int, default=2, help="inner steps per RL step")
    parser.add_argument("--redraw", type=float, default=0.0, help="seconds of redraw timing")
    parser.add_argument("--sampler-check", action="store_true")
    parser.add_argument("--skip-torch", action="store_true")
    parser.add_argument("--skip-steps", action="store_true", help="no ms-per-step table")
    args = parser.parse_args()
    if min(args.steps, args.inner) < 1 or min(args.curve, args.torch_curve, args.redraw) < 0:
        parser.error("--steps and --inner must be >= 1, --curve, --torch-curve, --redraw >= 0")
    if args.every <= 0 or args.eval_every < 1:
        parser.error("--every must be > 0 and --eval-every >= 1")
    print(f"{load()}, {os.cpu_count()} CPUs, torch {torch.__version__}")
    rows = []
    widget = (WIDGET["prompts"], WIDGET["group"], float(WIDGET["lr"]))
    sizes = {f"widget defaults ({widget[0]} x {widget[1]}, lr {WIDGET['lr']})": widget}
    for label, size in (("4 x 8", (4, 8, 1e-4)), ("8 x 16", (8, 16, 1e-4)),
                        ("chapter 12 (16 x 16)", (16, 16, 1e-4))):
        if size != widget:
            sizes[label] = size
    for label, (p, g, lr) in {} if args.skip_steps else sizes.items():
        js = browser_run(JS_STEPS, [p, g, lr, args.steps, args.seed])
        js_ms = statistics.mean(s["seconds"] for s in js) * 1000
        sample_ms = statistics.mean(s["sample"] for s in js)
        update_ms = statistics.mean(s["update"] for s in js)
        js_load = load()
        print(f"{label}: JS {js_ms:8.0f} ms/step (sampling {sample_ms:.0f}, update "
              f"{update_ms:.0f})  [{js_load}]", flush=True)
        pt_ms, pt_load = None, "-"
        if not args.skip_torch:
            pt_ms = statistics.mean(torch_steps(p, g, lr, args.steps, args.seed)) * 1000
            pt_load = load()
            print(f"{label}: PyTorch 1 thread {pt_ms:8.0f} ms/step  [{pt_load}]", flush=True)
        rows.append((label, js_ms, sample_ms, update_ms, js_load, pt_ms, pt_load))
    if rows:
        print_table(rows)
    if args.sampler_check:
        sampler_check(args)
    if args.torch_curve:
        torch_curve(args)
    if args.curve > 0:
        curve(args)
    if args.redraw > 0:
        redraw(args)


def print_table(rows: list) -> None:
    print("\n| size | JS ms/step (sampling / update) | load | PyTorch 1 thread ms/step | load "
          "| JS / PyTorch |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, js_ms, s_ms, u_ms, js_load, pt_ms, pt_load in rows:
        ratio = f"{js_ms / pt_ms:.1f}x (target <= 3x)" if pt_ms else "-"
        pt = f"{pt_ms:.0f}" if pt_ms else "-"
        short = lambda s: s.replace("load average ", "")  # noqa: E731
        print(f"| {label} | {js_ms:.0f} ({s_ms:.0f} / {u_ms:.0f}) | {short(js_load)} | {pt} "
              f"| {short(pt_load)} | {ratio} |")


def redraw(args) -> None:
    """Chapter 5's page: press Train, move another slider, time each redraw."""
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from booktools.harness.browser import CHROMIUM_ARGS, ChapterPage, chromium_path
    from booktools.harness.kernel import run_chapter
    from booktools.harness.server import BookServer

    run = run_chapter(ROOT / "chapters" / "04-grpo.qmd")

    server = BookServer()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            page = ChapterPage(browser.new_page(), run, server)
            page.page.set_default_timeout(0)
            page.page.wait_for_function(
                "() => document.querySelector('[data-widget=\"rl-trainer\"]')?.dataset.status"
                " === 'ready'"
            )
            idle = page.page.evaluate(REDRAW, ["Group size G", args.redraw / 2])
            idle_load = load()
            page.click_button("Train")
            time.sleep(2)
            busy = page.page.evaluate(REDRAW, ["Group size G", args.redraw])
            page.assert_clean()
            browser.close()
    finally:
        server.close()
    print()
    for name, out, when in (("before Train", idle, idle_load), ("while training", busy, load())):
        times = sorted(out["times"])
        median = statistics.median(times)
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"redraw of another input {name} ({len(times)} moves, trainer at step "
              f"{out['step']}): median {median:.1f} ms, 90th percentile {p90:.1f} ms "
              f"(target median <= 16 ms)  [{when}]")


if __name__ == "__main__":
    main()
