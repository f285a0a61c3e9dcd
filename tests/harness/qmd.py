"""Split a Quarto chapter (.qmd) into the pieces Quarto executes.

A chapter is prose with fenced code cells. Quarto runs ```{python} cells in a Jupyter kernel,
hands ```{ojs} cells to the Observable runtime in the browser, and evaluates inline
`{python} expr` expressions in the prose. This module finds all three, in document order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

FENCE_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})\s*\{(?P<lang>[A-Za-z0-9_-]+)(?P<attrs>[^}]*)\}\s*$"
)
INLINE_PY = re.compile(r"`\{python\}\s+([^`]+)`")


@dataclass
class Cell:
    """One executable piece of a chapter."""

    kind: str  # "python", "ojs" or "inline"
    source: str
    line: int  # 1-based line of the opening fence (or of the inline expression)
    options: dict[str, str] = field(default_factory=dict)


def _cell_options(source: str) -> dict[str, str]:
    """Quarto's `#| key: value` (python) and `//| key: value` (ojs) cell options."""
    options = {}
    for line in source.splitlines():
        m = re.match(r"^\s*(#|//)\|\s*([\w-]+)\s*:\s*(.*?)\s*$", line)
        if not m:
            break
        options[m.group(2)] = m.group(3)
    return options


def parse_qmd(text: str) -> list[Cell]:
    """Return the chapter's python, ojs and inline cells in document order."""
    lines = text.splitlines()
    cells: list[Cell] = []
    i = 0
    in_plain_fence: str | None = None
    front_matter = lines[:1] == ["---"]
    if front_matter:  # skip YAML front matter
        i = 1
        while i < len(lines) and lines[i].strip() != "---":
            i += 1
        i += 1
    while i < len(lines):
        line = lines[i]
        if in_plain_fence is not None:  # inside a non-executable ``` block: skip it
            closing = line.strip()
            if closing.startswith(in_plain_fence) and closing.strip(in_plain_fence[0]) == "":
                in_plain_fence = None
            i += 1
            continue
        m = FENCE_OPEN.match(line)
        if m:
            ticks, lang = m.group("ticks"), m.group("lang")
            body, j = [], i + 1
            while j < len(lines) and lines[j].strip() != ticks:
                body.append(lines[j])
                j += 1
            if j == len(lines):
                raise ValueError(f"unclosed ```{{{lang}}} cell opened at line {i + 1}")
            source = "\n".join(body)
            if lang in ("python", "ojs"):
                cells.append(Cell(lang, source, i + 1, _cell_options(source)))
            i = j + 1
            continue
        stripped = line.strip()
        plain = re.match(r"^(`{3,}|~{3,})", stripped)
        if plain:  # a display-only code block (```python, ```text, ...): not executed
            in_plain_fence = plain.group(1)
            i += 1
            continue
        for expr in INLINE_PY.findall(line):
            cells.append(Cell("inline", expr.strip(), i + 1))
        i += 1
    return cells


def parse_file(path: str | Path) -> list[Cell]:
    return parse_qmd(Path(path).read_text(encoding="utf-8"))
