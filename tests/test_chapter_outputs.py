"""What the chapters' cell outputs put on a page, beyond their text.

The book draws its figures as widgets (Observable Plot, named by their `ariaLabel`) and imports no
Plotly; these checks stand guard for a chapter that draws a Plotly figure anyway. The fixtures
tests/fixtures/harness-output-*.qmd show them failing on plotly's outputs, recorded and shown as
HTML so that neither the fixtures nor the book's environment need plotly installed.

Every Plotly figure needs an accessible name: Quarto's `fig-alt` reaches images only, so the
figure's HTML must carry it (`<div role="figure" aria-label="...">` around plotly's own).

Plotly figures: plotly's Jupyter renderers add a MathJax `<script src>` to every figure, so a page
with two figures loaded MathJax twice (a console error on the real chapter 3) and, on a book whose
math is KaTeX, loaded a second math engine for nothing. And every page that draws a figure needs
plotly.js exactly once, in an output Quarto keeps, no later than its first figure.

Tables: a DataFrame displayed as it is shows pandas' row numbers 0, 1, 2, ... as a first column
that means nothing to a reader.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from booktools.harness.kernel import ChapterRun
from booktools.qmd import output_dropped
from conftest import book_chapters, executed

CHAPTERS = book_chapters()

MATHJAX = re.compile(r"<script[^>]*\bsrc=[\"'][^\"']*mathjax", re.I)
# plotly.js inlined (its banner comment), or loaded from a URL (plotly's "cdn" and connected modes).
PLOTLY_JS = re.compile(
    r"^\* plotly\.js v\d"
    r"|<script[^>]*\bsrc=[\"'][^\"']*plotly[^\"']*\.js"
    r"|import [\"'][^\"']*cdn\.plot\.ly",
    re.I | re.M,
)
FIGURE = re.compile(r"class=\"plotly-graph-div\"")
# A figure's accessible name: a role="figure" element with an aria-label around plotly's <div>.
NAMED_FIGURE = re.compile(r"^<div role=\"figure\" aria-label=\"[^\"]+\">")
DATAFRAME = re.compile(r"<table[^>]*class=\"dataframe\".*?</table>", re.S)
ROW_HEADER = re.compile(r"<tr[^>]*>\s*<th[^>]*>(.*?)</th>", re.S)


def plotly_problems(run: ChapterRun) -> list[str]:
    """Why this chapter's outputs would not put its Plotly figures on a KaTeX page cleanly."""
    problems = []
    mathjax = [cell.line for cell, html in run.html_outputs for _ in MATHJAX.finditer(html)]
    if mathjax:
        problems.append(
            f"{len(mathjax)} MathJax script(s) in the outputs of the cells at lines {mathjax}: the "
            "book's math is KaTeX, and each figure plotly renders by default loads MathJax again"
        )
    plotly_js = [(i, cell) for i, (cell, html) in enumerate(run.html_outputs)
                 for _ in PLOTLY_JS.finditer(html)]
    figures = [i for i, (_, html) in enumerate(run.html_outputs) if FIGURE.search(html)]
    unnamed = [cell.line for cell, html in run.html_outputs
               if FIGURE.search(html) and not NAMED_FIGURE.match(html)]
    if unnamed:
        problems.append(f"the figures of the cells at lines {unnamed} have no accessible name "
                        "(Quarto's fig-alt reaches images only: draw it as a widget, or wrap "
                        "it in a <div role=\"figure\" aria-label=...>)")
    if len(plotly_js) > 1:
        problems.append(f"plotly.js is included {len(plotly_js)} times "
                        f"(cells at lines {[cell.line for _, cell in plotly_js]})")
    if figures and not plotly_js:
        problems.append("the chapter draws Plotly figures but never includes plotly.js")
    if figures and plotly_js:
        first, cell = plotly_js[0]
        if first > figures[0]:
            problems.append(f"plotly.js arrives at line {cell.line}, after the first figure")
        if output_dropped(cell.options):
            problems.append(f"plotly.js is in the cell at line {cell.line}, whose output Quarto "
                            f"drops ({output_dropped(cell.options)})")
    return problems


def row_number_tables(run: ChapterRun) -> list[int]:
    """Lines of the cells that display a pandas table whose row headers are just 0, 1, 2, ..."""
    lines = []
    for cell, html in run.html_outputs:
        for table in DATAFRAME.findall(html):
            body = table.split("<tbody>", 1)[-1]
            heads = [h.strip() for h in ROW_HEADER.findall(body)]
            if heads and heads == [str(i) for i in range(len(heads))]:
                lines.append(cell.line)
    return lines


def test_checks_see_the_fixture_defects():
    """Two figures shown the way plotly does by default, and a table with its row numbers."""
    run = executed("fixtures/harness-output-defects")
    figures = [c.line for c in run.cells if c.kind == "python" and 'recorded_figure("' in c.source]
    problems = plotly_problems(run)
    # Exactly these two: plotly.js is there once, before the first figure, as plotly puts it.
    assert [p.split(":")[0] for p in problems] == [
        f"2 MathJax script(s) in the outputs of the cells at lines {figures}",
        f"the figures of the cells at lines {figures} have no accessible name (Quarto's fig-alt "
        "reaches images only",
    ], problems
    # The same figures with the output that carries plotly.js taken away.
    without_js = dataclasses.replace(
        run, html_outputs=[(c, h) for c, h in run.html_outputs if not PLOTLY_JS.search(h)]
    )
    assert "the chapter draws Plotly figures but never includes plotly.js" in plotly_problems(
        without_js
    ), plotly_problems(without_js)
    tables = [c.line for c in run.cells if c.kind == "python" and "pd.DataFrame(" in c.source]
    assert row_number_tables(run) == tables[:1], (row_number_tables(run), tables)  # not the 2nd


def test_checks_see_plotlyjs_out_of_place():
    """A named figure, then plotly.js in a cell whose output Quarto drops, then plotly.js again."""
    run = executed("fixtures/harness-output-plotlyjs-order")
    figure, dropped, again = [c.line for c in run.cells if c.kind == "python"]
    assert plotly_problems(run) == [
        f"plotly.js is included 2 times (cells at lines {[dropped, again]})",
        f"plotly.js arrives at line {dropped}, after the first figure",
        f"plotly.js is in the cell at line {dropped}, whose output Quarto drops (output: false)",
    ], (figure, plotly_problems(run))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_plotly_figures_load_plotlyjs_once_and_no_mathjax(path):
    if "plotly" not in path.read_text():
        pytest.skip("no Plotly figures")
    problems = plotly_problems(executed(path.stem))
    assert not problems, f"{path.stem}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_tables_show_no_row_numbers(path):
    lines = row_number_tables(executed(path.stem))
    assert not lines, (
        f"{path.stem}: the tables shown by the cells at lines {lines} have pandas' row numbers as "
        "their first column; display them with `df.to_html(index=False)` or a meaningful index"
    )
