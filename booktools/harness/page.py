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
* each {ojs} cell becomes the `div#ojs-cell-N` that `booktools/harness/ojs/runner.js` fills, as before;
* the page loads the Bootswatch theme (cosmo, as `_quarto.yml` asks), the Quarto layout rules
  mirrored below, and the book's own `styles.css`, exactly as `_quarto.yml`'s `css:` does.

Around the chapter the page carries Quarto's own chrome, in Quarto 1.7's markup (as its filters
and templates write it; checked against a real render), because readers and axe-core meet it
too: the title block (breadcrumbs, chapter number, the "Code" tools button), the table of
contents in the margin (numbered sections, `toc-depth: 3`), callouts with their headers
(collapsible ones as Bootstrap collapse toggles), citations linked by citeproc
(`link-citations: true`) and the previous / next chapter links. Markup is restated, not copied;
nothing of Quarto's source is here. Collapsed callouts keep Quarto's header (aria-expanded
"false") but are rendered open, so their content is measured too (a reader can open them).
"""

from __future__ import annotations

import html
import json
import mimetypes
import re
from functools import lru_cache

import pypandoc
import yaml

from booktools.qmd import FENCE_OPEN, INLINE_PY, project_config, scan, split_front_matter

from .kernel import ChapterRun
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
  nav[role=doc-toc] { display: none; }  /* the table of contents, and the code-links in it */
}
.page-columns > * { grid-column: body-content-start / body-content-end; }
#quarto-content { padding: 0; }
/* Quarto's page rows: the chapter fills [content-top, content-bottom], the prev/next links sit in
   the row below it, and both sidebars span the two. */
.page-rows-contents {
  grid-template-rows: [content-top] minmax(max-content, 1fr) [content-bottom]
                      minmax(60px, max-content) [page-bottom];
}
body.floating .sidebar.sidebar-navigation {
  grid-column: page-start / body-start; grid-row: content-top / page-bottom;
}
.sidebar.margin-sidebar { grid-column: body-end / page-end; grid-row: content-top / page-bottom; }
.page-columns .content {
  grid-column: body-content-start / body-content-end; grid-row: content-top / content-bottom;
  align-content: flex-start;
}
.page-navigation { display: flex; justify-content: space-between; }
.page-columns .page-navigation {
  grid-column: body-content-start / body-content-end; grid-row: content-bottom / page-bottom;
}
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
    _, start = split_front_matter(lines)  # pandoc does not need it; the title is taken apart
    for span in scan(lines, start):
        if span.kind == "shown":
            out.append(span.lines[0])
        elif span.kind == "prose":
            out.append(INLINE_PY.sub(lambda _: next(inline_values), span.lines[0]))
        else:
            lang, indent = span.lang, FENCE_OPEN.match(span.lines[0]).group("indent")
            cell = by_line.get(span.start + 1)
            if cell is not None and cell.kind == "python":
                block = _python_cell(cell, outputs.get(cell.line, ""))
            elif cell is not None:
                block = _ojs_cell(cell, ojs_index[cell.line])
            else:  # mermaid and the like: drawn by Quarto's own scripts, not measured here
                block = f'<div class="cell quarto-{lang}" data-harness="not-drawn"></div>'
            out += ["", f"{indent}{PLACEHOLDER.format(len(blocks))}", ""]
            blocks.append(block)
    return "\n".join(out), blocks


def _title(run: ChapterRun) -> str:
    m = re.search(r'^title:\s*"?(.*?)"?\s*$', run.path.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else run.path.stem


CALLOUT_KIND = re.compile(r"^callout-(note|tip|warning|important|caution)$")


def _plain(inlines: list) -> dict:
    return {"t": "Plain", "c": inlines}


def _div(classes: list[str], blocks: list, attrs: list | None = None, ident: str = "") -> dict:
    # Pandoc's HTML writer prefixes an attribute that is not HTML's own with `data-`, so Quarto's
    # "bs-toggle" comes out as data-bs-toggle; aria-* attributes are kept as they are.
    return {"t": "Div", "c": [[ident, classes, attrs or []], blocks]}


def _raw(text: str) -> dict:
    return {"t": "RawBlock", "c": ["html", text]}


def _callout(kind: str, attrs: dict, content: list, number: int) -> dict:
    """A callout as Quarto 1.7 writes it for HTML (a titled header, an icon, a body; a collapsible
    one's header is a Bootstrap collapse toggle for the body)."""
    if content and content[0]["t"] == "Header":
        title, content = content[0]["c"][2], content[1:]
    else:
        title = [{"t": "Str", "c": attrs.get("title") or kind.capitalize()}]
    header = [_div(["callout-icon-container"], [_raw('<i class="callout-icon"></i>')]),
              _div(["callout-title-container", "flex-fill"], [_plain(title)])]
    body = _div(["callout-body-container", "callout-body"], content)
    header_attrs: list = []
    collapse = attrs.get("collapse")
    if collapse is not None:
        expanded = "false" if str(collapse).lower() == "true" else "true"
        header.append(_raw('<div class="callout-btn-toggle d-inline-block border-0 py-1 ps-1 pe-0 '
                           'float-end"><i class="callout-toggle"></i></div>'))
        header_attrs = [["bs-toggle", "collapse"], ["bs-target", f".callout-{number}-contents"],
                        ["aria-controls", f"callout-{number}"], ["aria-expanded", expanded],
                        ["aria-label", "Toggle callout"]]
        # Quarto adds `show` only to an expanded one; here the body is always shown (see top).
        body = _div([f"callout-{number}-contents", "callout-collapse", "collapse", "show"], [body],
                    ident=f"callout-{number}")
    return _div(["callout", "callout-style-default", f"callout-{kind}", "callout-titled"],
                [_div(["callout-header", "d-flex", "align-content-center"], header, header_attrs),
                 body])


def _with_callouts(blocks: list, counter: list[int]) -> list:
    out = []
    for block in blocks:
        if block["t"] == "Div":
            (ident, classes, attrs), content = block["c"]
            content = _with_callouts(content, counter)
            kind = next((m.group(1) for c in classes if (m := CALLOUT_KIND.match(c))), None)
            if kind:
                counter[0] += 1
                block = _callout(kind, dict(attrs), content, counter[0])
            else:
                block = _div(classes, content, attrs, ident)
        out.append(block)
    return out


@lru_cache(maxsize=32)
def _pandoc(markdown: str, chapter_number: int | None = None) -> str:
    """Pandoc as Quarto runs it on a chapter: KaTeX, section divs, numbered sections (N.1, N.1.1
    in chapter N), citeproc with linked citations (the bibliography itself is on the book's
    references page), and Quarto's callout markup."""
    # Citeproc links citations only when it writes the bibliography too; on a book page that
    # lives on the references page, so the list it appends (div#refs) is dropped here.
    cite = ["--citeproc", f"--bibliography={ROOT / 'references.bib'}",
            "--metadata=link-citations=true"]
    doc = json.loads(pypandoc.convert_text(markdown, "json", format="markdown", extra_args=cite))
    blocks = [b for b in doc["blocks"] if not (b["t"] == "Div" and b["c"][0][0] == "refs")]
    doc["blocks"] = _with_callouts(blocks, [0])
    args = ["--katex", "--section-divs", "--wrap=none"]
    if chapter_number is not None:
        args += ["--number-sections", f"--number-offset={chapter_number}"]
    return pypandoc.convert_text(json.dumps(doc), "html", format="json", extra_args=args)


@lru_cache(maxsize=1)
def _book() -> list[dict]:
    """The book's pages in reading order (from _quarto.yml): path, title, part and number."""
    def title_of(path: str) -> str:
        # The front matter's title, else the page's first heading (index.qmd: "# Preface").
        text = (ROOT / path).read_text(encoding="utf-8")
        m = re.search(r'^title:\s*"?(.*?)"?\s*$', text, re.M) or re.search(
            r"^#\s+(.*?)\s*(?:\{[^}]*\})?\s*$", text, re.M)
        return m.group(1) if m else path

    def numbered(path: str) -> bool:
        # Quarto numbers every chapter in reading order except index.qmd and a page whose title
        # heading is {.unnumbered} (the references); the file name plays no part.
        if path == "index.qmd":
            return False
        text = (ROOT / path).read_text(encoding="utf-8")
        return not re.search(r"^#\s.*\{[^}]*(\.unnumbered|(^|\s)-(\s|$))[^}]*\}\s*$", text, re.M)

    pages: list[dict] = []
    count = 0

    def walk(items: list, part: str | None) -> None:
        nonlocal count
        for item in items:
            if isinstance(item, dict):
                walk(item.get("chapters", []), item.get("part"))
                continue
            number = None
            if numbered(item):
                count += 1
                number = count
            pages.append({"path": item, "title": title_of(item), "part": part, "number": number})

    walk(yaml.safe_load((ROOT / "_quarto.yml").read_text())["book"]["chapters"], None)
    return pages


def _book_page(run: ChapterRun) -> dict | None:
    rel = run.path.relative_to(ROOT).as_posix() if run.path.is_relative_to(ROOT) else None
    return next((p for p in _book() if p["path"] == rel), None)


def _chapter_title_html(entry: dict | None, title: str) -> str:
    if entry is None or entry["number"] is None:
        return f'<span class="chapter-title">{html.escape(title)}</span>'
    return (f'<span class="chapter-number">{entry["number"]}</span>&nbsp; '
            f'<span class="chapter-title">{html.escape(title)}</span>')


def _href(entry: dict) -> str:
    return "../" + entry["path"].removesuffix(".qmd") + ".html"


def title_block(run: ChapterRun) -> str:
    """Quarto's title block: breadcrumbs (part, chapter), the numbered title, the Code button."""
    entry, title = _book_page(run), _title(run)
    crumbs = ""
    if entry is not None:
        items = ([f'<li class="breadcrumb-item"><a href="{_href(entry)}">'
                  f'{html.escape(entry["part"])}</a></li>'] if entry["part"] else [])
        items.append(f'<li class="breadcrumb-item"><a href="{_href(entry)}">'
                     f'{_chapter_title_html(entry, title)}</a></li>')
        crumbs = ('<nav class="quarto-page-breadcrumbs quarto-title-breadcrumbs d-none d-lg-block" '
                  f'aria-label="breadcrumb"><ol class="breadcrumb">{"".join(items)}</ol></nav>')
    return (
        f'<header id="title-block-header" class="quarto-title-block default">{crumbs}'
        '<div class="quarto-title"><div class="quarto-title-block"><div>'
        f'<h1 class="title">{_chapter_title_html(entry, title)}</h1>'
        '<button type="button" class="btn code-tools-button dropdown-toggle" '
        'id="quarto-code-tools-menu" data-bs-toggle="dropdown" aria-expanded="false">'
        '<i class="bi"></i> Code</button>'
        '<ul class="dropdown-menu dropdown-menu-end" aria-labelelledby="quarto-code-tools-menu">'
        '<li><a id="quarto-show-all-code" class="dropdown-item" href="javascript:void(0)" '
        'role="button">Show All Code</a></li>'
        '<li><a id="quarto-hide-all-code" class="dropdown-item" href="javascript:void(0)" '
        'role="button">Hide All Code</a></li></ul></div></div></div></header>'
    )


SECTION_HEADING = re.compile(
    r'<section id="([^"]+)" class="level([23])[^"]*"[^>]*>\s*<h\2[^>]*>(.*?)</h\2>', re.S
)


def code_links(run: ChapterRun) -> str:
    """The chapter's `code-links` as Quarto 1.7 writes them into the margin TOC's nav: a
    `div.quarto-code-links` with the `code-links-title` heading and one link per entry."""
    front_matter, _ = split_front_matter(run.path.read_text(encoding="utf-8").splitlines())
    links = (front_matter or {}).get("code-links") or []
    if not links:
        return ""
    language = (project_config(run.path) or {}).get("language") or {}
    title = language.get("code-links-title", "Code Links")  # Quarto's default heading
    items = "".join(
        f'<li><a href="{html.escape(link["href"])}"><i class="bi bi-{html.escape(link["icon"])}">'
        f'</i>{html.escape(link["text"])}</a></li>' for link in links
    )
    return f'<div class="quarto-code-links"><h2>{html.escape(title)}</h2><ul>{items}</ul></div>'


def table_of_contents(body: str, links: str = "") -> str:
    """Quarto's margin TOC (`toc: true`, `toc-depth: 3`) for the chapter body's sections, with
    the page's code links (`links`) at its foot, where Quarto appends them."""
    items: list[tuple[int, str]] = []
    for ident, level, heading in SECTION_HEADING.findall(body):
        link = (f'<a href="#{ident}" id="toc-{ident}" class="nav-link{" active" if not items else ""}"'
                f' data-scroll-target="#{ident}">{heading.strip()}</a>')
        items.append((int(level), link))
    parts, open_sub = ["<ul>"], False
    for level, link in items:
        if level == 3 and not open_sub:
            # Quarto writes the sub-list `collapse` and its script opens the active one; all are
            # open here, so every entry is on the page.
            parts[-1] = parts[-1].removesuffix("</li>")
            parts.append("<ul>")
            open_sub = True
        elif level == 2 and open_sub:
            parts.append("</ul></li>")
            open_sub = False
        parts.append(f"<li>{link}</li>")
    parts.append("</ul></li></ul>" if open_sub else "</ul>")
    return ('<nav id="TOC" role="doc-toc" class="toc-active">'
            f'<h2 id="toc-title">Table of contents</h2>{"".join(parts)}{links}</nav>')


def page_navigation(run: ChapterRun) -> str:
    """Quarto's previous / next links at the foot of a book page."""
    entry = _book_page(run)
    if entry is None:
        return ""
    pages = _book()
    i = pages.index(entry)
    sides = []
    for side, other in (("previous", pages[i - 1] if i else None),
                        ("next", pages[i + 1] if i + 1 < len(pages) else None)):
        if other is None:
            continue
        text = f'<span class="nav-page-text">{_chapter_title_html(other, other["title"])}</span>'
        arrow = f'<i class="bi bi-arrow-{"left" if side == "previous" else "right"}-short"></i>'
        inner = f"{arrow} {text}" if side == "previous" else f"{text} {arrow}"
        sides.append(f'<div class="nav-page nav-page-{side}"><a href="{_href(other)}" '
                     f'class="pagination-link" aria-label="{html.escape(other["title"])}">'
                     f"{inner}</a></div>")
    return f'<nav class="page-navigation">{"".join(sides)}</nav>'


def render_body(run: ChapterRun) -> str:
    """The chapter's prose through pandoc, with each cell's HTML in its place."""
    markdown, blocks = _cell_blocks(run)
    entry = _book_page(run)
    html_body = _pandoc(markdown, entry["number"] if entry else None)
    # Quarto gives every pandoc table Bootstrap's `table` class (format-html-bootstrap.ts).
    body = re.sub(r"<table(?=[\s>])(?![^>]*class=)", '<table class="table"', html_body)
    return PLACEHOLDER_HTML.sub(lambda m: blocks[int(m.group(1))], body)


@lru_cache(maxsize=1)
def theme_css() -> str:
    """Bootswatch cosmo (npm), minus its Google Fonts @import: the tests run offline, and a failed
    font request would be a console error. The fallback font is a little narrower than Source
    Sans Pro; widths that matter here (equations, code, charts) do not depend on it."""
    path = ROOT / "node_modules/bootswatch/dist/cosmo/bootstrap.min.css"
    return re.sub(r"@import url\([^)]*\);", "", path.read_text(encoding="utf-8"))


def after_body() -> str:
    """The files _quarto.yml's `include-after-body` puts on every page. Quarto puts them where
    the content ends, right after </main>: before its own scripts and before the previous / next
    links, which are not in the document yet when an included script runs."""
    html_format = yaml.safe_load((ROOT / "_quarto.yml").read_text())["format"]["html"]
    files = html_format.get("include-after-body") or []
    return "\n".join((ROOT / f).read_text() for f in ([files] if isinstance(files, str) else files))


@lru_cache(maxsize=1)
def _quarto_yml() -> dict:
    return yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))


def _encode_attribute_value(value: str) -> str:
    """quarto-cli 1.7's encodeAttributeValue (src/core/html.ts): the FIRST `"`, `'`, `<`, `>`
    and `&` each replaced by its entity, in that order (String.replace with a string pattern);
    the DOM then escapes the result again when it writes the attribute. So `&` reaches the page
    as `&amp;amp;` and `'` as `&amp;#039;`: a citation title must avoid both."""
    for char, entity in (('"', "&quot;"), ("'", "&#039;"), ("<", "&lt;"), (">", "&gt;"),
                         ("&", "&amp;")):
        value = value.replace(char, entity, 1)
    return value


def _serialize_attribute(value: str) -> str:
    # The HTML serializer's attribute escaping (deno-dom, as browsers): &, no-break space, ".
    return value.replace("&", "&amp;").replace("\u00a0", "&nbsp;").replace('"', "&quot;")


def quarto_title(rel: str) -> str:
    """The `title` metadata Quarto 1.7 gives a book page (book-render.ts): the book's title on
    the index; else the front matter's title (or the first heading), which a numbered chapter
    gets as the markdown `[N]{.chapter-number}<no-break space> [title]{.chapter-title}`
    (book-chapters.ts, formatChapterTitle)."""
    entry = next(p for p in _book() if p["path"] == rel)
    if entry is _book()[0]:
        return _quarto_yml()["book"]["title"]
    if entry["number"] is None:
        return entry["title"]
    return f"[{entry['number']}]{{.chapter-number}}\u00a0 [{entry['title']}]{{.chapter-title}}"


def scholar_meta(rel: str) -> list[tuple[str, str]]:
    """The Google Scholar tags (`google-scholar: true`) Quarto 1.7 writes into a book page's head
    (format-html-meta.ts), as (name, attribute value as written in the HTML): the page's
    citation metadata, its title being the citation's `title`, else the page's `title`
    metadata. A page's own `citation:` map REPLACES the project's (a real 1.7.34 render: a
    chapter whose front matter names only `citation: title:` gets no author, date or book
    title), and only the index page falls back to `book: author:` when its map has no author.
    The `citation_reference` tags (one per bibliography entry) are not drawn."""
    config = _quarto_yml()
    if config.get("google-scholar") is not True:
        return []
    lines = (ROOT / rel).read_text(encoding="utf-8").splitlines()
    front_matter = split_front_matter(lines)[0] or {}
    citation = front_matter.get("citation") or config.get("citation") or {}
    tags = [("citation_title", citation.get("title") or quarto_title(rel))]
    fallback = config["book"].get("author") if rel == "index.qmd" else None
    authors = citation.get("author") or fallback or []
    for author in authors if isinstance(authors, list) else [authors]:
        tags.append(("citation_author", author["name"] if isinstance(author, dict) else author))
    if "issued" in citation:
        year = str(citation["issued"])
        tags += [("citation_publication_date", year), ("citation_cover_date", year),
                 ("citation_year", year.split("-")[0])]
    kind = citation.get("type", "webpage")
    if kind == "chapter":
        tags.append(("citation_inbook_title", citation.get("container-title")))
    elif kind == "book" and citation.get("container-title"):
        tags.append(("citation_book_title", citation["container-title"]))
    elif citation.get("container-title"):
        tags.append(("citation_journal_title", citation["container-title"]))
    return [(name, _serialize_attribute(_encode_attribute_value(str(value))))
            for name, value in tags]


def favicon_link(rel: str) -> str:
    """The book's `favicon:` as Quarto 1.7 links it (website.ts, an html dependency link: the
    path from the page up to the project root, then the file)."""
    favicon = _quarto_yml()["book"].get("favicon")
    if not favicon:
        return '<link rel="icon" href="data:,">'  # no request, as a page without one
    kind = mimetypes.guess_type(favicon)[0] or "image/x-icon"
    offset = "/".join([".."] * rel.count("/")) or "."
    return f'<link href="{offset}/{favicon}" rel="icon" type="{kind}" />'


def head_tags(run: ChapterRun) -> str:
    """What Quarto's head carries that the tests read: the favicon link and Scholar's tags."""
    rel = run.path.relative_to(ROOT).as_posix() if run.path.is_relative_to(ROOT) else None
    if rel is None or _book_page(run) is None:
        return '<link rel="icon" href="data:,">'
    meta = "".join(f'\n<meta name="{name}" content="{value}">' for name, value in scholar_meta(rel))
    return favicon_link(rel) + meta


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
    body = render_body(run)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{head_tags(run)}<title>{title}</title>
<style>{theme_css()}</style>
<style>{QUARTO_LAYOUT_CSS}</style>
<script src="{katex}/katex.min.js"></script>
<link rel="stylesheet" href="{katex}/katex.min.css">
<link rel="stylesheet" href="../styles.css">
</head>
<body class="nav-sidebar floating">
<div id="quarto-content" class="quarto-container page-columns page-rows-contents page-layout-article">
<div id="quarto-sidebar" class="sidebar sidebar-navigation floating"></div>
<div id="quarto-margin-sidebar" class="sidebar margin-sidebar">{table_of_contents(body, code_links(run))}</div>
<main class="content" id="quarto-document-content">
{title_block(run)}
{body}
</main>
{after_body()}
{page_navigation(run)}
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
<script type="module" src="/booktools/harness/ojs/.build/runner.bundle.js"></script>
</body></html>"""
