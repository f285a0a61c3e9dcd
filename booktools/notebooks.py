"""One Jupyter notebook per chapter, the file each chapter page's "Download as a Jupyter notebook"
link points to.

Quarto 1.7 cannot write these for a book: a book project keeps only the formats that have a book
extension (html, pdf, epub, docx, ...), so `ipynb` is dropped with "The ipynb format is not
supported by book projects". `chapter_notebook` does what `quarto convert` does to a .qmd (prose
becomes markdown cells, each ```{python} cell a code cell, in order), with two changes so the
notebook runs top to bottom in plain Jupyter:

- ``{ojs}`` cells run only in the browser, so each becomes a markdown note that points to the
  chapter's web page, where the widget lives;
- ``ojs_define`` (defined by Quarto's kernel set-up on the page) gets a stand-in that does
  nothing, because in Jupyter there are no widgets to hand the values to.

The chapter is read by `booktools.qmd.scan`, the same walk the tests' harness executes, so the
notebook holds exactly the Python cells the page runs. `scripts/build_notebooks.py` is the
command line (Quarto's post-render hook).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from booktools.qmd import (
    book_chapters,
    cell_options,
    execute_defaults,
    project_config,
    scan,
    split_front_matter,
)

OJS_DEFINE_STANDIN = '''\
# On the book's web page, ojs_define() hands these values to the interactive widgets.
# A notebook has no widgets, so here it does nothing.
def ojs_define(**values):
    """Stand-in for Quarto's ojs_define: the widgets live on the chapter's web page."""'''


def ojs_note(stem: str) -> str:
    """The markdown that stands in for an {ojs} cell."""
    return (
        f"> **Interactive widget.** This cell is Observable JavaScript and runs only in the book's "
        f"web page for this chapter (`chapters/{stem}.html`), where you can drag its inputs."
    )


def chapter_notebook(path: str | Path) -> nbformat.NotebookNode:
    """The notebook of one chapter: its prose and Python cells in order, OJS cells as notes."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    front_matter, start = split_front_matter(lines)
    defaults = execute_defaults(project_config(path), front_matter)
    title = (front_matter or {}).get("title")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3", "language": "python", "display_name": "Python 3"
    }
    nb.metadata["language_info"] = {"name": "python"}
    intro = [f"# {title}\n"] if title else []
    intro.append(
        f"This notebook is chapter `{path.stem}` of *Reasoning & Test-Time Compute*. It runs top "
        "to bottom in a fresh kernel after the README's set-up (`pip install -r requirements.txt` "
        "and `pip install -e .`), from any directory. The interactive widgets run only on the "
        "chapter's web page."
    )
    nb.cells.append(nbformat.v4.new_markdown_cell("\n".join(intro)))
    if "ojs_define(" in text:
        nb.cells.append(nbformat.v4.new_code_cell(OJS_DEFINE_STANDIN))

    prose: list[str] = []

    def flush() -> None:
        body = "\n".join(prose).strip("\n")
        if body.strip():
            nb.cells.append(nbformat.v4.new_markdown_cell(body))
        prose.clear()

    for span in scan(lines, start):
        if span.kind != "cell" or span.lang not in ("python", "ojs"):
            # Prose, a display-only block, or a cell Quarto draws itself (mermaid): markdown.
            prose.extend(span.lines)
            continue
        flush()
        if span.lang == "ojs":
            nb.cells.append(nbformat.v4.new_markdown_cell(ojs_note(path.stem)))
            continue
        options = {**defaults, **cell_options("python", span.source, span.start + 1)}
        if options.get("eval") is False:  # shown on the page, never run: keep it as shown code
            nb.cells.append(nbformat.v4.new_markdown_cell(f"```python\n{span.source}\n```"))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(span.source))
    flush()
    return nb


def write_notebooks(out_dir: str | Path, chapters: list[Path] | None = None) -> list[Path]:
    """Write each chapter's notebook to ``out_dir/chapters/<stem>.ipynb``; return the paths."""
    written = []
    for chapter in chapters if chapters is not None else book_chapters():
        target = Path(out_dir) / "chapters" / f"{chapter.stem}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(chapter_notebook(chapter), target)
        written.append(target)
    return written
