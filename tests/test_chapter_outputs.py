"""What the chapters' cell outputs put on a page, beyond their text.

Plotly figures: plotly's Jupyter renderers add a MathJax `<script src>` to every figure, so a page
with two figures loaded MathJax twice (a console error on the real chapter 3) and, on a book whose
math is KaTeX, loaded a second math engine for nothing. And every page that draws a figure needs
plotly.js exactly once, in an output Quarto keeps, no later than its first figure.
"""

from __future__ import annotations

import re

import pytest

from conftest import book_chapters, executed
from harness.kernel import ChapterRun
from harness.qmd import output_dropped

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


def test_check_sees_plotly_default_renderer():
    """Two figures shown the way plotly does by default: MathJax twice is reported."""
    problems = plotly_problems(executed("fixtures/harness-plotly-default"))
    assert any("2 MathJax" in p for p in problems), problems


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_plotly_figures_load_plotlyjs_once_and_no_mathjax(path):
    if "plotly" not in path.read_text():
        pytest.skip("no Plotly figures")
    problems = plotly_problems(executed(path.stem))
    assert not problems, f"{path.stem}:\n" + "\n".join(problems)
