"""Each chapter's notebook reads as its page reads, and runs from anywhere with the page's output.

The notebook is built by booktools/notebooks.py (run by scripts/build_notebooks.py, Quarto's
post-render hook): prose with the page's inline values and author-year citations, Python cells in
order, each ``{ojs}`` widget as its Plotly twin or a note. It runs in a fresh kernel whose working
directory is a temporary folder outside the checkout, so a chapter that reads ``../data/...``
relative to its own page fails here, as it would for a reader who downloaded the notebook.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient

from booktools import notebooks
from booktools.harness.kernel import _text_of
from booktools.notebooks import (
    FIGURE_MARK,
    SETUP,
    STANDIN_MARK,
    bibliography_keys,
    chapter_notebook,
    figure_call,
    frozen_values,
    inline_expressions,
    ojs_note,
    page_values,
    write_notebooks,
)
from booktools.qmd import INLINE_PY, parse_file, split_front_matter
from conftest import ROOT, book_chapters, executed

STEMS = [p.stem for p in book_chapters()]


# What IPython prints for a displayed HTML object (an HTML table): on the page it is HTML, not
# printed text.
HTML_PLACEHOLDER = "<IPython.core.display.HTML object>"


def _printed(text: str) -> str:
    return text.replace(HTML_PLACEHOLDER, "")


def _code_cells(nb) -> list[str]:
    """The chapter's own code cells (not the ojs_define stand-in, not the figure cells)."""
    return [c.source for c in nb.cells if c.cell_type == "code"
            and not c.source.startswith((STANDIN_MARK, FIGURE_MARK))]


def _placeholders(path: Path) -> list[str]:
    """Stand-in inline values, for the tests that do not need the page's numbers."""
    lines = path.read_text(encoding="utf-8").splitlines()
    count = len(inline_expressions(lines, split_front_matter(lines)[1]))
    return [f"{1000 + i}" for i in range(count)]


def _page_values(stem: str) -> list[str]:
    """The inline values the harness (our Quarto) renders for the chapter, in document order."""
    return [text for _, text in executed(stem).inline]


@pytest.mark.parametrize("stem", STEMS)
def test_notebook_has_the_chapter_cells_in_order(stem: str) -> None:
    """Same Python cells as the harness (hence Quarto) runs, one note per OJS cell."""
    path = ROOT / "chapters" / f"{stem}.qmd"
    cells = parse_file(path)
    nb = chapter_notebook(path, _placeholders(path))
    expected = [c.source for c in cells
                if c.kind == "python" and c.options.get("eval") is not False]
    assert _code_cells(nb) == expected
    notes = [c for c in nb.cells if c.cell_type == "markdown" and c.source == ojs_note(stem)]
    figures = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(FIGURE_MARK)]
    ojs = [c for c in cells if c.kind == "ojs"]
    assert len(figures) == sum(figure_call(c.source) is not None for c in ojs)
    assert len(notes) + len(figures) == len(ojs), "each widget is a figure cell or a note"
    for c in nb.cells:
        if c.cell_type == "markdown":
            assert "```{ojs}" not in c.source, "an OJS cell leaked into the notebook's markdown"
    assert nb.cells[0].source.startswith("# "), "the notebook opens with the chapter's title"
    assert SETUP in nb.cells[0].source, "the first cell says how to set up"


def test_the_set_up_cell_quotes_the_readme() -> None:
    """Every command and name the notebook's set-up sentence quotes is the README's own."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    quoted = re.findall(r"`([^`]+)`", SETUP)
    assert quoted
    missing = [q for q in quoted if q not in readme]
    assert not missing, f"the notebook's set-up cell quotes what the README does not say: {missing}"


@pytest.mark.parametrize("stem", STEMS)
def test_notebook_prose_carries_the_page_values(stem: str) -> None:
    """Each sentence with an inline value reads as on the page: the harness's value in place."""
    path = ROOT / "chapters" / f"{stem}.qmd"
    nb = chapter_notebook(path, _page_values(stem))
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "{python}" not in prose, f"{stem}: an inline expression is left as code"
    lines = path.read_text(encoding="utf-8").splitlines()
    values = iter(_page_values(stem))
    by_line: dict[int, str] = {}
    for index, _ in inline_expressions(lines, split_front_matter(lines)[1]):
        by_line[index] = INLINE_PY.sub(lambda _m: next(values), by_line.get(index, lines[index]),
                                       count=1)
    for index, filled in by_line.items():
        # The text around the line's citations (rendered as author-year links) reads as written.
        for piece in re.split(r"\[[^\[\]]*@[^\[\]]*\]|@[A-Za-z0-9_][\w:-]*", filled):
            assert piece.strip() in prose, f"{stem}:{index + 1}: not in the notebook: {filled!r}"


@pytest.mark.parametrize("stem", STEMS)
def test_notebook_citations_link_its_reference_list(stem: str) -> None:
    """No raw `[@key]` is left; every citation is author-year text linking an entry listed at
    the end, and every key the chapter cites has its entry."""
    path = ROOT / "chapters" / f"{stem}.qmd"
    nb = chapter_notebook(path, _placeholders(path))
    source = path.read_text(encoding="utf-8")
    keys = bibliography_keys(ROOT / "references.bib")
    cited = {k for k in re.findall(r"@([A-Za-z0-9_]+[A-Za-z0-9_:-]*[A-Za-z0-9_])", source)
             if k in keys}
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    body, references = "\n".join(markdown[:-1]), markdown[-1] if cited else ""
    masked = notebooks.CODE_SPAN.sub("", body)
    left = [k for k in re.findall(r"@([A-Za-z0-9_][\w:-]*[A-Za-z0-9_])", masked) if k in keys]
    assert not left, f"{stem}: raw citation keys in the notebook: {left}"
    linked = set(re.findall(r"\]\(#ref-([^)]+)\)", body))
    assert linked == cited, f"{stem}: cited {sorted(cited)}, linked {sorted(linked)}"
    if cited:
        assert references.startswith("## References")
        anchors = set(re.findall(r'<a id="ref-([^"]+)"></a>', references))
        assert anchors == cited
        assert re.search(r"\[[A-Z][^\]]*\d{4}[a-z]?\]\(#ref-", body), "author-year link text"


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_notebook_runs_elsewhere_with_the_chapter_output(stem: str, tmp_path: Path) -> None:
    """Run the notebook in a temporary directory outside the checkout: each cell prints what the
    page's cell prints, each figure cell shows a Plotly figure, and the prose it carries has its
    numbers and citations filled in."""
    nb = chapter_notebook(ROOT / "chapters" / f"{stem}.qmd", _page_values(stem))
    target = tmp_path / f"{stem}.ipynb"
    nbformat.write(nb, target)
    client = NotebookClient(
        nbformat.read(target, as_version=4),
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    ran = client.nb
    prose = "\n".join(c.source for c in ran.cells if c.cell_type == "markdown")
    assert "{python}" not in prose and "[@" not in prose
    outputs = [_printed(_text_of(c.outputs)) for c in ran.cells if c.cell_type == "code"
               and not c.source.startswith((STANDIN_MARK, FIGURE_MARK))]
    page = [_printed(text) for text in executed(stem).outputs]
    assert len(outputs) == len(page)
    for i, (mine, theirs) in enumerate(zip(outputs, page, strict=True)):
        assert mine == theirs, f"{stem}: code cell {i} prints differently in the notebook"
    for cell in ran.cells:
        if cell.cell_type == "code" and cell.source.startswith(FIGURE_MARK):
            shown = [o for o in cell.outputs
                     if "application/vnd.plotly.v1+json" in o.get("data", {})]
            assert len(shown) == 1, f"{stem}: figure cell shows no Plotly figure: {cell.source}"


# A chapter as Quarto renders it: one cell, prose with inline values on two lines.
FROZEN_CHAPTER = """---
title: "Frozen"
---

```{python}
x = 2
```

Two is `{python} x` and four is `{python} x * 2`.

Again, `{python} x + 1`.
"""
# The markdown Quarto's freezer keeps after executing it (the cell as a div, values filled in).
FROZEN_MARKDOWN = """---
title: "Frozen"
---

::: {.cell}
``` {.python .cell-code}
x = 2
```
:::

Two is 2 and four is 4.

Again, 3.
"""


def _frozen_project(tmp_path: Path, hash_of: str) -> Path:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "_quarto.yml").write_text("project:\n  type: book\n", encoding="utf-8")
    chapter = tmp_path / "chapters" / "99-frozen.qmd"
    chapter.parent.mkdir()
    chapter.write_text(FROZEN_CHAPTER, encoding="utf-8")
    store = tmp_path / "_freeze" / "chapters" / "99-frozen" / "execute-results"
    store.mkdir(parents=True)
    result = {"hash": hashlib.md5(hash_of.encode("utf-8")).hexdigest(),
              "result": {"engine": "jupyter", "markdown": FROZEN_MARKDOWN, "supporting": [],
                         "filters": [], "includes": {}}}
    (store / "html.json").write_text(json.dumps(result), encoding="utf-8")
    return chapter


def test_values_come_from_quartos_freeze_store(tmp_path: Path, monkeypatch) -> None:
    """After a render, the values are read from _freeze (what the page printed), not recomputed;
    a freeze entry for another version of the chapter is not used."""
    chapter = _frozen_project(tmp_path, FROZEN_CHAPTER)

    def no_kernel(path, timeout=600):
        raise AssertionError("executed the chapter although the freeze store holds its values")

    monkeypatch.setattr(notebooks, "executed_values", no_kernel)
    assert page_values(chapter) == ["2", "4", "3"]
    nb = chapter_notebook(chapter)
    assert "Two is 2 and four is 4." in nb.cells[-1].source
    stale = _frozen_project(tmp_path / "stale", FROZEN_CHAPTER.replace("Again", "Once more"))
    assert frozen_values(stale) is None


def test_values_without_a_freeze_store_come_from_executing(tmp_path: Path) -> None:
    """By hand, with no render before it, the builder executes the chapter for its values."""
    chapter = _frozen_project(tmp_path, "another version")
    assert page_values(chapter) == ["2", "4", "3"]


def test_every_chapter_page_links_its_notebook() -> None:
    """Quarto writes each notebook (post-render) and each page links it (code-links)."""
    project = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))
    assert project["project"]["post-render"] == "scripts/build_notebooks.py"
    for stem in STEMS:
        text = (ROOT / "chapters" / f"{stem}.qmd").read_text(encoding="utf-8")
        front = yaml.safe_load(text.split("\n---\n", 1)[0].removeprefix("---\n"))
        links = front.get("code-links") or []
        assert {"text": "Download as a Jupyter notebook", "icon": "journal-code",
                "href": f"{stem}.ipynb"} in links, f"{stem}: no link to its notebook"


def test_build_writes_one_notebook_per_chapter(tmp_path: Path) -> None:
    """The post-render hook writes <out>/chapters/<stem>.ipynb for every chapter, valid nbformat."""
    written = write_notebooks(tmp_path, values=_placeholders)
    assert sorted(p.name for p in written) == sorted(f"{s}.ipynb" for s in STEMS)
    for path in written:
        nbformat.validate(nbformat.read(path, as_version=4))


@pytest.mark.browser
@pytest.mark.parametrize("width", [400, 1100])
def test_the_notebook_link_is_reachable_on_a_phone(open_chapter, width: int) -> None:
    """Quarto hides the margin column (and the code-links in it) below 768 px: on a phone the
    chapter's notebook link must still be on screen, not covered, and lead to the notebook."""
    page = open_chapter("01-test-time-compute", width=width, full=True).page
    link = page.get_by_role("link", name="Download as a Jupyter notebook")
    assert link.count() == 1
    link.scroll_into_view_if_needed()
    assert link.is_visible(), f"at {width} px the notebook link is hidden"
    box = link.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    # The middle of the link's first line of text (at 1,100 px the margin wraps it) is the link.
    hit = link.evaluate(
        """(a) => { const r = a.getClientRects()[0];
                    const e = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                    return e !== null && e.closest('a') === a; }"""
    )
    assert hit, f"at {width} px something covers the notebook link"
    with page.expect_request(lambda r: r.url.endswith("/chapters/01-test-time-compute.ipynb")):
        link.click(modifiers=[])
