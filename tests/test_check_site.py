"""scripts/check_site.py, the CI's check of the rendered site, on a small fake `_book/` drawn with
the harness's Quarto page pieces (theme, grid, head): clean pages pass, and each planted defect
(a console error, a 404, an OJS cell in error, sideways scroll on a phone, a dark system left
light) is reported on its page, at the widths and schemes where it shows, and nowhere else."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from booktools.harness.page import QUARTO_LAYOUT_CSS, favicon_link, theme_css

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]

# Quarto's before-body script with `respect-user-color-scheme`, reduced to its effect.
DARK_TOGGLE = """<script>
const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
document.body.classList.add(dark ? "quarto-dark" : "quarto-light");
</script>"""

DEFECTS = {
    "console": '<script>console.error("a widget failed to draw")</script>',
    "missing": '<img src="../images/not-there.png" alt="a figure">',
    "ojs": '<div class="cell-output observablehq observablehq--error">'
           "RuntimeError: p is not defined</div>",
    "wide": '<div style="width: 700px">a table too wide for a phone</div>',
}


def _page(rel: str, body: str, toggle: bool = True) -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{favicon_link(rel)}<title>{rel}</title>
<style>{theme_css()}</style><style>{QUARTO_LAYOUT_CSS}</style></head>
<body class="nav-sidebar floating">{DARK_TOGGLE if toggle else ""}
<div id="quarto-content" class="page-columns"><main class="content">
<h1>{rel}</h1><p>Some prose that wraps in the column, as a chapter's does.</p>{body}
</main></div></body></html>"""


def _site(folder: Path, defects: dict[str, str], no_toggle: bool) -> Path:
    (folder / "chapters").mkdir(parents=True)
    (folder / "images").mkdir()
    shutil.copy(ROOT / "images/favicon.svg", folder / "images/favicon.svg")
    (folder / "index.html").write_text(_page("index.qmd", '<a href="chapters/clean.html">1</a>'))
    (folder / "chapters/clean.html").write_text(_page("chapters/clean.qmd", ""))
    for name, body in defects.items():
        (folder / f"chapters/{name}.html").write_text(_page(f"chapters/{name}.qmd", body))
    if no_toggle:
        (folder / "chapters/nodark.html").write_text(_page("chapters/nodark.qmd", "", False))
    return folder


def _check(folder: Path, *args: str) -> tuple[int, dict[str, list[str]]]:
    run = subprocess.run([sys.executable, "scripts/check_site.py", str(folder), *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in run.stderr, run.stderr
    found: dict[str, list[str]] = {}
    for line in run.stdout.splitlines():
        if line.startswith("FAIL "):
            where = line[5:]
            found[where] = []
        elif line.startswith("     "):
            found[where].append(line.strip())
    return run.returncode, found


def test_a_clean_site_passes(tmp_path):
    code, found = _check(_site(tmp_path / "_book", {}, no_toggle=False))
    assert (code, found) == (0, {})


def test_every_planted_defect_is_found_where_it_shows(tmp_path):
    code, found = _check(_site(tmp_path / "_book", DEFECTS, no_toggle=True))
    assert code == 1
    views = {(w, s) for w in (1100, 400) for s in ("light", "dark")}

    def where(name: str) -> set[tuple[int, str]]:
        out = set()
        for key in found:
            m = re.fullmatch(rf"chapters/{name}\.html at (\d+) px, (\w+)", key)
            if m:
                out.add((int(m.group(1)), m.group(2)))
        return out

    assert not any(k.startswith(("index.html", "chapters/clean.html")) for k in found), found
    for name in ("console", "missing", "ojs"):
        assert where(name) == views, (name, found)
    assert where("wide") == {(400, "light"), (400, "dark")}, found
    assert where("nodark") == {(1100, "dark"), (400, "dark")}, found
    first = {name: found[f"chapters/{name}.html at 400 px, dark"]
             for name in ("console", "missing", "ojs", "wide", "nodark")}
    assert first["console"] == ["console: a widget failed to draw"]
    assert "404 /images/not-there.png" in first["missing"]
    assert first["ojs"] == ["OJS error: RuntimeError: p is not defined"]
    assert first["wide"][0].startswith("scrolls sideways: ")
    assert first["nodark"] == ["a dark system got the light theme"]


def test_it_refuses_a_folder_that_is_not_a_site(tmp_path):
    run = subprocess.run([sys.executable, "scripts/check_site.py", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "render the book first" in run.stderr
