"""Split a Quarto chapter (.qmd) into the pieces Quarto executes.

A chapter is prose with fenced code cells. Quarto runs ```{python} cells in a Jupyter kernel,
hands ```{ojs} cells to the Observable runtime in the browser, and evaluates inline
`{python} expr` expressions in the prose. This module finds all three, in document order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

FENCE_OPEN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})\s*\{(?P<lang>[A-Za-z0-9_-]+)(?P<attrs>[^}]*)\}\s*$"
)
INLINE_PY = re.compile(r"`\{python\}\s+([^`]+)`")


# Quarto's rule (quarto-cli src/core/lib/partition-cell-options.ts, `optionCommentPattern`): a cell's
# options are its *leading* lines that match the language's comment, optional whitespace, `|` and
# one optional space. So `# |y| = 1` at the top of a python cell is an option line, and its YAML
# must parse; a comment that merely starts with `#` ends the options.
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
    are the defaults under each python cell's own options, as Quarto merges them.
    """
    lines = text.splitlines()
    cells: list[Cell] = []
    i = 0
    in_plain_fence: str | None = None
    front_matter = None
    if lines[:1] == ["---"]:  # YAML front matter
        i = 1
        while i < len(lines) and lines[i].strip() != "---":
            i += 1
        front_matter = yaml.safe_load("\n".join(lines[1:i])) or {}
        i += 1
    defaults = execute_defaults(project, front_matter)
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
                options = cell_options(lang, source, i + 1)
                if lang == "python":
                    options = {**defaults, **options}
                cells.append(Cell(lang, source, i + 1, options))
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
    """Parse a chapter file, with the `execute:` defaults of the nearest _quarto.yml above it."""
    path = Path(path).resolve()
    project = None
    for folder in path.parents:
        if (folder / "_quarto.yml").exists():
            project = yaml.safe_load((folder / "_quarto.yml").read_text(encoding="utf-8"))
            break
    return parse_qmd(path.read_text(encoding="utf-8"), project)
