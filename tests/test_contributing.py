"""CONTRIBUTING.md's map of the book stays true: each chapter's modules, widgets and tests.

The table under "## Where each chapter lives" has one row per chapter. Its modules are exactly
the `code/` modules the chapter's Python imports, its widgets exactly the `widgets/` files its
`{ojs}` cells import, and its tests name files that exist and mention the chapter: its
`test_chapter_<stem>.py`, its `test_widgets_<stem>.py` if there is one, and every other widget
test that opens it. A rename or a new import that the table does not follow fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from booktools.qmd import book_chapters, parse_file
from conftest import ROOT

SECTION = "## Where each chapter lives"
OJS_IMPORT = re.compile(r'import\s*\{[^}]*\}\s*from\s*"\.\./widgets/([\w.-]+\.js)"')
NAME = re.compile(r"`([^`]+)`")


def table_rows(text: str) -> dict[str, dict[str, list[str]]]:
    """The section's table: chapter stem -> {"modules", "widgets", "tests"} (backticked names)."""
    assert SECTION in text, f"CONTRIBUTING.md has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows: dict[str, dict[str, list[str]]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 4 or set(cells[0]) <= {"-", " "}:
            continue
        stem = NAME.findall(cells[0])
        if not stem:  # the header row
            continue
        modules, widgets, tests = (NAME.findall(c) for c in cells[1:])
        rows[stem[0]] = {"modules": modules, "widgets": widgets, "tests": tests}
    return rows


def chapter_imports(path: Path) -> tuple[set[str], set[str]]:
    """The `code/` modules a chapter's Python cells import, and the widgets its OJS imports."""
    modules, widgets = set(), set()
    for cell in parse_file(path):
        if cell.kind == "python":
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
                elif isinstance(node, ast.Import):
                    modules.update(alias.name.split(".")[0] for alias in node.names)
        elif cell.kind == "ojs":
            widgets.update(OJS_IMPORT.findall(cell.source))
    return {m for m in modules if (ROOT / "code" / f"{m}.py").exists()}, widgets


def table_problems(text: str, root: Path = ROOT) -> list[str]:
    """Everything in the table that disagrees with the tree (an empty list when it is true)."""
    rows = table_rows(text)
    chapters = {p.stem: p for p in book_chapters(root)}
    on_disk = {p.stem for p in (root / "chapters").glob("*.qmd")}
    problems = [f"{stem}: no row" for stem in sorted(on_disk - set(rows))]
    problems += [f"{stem}: a row for a chapter that is not in the book" for stem in
                 sorted(set(rows) - set(chapters))]
    for stem, row in rows.items():
        if stem not in chapters:
            continue
        for kind, folder, fmt in (("modules", "code", "{}.py"), ("widgets", "widgets", "{}"),
                                  ("tests", "tests", "{}")):
            for name in row[kind]:
                if not (root / folder / fmt.format(name)).exists():
                    problems.append(f"{stem}: {folder}/{fmt.format(name)} does not exist")
        modules, widgets = chapter_imports(chapters[stem])
        if set(row["modules"]) != modules:
            problems.append(f"{stem}: modules {sorted(row['modules'])}, the chapter imports "
                            f"{sorted(modules)}")
        if set(row["widgets"]) != widgets:
            problems.append(f"{stem}: widgets {sorted(row['widgets'])}, the chapter imports "
                            f"{sorted(widgets)}")
        own = {f"test_chapter_{stem}.py", f"test_widgets_{stem}.py"}
        required = {f"test_chapter_{stem}.py"} | {
            p.name for p in (root / "tests").glob("test_widgets_*.py")
            if p.name in own or stem in p.read_text(encoding="utf-8")
        }
        for name in sorted(required - set(row["tests"])):
            problems.append(f"{stem}: tests/{name} tests this chapter but is not listed")
        for name in row["tests"]:
            path = root / "tests" / name
            if path.exists() and stem not in path.read_text(encoding="utf-8"):
                problems.append(f"{stem}: tests/{name} does not mention the chapter")
    return problems


CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_the_table_maps_every_chapter_to_what_it_uses():
    assert table_problems(CONTRIBUTING) == []


def _replace_in_row(text: str, stem: str, old: str, new: str) -> str:
    """The same CONTRIBUTING text with `old` replaced by `new` in one chapter's row."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(f"| `{stem}`"):
            assert old in line, (stem, old)
            lines[i] = line.replace(old, new)
            return "\n".join(lines)
    raise AssertionError(f"no row for {stem}")


@pytest.mark.parametrize(
    ("stem", "old", "new", "complaint"),
    [
        # A module renamed in the tree but not in the table (a stale row).
        ("09-tree-of-thoughts", "`game24`", "`game_of_24`", "code/game_of_24.py does not exist"),
        # A module the chapter imports, dropped from its row.
        ("04-grpo", "`grpo`, ", "", "the chapter imports"),
        # A widget listed that the chapter does not import.
        ("12-controlling-thinking", "`r1_budget.js`", "`r1_budget.js`, `r1_runs.js`",
         "the chapter imports"),
        # The chapter's own test left out.
        ("06-gspo", "`test_chapter_06-gspo.py`, ", "", "is not listed"),
    ],
)
def test_a_stale_row_is_refused(stem, old, new, complaint):
    problems = table_problems(_replace_in_row(CONTRIBUTING, stem, old, new))
    assert any(p.startswith(stem) and complaint in p for p in problems), problems


def test_a_missing_row_is_refused():
    lines = [line for line in CONTRIBUTING.split("\n") if not line.startswith("| `05-dr-grpo`")]
    assert "05-dr-grpo: no row" in table_problems("\n".join(lines))
