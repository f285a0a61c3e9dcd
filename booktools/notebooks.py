"""One Jupyter notebook per chapter, the file each chapter page's "Download as a Jupyter notebook"
link points to.

Quarto 1.7 cannot write these for a book: a book project keeps only the formats that have a book
extension (html, pdf, epub, docx, ...), so `ipynb` is dropped with "The ipynb format is not
supported by book projects". `chapter_notebook` does what `quarto convert` does to a .qmd (prose
becomes markdown cells, each ```{python} cell a code cell, in order), with changes so that the
notebook reads as the page reads and runs top to bottom in plain Jupyter:

- each inline `{python} expr` in the prose becomes the value the page printed (`page_values`:
  Quarto's freeze store, which a render has just written, else a fresh execution of the chapter);
- each citation (`[@key]`, `@key`) becomes the page's author-year text, rendered by pandoc's
  citeproc from references.bib (Quarto's default style), linked to a reference list at the end
  of the notebook: a downloaded notebook travels without the book's references page;
- ``ojs_define`` (defined by Quarto's kernel set-up on the page) gets a stand-in that keeps the
  values in ``ojs``, as the page's widgets receive them (JSON);
- ``{ojs}`` cells run only in the browser: an ``{ojs}`` cell that names its Plotly twin
  (``// notebook: figures.name(value, ...)``) becomes a code cell that draws the same data with
  `code/figures.py`; any other becomes a note that points to the chapter's web page.

The chapter is read by `booktools.qmd.scan`, the same walk the tests' harness executes, so the
notebook holds exactly the Python cells the page runs. `scripts/build_notebooks.py` is the
command line (Quarto's post-render hook).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import nbformat

from booktools.qmd import (
    INLINE_PY,
    book_chapters,
    cell_options,
    execute_defaults,
    project_config,
    scan,
    split_front_matter,
)

# The values a chapter hands its widgets, kept as the widgets receive them: JSON, a DataFrame as
# a column dict (Quarto's own ojs_define converts it so). The figure cells draw from them.
OJS_DEFINE_STANDIN = '''\
# On the book's web page, ojs_define() hands these values to the interactive widgets. Here they
# are kept in `ojs`, as the widgets receive them (JSON), and the figure cells draw from them.
import json
from types import SimpleNamespace

ojs = SimpleNamespace()


def _as_sent(value):
    "What Quarto's ojs_define sends the page: a DataFrame (or Series) as {column: [values]}."
    try:
        import pandas as pd
    except ModuleNotFoundError:
        return value
    if isinstance(value, pd.Series):
        value = pd.DataFrame(value)
    if isinstance(value, pd.DataFrame):
        frame = json.loads(value.T.to_json(orient="split"))
        return dict(zip(frame["index"], frame["data"]))
    return value


def ojs_define(**values):
    "Keep each value under its name in `ojs`, as the page's widgets receive it."
    for name, value in values.items():
        setattr(ojs, name, json.loads(json.dumps(_as_sent(value))))'''
STANDIN_MARK = "# On the book's web page, ojs_define()"

# How a chapter names a widget's Plotly twin: a plain comment in its {ojs} cell (after the option
# lines, so Quarto reads it as JavaScript's comment, not as a cell option), e.g.
#     // notebook: figures.condorcet_figure(condorcet_mc)
# The names in the call are values the chapter handed to the page with ojs_define.
FIGURE_COMMENT = re.compile(r"^\s*//\s*notebook:\s*(?P<call>figures\.\w+\(.*\))\s*$", re.M)
FIGURE_MARK = "# The page draws this figure as an interactive widget"

SETUP = (
    "**Set up once.** This notebook needs a checkout of the book's repository and the README's "
    "set-up: `bash scripts/setup.sh` installs the Python packages (`requirements.txt`) and the "
    "book's own modules (`pip install -e .`, so `from reasoning import majority_vote` works in any "
    "Python). After that it runs top to bottom in a fresh kernel, from any directory: the modules "
    "find their data files themselves."
)


def ojs_note(stem: str) -> str:
    """The markdown that stands in for an {ojs} cell with no Plotly twin: the widgets that run a
    model in the reader's browser (the RL trainer, the tiny reasoner's live sampler), which
    tests/test_figures.py holds to be the only ones."""
    return (
        f"> **Interactive on the page only.** This widget runs a model in your browser: it is "
        f"Observable JavaScript in the book's web page for this chapter (`chapters/{stem}.html`), "
        "so the notebook cannot show it. Open the page to run it."
    )


def figure_call(ojs_source: str) -> str | None:
    """The Python call an {ojs} cell names for its Plotly twin, its names read from `ojs`."""
    m = FIGURE_COMMENT.search(ojs_source)
    if not m:
        return None
    tree = ast.parse(m.group("call"), mode="eval")

    class FromOjs(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id == "figures":
                return node
            return ast.copy_location(
                ast.Attribute(value=ast.Name("ojs", ast.Load()), attr=node.id, ctx=ast.Load()), node
            )

    return ast.unparse(FromOjs().visit(tree))


def figure_cell(call: str) -> str:
    """The notebook's code cell that shows a widget's Plotly twin."""
    return (
        f"{FIGURE_MARK}; here it is the same data as a Plotly figure.\n"
        f"import figures\n\n{call}"
    )


# --- inline `{python} expr` values: what the page printed -------------------------------------


def inline_expressions(lines: list[str], start: int) -> list[tuple[int, str]]:
    """Each inline expression of the prose as (line index, expression), in document order."""
    return [(span.start, expr.strip()) for span in scan(lines, start) if span.kind == "prose"
            for expr in INLINE_PY.findall(span.lines[0])]


def project_root(path: Path) -> Path:
    """The folder of the project's _quarto.yml (the chapter's own folder if there is none)."""
    for folder in path.resolve().parents:
        if (folder / "_quarto.yml").exists():
            return folder
    return path.resolve().parent


def freeze_file(path: Path) -> Path:
    """Where Quarto's freezer keeps a chapter's executed markdown (``freeze: auto``).

    quarto-cli src/project/project-freeze.ts: ``_freeze/<input path without .qmd>/execute-results/
    html.json`` holds ``{"hash": md5 of the input, "result": {"markdown": ...}}``, the markdown
    after execution, inline expressions replaced by their values (src/core/jupyter/
    jupyter-inline.ts: text/plain, as the page shows it). A project render copies it there before
    the post-render hook runs.
    """
    path = path.resolve()
    root = project_root(path)
    stem = path.relative_to(root).with_suffix("")
    return root / "_freeze" / stem / "execute-results" / "html.json"


def frozen_values(path: Path) -> list[str] | None:
    """The page's inline values from Quarto's freeze store, or None if it has none for this
    version of the chapter (no file, or the hash of another version of the source)."""
    target = freeze_file(path)
    if not target.exists():
        return None
    frozen = json.loads(target.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    if frozen.get("hash") != hashlib.md5(text.encode("utf-8")).hexdigest():
        return None
    lines = text.splitlines()
    _, start = split_front_matter(lines)
    executed = frozen["result"]["markdown"].splitlines()
    values: list[str] = []
    cursor = 0
    by_line: dict[int, int] = {}
    for index, _ in inline_expressions(lines, start):
        by_line[index] = by_line.get(index, 0) + 1
    for index in by_line:  # each prose line with expressions, in order: find it, filled in
        pieces = INLINE_PY.split(lines[index])[::2]  # the text around the expressions
        pattern = re.compile("^" + "(.+?)".join(re.escape(p) for p in pieces) + "$")
        while cursor < len(executed) and not pattern.match(executed[cursor]):
            cursor += 1
        if cursor == len(executed):
            return None  # not the markdown we expected: execute instead
        values.extend(pattern.match(executed[cursor]).groups())
        cursor += 1
    return values


def executed_values(path: Path, timeout: int = 600) -> list[str]:
    """The inline values, by executing the chapter's Python in a kernel in its folder.

    As Quarto's Jupyter engine does: each prose block's expressions are evaluated together, as
    `user_expressions`, after the cells above it; each renders as its text/plain.
    """
    from nbclient import NotebookClient

    lines = path.read_text(encoding="utf-8").splitlines()
    front_matter, start = split_front_matter(lines)
    defaults = execute_defaults(project_config(path), front_matter)
    steps: list[tuple[str, object]] = [("code", OJS_DEFINE_STANDIN)]
    for span in scan(lines, start):
        if span.kind == "cell" and span.lang == "python":
            options = {**defaults, **cell_options("python", span.source, span.start + 1)}
            if options.get("eval") is not False:
                steps.append(("code", span.source))
        elif span.kind == "prose":
            for expr in INLINE_PY.findall(span.lines[0]):
                steps.append(("inline", expr.strip()))
    nb = nbformat.v4.new_notebook()
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.resolve().parent)}})
    values: list[str] = []
    with client.setup_kernel():
        client.wait_for_reply(client.kc.kernel_info())
        pending: list[str] = []

        def evaluate() -> None:
            msg_id = client.kc.execute(
                "", user_expressions={str(i): e for i, e in enumerate(pending)}
            )
            content = client.wait_for_reply(msg_id)["content"]
            for i, expr in enumerate(pending):
                result = content["user_expressions"][str(i)]
                if result["status"] != "ok":
                    raise RuntimeError(f"{path.name}: inline `{{python}} {expr}` failed: "
                                       f"{result['ename']}: {result['evalue']}")
                values.append(result["data"].get("text/plain", "").strip())
            pending.clear()

        for kind, source in steps:
            if kind == "code":
                if pending:
                    evaluate()
                nb.cells.append(nbformat.v4.new_code_cell(source))
                client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
            else:
                pending.append(source)
        if pending:
            evaluate()
    return values


def page_values(path: str | Path) -> list[str]:
    """The values the page printed for the chapter's inline expressions, in document order:
    Quarto's freeze store when it holds this version of the chapter, else a fresh execution."""
    path = Path(path)
    values = frozen_values(path)
    return values if values is not None else executed_values(path)


def fill_inline(line: str, values: Iterator[str]) -> str:
    """The prose line with each inline expression replaced by the next value."""
    return INLINE_PY.sub(lambda _m: next(values), line)


# --- citations: author-year links to the notebook's reference list ----------------------------

# A bracketed citation group ([@a; @b, p. 3], [-@a]) or an author-in-text one (@a), as pandoc's
# markdown reads them; keys are checked against the bibliography, so `pass@k` or an e-mail stays.
CITE_GROUP = re.compile(r"\[(?P<body>[^\[\]\n]*?-?@[A-Za-z0-9_][^\[\]\n]*)\](?![(\[{])")
CITE_BARE = re.compile(r"(?<![\w@\[\]`-])@(?P<key>[A-Za-z0-9_][\w:.#$%&+?<>~/-]*[A-Za-z0-9_])")
CITE_KEY = re.compile(r"(?<![\w@])-?@(?P<key>[A-Za-z0-9_][\w:.#$%&+?<>~/-]*[A-Za-z0-9_])")
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)|\$\$.*?\$\$|\$[^$\n]+\$", re.S)


def bibliography_keys(bib: Path) -> set[str]:
    """The entry keys of a BibTeX file."""
    return set(re.findall(r"^@\w+\{([^,\s]+),", bib.read_text(encoding="utf-8"), re.M))


def _citations(text: str, keys: set[str]) -> list[tuple[int, int, str, list[str]]]:
    """Each citation in markdown text: (start, end, its markdown, its keys), outside code/math."""
    masked = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    found = []
    for m in CITE_GROUP.finditer(masked):
        cited = [k.group("key") for k in CITE_KEY.finditer(m.group("body"))]
        if cited and all(k in keys for k in cited):
            found.append((m.start(), m.end(), text[m.start():m.end()], cited))
    taken = [(s, e) for s, e, _, _ in found]
    for m in CITE_BARE.finditer(masked):
        if m.group("key") in keys and not any(s <= m.start() < e for s, e in taken):
            found.append((m.start(), m.end(), text[m.start():m.end()], [m.group("key")]))
    return sorted(found)


def _pandoc() -> str:
    import pypandoc

    return pypandoc.get_pandoc_path()


def render_citations(citations: list[str], bib: Path) -> tuple[list[str], str]:
    """Each citation as pandoc's citeproc renders it (the page's author-year style, linked to
    ``#ref-key``), and the reference list of the keys they cite, with those anchors."""
    import subprocess

    separator = "CITATIONBREAK"
    source = f"\n\n{separator}\n\n".join(citations) + "\n\n::: {#refs}\n:::\n"
    out = subprocess.run(
        [_pandoc(), "-f", "markdown", "-t", "gfm", "--citeproc", "--wrap=none",
         f"--bibliography={bib}", "-M", "link-citations=true"],
        input=source.encode("utf-8"), capture_output=True, check=True,
    ).stdout.decode("utf-8")
    body, refs = out.split('<div id="refs"', 1)
    rendered = [part.strip() for part in body.split(separator)]
    if len(rendered) != len(citations):
        raise ValueError(f"pandoc rendered {len(rendered)} citations for {len(citations)}")
    entries = re.findall(r'<div id="(ref-[^"]+)" class="csl-entry">\s*(.*?)\s*</div>', refs, re.S)
    listing = "\n".join(f'- <a id="{anchor}"></a>{entry}' for anchor, entry in entries)
    return rendered, listing


def link_citations(nb: nbformat.NotebookNode, bib: Path) -> None:
    """Replace the notebook's raw citation keys by pandoc's author-year text, each linked to the
    entry in a "References" cell appended at the end (the notebook travels without the book)."""
    keys = bibliography_keys(bib)
    markdown = [c for c in nb.cells if c.cell_type == "markdown"]
    found = {id(c): _citations(c.source, keys) for c in markdown}
    unique = sorted({text for cites in found.values() for _, _, text, _ in cites})
    if not unique:
        return
    rendered, listing = render_citations(unique, bib)
    as_text = dict(zip(unique, rendered, strict=True))
    for cell in markdown:
        source = cell.source
        for start, end, text, _ in reversed(found[id(cell)]):
            source = source[:start] + as_text[text] + source[end:]
        cell.source = source
    nb.cells.append(nbformat.v4.new_markdown_cell(f"## References\n\n{listing}"))


def chapter_notebook(path: str | Path, values: list[str] | None = None) -> nbformat.NotebookNode:
    """The notebook of one chapter: its prose, with the page's inline values and linked
    citations, its Python cells in order, and each widget as its Plotly twin (or a note).

    ``values`` are the page's inline values in document order (default: `page_values`).
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    front_matter, start = split_front_matter(lines)
    defaults = execute_defaults(project_config(path), front_matter)
    if values is None:
        values = page_values(path)
    expected = len(inline_expressions(lines, start))
    if len(values) != expected:
        raise ValueError(f"{path.name}: {len(values)} inline values for {expected} expressions")
    fill = iter(values)
    title = (front_matter or {}).get("title")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3", "language": "python", "display_name": "Python 3"
    }
    nb.metadata["language_info"] = {"name": "python"}
    intro = [f"# {title}\n"] if title else []
    intro.append(
        f"This notebook is chapter `{path.stem}` of *Reasoning & Test-Time Compute*: the page's "
        "prose, its Python cells in order and, where the page has an interactive widget, the same "
        "figure drawn with Plotly.\n"
    )
    intro.append(SETUP)
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
        if span.kind == "prose":
            prose.append(fill_inline(span.lines[0], fill))
            continue
        if span.kind != "cell" or span.lang not in ("python", "ojs"):
            # A display-only block, or a cell Quarto draws itself (mermaid): markdown.
            prose.extend(span.lines)
            continue
        flush()
        if span.lang == "ojs":
            call = figure_call(span.source)
            if call is None:
                nb.cells.append(nbformat.v4.new_markdown_cell(ojs_note(path.stem)))
            else:
                nb.cells.append(nbformat.v4.new_code_cell(figure_cell(call)))
            continue
        options = {**defaults, **cell_options("python", span.source, span.start + 1)}
        if options.get("eval") is False:  # shown on the page, never run: keep it as shown code
            nb.cells.append(nbformat.v4.new_markdown_cell(f"```python\n{span.source}\n```"))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(span.source))
    flush()
    bib = project_root(path) / "references.bib"
    if bib.exists():
        link_citations(nb, bib)
    return nb


def write_notebooks(
    out_dir: str | Path,
    chapters: list[Path] | None = None,
    values: Callable[[Path], list[str]] = page_values,
) -> list[Path]:
    """Write each chapter's notebook to ``out_dir/chapters/<stem>.ipynb``; return the paths.

    ``values(chapter)`` gives the page's inline values (default: `page_values`).
    """
    written = []
    for chapter in chapters if chapters is not None else book_chapters():
        target = Path(out_dir) / "chapters" / f"{chapter.stem}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(chapter_notebook(chapter, values(chapter)), target)
        written.append(target)
    return written
