"""Each chapter's prose, read by real pandoc as Quarto reads it, renders without defects."""

from __future__ import annotations

import re

import pytest

from booktools.harness.pandoc import bibliography_keys, prose_of, read_prose
from conftest import ROOT, book_chapters

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


# Quarto numbers a book's chapters by their position in _quarto.yml, not by file name, so a
# chapter inserted early (03b-policy-gradients) renumbers every later one. Prose should name a
# chapter by its subject; a sentence that does use a number must say, here, which chapter it means,
# and that chapter must sit at that number. A new numbered mention fails until it is listed.
CHAPTER_NUMBER = re.compile(r"\b(?:chapters?|ch\.)\s+(\d+)\b", re.I)
NUMBERED_MENTIONS = {  # the words after "chapter N" -> the file that chapter N must be
    "'s reasoner": "chapters/02-self-consistency.qmd",
    " makes this precise": "chapters/03-evaluating-reasoners.qmd",
    "'s illustrative price": "chapters/01-test-time-compute.qmd",
}


def chapter_number_mistakes(text: str, numbers: dict[int, str]) -> list[str]:
    """Each "chapter N" of the prose that is unlisted or whose N is not that chapter's position."""
    prose = " ".join(prose_of(text).split())
    out = []
    for m in CHAPTER_NUMBER.finditer(prose):
        after = prose[m.end():m.end() + 40]
        said = repr(m.group(0) + after[:20])
        target = next((f for w, f in NUMBERED_MENTIONS.items() if after.startswith(w)), None)
        if target is None:
            out.append(f"{said}: name the chapter by its subject (or list it here)")
        elif numbers.get(int(m.group(1))) != target:
            actual = numbers.get(int(m.group(1)))
            out.append(f"{said}: chapter {m.group(1)} is {actual}, not {target}")
    return out


def book_numbers() -> dict[int, str]:
    from booktools.harness.page import _book
    return {p["number"]: p["path"] for p in _book() if p["number"] is not None}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_chapters_named_by_number_are_at_that_number(path):
    mistakes = chapter_number_mistakes(path.read_text(encoding="utf-8"), book_numbers())
    assert not mistakes, f"{path.stem}:\n  " + "\n  ".join(mistakes)


def test_chapter_number_mistakes_sees_an_off_by_one():
    numbers = book_numbers()
    assert chapter_number_mistakes("As chapter 2's reasoner does.", numbers) == []
    assert chapter_number_mistakes("As chapter 3's reasoner does.", numbers)  # one off
    assert chapter_number_mistakes("Chapter 11 runs the recipe.", numbers)  # unlisted
