"""Drive a chapter's OJS cells in headless Chromium (Debian's /usr/bin/chromium via Playwright).

`ChapterPage` is what the widget tests use: it loads a chapter's {ojs} cells with the payload its
Python produced, waits for the Observable runtime to settle, and offers small helpers to find a
widget, count its data marks, move an input and read a readout.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse

from .kernel import ChapterRun
from .page import chapter_page_html
from .server import ROOT, BookServer

BUILD = ROOT / "booktools" / "harness" / "ojs" / ".build"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    raise RuntimeError("Chromium not found: install Debian's `chromium` package (see .ci/run)")


def build_runner() -> Path:
    """Bundle booktools/harness/ojs/runner.js with the npm runtime, parser and stdlib into one ES module."""
    BUILD.mkdir(parents=True, exist_ok=True)
    out = BUILD / "runner.bundle.js"
    esbuild = ROOT / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        raise RuntimeError("node_modules is missing: run `npm ci` (see README)")
    subprocess.run(
        [
            str(esbuild),
            str(ROOT / "booktools/harness/ojs/runner.js"),
            "--bundle",
            "--format=esm",
            "--log-level=warning",
            f"--outfile={out}",
        ],
        check=True,
        cwd=ROOT,
    )
    return out


def chapter_html(run: ChapterRun) -> str:
    """The page Quarto would emit for a chapter, reduced to what the OJS engine reads."""
    divs, contents = [], []
    for i, cell in enumerate(run.ojs_cells):
        name = f"ojs-cell-{i}"
        divs.append(f'<div id="{name}" class="cell" data-line="{cell.line}"></div>')
        contents.append(
            {"methodName": "interpret", "cellName": name, "inline": False, "source": cell.source}
        )
    defines = "\n".join(f'<script type="ojs-define">{s}</script>' for s in run.define_scripts)
    module = json.dumps({"contents": contents}).replace("</", "<\\/")
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>{html.escape(run.path.stem)}</title>
<style>body{{font-family:sans-serif;margin:0}} main{{width:860px;padding:16px}}</style></head>
<body><main>
{chr(10).join(divs)}
<script type="ojs-module-contents">{module}</script>
{defines}
<script type="module" src="/booktools/harness/ojs/.build/runner.bundle.js"></script>
</main></body></html>"""


class ChapterPage:
    """One chapter's OJS cells running in a Chromium tab."""

    def __init__(self, page, run: ChapterRun, server: BookServer, full: bool = False):
        """Open the chapter; `full=True` loads the whole page (prose, math, outputs, Quarto's
        layout: harness.page) instead of the OJS cells alone."""
        self.page, self.run, self.server = page, run, server
        self.console_errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.console_errors.append(str(e)))
        # This page's own failed requests (the server is shared by every page of the session, so
        # its list would blame one page for another's 404).
        self.not_found: list[str] = []
        page.on(
            "response",
            lambda r: r.status == 404 and self.not_found.append(urlparse(r.url).path),
        )
        url_path = f"/chapters/{run.path.stem}.html"  # registered just before it is loaded
        server.pages[url_path] = chapter_page_html(run) if full else chapter_html(run)
        page.goto(server.origin + url_path)
        self.settle()

    # -- waiting and errors -------------------------------------------------------------------
    def settle(self, timeout: float = 20.0) -> None:
        """Wait until every OJS cell has fulfilled or rejected and nothing changed for a moment."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            state = self.page.evaluate(
                "() => window.__ojs && window.__ojs.ready ? "
                "[window.__ojs.events, window.__ojs.cells.filter(c => c.status === 'pending').length] : null"
            )
            if state and state[1] == 0 and state == last:
                return
            last = state
            time.sleep(0.05)
        pending = self.page.evaluate(
            "() => window.__ojs ? window.__ojs.cells.filter(c => c.status === 'pending').map(c => c.label) : 'no runtime'"
        )
        raise AssertionError(f"{self.run.path.name}: OJS cells never settled; pending: {pending}")

    def errors(self) -> list[str]:
        cell_errors = self.page.evaluate(
            "() => window.__ojs.errors.map(e => `${e.cell}: ${e.message}`)"
        )
        return cell_errors + self.console_errors + [f"404 {p}" for p in self.not_found]

    def assert_clean(self) -> None:
        errors = self.errors()
        assert not errors, f"{self.run.path.name}: OJS errors:\n" + "\n".join(errors)

    # -- widgets ------------------------------------------------------------------------------
    def widget(self, name: str):
        loc = self.page.locator(f'[data-widget="{name}"]')
        assert loc.count() == 1, f"expected one widget {name!r}, found {loc.count()}"
        return loc

    def data_marks(self, name: str) -> int:
        """Count Plot's data marks (not axes, ticks or grid) drawn inside a widget's SVGs."""
        return self.widget(name).evaluate(
            """root => [...root.querySelectorAll('svg g[aria-label]')]
                 .filter(g => !/axis|grid|tick|label|frame/.test(g.getAttribute('aria-label')))
                 .reduce((n, g) => n + g.querySelectorAll('path,circle,rect,line,text').length, 0)"""
        )

    def svg_signature(self, name: str) -> str:
        """A fingerprint of everything drawn, to check that moving an input changed the drawing."""
        return self.widget(name).evaluate(
            "root => [...root.querySelectorAll('svg')].map(s => s.innerHTML).join('|')"
        )

    def readout(self, name: str, key: str) -> float:
        loc = self.widget(name).locator(f'[data-readout="{key}"]')
        assert loc.count() == 1, f"widget {name!r} has {loc.count()} readouts {key!r}"
        return float(loc.get_attribute("data-value"))

    def readout_text(self, name: str, key: str) -> str:
        return self.widget(name).locator(f'[data-readout="{key}"]').get_attribute("data-value")

    def set_input(self, label: str, value) -> None:
        """Move an Inputs.* control (found by its label text) and let the page recompute."""
        found = self.page.evaluate(
            """([label, value]) => {
              const forms = [...document.querySelectorAll('form')].filter(f => {
                const l = f.querySelector('label');
                return l && l.textContent.trim() === label;
              });
              if (forms.length !== 1) return `found ${forms.length} inputs labelled ${label}`;
              const form = forms[0];
              const input = form.querySelector('input[type=range]') || form.querySelector('select')
                || form.querySelector('input[type=number]') || form.querySelector('input');
              if (input.type === 'checkbox' || input.type === 'radio') {
                // Inputs.checkbox/radio give each box its option's index as value; match the visible label.
                const wanted = [].concat(value).map(String);
                for (const box of form.querySelectorAll('input')) {
                  const text = (box.closest('label') || box.parentElement).textContent.trim();
                  box.checked = wanted.includes(text) || wanted.includes(box.value);
                }
              } else if (input.tagName === 'SELECT') {
                const option = [...input.options].find(o => o.textContent.trim() === String(value));  // by label, as a reader picks
                if (!option) return `no option ${value}`;
                input.value = option.value;
              } else {
                input.value = value;
              }
              input.dispatchEvent(new Event('input', {bubbles: true}));
              return 'ok';
            }""",
            [label, value],
        )
        assert found == "ok", found
        self.settle()

    def click_button(self, text: str) -> None:
        """Click the button whose visible text is `text` (its accessible name is its label)."""
        button = self.page.locator("button").filter(
            has_text=re.compile(rf"^\s*{re.escape(text)}\s*$")
        )
        assert button.count() == 1, f"expected one button {text!r}, found {button.count()}"
        button.click()
        self.settle()

    def call_widget_export(self, module: str, export: str, args: list):
        """Call a widget module's exported function in the page (to test JS math against Python)."""
        return self.page.evaluate(
            "async ([url, name, args]) => (await import(url))[name](...args)",
            [f"{self.server.origin}/widgets/{module}", export, args],
        )

    def screenshot(self, selector: str, path: str | Path) -> None:
        self.page.locator(selector).screenshot(path=str(path))
