"""Every chapter's full page at Quarto's real layout widths: nothing makes the page scroll sideways.

Quarto's text column is about 566 px wide on a 1,100 px desktop and the screen less two gutters on
a 400 px phone (booktools/harness/page.py builds the page with Quarto's grid). A display equation, a
printed output or a widget wider than that column either has to fit, or scroll inside its own
box: it must never push past the column's edge (into the margin, or off the screen).
"""

from __future__ import annotations

import pytest

from conftest import book_chapters

pytestmark = pytest.mark.browser

STEMS = [p.stem for p in book_chapters()]
WIDTHS = [1100, 400]

# The outermost elements in the text column whose box reaches past the column's edge, unless an
# ancestor inside the column clips or scrolls them (then they scroll in that box, not the page).
CULPRITS_JS = """() => {
  const main = document.querySelector('main');
  const col = main.getBoundingClientRect();
  const contained = (el) => {
    for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    }
    return false;
  };
  // Line by line: an inline element wrapped over two lines has a bounding box as wide as both.
  // A space that ends a line of inline code (white-space: pre-wrap) hangs past the edge without
  // taking room, and inline math may kern a hair past it, so inline content gets one em of
  // slack; a block gets one pixel.
  const escapes = (el) => {
    const style = getComputedStyle(el);
    const math = el.closest('.katex');
    const inline = style.display === 'inline' || (math && !el.closest('.katex-display'));
    const slack = inline ? parseFloat(getComputedStyle(math || el).fontSize) : 1;
    return [...el.getClientRects()].some(
      (r) => r.width > 0 && (r.right > col.right + slack || r.left < col.left - slack));
  };
  const section = (el) => {
    const s = el.closest('section[id]');
    return s ? '#' + s.id : '(top)';
  };
  const what = (el) => {
    const math = el.closest('.katex') || el;
    const tex = math.querySelector('annotation[encoding="application/x-tex"]');
    if (tex) return 'equation ' + tex.textContent.trim().replace(/\\s+/g, ' ').slice(0, 70);
    const w = el.closest('[data-widget]') || el.querySelector('[data-widget]');
    if (w) return 'widget ' + w.dataset.widget;
    return (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60);
  };
  const out = [], seen = new Set();
  for (const el of main.querySelectorAll('*')) {
    if (!escapes(el) || contained(el)) continue;
    if (el.parentElement !== main && escapes(el.parentElement)) continue;  // report the outermost
    const eq = el.closest('.katex-display, .katex');  // one line per equation, not per piece
    if (eq && seen.has(eq)) continue;
    if (eq) seen.add(eq);
    const box = eq ? [...eq.querySelectorAll('.base')].map((b) => b.getBoundingClientRect())
                   : [...el.getClientRects()];
    const right = Math.max(...box.map((b) => b.right));
    const left = Math.min(...box.map((b) => b.left));
    const r = {width: eq ? right - left : Math.max(...box.map((b) => b.width)), right};
    const cls = typeof el.className === 'string' ? el.className.split(' ')[0] : '';
    out.push(`${section(el)} <${el.tagName.toLowerCase()}${cls ? '.' + cls : ''}> `
      + `${Math.round(r.width)} px wide, right edge ${Math.round(r.right - col.right)} px past `
      + `the ${Math.round(col.width)} px column: ${what(el)}`);
  }
  const doc = document.documentElement;
  return {scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth,
          column: col.width, culprits: out};
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("stem", STEMS)
def test_nothing_escapes_the_text_column(open_chapter, stem, width):
    page = open_chapter(stem, width=width, full=True)
    m = page.page.evaluate(CULPRITS_JS)
    expected_column = {1100: 566, 400: 349}[width]  # Quarto's grid at these widths
    assert abs(m["column"] - expected_column) <= 2, f"the text column is {m['column']} px"
    assert not m["culprits"] and m["scrollWidth"] <= m["innerWidth"] + 1, (
        f"{stem} at {width} px: the page is {m['scrollWidth']} px wide for a {m['innerWidth']} px"
        " screen; past the text column:\n  " + "\n  ".join(m["culprits"])
    )


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("stem", STEMS)
def test_printed_output_keeps_its_lines(open_chapter, stem, width):
    """Printed output and source listings keep their lines: a printed table whose rows fold no
    longer lines up, and a folded line of code loses its indentation. A line wider than the
    column scrolls inside its own box (`overflow-x: auto`, made keyboard-reachable by
    scroll-focus.html), never past the column and never cut off by a box that does not scroll."""
    page = open_chapter(stem, width=width, full=True)
    bad = page.page.evaluate(
        r"""() => {
          const out = [];
          const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
          for (const pre of document.querySelectorAll('.cell-output pre, div.sourceCode pre')) {
            const code = pre.querySelector('code') || pre;
            if (!code.getClientRects().length) continue;
            const s = pre.closest('section[id]');
            const kind = pre.closest('.cell-output') ? ' output' : ' code';
            const where = (s ? '#' + s.id : '(top)') + kind;
            const lines = code.textContent.replace(/\n$/, '').split('\n');
            const probe = code.cloneNode(false);
            probe.textContent = 'x';
            code.after(probe);
            const one = probe.getBoundingClientRect().height;
            probe.remove();
            const shown = Math.round(code.getBoundingClientRect().height / one);
            if (shown > lines.length) {
              const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
              out.push(`${where}: ${lines.length} lines shown on ${shown}: `
                + longest.trim().slice(0, 60));
            }
            // The box that holds the overflow: the <pre>, or the div.sourceCode Quarto lets it
            // spill into; it must scroll.
            const spills = getComputedStyle(pre).overflowX === 'visible'
              && pre.parentElement.matches('div.sourceCode');
            const box = spills ? pre.parentElement : pre;
            if (box && box.scrollWidth > box.clientWidth + 1 && !scrolls(box)) {
              out.push(`${where}: ${box.scrollWidth} px in a ${box.clientWidth} px box`
                + ' that does not scroll');
            }
          }
          return out;
        }"""
    )
    assert not bad, f"{stem} at {width} px, output folded or cut off:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("stem", STEMS)
def test_every_equation_typesets(open_chapter, stem):
    """KaTeX (the version Quarto loads) accepts every formula; `throwOnError: false` would
    otherwise show the TeX source in red on the page."""
    page = open_chapter(stem, width=1100, full=True)
    errors = page.page.evaluate(
        "() => [...document.querySelectorAll('.katex-error')].map(e => e.title || e.textContent)"
    )
    assert not errors, f"{stem}: KaTeX could not typeset:\n  " + "\n  ".join(errors)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("stem", STEMS)
def test_charts_are_drawn_at_their_own_size(open_chapter, stem, width):
    """Plot draws an SVG of a fixed `width` with a viewBox; squeezed into a narrower column the
    browser scales it down, tick labels and all (to about 5 px on a phone). A chart must be
    drawn for the width it gets."""
    page = open_chapter(stem, width=width, full=True)
    shrunk = page.page.evaluate(
        """() => [...document.querySelectorAll('[data-widget] svg[viewBox]')]
             .filter(s => s.width.baseVal.value > 0 && !s.closest('svg svg'))
             .map(s => [s.closest('[data-widget]').dataset.widget,
                        s.getBoundingClientRect().width / s.width.baseVal.value,
                        s.width.baseVal.value])
             .filter(([, scale]) => scale < 0.97)
             .map(([w, scale, px]) =>
                  `${w}: a ${px} px chart shown at ${Math.round(100 * scale)}%`)"""
    )
    assert not shrunk, f"{stem} at {width} px, charts scaled down:\n  " + "\n  ".join(shrunk)


@pytest.mark.parametrize("stem", STEMS)
def test_full_page_runs_clean(open_chapter, stem):
    """The OJS cells run on the full page too (same payload, same runner, Quarto's layout)."""
    open_chapter(stem, width=400, full=True).assert_clean()


# Every control in the text column, scrolled into view one by one: the element at the middle of
# its box must be the control itself (or inside it, or the <label> that wraps it). Another
# element there (the page's prev/next chapter links laid over the column, a margin block, a
# sticky bar) would take the reader's tap instead.
COVERED_JS = """() => {
  const out = [];
  const controls = document.querySelectorAll(
    'main input, main select, main button, main textarea, main a[href]');
  for (const el of controls) {
    const r0 = el.getBoundingClientRect();
    if (r0.width === 0 || r0.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    el.scrollIntoView({block: 'center', inline: 'nearest'});
    const r = el.getClientRects()[0];
    const x = r.left + Math.min(r.width / 2, 8), y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit === null || hit === el || el.contains(hit) || hit.contains(el)) continue;
    if (hit.closest('label') && hit.closest('label').contains(el)) continue;
    if (el.labels && [...el.labels].some((l) => l.contains(hit))) continue;
    const name = (el.getAttribute('aria-label') || el.textContent || el.name || el.type || '')
      .trim().replace(/\\s+/g, ' ').slice(0, 40);
    const cls = typeof hit.className === 'string' ? hit.className.split(' ')[0] : '';
    out.push(`<${el.tagName.toLowerCase()}> "${name}" is covered by <${hit.tagName.toLowerCase()}`
      + `${cls ? '.' + cls : ''}> "${(hit.textContent || '').trim().slice(0, 40)}"`);
  }
  return out;
}"""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("stem", STEMS)
def test_every_control_takes_its_own_taps(open_chapter, stem, width):
    """Nothing lies over a slider, button, menu or link of the chapter (Quarto's page rows put
    the prev/next links below the chapter, never on top of it)."""
    page = open_chapter(stem, width=width, full=True).page
    covered = page.evaluate(COVERED_JS)
    assert not covered, f"{stem} at {width} px:\n  " + "\n  ".join(covered[:12])
