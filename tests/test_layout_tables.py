"""The Layout tables of README.md and CONTRIBUTING.md name every module in code/, every file in
data/ and every script in scripts/, and nothing that is not there. Add a file, add its name (in
backticks, with a few words) to the row the failure names, in the same commit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from data_paths import DATA_DIR

ROOT = Path(__file__).resolve().parents[1]
FILE_NAME = re.compile(r"`([\w.-]+\.(?:py|sh|json|bin))`")
MODULE_NAME = re.compile(r"`(\w+)`")

FOLDERS = {
    "code": lambda: sorted(p.name for p in (ROOT / "code").glob("*.py")),
    "data": lambda: sorted(p.name for p in DATA_DIR.iterdir() if p.is_file()),
    "scripts": lambda: sorted(p.name for p in (ROOT / "scripts").iterdir()
                              if p.suffix in (".py", ".sh")),
}


def _section(text: str, heading: str) -> str:
    m = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, f"no '## {heading}' section"
    return m.group(1)


def layout_rows(doc: str) -> dict[str, str]:
    """The Layout table's rows, by the folder their first cell names (`code/NAME.py` -> code)."""
    rows = {}
    for line in _section((ROOT / doc).read_text(encoding="utf-8"), "Layout").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and (m := re.match(r"`(\w+)/", cells[0])):
            rows.setdefault(m.group(1), "|".join(cells[1:]))
    return rows


def chapter_table_modules() -> set[str]:
    """The modules CONTRIBUTING's "Where each chapter lives" table names (its second column)."""
    section = _section((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"),
                       "Where each chapter lives")
    names = set()
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.match(r"`\d\d\w*-", cells[0]):
            names |= {f"{n}.py" for n in MODULE_NAME.findall(cells[1])}
    return names


def missing_and_stale(named: set[str], folder: str) -> tuple[list[str], list[str]]:
    on_disk = set(FOLDERS[folder]())
    return sorted(on_disk - named), sorted(named - on_disk)


@pytest.mark.parametrize("doc", ["README.md", "CONTRIBUTING.md"])
@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_layout_table_names_every_file(doc, folder):
    rows = layout_rows(doc)
    assert folder in rows, f"{doc}'s Layout table has no row for `{folder}/`"
    named = set(FILE_NAME.findall(rows[folder]))
    also = ""
    if doc == "CONTRIBUTING.md" and folder == "code":
        # The modules a chapter calls are in the chapter table; the Layout row names the rest.
        named |= chapter_table_modules()
        also = " (or the chapter's row of 'Where each chapter lives')"
    missing, stale = missing_and_stale(named, folder)
    assert not missing, (
        f"{doc}'s Layout table, row `{folder}/`{also}, does not name {', '.join(missing)}: "
        "add each in backticks with a few words on what it holds")
    assert not stale, f"{doc}'s Layout table, row `{folder}/`, names missing files {stale}"


def test_the_check_fails_on_a_file_left_out():
    named = set(FILE_NAME.findall(layout_rows("README.md")["scripts"]))
    assert "setup.sh" in missing_and_stale(named - {"setup.sh"}, "scripts")[0]
    assert "gone.py" in missing_and_stale(named | {"gone.py"}, "scripts")[1]
