"""A chapter's whole page, laid out the way Quarto lays out a book page.

`browser.chapter_html` gives the OJS engine only what it reads, in an 860 px box: enough to drive
the widgets, but blind to everything else on the page. A real page also carries the prose with
its display equations (KaTeX), the Python cells' source and printed output, and it sits in
Quarto's grid, whose text column is about 566 px wide on a 1,100 px screen and the full width less
two gutters on a phone. `chapter_page_html` builds that page:

* the chapter's markdown goes through real pandoc (PyPI's `pypandoc-binary`) with `--katex`,
  as Quarto's `html-math-method: katex` does, and KaTeX (npm, pinned to the release that the
  page's `katex@latest` CDN address, from pandoc's template, serves today) typesets each `span.math` in the browser with Quarto's own call and options;
* each Python cell becomes Quarto's `div.cell` with its source (unless `echo: false`) and its
  printed output (`ChapterRun.outputs`, in order) in `div.cell-output > pre > code`;
* each {ojs} cell becomes the `div#ojs-cell-N` that `tests/ojs/runner.js` fills, as before;
* the page loads the Bootswatch theme (cosmo, as `_quarto.yml` asks), the Quarto layout rules
  mirrored below, and the book's own `styles.css`, exactly as `_quarto.yml`'s `css:` does.

Only layout is imitated; nothing of Quarto's source is copied. Collapsed callouts are rendered
open, so their content is measured too (a reader can open them).
"""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache

import pypandoc
import yaml

from .kernel import ChapterRun
from .qmd import FENCE_OPEN, INLINE_PY
from .server import ROOT

KATEX_VERSION = json.loads((ROOT / "node_modules/katex/package.json").read_text())["version"]
PLACEHOLDER = "QUARTOHARNESSCELL{}X"
PLACEHOLDER_HTML = re.compile(r"(?:<p>)?QUARTOHARNESSCELL(\d+)X(?:</p>)?")
IPYTHON_REPR = re.compile(r"<IPython\.core\.display\.\w+ object>")

# Quarto's book page layout, reduced to what decides widths. Values resolved from quarto-cli 1.7's
# SCSS: the root font size ($font-size-root: 17px, bootstrap/_bootstrap-customize.scss); the
# gutters ($grid-column-gutter-width: 1.5em, bootstrap/_bootstrap-variables.scss); the body
# column ($grid-body-width: 800px, same file) inside the floating grid a book uses
# (`page-columns-float-wide` / `-float-mid` and `grid-template-columns-narrow`,
# bootstrap/_bootstrap-mixins.scss; a book's sidebar defaults to "floating"); `.page-columns
# .content` in the body-content column (bootstrap/_bootstrap-rules.scss). Code and output rules
# from the same files and _quarto-rules.scss: `pre` loses Bootstrap's padding/border, `code` does
# not wrap, `pre > code` is a block, `pre.sourceCode` overflows visibly inside a `div.sourceCode`
# that hides vertical overflow (so it scrolls sideways), `.cell-output-display` scrolls. KaTeX's
# own katex.min.css sets `.katex-display > .katex { white-space: nowrap }`, and Quarto adds no
# overflow rule for it: a wide display equation spills out of the column unless the book's
# styles.css contains it.
QUARTO_LAYOUT_CSS = """
html { font-size: 17px; }
body { margin: 0; }
.page-columns { display: grid; gap: 0; }
@media (min-width: 992px) {
  body.floating .page-columns {
    grid-template-columns:
      [screen-start] 1.5em [screen-start-inset] 5fr
      [page-start] minmax(25px, 50px) [page-start-inset] minmax(50px, 150px)
      [body-start-outset] minmax(25px, 50px) [body-start] 1.5em
      [body-content-start] minmax(500px, calc(800px - 3em))
      [body-content-end] 1.5em [body-end] minmax(25px, 50px)
      [body-end-outset] minmax(50px, 150px) [page-end-inset] minmax(25px, 50px)
      [page-end] 5fr [screen-end-inset] 1.5em [screen-end];
  }
}
@media (min-width: 768px) and (max-width: 991.98px) {
  body.floating .page-columns {
    grid-template-columns:
      [screen-start] 1.5em [screen-start-inset] 5fr
      [page-start page-start-inset body-start-outset body-start] 1.5em
      [body-content-start] minmax(500px, calc(750px - 3em))
      [body-content-end] 1.5em [body-end] 50px [body-end-outset] minmax(75px, 150px)
      [page-end-inset] 25px [page-end] 5fr [screen-end-inset] 1.5em [screen-end];
  }
  #quarto-sidebar { display: none; }  /* Quarto folds it into a collapsible bar */
}
@media (max-width: 767.98px) {
  body.floating .page-columns {
    grid-template-columns:
      [screen-start] 1.5em
      [screen-start-inset page-start page-start-inset body-start-outset body-start
       body-content-start] minmax(0px, 1fr)
      [body-content-end body-end body-end-outset page-end-inset page-end screen-end-inset] 1.5em
      [screen-end];
  }
  #quarto-sidebar, #quarto-margin-sidebar { display: none; }
}
.page-columns > * { grid-column: body-content-start / body-content-end; }
#quarto-content { padding: 0; }
body.floating .sidebar.sidebar-navigation { grid-column: page-start / body-start; grid-row: 1; }
.sidebar.margin-sidebar { grid-column: body-end / page-end; grid-row: 1; }
.page-columns .content { grid-column: body-content-start / body-content-end; grid-row: 1; }
pre { background-color: initial; padding: initial; border: initial; }
code { white-space: pre; }
p code:not(.sourceCode), dd code:not(.sourceCode) { white-space: pre-wrap; }
pre > code { display: block; }
pre.sourceCode { background-color: transparent; border: none; overflow: visible !important; }
div.sourceCode { overflow-y: hidden; }
.cell-output-display:not(.no-overflow-x) { overflow-x: auto; }
"""


def _is_false(value: object) -> bool:
    return value is False or str(value).strip().lower() == "false"


def _strip_options(source: str, prefix: str) -> str:
    """The source a reader sees: Quarto removes the leading option lines (`#| ...`)."""
    lines = source.splitlines()
    pattern = re.compile(rf"^{re.escape(prefix)}\s*\|")
    while lines and pattern.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines)


def _source_block(source: str, lang: str) -> str:
    # Quarto, with `code-fold: show`, puts the source in an open <details> (code-tools toggle).
    return (
        '<details class="code-fold" open><summary>Code</summary>'
        f'<div class="sourceCode cell-code"><pre class="sourceCode {lang} code-with-copy">'
        f'<code class="sourceCode {lang}">{html.escape(source)}</code></pre></div></details>'
    )


def _python_cell(cell, output: str) -> str:
    if _is_false(cell.options.get("include")):
        return ""
    parts = ['<div class="cell">']
    if not _is_false(cell.options.get("echo")):
        parts.append(_source_block(_strip_options(cell.source, "#"), "python"))
    text = IPYTHON_REPR.sub("", output)
    if text.strip() and not _is_false(cell.options.get("output")):
        parts.append(
            '<div class="cell-output cell-output-stdout">'
            f"<pre><code>{html.escape(text.rstrip(chr(10)))}</code></pre></div>"
        )
    parts.append("</div>")
    return "".join(parts)


def _ojs_cell(cell, index: int) -> str:
    parts = ['<div class="cell">']
    if not _is_false(cell.options.get("echo")):
        parts.append(_source_block(_strip_options(cell.source, "//"), "js"))
    # The runner finds each chunk by this id (the same contract as browser.chapter_html).
    parts.append(
        f'<div id="ojs-cell-{index}" class="cell-output cell-output-display" '
        f'data-line="{cell.line}"></div></div>'
    )
    return "".join(parts)


def _executed(cell) -> bool:
    return not _is_false(cell.options.get("eval"))


def _cell_blocks(run: ChapterRun) -> tuple[str, list[str]]:
    """The chapter's markdown with each executable cell replaced by a placeholder paragraph,
    inline `{python}` values filled in, and the HTML of each placeholder."""
    lines = run.path.read_text(encoding="utf-8").splitlines()
    python = [c for c in run.cells if c.kind == "python"]
    # kernel.py runs every python cell except `eval: false` ones, one entry in outputs each.
    if len(run.outputs) != len(python):
        python = [c for c in python if _executed(c)]
    outputs = dict(zip((c.line for c in python), run.outputs, strict=False))
    ojs_index = {c.line: i for i, c in enumerate(run.ojs_cells)}
    inline_values = iter(text for _, text in run.inline)
    by_line = {c.line: c for c in run.cells if c.kind in ("python", "ojs")}

    out, blocks = [], []
    i, plain_fence = 0, None
    if lines[:1] == ["---"]:  # front matter: pandoc does not need it; the title is taken apart
        i = lines.index("---", 1) + 1
    while i < len(lines):
        line = lines[i]
        if plain_fence is not None:
            if line.strip().startswith(plain_fence) and line.strip().strip(plain_fence[0]) == "":
                plain_fence = None
            out.append(line)
            i += 1
            continue
        m = FENCE_OPEN.match(line)
        if m:
            ticks, lang, indent = m.group("ticks"), m.group("lang"), m.group("indent")
            j = i + 1
            while j < len(lines) and lines[j].strip() != ticks:
                j += 1
            cell = by_line.get(i + 1)
            if cell is not None and cell.kind == "python":
                block = _python_cell(cell, outputs.get(cell.line, ""))
            elif cell is not None:
                block = _ojs_cell(cell, ojs_index[cell.line])
            else:  # mermaid and the like: drawn by Quarto's own scripts, not measured here
                block = f'<div class="cell quarto-{lang}" data-harness="not-drawn"></div>'
            out += ["", f"{indent}{PLACEHOLDER.format(len(blocks))}", ""]
            blocks.append(block)
            i = j + 1
            continue
        plain = re.match(r"^(`{3,}|~{3,})", line.strip())
        if plain:
            plain_fence = plain.group(1)
        else:
            line = INLINE_PY.sub(lambda _: next(inline_values), line)
        out.append(line)
        i += 1
    return "\n".join(out), blocks


def _title(run: ChapterRun) -> str:
    m = re.search(r'^title:\s*"?(.*?)"?\s*$', run.path.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else run.path.stem


@lru_cache(maxsize=32)
def _pandoc(markdown: str) -> str:
    return pypandoc.convert_text(
        markdown, "html", format="markdown", extra_args=["--katex", "--section-divs", "--wrap=none"]
    )


def render_body(run: ChapterRun) -> str:
    """The chapter's prose through pandoc, with each cell's HTML in its place."""
    markdown, blocks = _cell_blocks(run)
    # Quarto gives every pandoc table Bootstrap's `table` class (format-html-bootstrap.ts).
    body = re.sub(r"<table(?=[\s>])(?![^>]*class=)", '<table class="table"', _pandoc(markdown))
    # Collapsed callouts open: their content is on the page the moment a reader clicks.
    return PLACEHOLDER_HTML.sub(lambda m: blocks[int(m.group(1))], body)


@lru_cache(maxsize=1)
def theme_css() -> str:
    """Bootswatch cosmo (npm), minus its Google Fonts @import: the tests run offline, and a failed
    font request would be a console error. The fallback font is a little narrower than Source
    Sans Pro; widths that matter here (equations, code, charts) do not depend on it."""
    path = ROOT / "node_modules/bootswatch/dist/cosmo/bootstrap.min.css"
    return re.sub(r"@import url\([^)]*\);", "", path.read_text(encoding="utf-8"))


def after_body() -> str:
    """The files _quarto.yml's `include-after-body` puts at the end of every page, as Quarto does."""
    html_format = yaml.safe_load((ROOT / "_quarto.yml").read_text())["format"]["html"]
    files = html_format.get("include-after-body") or []
    return "\n".join((ROOT / f).read_text() for f in ([files] if isinstance(files, str) else files))


def chapter_page_html(run: ChapterRun) -> str:
    """The chapter's full page: Quarto's grid, theme, KaTeX, prose, cells and the book's CSS."""
    defines = "\n".join(f'<script type="ojs-define">{s}</script>' for s in run.define_scripts)
    contents = [
        {
            "methodName": "interpret",
            "cellName": f"ojs-cell-{i}",
            "inline": False,
            "source": c.source,
        }
        for i, c in enumerate(run.ojs_cells)
    ]
    module = json.dumps({"contents": contents}).replace("</", "<\\/")
    katex = f"/npm/katex@{KATEX_VERSION}/dist"
    title = html.escape(_title(run))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>{title}</title>
<style>{theme_css()}</style>
<style>{QUARTO_LAYOUT_CSS}</style>
<script src="{katex}/katex.min.js"></script>
<link rel="stylesheet" href="{katex}/katex.min.css">
<link rel="stylesheet" href="../styles.css">
</head>
<body class="nav-sidebar floating">
<div id="quarto-content" class="quarto-container page-columns page-rows-contents page-layout-article">
<div id="quarto-sidebar" class="sidebar sidebar-navigation floating"></div>
<div id="quarto-margin-sidebar" class="sidebar margin-sidebar"></div>
<main class="content" id="quarto-document-content">
<header id="title-block-header"><h1 class="title">{title}</h1></header>
{render_body(run)}
</main>
</div>
<script>
// Quarto's typesetMath (its pandoc template): KaTeX on every span.math, these options.
for (const el of document.getElementsByClassName("math")) {{
  if (el.tagName !== "SPAN") continue;
  katex.render(el.firstChild.data, el, {{
    displayMode: el.classList.contains("display"), throwOnError: false, macros: [], fleqn: false
  }});
}}
</script>
<script type="ojs-module-contents">{module}</script>
{defines}
<script type="module" src="/tests/ojs/.build/runner.bundle.js"></script>
{after_body()}
</body></html>"""
