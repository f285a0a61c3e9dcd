"""Build one Jupyter notebook per chapter, next to the chapter's page in the rendered book.

Quarto 1.7 cannot do this for a book: a book project keeps only the formats that have a book
extension (html, pdf, epub, docx, ...), so `ipynb` is dropped with "The ipynb format is not
supported by book projects", and book pages never show `format-links`. This script does what
`quarto convert` does to a .qmd (prose becomes markdown cells, each ```{python} cell a code cell,
in order), with two changes so the notebook runs top to bottom in plain Jupyter:

- ``{ojs}`` cells run only in the browser, so each becomes a markdown note that points to the
  chapter's web page, where the widget lives;
- ``ojs_define`` (defined by Quarto's kernel set-up on the page) gets a stand-in that does
  nothing, because in Jupyter there are no widgets to hand the values to.

Quarto runs it after a render (``post-render`` in _quarto.yml) and it writes
``<output-dir>/chapters/<stem>.ipynb``, the file each chapter's "Download as a Jupyter notebook"
link (``code-links`` in its front matter) points to. By hand: ``python scripts/build_notebooks.py
[--out DIR]``.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]

# The fences Quarto executes (the same rule as tests/harness/qmd.py, which the tests compare).
FENCE_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})\s*\{(?P<lang>[A-Za-z0-9_-]+)(?P<attrs>[^}]*)\}\s*$"
)
PLAIN_FENCE = re.compile(r"^(`{3,}|~{3,})")
OPTION = re.compile(r"^#\s*\| ?(?P<key>[\w-]+)\s*:\s*(?P<value>.*)$")

OJS_DEFINE_STANDIN = '''\
# On the book's web page, ojs_define() hands these values to the interactive widgets.
# A notebook has no widgets, so here it does nothing.
def ojs_define(**values):
    """Stand-in for Quarto's ojs_define: the widgets live on the chapter's web page."""'''


def book_chapters(root: Path = ROOT) -> list[Path]:
    """The chapters listed in _quarto.yml, in reading order."""
    text = (root / "_quarto.yml").read_text(encoding="utf-8")
    return [root / m for m in re.findall(r"^\s*-\s*(chapters/[\w.-]+\.qmd)\s*$", text, re.M)]


def _front_matter(lines: list[str]) -> tuple[str | None, int]:
    """The chapter's title (front matter) and the index of the first line after it."""
    if lines[:1] != ["---"]:
        return None, 0
    end = lines.index("---", 1)
    title = None
    for line in lines[1:end]:
        m = re.match(r"^title:\s*(.+?)\s*$", line)
        if m:
            title = m.group(1).strip("\"'")
    return title, end + 1


def _skips_eval(source: str) -> bool:
    """True if the cell's leading option lines say `eval: false` (Quarto does not run it)."""
    for line in source.splitlines():
        m = OPTION.match(line)
        if not m:
            break
        if m.group("key") == "eval" and m.group("value").strip() == "false":
            return True
    return False


def ojs_note(stem: str) -> str:
    """The markdown that stands in for an {ojs} cell."""
    return (
        f"> **Interactive widget.** This cell is Observable JavaScript and runs only in the book's "
        f"web page for this chapter (`chapters/{stem}.html`), where you can drag its inputs."
    )


def chapter_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook of one chapter: its prose and Python cells in order, OJS cells as notes."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    title, i = _front_matter(lines)
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

    plain: str | None = None
    while i < len(lines):
        line = lines[i]
        if plain is not None:  # inside a display-only block: prose, even if it shows a fence
            prose.append(line)
            closing = line.strip()
            if closing.startswith(plain) and closing.strip(plain[0]) == "":
                plain = None
            i += 1
            continue
        m = FENCE_OPEN.match(line)
        if m and m.group("lang") in ("python", "ojs"):
            ticks, lang = m.group("ticks"), m.group("lang")
            j = i + 1
            while j < len(lines) and lines[j].strip() != ticks:
                j += 1
            source = "\n".join(lines[i + 1 : j])
            flush()
            if lang == "ojs":
                nb.cells.append(nbformat.v4.new_markdown_cell(ojs_note(path.stem)))
            elif _skips_eval(source):  # shown on the page, never run: keep it as shown code
                nb.cells.append(nbformat.v4.new_markdown_cell(f"```python\n{source}\n```"))
            else:
                nb.cells.append(nbformat.v4.new_code_cell(source))
            i = j + 1
            continue
        p = PLAIN_FENCE.match(line.strip())
        if p:
            plain = p.group(1)
        prose.append(line)
        i += 1
    flush()
    return nb


def write_notebooks(out_dir: Path, chapters: list[Path] | None = None) -> list[Path]:
    """Write each chapter's notebook to ``out_dir/chapters/<stem>.ipynb``; return the paths."""
    written = []
    for chapter in chapters if chapters is not None else book_chapters():
        target = Path(out_dir) / "chapters" / f"{chapter.stem}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(chapter_notebook(chapter), target)
        written.append(target)
    return written


def main() -> None:
    """Quarto's post-render hook (output dir from QUARTO_PROJECT_OUTPUT_DIR), or --out DIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(os.environ.get("QUARTO_PROJECT_OUTPUT_DIR", ROOT / "_book")),
        help="the rendered book's directory (default: Quarto's output dir, else _book)",
    )
    args = parser.parse_args()
    for target in write_notebooks(args.out):
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
