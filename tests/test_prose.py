"""Each chapter's prose, read by real pandoc as Quarto reads it, renders without defects."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT, book_chapters
from harness.pandoc import bibliography_keys, prose_of, read_prose

PAGES = [*book_chapters(), ROOT / "index.qmd", ROOT / "appendix-quick-reference.qmd"]
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


# The documents the book was written from are not published: a reader has never seen them, so a
# page that cites "the seed" (or "the seed material", "the seed's description") points at nothing.
# Seeds of random draws ("seed 0", "two seeds", "depends on the seed;") are the book's subject and
# stay allowed; these are the ways a page can speak of its sources.
SOURCE_MENTION = re.compile(
    r"\bseed\s+(?:material|materials|document|documents|text|notes|brief|outline)\b"
    r"|\bthe\s+(?:book's\s+)?seed(?:'s)?\s+(?:describes?|calls?|cites?|lists?|says?|claims?|"
    r"phrases?|description|approach|second|first|short|own|and\s+the\s+papers?)\b"
    r"|\b(?:in|from|per|where)\s+the\s+seed\b(?!\s*\d)"
    r"|\bdocuments?\s+the\s+book\s+was\s+written\s+from\b|\bsource\s+documents?\b",
    re.I)


def source_mentions(text: str) -> list[str]:
    """The prose's phrases that speak of the book's unpublished sources, cells left out."""
    prose = " ".join(prose_of(text).split())
    return [m.group(0) for m in SOURCE_MENTION.finditer(prose)]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_page_mentions_the_books_sources(path):
    found = source_mentions(path.read_text(encoding="utf-8"))
    assert not found, f"{path.stem} speaks of documents readers never saw: {found}"


def test_source_mentions_tells_a_source_from_a_random_seed():
    assert source_mentions("The seed describes it. Where the seed and the papers differ.") == [
        "The seed describes", "Where the seed"]
    assert source_mentions("in the seed material") == ["in the seed"]
    assert not source_mentions("Take seed 0, two seeds; the loss depends on the seed; the same "
                               "seed in the seed 3 run.\n\n```{python}\n# seed material\n```\n")
