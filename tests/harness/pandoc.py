"""Read a chapter's prose with real pandoc, as Quarto does, and list what would render wrong.

Quarto evaluates the code cells and inline expressions, then hands the markdown to pandoc. A `$`
that pandoc does not accept as a math delimiter (`$x = $`, with a space before the closing `$`)
stays on the page as a literal dollar; a cross-reference (`@sec-...`) with no target renders as
"?@sec-..."; a citation missing from the bibliography renders as "?key". This module replaces
the cells and inline expressions by neutral text, parses the rest with pandoc (PyPI's
`pypandoc-binary`, the closest release to Quarto 1.7's pandoc) into its JSON AST, and walks it.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .qmd import FENCE_OPEN, INLINE_PY, parse_qmd

# Quarto's cross-reference prefixes (quarto-cli src/resources/filters/crossref): `@sec-x` is a
# reference to the element with id `sec-x`, not a citation.
CROSSREF_PREFIXES = ("sec-", "fig-", "tbl-", "eq-", "lst-", "thm-", "lem-", "cor-", "prp-",
                     "cnj-", "def-", "exm-", "exr-", "sol-", "rem-")
# An escaped dollar (`\$5`) is a real dollar sign, not a broken math delimiter.
ESCAPED_DOLLAR = "DOLLARSIGN"
READER = "markdown"  # Quarto reads .qmd with pandoc's markdown reader (tex_math_dollars is on)


def pandoc_path() -> str:
    import pypandoc

    return pypandoc.get_pandoc_path()


def prose_of(text: str) -> str:
    """The chapter's markdown with executable cells blanked and inline values replaced by `0`.

    Line numbers are kept, so an error can point at the chapter's line.
    """
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if m:
            ticks, j = m.group("ticks"), i + 1
            while j < len(lines) and lines[j].strip() != ticks:
                j += 1
            out.extend([""] * (j - i + 1))  # the cell and its fences
            i = j + 1
            continue
        out.append(INLINE_PY.sub("0", lines[i]).replace("\\$", ESCAPED_DOLLAR))
        i += 1
    return "\n".join(out)


def pandoc_ast(markdown: str) -> dict:
    result = subprocess.run(
        [pandoc_path(), "-f", READER, "-t", "json"],
        input=markdown.encode("utf-8"),
        capture_output=True,
        check=True,
    )
    return json.loads(result.stdout)


def _walk(node, visit):
    if isinstance(node, dict):
        if "t" in node:
            visit(node)
        for value in node.values():
            _walk(value, visit)
    elif isinstance(node, list):
        for item in node:
            _walk(item, visit)


def _inline_text(inlines: list) -> str:
    parts = []

    def visit(node):
        if node["t"] == "Str":
            parts.append(node["c"])
        elif node["t"] in ("Space", "SoftBreak"):
            parts.append(" ")
        elif node["t"] == "Math":
            parts.append(f"${node['c'][1]}$")
        elif node["t"] == "RawInline":  # `\varepsilon` outside math is raw TeX to pandoc
            parts.append(node["c"][1])
        elif node["t"] == "Code":
            parts.append(f"`{node['c'][1]}`")

    _walk(inlines, visit)
    return "".join(parts)


@dataclass
class Prose:
    """What pandoc found in one chapter."""

    stray_dollars: list[str] = field(default_factory=list)  # paragraphs with a `$` left as text
    ids: set[str] = field(default_factory=set)  # every element id (headers, divs, spans, cells)
    citations: set[str] = field(default_factory=set)  # every @key that is not a cross-reference
    references: set[str] = field(default_factory=set)  # every @sec-/@fig-/... cross-reference


def read_prose(path: str | Path) -> Prose:
    """Parse a chapter's prose with pandoc and collect its stray dollars, ids and citations."""
    text = Path(path).read_text(encoding="utf-8")
    ast = pandoc_ast(prose_of(text))
    prose = Prose()

    def visit(node):
        kind, content = node["t"], node.get("c")
        if kind in ("Para", "Plain", "Header"):
            inlines = content[2] if kind == "Header" else content
            dollars = []
            _walk(inlines, lambda x: x["t"] == "Str" and "$" in x["c"] and dollars.append(x))
            if dollars:
                prose.stray_dollars.append(_inline_text(inlines))
        if kind == "Header":
            prose.ids.add(content[1][0])
        elif kind in ("Div", "Span", "CodeBlock", "Image", "Table", "Figure"):
            attr = content[0]
            if isinstance(attr, list) and attr and isinstance(attr[0], str) and attr[0]:
                prose.ids.add(attr[0])
        elif kind == "Cite":
            for citation in content[0]:
                key = citation["citationId"]
                if key.startswith(CROSSREF_PREFIXES):
                    prose.references.add(key)
                else:
                    prose.citations.add(key)

    _walk(ast["blocks"], visit)
    # Cells labelled `#| label: fig-x` are figure targets too; display math `$$ ... $$ {#eq-x}`.
    for cell in parse_qmd(text):
        label = cell.options.get("label")
        if isinstance(label, str):
            prose.ids.add(label)
    prose.ids |= set(re.findall(r"\$\$\s*\{#(eq-[\w-]+)\}", text))
    return prose


def bibliography_keys(bib: str | Path) -> set[str]:
    """The entry keys of a BibTeX file."""
    return set(re.findall(r"^@\w+\{([^,\s]+),", Path(bib).read_text(encoding="utf-8"), re.M))
