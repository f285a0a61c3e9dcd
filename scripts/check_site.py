"""Open every page of a rendered book in Chromium and report what a reader would meet broken.

    python scripts/check_site.py _book                 # after `quarto render`; exit 1 on a problem
    python scripts/check_site.py _book --widths 400 --schemes dark

The checks the test harness makes on its own drawing of each page, pointed at Quarto's real
output: each page is served from the folder on 127.0.0.1 at 1,100 and 400 px, with the reader's
system set to light and to dark, and fails on a console error or uncaught exception, an OJS cell
in error (Quarto's runtime marks it `observablehq--error`), a request the site answers 404, a page
wider than the screen (sideways scroll), or a dark system that did not get the dark theme
(`respect-user-color-scheme`: Quarto puts `quarto-dark` on the body). Requests to other hosts
(the CDN Quarto's pages load Plot, Inputs and KaTeX from) must succeed too.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # booktools, the book's tooling package

from booktools.harness.browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

# What is still wrong once the page has settled: OJS cells in error, sideways scroll, the theme.
PAGE_STATE_JS = """(scheme) => {
  const errors = [...document.querySelectorAll('.observablehq--error')]
    .map((el) => el.textContent.trim().slice(0, 200));
  const doc = document.documentElement;
  const wide = [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1
                    && !el.closest('.sidebar, nav') && el.getClientRects().length)
    .slice(0, 5).map((el) => `<${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`
                              + `${typeof el.className === 'string' && el.className
                                   ? '.' + el.className.split(' ')[0] : ''}>`);
  return {errors, scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth, wide,
          running: document.querySelectorAll('.observablehq--running').length,
          dark: document.body.classList.contains('quarto-dark')};
}"""


def serve(folder: Path) -> http.server.ThreadingHTTPServer:
    """The folder on 127.0.0.1 (a free port), quietly, in a background thread."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def pages(folder: Path) -> list[str]:
    """Every HTML page of the site, as paths from its root (Quarto's own libraries aside)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.html")
                  if "site_libs" not in p.parts)


def check_page(context, url: str, scheme: str, settle_s: float) -> list[str]:
    """The problems of one page in one browser context (a width and a colour scheme)."""
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    origin = f"{urlparse(url).scheme}://{urlparse(url).netloc}"
    where = lambda u: urlparse(u).path if u.startswith(origin) else u  # noqa: E731
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status} {where(r.url)}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.goto(url, wait_until="load")
    deadline = time.monotonic() + settle_s
    state = page.evaluate(PAGE_STATE_JS, scheme)
    while state["running"] and time.monotonic() < deadline:  # OJS cells still computing
        page.wait_for_timeout(200)
        state = page.evaluate(PAGE_STATE_JS, scheme)
    page.wait_for_timeout(300)
    state = page.evaluate(PAGE_STATE_JS, scheme)
    problems += [f"OJS error: {e}" for e in state["errors"]]
    if state["running"]:
        problems.append(f"{state['running']} OJS cells still running after {settle_s:.0f} s")
    if state["scrollWidth"] > state["innerWidth"] + 1:
        problems.append(f"scrolls sideways: {state['scrollWidth']} px wide on a "
                        f"{state['innerWidth']} px screen ({', '.join(state['wide'])})")
    if state["dark"] != (scheme == "dark"):
        problems.append(f"a {scheme} system got the {'dark' if state['dark'] else 'light'} theme")
    page.close()
    return problems


def check_site(folder: Path, widths: list[int], schemes: list[str],
               settle_s: float = 30.0) -> dict[str, list[str]]:
    """{"page at WIDTH px, SCHEME": [problems]} for every page that has any."""
    from playwright.sync_api import sync_playwright

    server = serve(folder)
    origin = f"http://127.0.0.1:{server.server_port}"
    found: dict[str, list[str]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            for width in widths:
                for scheme in schemes:
                    context = browser.new_context(viewport={"width": width, "height": 900},
                                                  color_scheme=scheme)
                    for rel in pages(folder):
                        problems = check_page(context, f"{origin}/{rel}", scheme, settle_s)
                        if problems:
                            found[f"{rel} at {width} px, {scheme}"] = problems
                    context.close()
            browser.close()
    finally:
        server.shutdown()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("folder", type=Path, help="the rendered site (Quarto's output-dir, _book)")
    parser.add_argument("--widths", type=int, nargs="+", default=[1100, 400],
                        help="screen widths in px (default: 1100 400)")
    parser.add_argument("--schemes", nargs="+", choices=["light", "dark"],
                        default=["light", "dark"], help="the reader's colour scheme")
    parser.add_argument("--settle", type=float, default=30.0,
                        help="seconds a page's OJS cells may take (default: 30)")
    args = parser.parse_args()
    if not (args.folder / "index.html").is_file():
        parser.error(f"{args.folder} has no index.html: render the book first (quarto render)")
    n = len(pages(args.folder))
    found = check_site(args.folder, args.widths, args.schemes, args.settle)
    for where, problems in found.items():
        print(f"FAIL {where}")
        for problem in problems:
            print(f"     {problem}")
    views = n * len(args.widths) * len(args.schemes)
    print(f"{len(found)} of {views} page views had problems ({n} pages x "
          f"{len(args.widths)} widths x {len(args.schemes)} schemes)")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
