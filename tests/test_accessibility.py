"""Every chapter page is usable with a keyboard and a screen reader.

Each chapter's whole page (harness.page: prose, code, printed output and the live widgets),
dressed as Quarto 1.7 dresses it (harness.theme), is checked by axe-core (npm, pinned in
package.json), the engine behind the browsers' own accessibility audits:

- the widgets and their inputs (every {ojs} cell), light and dark: no serious or critical
  violation at all;
- the whole page, light and dark: no serious or critical violation, Quarto's own chrome
  included (harness.page draws Quarto's title block, margin table of contents, callouts,
  citations and previous / next links; harness.theme gives them Quarto's colours), so what the
  book's styles.css and scroll-focus.html mend on the real page is checked here too.

On top of what axe can know, every widget must explain itself: each chart an accessible name and
a one-sentence description (Plot's `ariaLabel` / `ariaDescription`), each readout inside an
`aria-live` region, so a screen reader announces the new value when an input moves; each input a
visible label, reachable from the keyboard.
"""
from __future__ import annotations

import json

import pytest

from conftest import ROOT, book_chapters, executed

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
STEMS = [p.stem for p in book_chapters()]

# axe's own tags for the WCAG 2.0-2.2 A and AA success criteria, plus its best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]

RUN_AXE = """async ([tags, context]) => {
  const result = await axe.run(context, {runOnly: {type: 'tag', values: tags},
                                         resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
    where: v.nodes.slice(0, 3).map(n => n.target.join(' ')),
  }));
}"""

# The widgets' own promises, which axe cannot check (it does not know what a widget is).
WIDGET_PROBLEMS = r"""() => {
  const problems = [];
  const text = (el) => (el && el.textContent || '').trim();
  for (const root of document.querySelectorAll('[data-widget]')) {
    const name = root.dataset.widget;
    for (const svg of root.querySelectorAll('svg')) {
      // A legend's colour swatch is decoration next to its text label; a colour ramp is a legend.
      const cls = svg.getAttribute('class') || '';
      if (svg.closest('[class$="-swatch"]') || /-ramp\b/.test(cls)) continue;
      if (svg.parentElement && svg.parentElement.closest('svg')) continue;  // part of a chart
      if (svg.closest('[aria-hidden="true"]')) continue;
      const label = (svg.getAttribute('aria-label') || '').trim();
      const description = (svg.getAttribute('aria-description') || '').trim()
        || text(svg.querySelector(':scope > desc'))
        || (svg.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean)
             .map(id => text(document.getElementById(id))).join(' ').trim();
      if (!label) problems.push(`${name}: a chart has no accessible name (ariaLabel)`);
      if (!description) {
        problems.push(`${name}: chart "${label}" has no description (ariaDescription)`);
      }
    }
    for (const readout of root.querySelectorAll('[data-readout]')) {
      const live = readout.closest('[aria-live]');
      if (!live || !root.contains(live) || live.getAttribute('aria-live') === 'off') {
        problems.push(`${name}: readout "${readout.dataset.readout}" is not in an aria-live`
                      + ' region');
      }
    }
  }
  // Every control a reader can move: a visible label, and reachable from the keyboard. A
  // collapsible callout's header is one too (Quarto makes it a click-only <div>).
  const controls = 'input, select, textarea, button, [data-bs-toggle="collapse"]';
  for (const control of document.querySelectorAll(controls)) {
    if (control.type === 'hidden' || control.closest('#quarto-sidebar, nav')) continue;
    if (control.closest('.dropdown-menu, #title-block-header')) continue;  // Quarto's Code menu
    const form = control.closest('form');
    const labels = [...(control.labels || [])];
    if (form) labels.push(...form.querySelectorAll('label'));
    const visible = control.tagName === 'BUTTON' || control.matches('[data-bs-toggle]')
      ? text(control) || control.getAttribute('aria-label')
      : labels.map(text).find(Boolean) || '';
    if (!visible) {
      problems.push(`a ${control.tagName.toLowerCase()} (${control.type}) has no visible label`);
    }
    // A disabled native control is not in the tab order by design (HTML removes it; WAI-ARIA's
    // practices keep that default outside composite widgets) and does nothing, so there is
    // nothing to reach: it is exempt, as axe exempts it. A reachable one that opts out
    // (tabindex -1) or a click-only <div> is the defect.
    if (!control.disabled && control.tabIndex < 0
        || control.matches('div[data-bs-toggle]') && control.getAttribute('role') !== 'button') {
      problems.push(`control "${visible}" cannot be reached from the keyboard`);
    }
  }
  return problems;
}"""


_pages: dict = {}


def _open(browser, server, stem: str, mode: str):
    """The chapter's whole page (harness.page), dressed as Quarto 1.7 dresses it (harness.theme)."""
    from booktools.harness.browser import ChapterPage
    from booktools.harness.theme import dress_page

    if (stem, mode) not in _pages:
        page = browser.new_context(viewport={"width": 1100, "height": 1200}).new_page()
        dress_page(page, mode)
        chapter = ChapterPage(page, executed(stem), server, full=True)
        chapter.page.add_script_tag(path=str(AXE))
        _pages[(stem, mode)] = chapter
    return _pages[(stem, mode)]


def _serious(chapter, context) -> list[dict]:
    violations = chapter.page.evaluate(RUN_AXE, [AXE_TAGS, context])
    return [v for v in violations if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("stem", STEMS)
def test_axe_finds_nothing_serious_in_the_widgets(browser, server, stem: str, mode: str) -> None:
    """axe-core on every {ojs} cell (widgets and their inputs), both themes: nothing serious."""
    if not executed(stem).ojs_cells:
        pytest.skip(f"{stem} has no widgets")
    chapter = _open(browser, server, stem, mode)
    chapter.assert_clean()
    bad = _serious(chapter, {"include": [["[id^='ojs-cell-']"]]})
    assert not bad, f"{stem} ({mode}): axe-core violations:\n" + "\n".join(map(json.dumps, bad))


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("stem", STEMS)
def test_axe_finds_nothing_serious_on_the_page(browser, server, stem: str, mode: str) -> None:
    """axe-core on the whole chapter page, Quarto's chrome included: nothing serious."""
    chapter = _open(browser, server, stem, mode)
    bad = _serious(chapter, {"include": [["body"]]})
    assert not bad, f"{stem} ({mode}): axe-core violations:\n" + "\n".join(map(json.dumps, bad))


@pytest.mark.parametrize("stem", STEMS)
def test_widgets_are_named_described_and_announced(browser, server, stem: str) -> None:
    """Each widget chart has a name and a description, each readout is live, each input labelled."""
    chapter = _open(browser, server, stem, "light")
    problems = chapter.page.evaluate(WIDGET_PROBLEMS)
    assert not problems, f"{stem}:\n" + "\n".join(problems)


def test_the_page_carries_quartos_chrome() -> None:
    """The page test is only as good as the page: it must carry the Quarto markup that axe
    flagged on the real render (a collapsible callout's header, the margin TOC's section numbers,
    linked citations, the previous / next links with their labels, breadcrumbs, the Code button)."""
    from booktools.harness.page import chapter_page_html

    page = chapter_page_html(executed("01-test-time-compute"))
    for marker in [
        'class="callout-header d-flex align-content-center" data-bs-toggle="collapse"',
        'aria-expanded="false" aria-label="Toggle callout"',
        '<nav id="TOC" role="doc-toc"',
        'class="nav-link active" data-scroll-target='
        '"#the-standard-recipe-and-where-reasoning-enters">'
        '<span class="header-section-number">1.1</span>',
        'role="doc-biblioref"',
        'class="pagination-link" aria-label="Self-consistency and best-of-N"',
        'class="quarto-page-breadcrumbs quarto-title-breadcrumbs',
        'id="quarto-code-tools-menu"',
    ]:
        assert marker in page, f"the harness page lacks Quarto's {marker!r}"
