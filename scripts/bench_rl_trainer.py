"""Benchmark the browser's RL trainer against PyTorch's step (a script, not a timed test).

    python scripts/bench_rl_trainer.py                  # ms per step, JS and PyTorch, both sizes
    python scripts/bench_rl_trainer.py --curve 3        # and 3 minutes of training at the defaults

Prints, for the widget's defaults (rl_trainer.js DEFAULTS: 4 prompts x 8 chains, lr 1e-4, two
inner steps), the first defaults (8 x 16) and
chapter 11's size (16 x 16, two inner steps), from chapter 11's cold start
(data/r1_cold_start.*):

* ms per RL step of widgets/rl_trainer_math.js in headless Chromium (sampling, grading, the
  reference's log-probs, two gradient steps), split into sampling and update;
* ms per step of rl_reasoner.rl_step on one torch thread (torch.set_num_threads(1));
* their ratio (the issue's target: JS within 3x of PyTorch).

With --curve M, the widget's defaults train for M minutes in Chromium and the held-out pass@1
(200 problems x 4 samples, T = 1) is printed before and after with a bootstrap 95% interval
over problems (the issue's target: +8 points within 3 minutes).

The machine's load average is printed before and after: on a shared machine every figure is
pessimistic, and the JS and PyTorch figures are taken at different moments.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import statistics
import sys
import time
from pathlib import Path

import torch

from data_paths import R1_COLD_START_PATH as CHECKPOINT
from rl_reasoner import RLConfig, rl_step
from tiny_gpt import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
SIZES = {
    "widget defaults (4 x 8)": (4, 8),
    "old defaults (8 x 16)": (8, 16),
    "chapter 11 (16 x 16)": (16, 16),
}
EVAL_PROBLEMS, EVAL_SAMPLES = 200, 4

JS_STEPS = """async ([origin, P, G, steps, seed]) => {
  const F = await import(origin + "/widgets/tiny_gpt_forward.js");
  const R = await import(origin + "/widgets/rl_trainer_math.js");
  const model = await F.loadTinyGPT(origin + "/data/r1_cold_start.json");
  const trainer = R.createTrainer(model, {prompts_per_step: P, group_size: G, lr: 1e-4,
                                          inner_steps: 2}, seed);
  const out = [];
  for (let s = 0; s < steps; s++) {
    const st = trainer.step();
    out.push({seconds: st.seconds, sample: st.timing.sample_ms, update: st.timing.update_ms,
              accuracy: st.accuracy});
  }
  return out;
}"""

JS_CURVE = """async ([origin, minutes, seed, nEval, samples]) => {
  const F = await import(origin + "/widgets/tiny_gpt_forward.js");
  const R = await import(origin + "/widgets/rl_trainer_math.js");
  const model = await F.loadTinyGPT(origin + "/data/r1_cold_start.json");
  const W = await import(origin + "/widgets/rl_trainer.js");
  const {prompts, group, lr} = W.DEFAULTS;
  const trainer = R.createTrainer(model, {prompts_per_step: prompts, group_size: group,
                                          lr: Number(lr), inner_steps: 2}, seed);
  const problems = R.heldOutProblems(nEval, 0);
  const before = trainer.evaluate(problems, samples, {seed: 1});
  const t0 = performance.now();
  const steps = [];
  while (performance.now() - t0 < minutes * 60000) {
    const st = trainer.step();
    steps.push({step: st.step, seconds: (performance.now() - t0) / 1000, reward: st.reward_mean});
  }
  const after = trainer.evaluate(problems, samples, {seed: 1});
  return {before: before.correct, after: after.correct, steps};
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


def torch_steps(prompts: int, group: int, steps: int, seed: int) -> list[float]:
    """Seconds of each rl_step at this size on one thread, from the cold start."""
    torch.set_num_threads(1)
    model, _ = load_checkpoint(CHECKPOINT)
    reference = copy.deepcopy(model).eval()
    cfg = RLConfig(prompts_per_step=prompts, group_size=group, lr=1e-4, inner_steps=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    rng, generator = random.Random(seed), torch.Generator().manual_seed(seed)
    out = []
    for _ in range(steps):
        start = time.perf_counter()
        rl_step(model, reference, optimizer, cfg, rng, generator)
        out.append(time.perf_counter() - start)
    return out


def bootstrap(correct: list[int], samples: int, seed: int = 0, rounds: int = 2000):
    """pass@1 and a 95% bootstrap interval, resampling problems."""
    rng = random.Random(seed)
    n = len(correct)
    means = sorted(
        sum(correct[rng.randrange(n)] for _ in range(n)) / (n * samples) for _ in range(rounds)
    )
    return sum(correct) / (n * samples), means[int(0.025 * rounds)], means[int(0.975 * rounds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2, help="RL steps timed per size and side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--curve", type=float, default=0.0, help="minutes of training (0: none)")
    parser.add_argument("--skip-torch", action="store_true")
    parser.add_argument("--skip-steps", action="store_true", help="only the --curve run")
    args = parser.parse_args()
    if args.steps < 1 or args.curve < 0:
        parser.error("--steps must be >= 1 and --curve >= 0")
    print(f"{load()}, {os.cpu_count()} CPUs, torch {torch.__version__}")
    rows = []
    for label, (p, g) in {} if args.skip_steps else SIZES.items():
        js = browser_run(JS_STEPS, [p, g, args.steps, args.seed])
        js_ms = statistics.mean(s["seconds"] for s in js) * 1000
        sample_ms = statistics.mean(s["sample"] for s in js)
        update_ms = statistics.mean(s["update"] for s in js)
        print(
            f"{label}: JS {js_ms:8.0f} ms/step (sampling {sample_ms:.0f}, update {update_ms:.0f})"
            f"  [{load()}]",
            flush=True,
        )
        pt_ms = None
        if not args.skip_torch:
            pt_ms = statistics.mean(torch_steps(p, g, args.steps, args.seed)) * 1000
            print(f"{label}: PyTorch 1 thread {pt_ms:8.0f} ms/step  [{load()}]", flush=True)
        rows.append((label, js_ms, pt_ms))
    if rows:
        print_table(rows)
    if args.curve > 0:
        curve(args)


def print_table(rows: list) -> None:
    print("\n| size | JS ms/step | PyTorch (1 thread) ms/step | JS / PyTorch |")
    print("| --- | --- | --- | --- |")
    for label, js_ms, pt_ms in rows:
        ratio = f"{js_ms / pt_ms:.1f}x" if pt_ms else "-"
        pt = f"{pt_ms:.0f}" if pt_ms else "-"
        print(f"| {label} | {js_ms:.0f} | {pt} | {ratio} (target <= 3x) |")


def curve(args) -> None:
    """Train the defaults for args.curve minutes; held-out pass@1 before and after."""
    out = browser_run(JS_CURVE, [args.curve, args.seed, EVAL_PROBLEMS, EVAL_SAMPLES])
    before = bootstrap(out["before"], EVAL_SAMPLES)
    after = bootstrap(out["after"], EVAL_SAMPLES)
    steps = out["steps"]
    print(f"\n{args.curve:g} minutes at the widget's defaults: {len(steps)} steps")
    for s in steps:
        print(f"  step {s['step']:3d}  at {s['seconds']:6.1f} s  mean reward {s['reward']:.3f}")
    for name, (mean, low, high) in (("cold start", before), ("after", after)):
        print(
            f"held-out pass@1 {name}: {mean:.3f} (95% bootstrap {low:.3f}-{high:.3f}, "
            f"{EVAL_PROBLEMS} problems x {EVAL_SAMPLES})"
        )
    print(f"change: {100 * (after[0] - before[0]):+.1f} points (target +8)  [{load()}]")


if __name__ == "__main__":
    main()
