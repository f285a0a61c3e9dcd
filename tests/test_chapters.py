"""Every chapter of the book executes in a real Jupyter kernel, as Quarto would run it."""

from __future__ import annotations

import re
import tomllib

import pytest

from conftest import ROOT, book_chapters, executed

CHAPTERS = book_chapters()

# Lines the seed prints for its calls; the chapters must print them exactly.
SEED_OUTPUT = {
    "02-self-consistency": [
        "42\n1024\nNone",
        "distribution: {'42': 4, '36': 1, '17': 1}\nvote winner:  42",
        "n= 1: voted '3' ✗   tally={'3': 1}",
        "n= 5: voted '42' ✓   tally={'42': 2, '3': 1, '2': 2}",
        "n=41: voted '42' ✓   tally={'1': 6, '42': 22, '2': 5, '3': 4, '0': 4}",
        "SELF-CONSISTENCY: accuracy vs. samples (test-time compute)",
        "verifier picked:\n 6 * 7 = 42, so the total is 42.\n#### 42",
    ],
    "03-evaluating-reasoners": ["pass@5 = 1.0   pass@1 = 0.2"],
}


def test_book_has_chapters():
    assert len(CHAPTERS) >= 3
    assert all(p.exists() for p in CHAPTERS), [p for p in CHAPTERS if not p.exists()]


def test_every_chapter_file_is_in_the_book():
    listed = {p.name for p in CHAPTERS}
    on_disk = {p.name for p in (ROOT / "chapters").glob("*.qmd")}
    assert on_disk == listed


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_executes(path):
    run = executed(path.stem)
    assert any(c.kind == "python" for c in run.cells)
    for line in SEED_OUTPUT.get(path.stem, []):
        assert line in run.stdout(), f"{path.stem} does not print the seed's output:\n{line}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_ojs_payload_is_used(path):
    """Every value a chapter hands to OJS is referenced by one of its OJS cells."""
    run = executed(path.stem)
    ojs_source = "\n".join(c.source for c in run.ojs_cells)
    for name in run.defines:
        assert re.search(rf"\b{name}\b", ojs_source), (
            f"{path.stem}: ojs_define({name}=...) is never used"
        )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_exercises_have_executed_solutions(path):
    text = path.read_text()
    exercises = re.findall(r"^\*\*Exercise \d+", text, re.M)
    solutions = re.findall(
        r'::: \{\.callout-tip collapse="true"\}\n## Solution\n(.*?)\n:::', text, re.S
    )
    assert len(solutions) == len(exercises), (
        f"{path.stem}: {len(exercises)} exercises, {len(solutions)} solutions"
    )
    for body in solutions:
        assert "```{python}" in body, f"{path.stem}: a solution has no executed Python cell"


def test_every_module_is_installed():
    """A reader's `pip install -e .` must make every module in code/ importable."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(meta["tool"]["setuptools"]["py-modules"])
    on_disk = {p.stem for p in (ROOT / "code").glob("*.py")}
    assert listed == on_disk


def test_every_widget_is_used():
    sources = "\n".join(p.read_text() for p in [*CHAPTERS, *(ROOT / "widgets").glob("*.js")])
    for widget in (ROOT / "widgets").glob("*.js"):
        assert f"./{widget.name}" in sources or f"../widgets/{widget.name}" in sources, widget.name
