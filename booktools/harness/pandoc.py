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

from booktools.qmd import INLINE_PY, parse_qmd, scan

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


def prose_of(text: str, inline_value: str = "0") -> str:
    """The chapter's markdown with executable cells blanked and inline values replaced by `0`.

    Line numbers are kept, so an error can point at the chapter's line. `inline_value` is what
    stands in for each inline `{python}` expression.
    """
    out = []
    for span in scan(text.split("\n")):
        if span.kind == "cell":
            out.extend([""] * len(span.lines))  # the cell and its fences
        else:  # prose, or a display-only block (pandoc sees it as a code block)
            out.append(INLINE_PY.sub(inline_value, span.lines[0]).replace("\\$", ESCAPED_DOLLAR))
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


# --- Numbers typed by hand into the prose ---------------------------------------------------
# Every number in a sentence is an inline `{python}` value, a definitional constant, or a figure
# a paper cited in the same sentence reports. `numbers_in_prose` lists every other digit-bearing
# token; the test keeps a short reviewed allow-list for the rest.

INLINE_SENTINEL = "INLINEVALUE"  # a word with no digit stands in for each `{python}` value
_CITED, _HIDDEN = "\x01CITED\x01", "\x02"  # placeholders in a paragraph's flattened text
# A sentence ends at . ! ? (or : before a capital) followed by space and a capital, quote or
# bracket; `0.5` and `e.g. the` do not split.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(\[*“_\x01\x02])")
_EDGE_PUNCT = "()[]{}\"'“”‘’,;:!?.*_"
# A number with a magnitude or multiplier suffix is still a number: 600k, 37B, 3x, 2×, 40%.
_SUFFIXED_NUMBER = re.compile(r"^[~≈<>≤≥±+−-]?\d[\d.,]*(k|K|M|B|x|×|%|pp)?$")
# "Slide ε from 1.0 to 1.3": an instruction names settings of a widget's input, not results.
_WIDGET_INSTRUCTION = re.compile(
    r"^(?:(?:Now|Then),? )?(Slide|Move|Set|Put|Raise|Lower|Push|Widen|Narrow|Drag|Turn|Increase|"
    r"Decrease|Pull|Choose|Pick|Type|Switch|Shrink|Grow)\b", re.I)
# 0 and 1 as bare integers are the book's definitional constants: a binary reward, a certain or
# impossible event, the on-policy ratio, a zero gradient.
_UNITS = {"0", "1", "0/1", "1/0"}
_EXERCISE = re.compile(r"^Exercise \d+\s*[—–:-]")
# "a 95% interval": the coverage that defines the interval, not a result.
_INTERVAL_LEVEL = re.compile(r"^(interval|intervals|bootstrap|confidence)$", re.I)
_YEAR = re.compile(r"^(1[6-9]\d\d|20[0-2]\d)s?$")
# Words after which a number names a part of the book or a step of a procedure, not a quantity.
REFERENCE_WORDS = {"chapter", "chapters", "exercise", "exercises", "stage", "stages", "part",
                   "parts", "pitfall", "pitfalls", "step", "steps", "section", "sections", "§",
                   "equation", "eq.", "ch", "ch."}
_REFERENCE_JOINERS = {"and", "or", "to", "through", ",", "&", "–", "-"}


def _flatten(inlines: list) -> str:
    """A block's inline text: code, math and raw TeX hidden, a sentence's citation marked."""
    parts: list[str] = []

    def flat(nodes):
        for node in nodes:
            kind, content = node["t"], node.get("c")
            if kind == "Str":
                parts.append(content)
            elif kind in ("Space", "SoftBreak", "LineBreak"):
                parts.append(" ")
            elif kind in ("Code", "Math", "RawInline"):
                parts.append(_HIDDEN)
            elif kind == "Cite":
                ids = [c["citationId"] for c in content[0]]
                if any(not key.startswith(CROSSREF_PREFIXES) for key in ids):
                    parts.append(_CITED)
                else:
                    parts.append(_HIDDEN)  # @sec-x: a cross-reference, no number of its own
            elif kind == "Link":  # the link text is prose; its target is not
                flat(content[1])
            elif kind == "Image":
                flat(content[1])
            elif kind == "Note":  # a footnote's blocks are visited as blocks of their own
                parts.append(" ")
            elif kind in ("Emph", "Strong", "Strikeout", "Superscript", "Subscript",
                          "SmallCaps", "Underline"):
                flat(content)
            elif kind in ("Span",):
                flat(content[1])
            elif kind == "Quoted":
                parts.append('"')
                flat(content[1])
                parts.append('"')

    flat(inlines)
    return "".join(parts)


def _is_name(part: str) -> bool:
    """Letters glued to digits make a name (GSM8K, R1, o1, pass@k, fp16), not a quantity."""
    return bool(re.search(r"[A-Za-z]", part)) and not _SUFFIXED_NUMBER.match(part)


def _numbers_of(sentence: str) -> list[str]:
    """The digit-bearing tokens of one sentence that no rule explains."""
    found: list[str] = []
    words = sentence.replace(_HIDDEN, " ").split()
    previous, in_reference = "", False
    for index, raw in enumerate(words):
        token = raw.strip(_EDGE_PUNCT)
        lowered = token.lower()
        if not re.search(r"\d", token):
            in_reference = lowered in REFERENCE_WORDS or (
                in_reference and (lowered in _REFERENCE_JOINERS or raw in _REFERENCE_JOINERS))
            previous = lowered
            continue
        if re.fullmatch(r"\d-D", token):  # "a 1-D tensor": a name of a shape
            previous = lowered
            continue
        if token in _UNITS:
            previous = lowered
            continue
        parts = [p for p in re.split(r"[-–—/]", token) if p]
        if any(p.isdigit() and i and re.fullmatch(r"[A-Z][A-Za-z]*", parts[i - 1])
               for i, p in enumerate(parts)):
            previous = lowered
            continue  # GPT-4, Llama-3: a capitalised name with a version number
        if any(_is_name(p) for p in parts if re.search(r"\d", p)) and not all(
                _SUFFIXED_NUMBER.match(p) or not re.search(r"\d", p) for p in parts):
            previous = lowered
            continue  # a name with digits in it
        if in_reference or previous in REFERENCE_WORDS:
            in_reference = True  # "chapters 4, 5 and 6"
            previous = lowered
            continue
        following = words[index + 1].strip(_EDGE_PUNCT) if index + 1 < len(words) else ""
        if token == "95%" and _INTERVAL_LEVEL.match(following):
            previous = lowered
            continue
        if all(_YEAR.match(p) for p in parts if re.search(r"\d", p)):
            previous = lowered
            continue
        found.append(token)
        previous = lowered
    return found


@dataclass
class ProseNumber:
    """A number typed into a chapter's prose."""

    chapter: str
    sentence: str
    token: str


def sentences_of(path: str | Path) -> list[str]:
    """Every sentence of a chapter's paragraphs, list items, table cells and headers."""
    text = Path(path).read_text(encoding="utf-8")
    ast = pandoc_ast(prose_of(text, INLINE_SENTINEL))
    sentences: list[str] = []

    def visit(node):
        kind, content = node["t"], node.get("c")
        if kind in ("Para", "Plain", "Header"):
            inlines = content[2] if kind == "Header" else content
            flat = _flatten(inlines)
            if _EXERCISE.match(flat):
                return  # an exercise's statement defines its setup: its numbers are givens
            sentences.extend(s.strip() for s in _SENTENCE_END.split(flat) if s.strip())

    _walk(ast["blocks"], visit)
    return sentences


def numbers_in_prose(path: str | Path) -> list[ProseNumber]:
    """Every hand-typed number in a chapter's prose that no rule explains.

    Skipped: code, math, raw TeX, link targets, inline `{python}` values, sentences that cite a
    paper (a cited figure may stand in its sentence), names with digits in them, years, and
    numbers naming a chapter, exercise, stage, step, pitfall or part.
    """
    stem = Path(path).stem
    out = []
    for sentence in sentences_of(path):
        if _CITED in sentence or _WIDGET_INSTRUCTION.match(sentence.lstrip(_EDGE_PUNCT)):
            continue
        for token in _numbers_of(sentence):
            out.append(ProseNumber(stem, sentence.replace(_HIDDEN, "…"), token))
    return out
