"""Google Scholar's tags and the favicon in every page's head, as the harness draws Quarto 1.7's
head (booktools/harness/page.py): a citation title is the page's title as a reader sees it, with no
markdown, no double-escaped entity, and the book's name in the container title."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import yaml

from booktools.harness.page import _book, favicon_link, scholar_meta

ROOT = Path(__file__).resolve().parents[1]
PAGES = [p["path"] for p in _book()]
BOOK = yaml.safe_load((ROOT / "_quarto.yml").read_text())["book"]


def _shown(value: str) -> str:
    """An attribute value as a browser (and Scholar's crawler) reads it."""
    return html.unescape(value)


def _typographic(text: str) -> str:
    # The page shows pandoc's smart quotes; the citation spells them so.
    return text.replace("'", "\u2019").replace("&", "and")


@pytest.mark.parametrize("rel", PAGES)
def test_citation_title_is_the_page_title(rel):
    tags = dict(scholar_meta(rel))
    title = _shown(tags["citation_title"])
    entry = next(p for p in _book() if p["path"] == rel)
    expected = _typographic(BOOK["title"] if rel == "index.qmd" else entry["title"])
    assert title == expected, f"{rel}: citation_title {title!r}, expected {expected!r}"


@pytest.mark.parametrize("rel", PAGES)
def test_no_tag_carries_markup_or_double_escapes(rel):
    for name, value in scholar_meta(rel):
        shown = _shown(value)
        assert not re.search(r"&\w+;|&#\d+;|\{\.|\]\{|[<>]", shown), (
            f"{rel}: {name} reads {shown!r} in a browser")


@pytest.mark.parametrize("rel", PAGES)
def test_the_page_is_cited_inside_the_book(rel):
    """Scholar indexes a page that names its title, author and date; a chapter names the book
    it sits in (the index page is the book, so its own title is the book's)."""
    tags = scholar_meta(rel)
    names = [n for n, _ in tags]
    assert names.count("citation_title") == 1, (rel, tags)
    for name in ("citation_author", "citation_publication_date"):
        assert name in names, f"{rel}: no {name} (a page's citation: map replaces the book's)"
    if rel != "index.qmd":
        shown = _shown(dict(tags).get("citation_inbook_title", ""))
        assert shown == _typographic(BOOK["title"]), (rel, tags)


def test_the_drawing_escapes_as_quarto_does():
    """The bytes a real Quarto 1.7 render wrote into these tags before the book named its
    citation titles."""
    from booktools.harness.page import _encode_attribute_value, _serialize_attribute

    def drawn(text: str) -> str:
        return _serialize_attribute(_encode_attribute_value(text))

    assert drawn("Reasoning & Test-Time Compute") == "Reasoning &amp;amp; Test-Time Compute"
    assert drawn("GRPO's rough edges") == "GRPO&amp;amp;#039;s rough edges"
    assert drawn("[2]{.chapter-number}\u00a0 [Self]{.chapter-title}") == (
        "[2]{.chapter-number}&nbsp; [Self]{.chapter-title}")


@pytest.mark.parametrize("rel", ["index.qmd", "chapters/02-self-consistency.qmd"])
def test_every_page_links_the_favicon(rel):
    link = favicon_link(rel)
    href = re.search(r'href="([^"]+)"', link).group(1)
    assert href != "data:,", "no favicon: every page's browser asks for /favicon.ico (a 404)"
    assert (ROOT / Path(rel).parent / href).resolve() == (ROOT / BOOK["favicon"]).resolve()
    assert (ROOT / BOOK["favicon"]).is_file()
    resources = yaml.safe_load((ROOT / "_quarto.yml").read_text())["project"]["resources"]
    assert BOOK["favicon"] in resources, "the favicon must ship with the site"
