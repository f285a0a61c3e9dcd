"""Each chapter's notebook runs from anywhere and prints what the chapter's page prints.

The notebook is built by booktools/notebooks.py (run by scripts/build_notebooks.py, Quarto's
post-render hook): prose and Python cells in order, ``{ojs}`` cells replaced by a note. It
runs in a fresh kernel whose working directory is a temporary folder outside ``chapters/``, so a
chapter that reads ``../data/...`` relative to its own page fails here, as it would for a reader
who downloaded the notebook.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient

from booktools.notebooks import chapter_notebook, ojs_note, write_notebooks
from booktools.qmd import parse_file
from conftest import ROOT, book_chapters, executed
from harness.kernel import _text_of

STEMS = [p.stem for p in book_chapters()]


# What IPython prints for a displayed HTML object (an ojs_define payload, an HTML table): on the
# page it is HTML, not printed text, and the notebook's ojs_define stand-in displays nothing.
HTML_PLACEHOLDER = "<IPython.core.display.HTML object>"


def _printed(text: str) -> str:
    return text.replace(HTML_PLACEHOLDER, "")


def _code_cells(nb) -> list[str]:
    """The chapter's own code cells (not the ojs_define stand-in)."""
    return [c.source for c in nb.cells if c.cell_type == "code"
            and not c.source.startswith("# On the book's web page, ojs_define()")]


@pytest.mark.parametrize("stem", STEMS)
def test_notebook_has_the_chapter_cells_in_order(stem: str) -> None:
    """Same Python cells as the harness (hence Quarto) runs, one note per OJS cell."""
    path = ROOT / "chapters" / f"{stem}.qmd"
    cells = parse_file(path)
    nb = chapter_notebook(path)
    expected = [c.source for c in cells
                if c.kind == "python" and c.options.get("eval") is not False]
    assert _code_cells(nb) == expected
    notes = [c for c in nb.cells if c.cell_type == "markdown" and c.source == ojs_note(stem)]
    assert len(notes) == sum(c.kind == "ojs" for c in cells)
    for c in nb.cells:
        if c.cell_type == "markdown":
            assert "```{ojs}" not in c.source, "an OJS cell leaked into the notebook's markdown"
    assert nb.cells[0].source.startswith("# "), "the notebook opens with the chapter's title"


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_notebook_runs_elsewhere_with_the_chapter_output(stem: str, tmp_path: Path) -> None:
    """Run the notebook in a temporary directory; each cell prints what the page's cell prints."""
    nb = chapter_notebook(ROOT / "chapters" / f"{stem}.qmd")
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
    outputs = [_printed(_text_of(c.outputs)) for c in ran.cells if c.cell_type == "code"
               and not c.source.startswith("# On the book's web page, ojs_define()")]
    page = [_printed(text) for text in executed(stem).outputs]
    assert len(outputs) == len(page)
    for i, (mine, theirs) in enumerate(zip(outputs, page, strict=True)):
        assert mine == theirs, f"{stem}: code cell {i} prints differently in the notebook"


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
    written = write_notebooks(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{s}.ipynb" for s in STEMS)
    for path in written:
        nbformat.validate(nbformat.read(path, as_version=4))
