"""How the book's Plotly figures reach the page: plotly.js once, MathJax never.

Quarto's Jupyter setup selects plotly's "notebook" renderer. That renderer inlines plotly.js
with a page's first figure, which is what a static page needs, but it also writes a MathJax
`<script src>` into every figure. The book typesets its math with KaTeX, so MathJax is a second
math engine loaded for nothing, and a page with two figures loads it twice (a console error).

`use_book_renderer()` makes the "book" renderer below the default: the notebook renderer's
one-time plotly.js, and each figure's HTML without MathJax. Call it in a chapter's setup cell,
after Quarto's setup has run; a chapter then shows a figure as usual (`fig` or `fig.show()`).
"""

from __future__ import annotations

import html

import plotly.io as pio
from plotly.io.base_renderers import NotebookRenderer, PlotlyRenderer

from checks import require_str

# plotly loads its renderer registry on first use, which takes seconds (it imports the figure
# classes); take that cost when the module is imported, not inside the first call.
_RENDERERS = pio.renderers


class BookRenderer(NotebookRenderer):
    """plotly's notebook renderer, minus MathJax.

    `activate()` (inherited) displays plotly.js once, with the first figure after the renderer
    becomes the default; `to_mimebundle` writes one figure's `<div>` and its `newPlot` call, and
    the figure as plotly's own JSON mimetype beside it: Quarto's HTML pages take the HTML, while
    JupyterLab and VS Code, opening the chapter's notebook, draw from the JSON.
    """

    def to_mimebundle(self, fig_dict: dict) -> dict[str, object]:
        """One figure as HTML that relies on the plotly.js `activate()` put on the page."""
        bundle = PlotlyRenderer(config=self.config).to_mimebundle(dict(fig_dict))
        bundle["text/html"] = pio.to_html(
            fig_dict,
            config=self.config,
            include_plotlyjs=False,
            include_mathjax=False,
            full_html=False,
            default_width="100%",
            default_height=525,
            validate=False,
        )
        alt = ((fig_dict.get("layout") or {}).get("meta") or {}).get("alt")
        if alt:  # the page's accessible name for the figure (Quarto's fig-alt reaches images only)
            bundle["text/html"] = (
                f'<div role="figure" aria-label="{html.escape(alt, quote=True)}">'
                f'{bundle["text/html"]}</div>'
            )
        return bundle


def use_book_renderer() -> None:
    """Register the "book" renderer and make it the default for this kernel.

    Setting the default (again) is what re-arms the one-time plotly.js, so every chapter calls
    this: a kernel that Quarto reuses across renders then still puts plotly.js on each page.
    """
    if "book" not in _RENDERERS:
        _RENDERERS["book"] = BookRenderer()
    _RENDERERS.default = "book"


def describe(fig, alt: str):
    """Give a Plotly figure its alt text, a sentence saying what it shows; return the figure.

    Quarto's `fig-alt` cell option only reaches image outputs, so a Plotly figure would have no
    accessible name. The text travels in the figure's layout (`meta.alt`), and the book renderer
    puts it on the figure's element as `aria-label`.
    """
    alt = require_str("alt", alt)
    if not alt.strip():
        raise ValueError("alt must describe the figure, got an empty string")
    if not hasattr(fig, "update_layout"):
        raise TypeError(f"fig must be a Plotly figure, got {type(fig).__name__}")
    fig.update_layout(meta={"alt": alt})
    return fig
