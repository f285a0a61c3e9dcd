"""Widgets' html templates survive Quarto's `html`.

On a rendered page Quarto's OJS runtime binds `html` to the Observable stdlib's legacy template
(quarto-ojs-runtime: `html$1 = template(...)`), not to htl: an interpolated value is pasted into
the HTML source as it is and parsed with it. So an unquoted attribute value splits at its first
space (`title=${"Sample and update"}` becomes `title="Sample" and="" update=""`) and an empty one
swallows the attribute after it (`data-route=${""} style="..."` loses the style). The harness
runs htl, which quotes for us, so only a scan of the sources can see it: every attribute value
taken from `${...}` must sit inside quotes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WIDGETS = sorted((ROOT / "widgets").glob("*.js"))


def _skip_expr(src: str, i: int) -> int:
    """The index just past the `}` that closes a `${` expression whose body starts at i."""
    depth = 1
    while i < len(src):
        ch = src[i]
        if ch in "\"'":  # a string inside the expression
            j = i + 1
            while src[j] != ch:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "`":  # a nested template literal, with its own expressions
            j = i + 1
            while src[j] != "`":
                if src[j] == "\\":
                    j += 2
                elif src.startswith("${", j):
                    j = _skip_expr(src, j + 2)
                else:
                    j += 1
            i = j + 1
            continue
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 0:
            return i + 1
        i += 1
    return i


def _templates(src: str):
    """(start, end) of the body of every html`...` and svg`...` template in src."""
    for m in re.finditer(r"\b(?:html|svg)`", src):
        i = m.end()
        while i < len(src):
            if src[i] == "\\":
                i += 2
            elif src[i] == "`":
                yield m.end(), i
                break
            elif src.startswith("${", i):
                i = _skip_expr(src, i + 2)
            else:
                i += 1


def unquoted_attributes(src: str) -> list[str]:
    """The `name=${` of every attribute whose value is an unquoted interpolation."""
    found = []
    for start, end in _templates(src):
        i, in_tag = start, False
        while i < end:
            if src.startswith("${", i):
                if in_tag and src[i - 1] == "=":
                    found.append(re.search(r"[\w-]+=$", src[:i]).group(0) + "${")
                i = _skip_expr(src, i + 2)
                continue
            ch = src[i]
            if ch == "<" and src[i + 1 : i + 2].isalpha():
                in_tag = True
            elif ch == ">":
                in_tag = False
            elif in_tag and ch in "\"'":  # a quoted value, which may hold ${...}: skip it
                j = i + 1
                while j < end and src[j] != ch:
                    j = _skip_expr(src, j + 2) if src.startswith("${", j) else j + 1
                i = j + 1
                continue
            i += 1
    return found


def test_the_scan_sees_what_quarto_breaks():
    bad = 'html`<b title=${hint} data-v="${x}">${y}</b><i k=${f({a: `${z}`})}>`'
    assert unquoted_attributes(bad) == ["title=${", "k=${"]
    good = 'html`<b title="${hint}">n=${n}, ${`<${tag}>`}</b>` + `c=${c}`'
    assert unquoted_attributes(good) == []


@pytest.mark.parametrize("path", WIDGETS, ids=[p.name for p in WIDGETS])
def test_every_interpolated_attribute_is_quoted(path: Path):
    found = unquoted_attributes(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.name}: {len(found)} unquoted attribute values ({', '.join(sorted(set(found)))}): "
        "Quarto's html pastes them unquoted; write name=\"${...}\"")
