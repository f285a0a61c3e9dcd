"""Read a Quarto chapter (.qmd) the way Quarto does: its front matter, prose and cells.

A chapter is prose with fenced code cells. Quarto runs ```{python} cells in a Jupyter kernel,
hands ```{ojs} cells to the Observable runtime in the browser, and evaluates inline
`{python} expr` expressions in the prose. `scan` walks a chapter once, in document order, and
says which lines are prose, which belong to a display-only code block and which form an
executable cell; `parse_qmd` (the tests' harness) and `booktools.notebooks` (the notebook each
chapter page links) both read chapters through it, so they cannot disagree about where a cell
starts or ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

FENCE_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})\s*\{(?P<lang>[A-Za-z0-9_-]+)(?P<attrs>[^}]*)\}\s*$"
)
# A fence that Quarto does not execute (```python, ```text, ~~~, ```` around an example).
PLAIN_FENCE = re.compile(r"^(`{3,}|~{3,})")
INLINE_PY = re.compile(r"`\{python\}\s+([^`]+)`")


def book_chapters(root: Path = ROOT) -> list[Path]:
    """The chapters listed in the book's _quarto.yml, in reading order."""
    text = (Path(root) / "_quarto.yml").read_text(encoding="utf-8")
    return [Path(root) / m for m in re.findall(r"^\s*-\s*(chapters/[\w.-]+\.qmd)\s*$", text, re.M)]


def split_front_matter(lines: list[str]) -> tuple[dict | None, int]:
    """The chapter's YAML front matter (None if it has none) and the index of the line after it."""
    if lines[:1] != ["---"]:
        return None, 0
    end = 1
    while end < len(lines) and lines[end].strip() != "---":
        end += 1
    return yaml.safe_load("\n".join(lines[1:end])) or {}, end + 1


@dataclass(frozen=True)
class Span:
    """A piece of a chapter's body: one prose line, one line of a display-only block, or a cell.

    ``kind`` is "prose" (markdown, where inline `{python}` expressions live), "shown" (a line of
    a code block that is displayed, not run, its fences included) or "cell" (an executable
    ```{lang} cell, of any language: python, ojs, mermaid, ...). ``start`` is the index of the
    span's first line in the chapter's lines; ``lines`` are the span's lines, a cell's with its
    opening and closing fences.
    """

    kind: str
    start: int
    lines: tuple[str, ...]
    lang: str = ""

    @property
    def source(self) -> str:
        """A cell's code, without its fences."""
        return "\n".join(self.lines[1:-1])


def scan(lines: list[str], start: int = 0) -> Iterator[Span]:
    """Walk the chapter's lines from ``start`` (after the front matter) in document order.

    An executable cell opens with ```{lang} (optionally indented) and closes at the first line
    that is exactly its run of backticks: Quarto's rule. Any other fence (```python, ~~~,
    ````markdown) opens a display-only block, closed by a fence of the same character at least as
    long; a ```{python} inside one is an example on the page, not a cell. An unclosed cell
    raises ValueError, as Quarto's render fails on it.
    """
    i, shown = start, None  # `shown`: the fence of the display-only block we are inside
    while i < len(lines):
        line = lines[i]
        if shown is not None:
            closing = line.strip()
            if closing.startswith(shown) and closing.strip(shown[0]) == "":
                shown = None
            yield Span("shown", i, (line,))
            i += 1
            continue
        m = FENCE_OPEN.match(line)
        if m:
            ticks, j = m.group("ticks"), i + 1
            while j < len(lines) and lines[j].strip() != ticks:
                j += 1
            if j == len(lines):
                raise ValueError(f"unclosed ```{{{m.group('lang')}}} cell opened at line {i + 1}")
            yield Span("cell", i, tuple(lines[i : j + 1]), m.group("lang"))
            i = j + 1
            continue
        plain = PLAIN_FENCE.match(line.strip())
        if plain:
            shown = plain.group(1)
            yield Span("shown", i, (line,))
        else:
            yield Span("prose", i, (line,))
        i += 1


# Quarto's rule (quarto-cli src/core/lib/partition-cell-options.ts, `optionCommentPattern`):
# a cell's options are its *leading* lines that match the language's comment, optional
# whitespace, `|` and one optional space. So `# |y| = 1` at the top of a python cell is an option
# line, and its YAML must parse; a comment that merely starts with `#` ends the options.
OPTION_LINE = {"python": re.compile(r"^#\s*\| ?"), "ojs": re.compile(r"^//\s*\| ?")}

# The cell options this book may use, with the YAML types Quarto's schema gives them
# (quarto-cli src/resources/schema/cell-*.yml). A key outside this table is refused: a typo such as
# `inculde: false` would otherwise be ignored by Quarto and silently keep the output.
_BOOL = (bool,)
KNOWN_OPTIONS: dict[str, tuple[type, ...] | tuple[object, ...]] = {
    "echo": (bool, "fenced"),
    "eval": _BOOL,
    "include": _BOOL,
    "output": (bool, "asis"),
    "warning": _BOOL,
    "error": _BOOL,
    "code-fold": (bool, "show"),
    "code-summary": (str,),
    "code-overflow": ("scroll", "wrap"),
    "label": (str,),
    "fig-cap": (str,),
    "fig-alt": (str,),
    "fig-width": (int, float),
    "fig-height": (int, float),
    "tbl-cap": (str,),
    "classes": (str,),
}


class CellOptionError(ValueError):
    """A cell's option lines are not valid YAML cell metadata (Quarto aborts the render)."""


@dataclass
class Cell:
    """One executable piece of a chapter."""

    kind: str  # "python", "ojs" or "inline"
    source: str
    line: int  # 1-based line of the opening fence (or of the inline expression)
    options: dict[str, object] = field(default_factory=dict)


def _allowed(value: object, allowed: tuple) -> bool:
    for a in allowed:
        if isinstance(a, type):
            # YAML's `true` is a bool, and bool is an int: a number option must not take it.
            if isinstance(value, a) and not (a in (int, float) and isinstance(value, bool)):
                return True
        elif value == a and not isinstance(value, bool):
            return True
    return False


def cell_options(lang: str, source: str, line: int = 0) -> dict[str, object]:
    """Parse a cell's options as Quarto does; raise CellOptionError where Quarto would abort."""
    pattern = OPTION_LINE.get(lang)
    if pattern is None:
        return {}
    yaml_lines = []
    for text in source.splitlines():
        m = pattern.match(text)
        if not m:
            break
        yaml_lines.append(text[m.end():])
    if not yaml_lines:
        return {}
    where = f"cell at line {line}"
    try:
        options = yaml.safe_load("\n".join(yaml_lines))
    except yaml.YAMLError as err:
        raise CellOptionError(
            f"Validation of YAML cell metadata failed ({where}): not YAML: {err}"
        ) from None
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise CellOptionError(
            f"Validation of YAML cell metadata failed ({where}): the option lines "
            f"{yaml_lines!r} are not `key: value` pairs. A comment at the top of a cell must not "
            "start with `#` + optional spaces + `|`."
        )
    for key, value in options.items():
        if key not in KNOWN_OPTIONS:
            raise CellOptionError(
                f"Validation of YAML cell metadata failed ({where}): unknown option {key!r}; "
                f"known: {sorted(KNOWN_OPTIONS)}"
            )
        if not _allowed(value, KNOWN_OPTIONS[key]):
            raise CellOptionError(
                f"Validation of YAML cell metadata failed ({where}): {key}: {value!r} is not one "
                f"of {KNOWN_OPTIONS[key]}"
            )
    return options


def output_dropped(options: dict[str, object]) -> str | None:
    """Why Quarto drops this python cell's output (so an `ojs_define` in it never reaches OJS)."""
    for key in ("include", "output", "eval"):
        if options.get(key) is False:
            return f"{key}: false"
    return None


# Document-level `execute:` keys that act as defaults for every python cell's options.
EXECUTE_CELL_KEYS = ("echo", "eval", "include", "output", "warning", "error")


def execute_defaults(*configs: dict | None) -> dict[str, object]:
    """The cell-option defaults set by `execute:` in _quarto.yml, then in the front matter."""
    defaults: dict[str, object] = {}
    for config in configs:
        execute = (config or {}).get("execute") or {}
        defaults.update({k: v for k, v in execute.items() if k in EXECUTE_CELL_KEYS})
    return defaults


def parse_qmd(text: str, project: dict | None = None) -> list[Cell]:
    """Return the chapter's python, ojs and inline cells in document order.

    `project` is the parsed _quarto.yml, whose `execute:` options (and then the front matter's)
    are the defaults under each python cell's own options, as Quarto merges them. Cells of other
    languages (mermaid, ...) are drawn by Quarto's own scripts and are not returned.
    """
    lines = text.splitlines()
    front_matter, start = split_front_matter(lines)
    defaults = execute_defaults(project, front_matter)
    cells: list[Cell] = []
    for span in scan(lines, start):
        if span.kind == "cell" and span.lang in ("python", "ojs"):
            options = cell_options(span.lang, span.source, span.start + 1)
            if span.lang == "python":
                options = {**defaults, **options}
            cells.append(Cell(span.lang, span.source, span.start + 1, options))
        elif span.kind == "prose":
            for expr in INLINE_PY.findall(span.lines[0]):
                cells.append(Cell("inline", expr.strip(), span.start + 1))
    return cells


def project_config(path: str | Path) -> dict | None:
    """The parsed _quarto.yml of the project a chapter belongs to (the nearest one above it)."""
    for folder in Path(path).resolve().parents:
        if (folder / "_quarto.yml").exists():
            return yaml.safe_load((folder / "_quarto.yml").read_text(encoding="utf-8"))
    return None


def parse_file(path: str | Path) -> list[Cell]:
    """Parse a chapter file, with the `execute:` defaults of the nearest _quarto.yml above it."""
    return parse_qmd(Path(path).read_text(encoding="utf-8"), project_config(path))
