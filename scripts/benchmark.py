"""Print the book's speed figures (a report, not a test).

    python scripts/benchmark.py            # every chapter in _quarto.yml
    python scripts/benchmark.py --quick    # skip the browser part

1. Executing each chapter's Python cells in a fresh (cold) Jupyter kernel, as Quarto would.
2. `demonstrate_self_consistency(trials=3000)`, the vectorised compute-accuracy curve.
3. Widget redraw time in headless Chromium: for every slider and select in every chapter, the
   time from the input event until the last OJS cell that depends on it has redrawn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conftest import book_chapters  # noqa: E402
from harness.kernel import run_chapter  # noqa: E402

MEASURE_REDRAW = """async ([formIndex, position]) => {
  const form = [...document.querySelectorAll('form')]
    .filter(f => f.querySelector('label'))
    .filter(f => f.querySelector('input[type=range], select'))[formIndex];
  const input = form.querySelector('input[type=range]') || form.querySelector('select');
  if (input.tagName === 'SELECT') {
    input.selectedIndex = Math.round(position * (input.options.length - 1));
  } else {
    const [lo, hi, step] = [+input.min, +input.max, +(input.step || 1)];
    input.value = lo + Math.round(position * (hi - lo) / step) * step;
  }
  const before = window.__ojs.events;
  const t0 = performance.now();
  input.dispatchEvent(new Event('input', {bubbles: true}));
  const idle = () => window.__ojs.events > before
    && window.__ojs.cells.every(c => c.status !== 'pending');
  const deadline = t0 + 10000;
  while (!idle() && performance.now() < deadline) await new Promise(r => setTimeout(r, 0));
  await new Promise(r => setTimeout(r, 30));  // let any trailing recomputation land
  return {label: form.querySelector('label').textContent.trim(), ms: window.__ojs.lastEvent - t0};
}"""


def bench_chapters() -> dict:
    runs = {}
    total = time.perf_counter()
    for path in book_chapters():
        run = run_chapter(path)
        runs[path.stem] = run
        print(f"  {path.stem:<36} {run.seconds:6.2f} s")
    print(
        f"  {'all chapters (cold kernels, in sequence)':<36} {time.perf_counter() - total:6.2f} s"
    )
    return runs


def bench_self_consistency() -> None:
    from reasoning import demonstrate_self_consistency

    times = []
    for seed in range(7):
        t = time.perf_counter()
        demonstrate_self_consistency(
            p=0.55, num_distractors=4, trials=3000, seed=seed, verbose=False
        )
        times.append(time.perf_counter() - t)
    median_ms = statistics.median(times) * 1e3
    print(f"  demonstrate_self_consistency(trials=3000): median {median_ms:.1f} ms")


def bench_redraws(runs: dict) -> None:
    from playwright.sync_api import sync_playwright

    from harness.browser import CHROMIUM_ARGS, ChapterPage, build_runner, chromium_path
    from harness.server import BookServer

    build_runner()
    server = BookServer()
    all_ms = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        for stem, run in runs.items():
            if not run.ojs_cells:
                continue
            page = ChapterPage(
                browser.new_page(viewport={"width": 900, "height": 1200}), run, server
            )
            n_forms = page.page.evaluate(
                "() => [...document.querySelectorAll('form')].filter(f => f.querySelector('label') "
                "&& f.querySelector('input[type=range], select')).length"
            )
            for i in range(n_forms):
                samples = [
                    page.page.evaluate(MEASURE_REDRAW, [i, pos])
                    for pos in (0.0, 1.0, 0.5, 0.25, 0.75)
                ]
                ms = [s["ms"] for s in samples]
                all_ms += ms
                print(
                    f"  {stem:<28} {samples[0]['label']:<30} median {statistics.median(ms):6.1f} ms"
                    f"   max {max(ms):6.1f} ms"
                )
        browser.close()
    server.close()
    print(
        f"  median widget redraw over {len(all_ms)} input moves: {statistics.median(all_ms):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the browser measurements")
    args = parser.parse_args()
    print("Executing chapters (fresh kernel each):")
    runs = bench_chapters()
    print("Self-consistency curve:")
    bench_self_consistency()
    if not args.quick:
        print("Widget redraws in headless Chromium:")
        bench_redraws(runs)


if __name__ == "__main__":
    main()
