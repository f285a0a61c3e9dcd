"""Chapter 10's search tree on the real page layout: labels a reader can read, and no edge on them.

The tree once drew 11 px labels on an 860 px chart that the 566 px text column scaled to 0.66
(7 px text), beside nodes whose outgoing edges fanned out straight through them.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
STEM = "09-tree-of-thoughts"

# Per label of the tree's chart: its on-screen font size, and whether a link path passes through
# its box (sampled along each path, in screen coordinates).
MEASURE = """() => {
  const svg = document.querySelector('[data-widget="search-tree"] svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const texts = [...svg.querySelectorAll('g[aria-label=text] text')]
    .filter(t => t.textContent.trim());
  const boxes = texts.map(t => t.getBoundingClientRect());
  const crossed = new Set();
  for (const p of svg.querySelectorAll('g[aria-label=link] path')) {
    const m = p.getScreenCTM(), L = p.getTotalLength();
    for (let s = 0; s <= 50; s++) {
      const q = p.getPointAtLength(L * s / 50);
      const x = m.a * q.x + m.c * q.y + m.e, y = m.b * q.x + m.d * q.y + m.f;
      boxes.forEach((r, i) => {
        if (x > r.left + 1 && x < r.right - 1 && y > r.top + 1 && y < r.bottom - 1) crossed.add(i);
      });
    }
  }
  return texts.map((t, i) => ({text: t.textContent, crossed: crossed.has(i),
                               px: parseFloat(getComputedStyle(t).fontSize) * scale}));
}"""


@pytest.mark.parametrize("width", [1100, 400], ids=["desktop", "phone"])
def test_search_tree_labels_are_readable_and_clear_of_edges(open_chapter, width):
    page = open_chapter(STEM, width=width, full=True)
    for beam in (3, 8):
        page.set_input("Beam width b", beam)
        labels = page.page.evaluate(MEASURE)
        assert len(labels) > 5, labels
        small = [(lab["text"], round(lab["px"], 1)) for lab in labels if lab["px"] < 11.9]
        assert not small, f"b={beam}, {width} px page: labels under 12 px on screen: {small}"
        crossed = [lab["text"] for lab in labels if lab["crossed"]]
        assert not crossed, f"b={beam}, {width} px page: edges run through labels {crossed}"
