"""Each chapter's prose, read by real pandoc as Quarto reads it, renders without defects."""

from __future__ import annotations

import pytest

from conftest import ROOT, book_chapters
from harness.pandoc import bibliography_keys, read_prose

PAGES = [*book_chapters(), ROOT / "index.qmd"]
PROSE = {}


def prose(path):
    if path not in PROSE:
        PROSE[path] = read_prose(path)
    return PROSE[path]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_dollar_survives_as_text(path):
    """`$x = $` (a space before the closing `$`) is not math to pandoc: the page shows `$`."""
    assert not prose(path).stray_dollars, "\n".join(prose(path).stray_dollars)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_cross_references_have_targets(path):
    targets = set().union(*(prose(p).ids for p in PAGES))  # a book resolves across chapters
    missing = prose(path).references - targets
    assert not missing, f"{path.stem}: @-references with no target: {sorted(missing)}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_citations_are_in_the_bibliography(path):
    missing = prose(path).citations - bibliography_keys(ROOT / "references.bib")
    assert not missing, f"{path.stem}: cited but missing from references.bib: {sorted(missing)}"
