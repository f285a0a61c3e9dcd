"""Print the book's speed figures (a report, not a test: speed stays out of the test suite).

    python scripts/benchmark.py                       # every chapter in _quarto.yml
    python scripts/benchmark.py --chapters 02 03      # chapters whose file name contains 02 or 03
    python scripts/benchmark.py --no-browser          # kernels only
    python scripts/benchmark.py --baseline f2aa0da    # also time that commit's widgets/*.js

1. Kernels. Each chapter executes in a fresh (cold) Jupyter kernel, as Quarto runs it. Right
   before it, in the same run, a *floor* kernel runs only what every chapter must pay for: the
   kernel start, Quarto's setup code and the import statements of the chapter's first cell. The
   ratios (all chapters / all floors, each chapter / its floor) show a slow change as a ratio, so
   they mean something on a loaded machine. Targets: total ratio <= 1.5, each chapter <= 8 s.
2. Payload. The bytes of `ojs_define` data each chapter inlines into its page.
3. Redraws, in headless Chromium, for every slider, select, checkbox and button of every chapter,
   moved `--repeats` times to seeded positions. Per move, timed from the start of the animation
   frame in which the Observable runtime begins recomputing (so the wait for that frame is not
   counted):
     redraw   until every cell that depends on the input has drawn once (a progressive widget,
              such as the live sampler, has drawn its first chunk);
     settle   until the page is quiet (a progressive widget has drawn its last chunk);
     frame    the longest gap between two animation frames during the move, i.e. the longest
              the page was blocked (16.7 ms means no frame was dropped).
   Target: median redraw <= 16 ms and p95 <= 33 ms for every input.
   With --baseline REV, each move is repeated on a second tab whose widgets/*.js are served from
   commit REV (the chapter and its payload stay current), interleaved move by move, so that
   before and after are compared under the same load.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # booktools, the book's tooling package
# The kernels run this checkout's code/, whatever `pip install -e` last pointed at (as in tests/).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT / "code"), *filter(None, [os.environ.get("PYTHONPATH")])]
)

from booktools.harness.kernel import run_chapter  # noqa: E402
from booktools.qmd import book_chapters, parse_file  # noqa: E402

try:  # the setup code run_chapter runs before a chapter's cells
    from booktools.harness.kernel import quarto_setup_cells  # noqa: E402
except ImportError:  # an older checkout's harness, measured for a before/after table
    from booktools.harness.kernel import QUARTO_OJS_DEFINE  # noqa: E402

    try:  # the harness just before this one ran its plotly setup where a chapter mentions plotly
        from booktools.harness.kernel import QUARTO_PLOTLY_SETUP  # noqa: E402
    except ImportError:
        QUARTO_PLOTLY_SETUP = ""

    def quarto_setup_cells(path: str | Path) -> list[str]:
        """The setup cells an older checkout's run_chapter ran in this chapter's kernel."""
        plotly = any("plotly" in c.source for c in parse_file(path))
        return [QUARTO_PLOTLY_SETUP if plotly else "", QUARTO_OJS_DEFINE]


FRAME_MS = 1000 / 60
TARGET_MEDIAN_MS, TARGET_P95_MS = 16.0, 33.0
TARGET_RATIO, TARGET_CHAPTER_S = 1.5, 8.0


# ------------------------------------------------------------------------------- statistics
def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between order statistics."""
    xs = sorted(values)
    if len(xs) == 1:
        return xs[0]
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary(values: list[float]) -> tuple[float, float, float]:
    """(median, p95, max) of a list of timings."""
    return statistics.median(values), percentile(values, 95), max(values)


# ------------------------------------------------------------------------------- kernels
def chapter_imports(path: Path) -> str:
    """The import statements of a chapter's first Python cell, as source text."""
    first = next(c for c in parse_file(path) if c.kind == "python")
    tree = ast.parse(first.source)
    lines = [
        ast.get_source_segment(first.source, node)
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    return "\n".join(line for line in lines if line)


def floor_seconds(path: Path, imports: str) -> float:
    """Seconds for a cold kernel that runs the harness's setup code and `imports` only."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    for source in [*quarto_setup_cells(path), imports]:  # run_chapter's setup, then the imports
        nb.cells.append(nbformat.v4.new_code_cell(source))
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return time.perf_counter() - start


def payload_bytes(run) -> int:
    """Bytes of ojs_define JSON the chapter's page carries inline."""
    return sum(len(script.encode()) for script in run.define_scripts)


def bench_kernels(paths: list[Path], measure_floor: bool) -> tuple[dict, dict]:
    """Execute each chapter cold (after its floor kernel); print and return the figures."""
    runs, rows = {}, []
    print(f"  {'chapter':<30} {'floor s':>8} {'chapter s':>10} {'ratio':>6} {'ojs_define':>11}")
    for path in paths:
        floor = floor_seconds(path, chapter_imports(path)) if measure_floor else float("nan")
        try:
            run = run_chapter(path)
        except Exception as error:  # report the others; a broken chapter is a finding too
            print(f"  {path.stem:<30} {floor:8.2f}   FAILED: {type(error).__name__}")
            continue
        runs[path.stem] = run
        size = payload_bytes(run)
        rows.append((path.stem, floor, run.seconds, size))
        flag = "  > 8 s" if run.seconds > TARGET_CHAPTER_S else ""
        print(
            f"  {path.stem:<30} {floor:8.2f} {run.seconds:10.2f} {run.seconds / floor:6.2f}"
            f" {size / 1024:9.1f} KB{flag}"
        )
    total_floor = sum(r[1] for r in rows)
    total = sum(r[2] for r in rows)
    slow = [r[0] for r in rows if r[2] > TARGET_CHAPTER_S]
    print(
        f"  {'all chapters':<30} {total_floor:8.2f} {total:10.2f} {total / total_floor:6.2f}"
        f" {sum(r[3] for r in rows) / 1024:9.1f} KB"
    )
    print(
        f"  ratio all chapters / all floors = {total / total_floor:.2f} (target <= {TARGET_RATIO});"
        f" chapters over {TARGET_CHAPTER_S:.0f} s: {slow}"
    )
    keys = ("floor_s", "chapter_s", "ojs_define_bytes")
    return runs, {r[0]: dict(zip(keys, r[1:], strict=True)) for r in rows}


# ------------------------------------------------------------------------------- browser
# Before any page script: wrap requestAnimationFrame so that the start of every frame callback
# (the runtime's recomputation starts in one) is logged, and keep the raw function for our own
# frame counter, which must not appear in that log.
INIT_SCRIPT = """(() => {
  const raw = window.requestAnimationFrame.bind(window);
  const bench = (window.__bench = {raw, starts: []});
  window.requestAnimationFrame = (cb) => raw((t) => {
    bench.starts.push([performance.now(), window.__ojs ? window.__ojs.events : 0]);
    return cb(t);
  });
})();"""

FIND_INPUTS = """() => {
  const forms = [...document.querySelectorAll('form')]
    .filter(f => f.querySelector('label, button'));
  const inputs = [];
  for (const form of forms) {
    const el = form.querySelector('input[type=range]') || form.querySelector('select')
      || form.querySelector('input[type=checkbox]') || form.querySelector('button');
    if (!el) continue;
    const kind = el.tagName === 'SELECT' ? 'select' : el.tagName === 'BUTTON' ? 'button' : el.type;
    const label = (form.querySelector('label')?.textContent || el.textContent).trim();
    inputs.push({kind, label});
  }
  window.__benchForms = () => [...document.querySelectorAll('form')]
    .filter(f => f.querySelector('label, button'))
    .filter(f => f.querySelector('input[type=range], select, input[type=checkbox], button'));
  return inputs;
}"""

MEASURE = """async ([index, position, quietMs]) => {
  const bench = window.__bench;
  const form = window.__benchForms()[index];
  const el = form.querySelector('input[type=range]') || form.querySelector('select')
    || form.querySelector('input[type=checkbox]') || form.querySelector('button');
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const pending = () => window.__ojs.cells.some((c) => c.status === 'pending');
  // Start from a quiet page, at the start of a frame.
  for (let i = 0; i < 200 && pending(); i++) await sleep(5);
  await new Promise((r) => bench.raw(r));
  const frames = [];
  let counting = true;
  const tick = () => { frames.push(performance.now()); if (counting) bench.raw(tick); };
  bench.raw(tick);
  const before = window.__ojs.events;
  const t0 = performance.now();
  if (el.tagName === 'BUTTON') {
    el.click();
  } else {
    if (el.tagName === 'SELECT') {
      let i = Math.round(position * (el.options.length - 1));
      if (i === el.selectedIndex) i = (i + 1) % el.options.length;
      el.selectedIndex = i;
    } else if (el.type === 'checkbox') {
      const boxes = form.querySelectorAll('input[type=checkbox]');
      const box = boxes[Math.min(boxes.length - 1, Math.floor(position * boxes.length))];
      box.checked = !box.checked;
    } else {
      const [lo, hi, step] = [+el.min, +el.max, +el.step || 1];
      const value = (p) => lo + Math.round((p * (hi - lo)) / step) * step;
      let v = value(position);
      if (Math.abs(v - +el.value) < step / 2) {
        v = value(position < 0.5 ? position + 0.3 : position - 0.3);
      }
      el.value = v;
    }
    el.dispatchEvent(new Event('input', {bubbles: true}));
  }
  // The input's own value variable fulfils at once; its dependents recompute in a later frame.
  // The first redraw is done when, after a frame has started, more cells fulfilled and none is
  // pending.
  let first = null;
  let start = null;
  while (performance.now() < t0 + 30000) {
    const frame = bench.starts.find(([t]) => t >= t0);
    if (frame && window.__ojs.events > Math.max(before, frame[1]) && !pending()) {
      [first, start] = [window.__ojs.lastEvent, frame[0]];
      break;
    }
    await sleep(0);
  }
  let seen = window.__ojs.events;
  let quiet = performance.now();
  while (performance.now() - quiet < quietMs && performance.now() < t0 + 60000) {
    await sleep(5);
    if (window.__ojs.events !== seen || pending()) {
      seen = window.__ojs.events;
      quiet = performance.now();
    }
  }
  counting = false;
  const last = window.__ojs.lastEvent;
  start ??= t0;
  let gap = 0;
  for (let i = 1; i < frames.length; i++) {
    if (frames[i - 1] <= last) gap = Math.max(gap, frames[i] - frames[i - 1]);
  }
  bench.starts.length = 0;
  return {
    changed: window.__ojs.events > before,
    redraw: first === null ? null : first - start,
    settle: last - start,
    frame: gap,
    errors: window.__ojs.errors.length
  };
}"""


def baseline_widgets(rev: str) -> dict[str, bytes]:
    """widgets/*.js as they were at commit `rev` (read with git, nothing is checked out)."""
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{rev}:widgets"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        name: subprocess.run(
            ["git", "show", f"{rev}:widgets/{name}"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        for name in names
        if name.endswith(".js")
    }


def open_page(browser, run, server, widgets: dict[str, bytes] | None):
    """A ChapterPage with the timing hook; `widgets` replaces widgets/*.js (the baseline)."""
    from booktools.harness.browser import ChapterPage

    page = browser.new_context(viewport={"width": 900, "height": 1200}).new_page()
    page.add_init_script(INIT_SCRIPT)
    if widgets is not None:

        def serve(route):
            name = route.request.url.split("?")[0].rsplit("/", 1)[-1]
            if name in widgets:
                return route.fulfill(body=widgets[name], content_type="text/javascript")
            return route.continue_()

        page.route("**/widgets/*.js", serve)
    return ChapterPage(page, run, server)


def _match(spec: dict, index: int, theirs: list[dict]) -> int | None:
    """Index in `theirs` of the input `spec` (same label and kind), preferring the same place."""
    same = [j for j, t in enumerate(theirs) if t == spec]
    if not same:
        return None
    return min(same, key=lambda j: abs(j - index))


def bench_redraws(runs: dict, repeats: int, quiet_ms: float, baseline: str | None) -> list[dict]:
    """Move every input `repeats` times; print per-input median / p95 / max; return the rows."""
    from playwright.sync_api import sync_playwright

    from booktools.harness.browser import CHROMIUM_ARGS, build_runner, chromium_path
    from booktools.harness.server import BookServer

    build_runner()
    server = BookServer()
    old = baseline_widgets(baseline) if baseline else None
    rows: list[dict] = []
    variants = ["now"] + (["base"] if old else [])
    head = f"  {'chapter':<26} {'input':<34}"
    for v in variants:
        head += f" | {v + ' redraw med/p95/max':>24} {'settle':>7} {'frame':>6}"
    print(head)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        for stem, run in runs.items():
            if not run.ojs_cells:
                continue
            pages = {"now": open_page(browser, run, server, None)}
            if old:
                pages["base"] = open_page(browser, run, server, old)
            inputs = pages["now"].page.evaluate(FIND_INPUTS)
            # Each variant's own index of an input with the same label and kind: an old
            # commit's widgets may draw fewer inputs (or none, for a newer chapter).
            where = {"now": list(range(len(inputs)))}
            for v in variants[1:]:
                theirs = pages[v].page.evaluate(FIND_INPUTS)
                where[v] = [_match(spec, i, theirs) for i, spec in enumerate(inputs)]
            for i, spec in enumerate(inputs):
                rng = random.Random(f"{stem}/{spec['label']}")
                samples: dict[str, list[dict]] = {v: [] for v in variants}
                for _ in range(repeats):
                    position = rng.random()
                    for v in variants:
                        if where[v][i] is not None:
                            samples[v].append(
                                pages[v].page.evaluate(MEASURE, [where[v][i], position, quiet_ms])
                            )
                row = {"chapter": stem, "input": spec["label"], "kind": spec["kind"]}
                line = f"  {stem:<26} {spec['label'][:34]:<34}"
                for v in variants:
                    got = [s for s in samples[v] if s["changed"] and s["redraw"] is not None]
                    if not got:
                        line += f" | {'no redraw':>24} {'':>7} {'':>6}"
                        continue
                    med, p95, mx = summary([s["redraw"] for s in got])
                    settle = statistics.median(s["settle"] for s in got)
                    frame = percentile([s["frame"] for s in got], 95)
                    row[v] = {
                        "median": med,
                        "p95": p95,
                        "max": mx,
                        "settle": settle,
                        "frame95": frame,
                    }
                    slow = " *" if med > TARGET_MEDIAN_MS or p95 > TARGET_P95_MS else "  "
                    line += f" | {med:7.1f} {p95:7.1f} {mx:7.1f}{slow} {settle:7.1f} {frame:6.1f}"
                rows.append(row)
                print(line, flush=True)
            for p in pages.values():
                p.page.context.close()
        browser.close()
    server.close()
    for v in variants:
        got = [r[v] for r in rows if v in r]
        over = [
            f"{r['chapter'][:2]} {r['input']}"
            for r in rows
            if v in r and (r[v]["median"] > TARGET_MEDIAN_MS or r[v]["p95"] > TARGET_P95_MS)
        ]
        print(
            f"  [{v}] {len(over)} of {len(got)} inputs miss the frame target (median <= "
            f"{TARGET_MEDIAN_MS:.0f} ms, p95 <= {TARGET_P95_MS:.0f} ms): {over}"
        )
    return rows


# A node program: build a checkpoint from its files (no fetch) and time batched JS sampling.
_JS_SAMPLING = """
import {readFileSync} from "node:fs";
const m = await import(process.argv[1]);
const [json, n, reps] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const meta = JSON.parse(readFileSync(json, "utf8"));
const bin = readFileSync(json.replace(/\\.json$/, ".bin"));
const buffer = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.length);
const model = await m.checkAndBuildTinyGPT(meta, buffer);
m.sampleChains(model, "7+5-3-6+7=", n, {temperature: 1, rand: m.mulberry32(0)});  // warm-up
const times = [];
for (let r = 0; r < reps; r++) {
  const t = performance.now();
  m.sampleChains(model, "7+5-3-6+7=", n, {temperature: 1, rand: m.mulberry32(r + 1)});
  times.push((performance.now() - t) / n);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({median_ms_per_chain: times[Math.floor(reps / 2)]}));
"""


def bench_tiny_reasoners(chains: int = 2048, js_n: int = 32, js_reps: int = 5) -> dict:
    """Issue 13's figures for both tiny reasoners: the recorded training time, Python's batched
    sampling speed (chains/s at T = 1 on 1 and 2 threads), the JS forward pass per chain."""
    import torch

    from arithmetic_task import held_out_problems
    from data_paths import MULTIPATH_PATH, TINY_REASONER_PATH
    from tiny_gpt import load_checkpoint, sample_chains

    out = {}
    problems = held_out_problems(chains // 16, seed=2024)
    for path in (TINY_REASONER_PATH, MULTIPATH_PATH):
        name = path.name
        if not path.exists():
            print(f"  {name}: missing")
            continue
        model, meta = load_checkpoint(path)
        row = {
            "training_seconds": meta["training"]["seconds"],
            "training_load": meta["training"].get("load_average"),
        }
        for threads in (1, 2):
            torch.set_num_threads(threads)
            start = time.perf_counter()
            sample_chains(model, problems, 16, 1.0, seed=0, batch_size=512)
            row[f"chains_per_s_{threads}_threads"] = round(chains / (time.perf_counter() - start))
        js = subprocess.run(
            [
                "node",
                "--input-type=module",
                "-e",
                _JS_SAMPLING,
                str(ROOT / "widgets" / "tiny_gpt_forward.js"),
                str(path),
                str(js_n),
                str(js_reps),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        row["js_ms_per_chain"] = (
            round(json.loads(js.stdout)["median_ms_per_chain"], 2) if js.returncode == 0 else None
        )
        print(
            f"  {name}: trained in {row['training_seconds']} s (load {row['training_load']}); "
            f"Python {row['chains_per_s_1_threads']} chains/s on 1 thread, "
            f"{row['chains_per_s_2_threads']} on 2; JS {row['js_ms_per_chain']} ms per chain "
            f"in batches of {js_n}"
        )
        out[name] = row
    return out


def main() -> None:
    """Run the kernels, then the browser, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--chapters", nargs="*", help="only chapters whose file name contains one of these"
    )
    parser.add_argument("--no-browser", action="store_true", help="skip the redraw measurements")
    parser.add_argument("--no-floor", action="store_true", help="skip the floor kernels")
    parser.add_argument("--repeats", type=int, default=20, help="moves per input (default 20)")
    parser.add_argument("--quiet-ms", type=float, default=150, help="quiet time that ends a move")
    parser.add_argument("--baseline", help="also time the widgets/*.js of this git commit")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument(
        "--tiny-reasoners", action="store_true", help="only the tiny reasoners' speed figures"
    )
    args = parser.parse_args()
    if args.tiny_reasoners:
        load = os.getloadavg()
        print(f"Tiny reasoners (load average {load[0]:.1f} on {os.cpu_count()} cores):")
        figures = {"tiny_reasoners": bench_tiny_reasoners()}
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1))
        return
    paths = [
        p for p in book_chapters() if not args.chapters or any(c in p.name for c in args.chapters)
    ]
    load = os.getloadavg()
    print(f"Load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores")
    print("Kernels (each chapter after its floor: kernel start + Quarto setup + its imports):")
    runs, kernels = bench_kernels(paths, measure_floor=not args.no_floor)
    figures: dict = {"kernels": kernels}
    if not args.no_browser:
        print(f"Redraws in headless Chromium ({args.repeats} moves per input, ms):")
        figures["redraws"] = bench_redraws(runs, args.repeats, args.quiet_ms, args.baseline)
    load = os.getloadavg()
    print(f"Load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
