"""A sentence that names a mark's colour names one the reader sees, on the light page and the dark.

A chart drawn in `currentColor` is near-black on cosmo's white page and near-white on darkly's
#222: "the dashed black line" is wrong for every reader of the dark theme. So, for each widget:

- the sentences that can describe its marks are collected: its own captions and readouts (the
  widget's text outside its SVGs), its charts' `aria-description`, and the chapter's prose
  between the previous `{ojs}` cell or heading and the `{ojs}` cell that draws it (the passage
  that introduces a figure, "The coloured curves are Python's; the black one is ...");
- each colour word in them ("black", "white", "grey", "red", "orange", "yellow", "green", "teal",
  "blue", "purple", "pink", "brown"; "black box" and its kin are not colours) must be the colour
  of at least one of the widget's marks (an SVG shape or text of a Plot mark, not an axis, grid
  or legend) in *both* themes. A mark's colour is its computed stroke and fill, named by hue
  (lightness and saturation decide black, white and grey first), one page load per theme.
"""

from __future__ import annotations

import re

import pytest

from booktools.qmd import scan, split_front_matter
from conftest import book_chapters, executed

pytestmark = pytest.mark.browser

WIDGET_STEMS = [p.stem for p in book_chapters() if "```{ojs}" in p.read_text()]
COLOUR = re.compile(
    r"\b(black|white|gr[ae]y|red|orange|yellow|green|teal|blue|purple|violet|pink|brown)\b"
    r"(?![- ]box)",
    re.IGNORECASE,
)
ALIASES = {"gray": "grey", "violet": "purple"}

# Per widget (in #ojs-cell-N order): the colour names each data mark has, and the widget's own
# sentences. Colours are named in the page so light and dark are named by the same rule.
MARKS_JS = r"""
() => {
  const parse = (c) => {
    const m = /^rgba?\(([^)]+)\)$/.exec(String(c).trim());
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return {r: p[0] / 255, g: p[1] / 255, b: p[2] / 255, a: p.length > 3 ? p[3] : 1};
  };
  // Hue names overlap on purpose (a teal is green to some readers, blue to others).
  const HUES = [["red", 345, 375], ["red", -15, 15], ["orange", 12, 45], ["brown", 12, 45],
                ["yellow", 45, 70], ["green", 70, 180], ["teal", 150, 200], ["blue", 185, 260],
                ["purple", 250, 320], ["pink", 300, 350]];
  const names = ({r, g, b}) => {
    const max = Math.max(r, g, b), min = Math.min(r, g, b), l = (max + min) / 2;
    const s = max === min ? 0 : l > 0.5 ? (max - min) / (2 - max - min) : (max - min) / (max + min);
    if (l < 0.25) return ["black"];
    if (l > 0.85 && s < 0.3) return ["white"];
    if (s < 0.15) return ["grey"];
    let h = max === r ? 60 * (((g - b) / (max - min)) % 6) : max === g ? 60 * ((b - r) / (max - min) + 2) : 60 * ((r - g) / (max - min) + 4);
    if (h < 0) h += 360;
    const out = HUES.filter(([, lo, hi]) => h >= lo && h < hi).map(([n]) => n);
    if (out.includes("orange") && l > 0.4) out.splice(out.indexOf("brown"), 1);
    return out;
  };
  const shown = (el) => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === "none" || cs.visibility === "hidden" || Number(cs.opacity) === 0) return false;
    }
    return true;
  };
  const roots = [...document.querySelectorAll("[data-widget]")].filter((w) => !w.parentElement.closest("[data-widget]"));
  return roots.map((root) => {
    const cell = root.closest('[id^="ojs-cell-"]');
    const marks = [...root.querySelectorAll("svg g[aria-label] :is(path, line, rect, circle, polyline, polygon, text)")]
      .filter((el) => !/axis|grid|tick|frame|legend|swatch/.test(el.closest("g[aria-label]").getAttribute("aria-label")))
      .filter((el) => !el.closest('[class*="-swatch"], [class*="-legend"]') && shown(el))
      .flatMap((el) => {
        // Stroke and fill are two paints: a hollow dot (dark ring, white fill) is not "white and
        // black" on both pages just because the theme swaps the two.
        const cs = getComputedStyle(el), stroke = parse(cs.stroke), fill = parse(cs.fill);
        const paints = [];
        paints.push(stroke && el.tagName !== "text" && stroke.a > 0.25 && parseFloat(cs.strokeWidth) > 0 && Number(cs.strokeOpacity) > 0.25 ? names(stroke) : []);
        paints.push(fill && fill.a > 0.25 && Number(cs.fillOpacity) > 0.25 ? names(fill) : []);
        return paints;
      });
    const own = (el) => el.closest("[data-widget]") === root;
    const captions = [...root.querySelectorAll("p, li, figcaption, span, div")]
      .filter((el) => own(el) && !el.closest("svg") && shown(el))
      .map((el) => el.innerText.replace(/\s+/g, " ").trim()).filter(Boolean);  // innerText: no <style>
    const descriptions = [...root.querySelectorAll("svg[aria-description]")].map((s) => s.getAttribute("aria-description"));
    return {widget: root.dataset.widget, cell: cell ? Number(cell.id.split("-")[2]) : -1, marks, sentences: [...captions, ...descriptions]};
  });
}
"""  # noqa: E501 (JavaScript)


def prose_before_ojs_cells(stem: str) -> list[str]:
    """For each {ojs} cell in order, the chapter's prose between it and the previous {ojs} cell or
    heading (the words that introduce what the cell draws)."""
    lines = executed(stem).path.read_text(encoding="utf-8").splitlines()
    _, start = split_front_matter(lines)
    out, pending = [], []
    for span in scan(lines, start):
        if span.kind == "prose":
            text = span.lines[0]
            if text.startswith("#"):
                pending = []
            else:
                pending.append(text)
        elif span.kind == "cell" and span.lang == "ojs":
            # A Python cell in between (it hands the figure its data) does not end the passage.
            out.append(" ".join(pending))
            pending = []
    return out


def sentences_naming_colours(text: str) -> list[tuple[str, set[str]]]:
    found = []
    for sentence in re.split(r"(?<=[.;!?])\s+", text):
        words = {ALIASES.get(w.lower(), w.lower()) for w in COLOUR.findall(sentence)}
        if words:
            found.append((sentence.strip(), words))
    return found


@pytest.fixture(scope="module")
def themed_marks(browser, server):
    from booktools.harness.browser import ChapterPage
    from booktools.harness.theme import dress_page

    def _measure(stem: str) -> dict[str, list[dict]]:
        out = {}
        for mode in ("light", "dark"):
            context = browser.new_context(viewport={"width": 900, "height": 1200})
            page = context.new_page()
            dress_page(page, mode)
            chapter = ChapterPage(page, executed(stem), server)
            chapter.assert_clean()
            out[mode] = page.evaluate(MARKS_JS)
            context.close()
        return out

    return _measure


@pytest.mark.parametrize("stem", WIDGET_STEMS)
def test_colour_words_name_colours_drawn_in_both_themes(themed_marks, stem):
    measured = themed_marks(stem)
    light, dark = measured["light"], measured["dark"]
    assert [w["widget"] for w in light] == [w["widget"] for w in dark]
    prose = prose_before_ojs_cells(stem)
    problems = []
    for lw, dw in zip(light, dark, strict=True):
        both = set()
        for a, b in zip(lw["marks"], dw["marks"], strict=True):
            both |= set(a) & set(b)
        light_only = {n for m in lw["marks"] for n in m} - both
        texts = list(lw["sentences"])
        if 0 <= lw["cell"] < len(prose):
            texts.append(prose[lw["cell"]])
        for sentence, words in sentences_naming_colours(" ".join(dict.fromkeys(texts))):
            for word in sorted(words - both):
                where = "only on the light page" if word in light_only else "in neither theme"
                problems.append(
                    f'{lw["widget"]}: "{word}" is drawn {where}: {sentence[:110]!r}'
                )
    assert not problems, f"{stem}:\n  " + "\n  ".join(dict.fromkeys(problems))


def test_colour_words_are_found():
    """The sentence splitter finds the words the check is about, and leaves a black box alone."""
    assert sentences_naming_colours("Dashed black: the run. A black-box model.") == [
        ("Dashed black: the run.", {"black"})
    ]
    assert sentences_naming_colours("Bold: the size. No colour here.") == [
    ]
    assert sentences_naming_colours("the gray curve; the violet dots") == [
        ("the gray curve;", {"grey"}),
        ("the violet dots", {"purple"}),
    ]
