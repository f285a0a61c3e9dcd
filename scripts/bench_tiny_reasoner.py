"""Benchmark the tiny reasoner against the issue's figures (a script, not a timed test).

    python scripts/bench_tiny_reasoner.py                 # all figures
    python scripts/bench_tiny_reasoner.py --skip-browser --skip-chapters

Prints, each beside its floor:

* training: seconds per step of the shipped configuration at its batch size, projected to the
  shipped step count (and the time recorded in data/tiny_reasoner.json); floor 5 min;
* batched sampling with the KV cache: chains per second at T = 1; floor 500 chains/s;
* the JavaScript forward pass in headless Chromium: milliseconds per sampled chain, as the
  widget samples (15 chains in lockstep) and one chain at a time; floor 50 ms;
* the chapters that use the model: seconds to execute in Jupyter; floor 20 s each.

The machine's load is printed too: on a shared machine every figure is pessimistic.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import torch

from arithmetic_task import held_out_problems, make_batch, prompt_of
from data_paths import TINY_REASONER_PATH as CHECKPOINT
from tiny_gpt import TinyGPT, TinyGPTConfig, load_checkpoint, sample, train

ROOT = Path(__file__).resolve().parents[1]


def bench_training(steps: int, threads: int) -> dict:
    """Seconds per training step of the shipped config, and the projection to the full run."""
    meta = json.loads(CHECKPOINT.read_text())
    record = meta["training"]
    torch.set_num_threads(threads)
    model = TinyGPT(TinyGPTConfig(), seed=0)
    rng = random.Random(1)

    def batches() -> tuple[torch.Tensor, torch.Tensor]:
        return make_batch(rng, record["batch_size"], record["slip_share"])

    train(model, batches, steps=2)  # warm-up
    start = time.perf_counter()
    train(model, batches, steps=steps)
    per_step = (time.perf_counter() - start) / steps
    return {
        "threads": threads,
        "seconds_per_step": per_step,
        "projected_seconds": per_step * record["steps"],
        "recorded_seconds": record["seconds"],
        "steps": record["steps"],
    }


def bench_sampling(chains: int, threads: int, batch_size: int = 512) -> dict:
    """Chains per second of batched KV-cache sampling at T = 1 with the shipped model."""
    torch.set_num_threads(threads)
    model, _ = load_checkpoint(CHECKPOINT)
    problems = held_out_problems(chains // 8, seed=99)
    prompts = [prompt_of(p) for p in problems for _ in range(8)]
    g = torch.Generator().manual_seed(0)
    sample(model, prompts[:64], 1.0, generator=g)  # warm-up
    start = time.perf_counter()
    tokens = 0
    for i in range(0, len(prompts), batch_size):
        s = sample(model, prompts[i : i + batch_size], 1.0, generator=g)
        tokens += int(s.mask.sum())
    seconds = time.perf_counter() - start
    return {
        "threads": threads,
        "chains": len(prompts),
        "chains_per_second": len(prompts) / seconds,
        "tokens_per_second": tokens / seconds,
    }


def bench_browser(chains: int, lockstep: int = 15) -> dict:
    """ms per chain of the JS forward pass + sampler in headless Chromium (T = 1).

    Measured two ways: one chain at a time, and ``lockstep`` chains of a prompt decoded
    together as the widget does (its default n is 15).
    """
    sys.path.insert(0, str(ROOT))  # booktools, the book's tooling package
    from playwright.sync_api import sync_playwright

    from booktools.harness.browser import CHROMIUM_ARGS, chromium_path
    from booktools.harness.server import BookServer

    server = BookServer()
    server.pages["/chapters/bench.html"] = "<!doctype html><html><body></body></html>"
    problems = held_out_problems(max(1, chains // lockstep), seed=99)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(server.origin + "/chapters/bench.html")
            result = page.evaluate(
                """async ([url, json, problems, n]) => {
                  const m = await import(url);
                  const model = await m.loadTinyGPT(json);
                  const rand = m.mulberry32(1);
                  const time = (chainsPerCall) => {
                    m.sampleChains(model, problems[0] + "=", chainsPerCall, {temperature: 1, rand});
                    const t0 = performance.now();
                    let chains = 0, chars = 0;
                    for (const p of problems) {
                      for (const c of m.sampleChains(model, p + "=", chainsPerCall,
                                                     {temperature: 1, rand})) {
                        chains += 1;
                        chars += c.length;
                      }
                    }
                    return {ms: (performance.now() - t0) / chains, chars: chars / chains};
                  };
                  const one = time(1), lockstep = time(n);
                  return {ms_per_chain_single: one.ms, ms_per_chain_lockstep: lockstep.ms,
                          chars_per_chain: lockstep.chars, lockstep_n: n};
                }""",
                [
                    f"{server.origin}/widgets/tiny_gpt_forward.js",
                    f"{server.origin}/data/tiny_reasoner.json",
                    problems,
                    lockstep,
                ],
            )
            browser.close()
    finally:
        server.close()
    return {"chains": chains, **result}


def bench_chapters() -> dict:
    """Seconds to execute each chapter that uses the model, in a Jupyter kernel."""
    sys.path.insert(0, str(ROOT))  # booktools, the book's tooling package
    from booktools.harness.kernel import run_chapter

    out = {}
    for stem in ("02-self-consistency", "03-evaluating-reasoners"):
        out[stem] = run_chapter(ROOT / "chapters" / f"{stem}.qmd").seconds
    return out


def main(argv: list[str] | None = None) -> dict:
    """Run every benchmark and print the figures beside their floors."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--train-steps", type=int, default=20)
    p.add_argument("--chains", type=int, default=2048)
    p.add_argument("--browser-chains", type=int, default=150)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--skip-browser", action="store_true")
    p.add_argument("--skip-chapters", action="store_true")
    args = p.parse_args(argv)

    print(f"load average {os.getloadavg()}, {os.cpu_count()} CPUs, torch {torch.__version__}")
    results: dict = {"training": [], "sampling": []}
    for threads in args.threads:
        t = bench_training(args.train_steps, threads)
        results["training"].append(t)
        print(
            f"training   {threads} thread(s): {t['seconds_per_step']:.3f} s/step -> "
            f"{t['projected_seconds'] / 60:.1f} min for {t['steps']} steps "
            f"(recorded run: {t['recorded_seconds'] / 60:.1f} min; floor 5 min)"
        )
    for threads in args.threads:
        s = bench_sampling(args.chains, threads)
        results["sampling"].append(s)
        print(
            f"sampling   {threads} thread(s): {s['chains_per_second']:.0f} chains/s, "
            f"{s['tokens_per_second']:.0f} tokens/s (floor 500 chains/s)"
        )
    if not args.skip_browser:
        b = bench_browser(args.browser_chains)
        results["browser"] = b
        print(
            f"browser    JS forward pass: {b['ms_per_chain_lockstep']:.1f} ms/chain with "
            f"{b['lockstep_n']} chains in lockstep (the widget), "
            f"{b['ms_per_chain_single']:.1f} ms/chain one at a time "
            f"({b['chars_per_chain']:.0f} characters; floor 50 ms)"
        )
    if not args.skip_chapters:
        c = bench_chapters()
        results["chapters"] = c
        for stem, seconds in c.items():
            print(f"chapter    {stem}: {seconds:.1f} s (floor 20 s)")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
