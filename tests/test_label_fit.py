"""Every label a widget draws can be read whole: nothing is cut at the chart's edge or drawn over.

Each chapter's full page (harness.page, Quarto's layout) is opened once per width, at 1,100 px
(a 566 px text column) and at 400 px (a phone's 349 px column). In every widget, at load and
again after each input has been moved to each of its extremes (a slider to its minimum and its
maximum, a select to its first and last option, a checkbox group to all and to none), then put
back:

- each SVG `<text>` must lie inside its chart's drawing area, the `<svg>`'s own box (the SVG
  clips what falls outside it, so "10 ✓ right" beyond the right edge reads "1(");
- two texts of a chart must not overlap each other (a label printed on a label);
- an axis's tick label must not lie under a bar or a cell of the data, and no other label may
  straddle a bar's edge (a bar drawn leftwards from zero over its own row's name); a label wholly
  inside a bar or cell, or clear of it, is fine;
- the marker of an ordered list ("15.") must fit inside the list's left padding: a marker wider
  than its padding sits outside the list's box, where a scrolling cell output cuts it ("15."
  shows as ".5.");
- every option of a select must fit its box (Observable Inputs' select is 240 px wide, and a
  Quarto render showed "GRPO, seed 0 (from the col…" at 1,100 px): the widest option's text,
  in the select's font, must fit inside its padding and the menu's arrow;
- every swatch of a chart's legend must draw something (a fill or a stroke that is neither
  `none` nor transparent): a `transparent` colour left "solved by neither" with an empty box.

Inputs are moved programmatically (an `input` event, as `ChapterPage.set_input` sends), which is
what a reader's drag ends in. Buttons are not pressed (a button redraws the same chart with new
data, not a new extreme).
"""

from __future__ import annotations

import pytest

from conftest import book_chapters

pytestmark = pytest.mark.browser

WIDGET_STEMS = [p.stem for p in book_chapters() if "```{ojs}" in p.read_text()]
WIDTHS = [1100, 400]
# Reviewed exceptions: (the start of a problem's text) -> why it is not fixed here.
KNOWN: dict[str, str] = {}
SLACK = 1.0  # px: anti-aliasing and sub-pixel rounding of a glyph's box

# Every problem on the page now, as strings naming the widget, the text and by how much.
PROBLEMS_JS = r"""
(slack) => {
  const out = [];
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 0.5 || r.height < 0.5) return false;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === "none" || cs.visibility === "hidden" || Number(cs.opacity) === 0) return false;
    }
    return true;
  };
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > slack
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > slack;
  const short = (el) => (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 40);
  const textWidth = (text, font) => {
    const probe = document.createElement("span");
    probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font:${font}`;
    probe.textContent = text;
    document.body.append(probe);
    const w = probe.getBoundingClientRect().width;
    probe.remove();
    return w;
  };
  const seen = (colour) => colour && colour !== "none" && colour !== "transparent"
    && !/^rgba\(.*,\s*0\)$/.test(colour);
  // A y axis that reads downwards ("↓ label"): Quarto's Plot 0.6.11 turns a `zero: true` domain
  // of one positive value into [v, 0]; no chart of the book means to be read upside down.
  for (const label of [...document.querySelectorAll('svg [aria-label="y-axis label"]')].filter(visible)) {
    if ((label.textContent || "").trim().startsWith("↓")) {
      out.push(`y axis "${short(label)}" reads downwards (its domain is reversed)`);
    }
  }
  // Selects (the chapter's inputs and a widget's own): the widest option must fit the box.
  const ARROW = 20;  // px: Chromium's menu-list arrow, drawn inside the box unless appearance is none
  for (const select of [...document.querySelectorAll("select")].filter(visible)) {
    const cs = getComputedStyle(select);
    const room = select.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)
      - (cs.appearance === "none" ? 0 : ARROW);
    const label = (select.closest("form")?.querySelector("label")?.textContent || "").trim();
    for (const option of select.options) {
      const need = textWidth(option.textContent, cs.font);
      if (need > room + slack) {
        out.push(`select "${label}": option "${option.textContent.trim()}" is ${Math.round(need)} px wide in a ${Math.round(room)} px box`);
      }
    }
  }
  const roots = [...document.querySelectorAll("[data-widget]")];
  for (const root of roots) {
    const name = root.dataset.widget;
    const own = (el) => el.closest("[data-widget]") === root;
    // Charts: the outermost <svg>s (a legend swatch's tiny svg has no text).
    for (const svg of [...root.querySelectorAll("svg")].filter((s) => own(s) && !s.parentElement.closest("svg"))) {
      const box = svg.getBoundingClientRect();
      if (box.width < 1) continue;
      const texts = [...svg.querySelectorAll("text")].filter((t) => visible(t) && short(t));
      const rects = new Map(texts.map((t) => [t, t.getBoundingClientRect()]));
      for (const t of texts) {
        const r = rects.get(t);
        const cut = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom);
        if (cut > slack) out.push(`${name}: "${short(t)}" is cut ${Math.round(cut)} px at the chart's edge`);
      }
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const [a, b] = [texts[i], texts[j]];
          if (a.contains(b) || b.contains(a)) continue;
          if (overlap(rects.get(a), rects.get(b))) out.push(`${name}: "${short(a)}" overlaps "${short(b)}"`);
        }
      }
      // Tick labels against the data's filled boxes (bars, cells): Plot's marks are the g's
      // with an aria-label that is not an axis, a grid, a frame or a tip.
      const ticks = texts.filter((t) => /-axis tick label$/.test(t.closest("g[aria-label]")?.getAttribute("aria-label") || ""));
      const bars = [...svg.querySelectorAll("g[aria-label] rect")].filter((r) => {
        const g = r.closest("g[aria-label]").getAttribute("aria-label");
        const cs = getComputedStyle(r);
        // A translucent band (a shaded range behind the data) is a backdrop, not a bar.
        return !/axis|grid|frame|tip/.test(g) && visible(r) && cs.fill !== "none" && Number(cs.fillOpacity) >= 0.5;
      });
      // A label that straddles a bar's edge (neither inside it nor clear of it) is half hidden
      // by the bar or hides it; a label inside a cell, or beyond a bar's end, is fine.
      const inside = (a, b) => a.left >= b.left - slack && a.right <= b.right + slack
        && a.top >= b.top - slack && a.bottom <= b.bottom + slack;
      for (const t of texts.filter((t) => !ticks.includes(t))) {
        const r = rects.get(t);
        const bar = bars.find((b) => { const q = b.getBoundingClientRect(); return overlap(r, q) && !inside(r, q); });
        if (bar) out.push(`${name}: "${short(t)}" straddles the edge of a bar of "${bar.closest("g[aria-label]").getAttribute("aria-label")}"`);
      }
      for (const t of ticks) {
        for (const bar of bars) {
          if (overlap(rects.get(t), bar.getBoundingClientRect())) {
            out.push(`${name}: tick label "${short(t)}" lies under a bar of "${bar.closest("g[aria-label]").getAttribute("aria-label")}"`);
            break;
          }
        }
      }
    }
    // Legend swatches: Plot's (a small svg beside each name) must draw a fill or a stroke.
    for (const swatch of [...root.querySelectorAll("[class*='swatch'] svg")].filter(own)) {
      const shapes = [...swatch.querySelectorAll("rect, circle, path, line, polygon, ellipse")];
      const drawn = shapes.some((el) => {
        const cs = getComputedStyle(el);
        const fill = seen(cs.fill) && Number(cs.fillOpacity) > 0;
        const stroke = seen(cs.stroke) && Number(cs.strokeOpacity) > 0 && parseFloat(cs.strokeWidth) > 0;
        return Number(cs.opacity) > 0 && (fill || stroke);
      });
      if (!drawn) out.push(`${name}: legend swatch "${short(swatch.parentElement)}" draws nothing (no fill, no stroke)`);
    }
    // Ordered lists: the widest marker ("15. ") must fit in the list's left padding.
    for (const ol of [...root.querySelectorAll("ol")].filter(own)) {
      const items = [...ol.children].filter((li) => li.tagName === "LI");
      if (!items.length || getComputedStyle(ol).listStylePosition === "inside") continue;
      const probe = document.createElement("span");
      const cs = getComputedStyle(items.at(-1));
      probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font:${cs.font}`;
      probe.textContent = `${(ol.start || 1) + items.length - 1}. `;
      document.body.append(probe);
      const marker = probe.getBoundingClientRect().width;
      probe.remove();
      const pad = parseFloat(getComputedStyle(ol).paddingLeft);
      if (marker > pad + slack) out.push(`${name}: list marker "${probe.textContent.trim()}" is ${Math.round(marker)} px wide in a ${Math.round(pad)} px padding`);
    }
  }
  return out;
}
"""  # noqa: E501 (JavaScript)

# Every input of the page outside a widget, with its extremes; returns a list of
# {index, kind, extremes: [...], initial} descriptors.
INPUTS_JS = r"""
() => [...document.querySelectorAll("form")].filter((f) => !f.closest("[data-widget]")).map((form, index) => {
  const range = form.querySelector("input[type=range]");
  const select = form.querySelector("select");
  const boxes = [...form.querySelectorAll("input[type=checkbox]")];
  const radios = [...form.querySelectorAll("input[type=radio]")];
  const label = (form.querySelector("label")?.textContent || "").trim();
  if (range) return {index, label, kind: "range", extremes: [range.min, range.max], initial: range.value};
  if (select) {
    const values = [...select.options].map((o) => o.value);
    return {index, label, kind: "select", extremes: [values[0], values.at(-1)], initial: select.value};
  }
  if (boxes.length) return {index, label, kind: "checkbox", extremes: [boxes.map(() => true), boxes.map(() => false)],
                             initial: boxes.map((b) => b.checked)};
  if (radios.length) return {index, label, kind: "radio", extremes: [0, radios.length - 1],
                              initial: radios.findIndex((r) => r.checked)};
  return null;
}).filter(Boolean)
"""  # noqa: E501 (JavaScript)

SET_JS = r"""
([index, kind, value]) => {
  const form = [...document.querySelectorAll("form")].filter((f) => !f.closest("[data-widget]"))[index];
  let target;
  if (kind === "range") { target = form.querySelector("input[type=range]"); target.value = value; }
  else if (kind === "select") { target = form.querySelector("select"); target.value = value; }
  else if (kind === "checkbox") {
    const boxes = [...form.querySelectorAll("input[type=checkbox]")];
    boxes.forEach((b, i) => { if (!b.disabled || !value[i]) b.checked = value[i]; });
    target = boxes[0];
  } else {
    const radios = [...form.querySelectorAll("input[type=radio]")];
    radios.forEach((r, i) => { r.checked = i === value; });
    target = radios[Math.max(0, value)];
  }
  target.dispatchEvent(new Event("input", {bubbles: true}));
}
"""  # noqa: E501 (JavaScript)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("stem", WIDGET_STEMS)
def test_every_label_fits(open_chapter, stem, width):
    page = open_chapter(stem, width=width, full=True)
    page.assert_clean()
    found: dict[str, str] = {}

    def look(state: str) -> None:
        for problem in page.page.evaluate(PROBLEMS_JS, SLACK):
            if not any(problem.startswith(known) for known in KNOWN):
                found.setdefault(problem, state)

    look("at load")
    for inp in page.page.evaluate(INPUTS_JS):
        for value in inp["extremes"]:
            page.page.evaluate(SET_JS, [inp["index"], inp["kind"], value])
            page.settle()
            if inp["kind"] == "checkbox":
                value = "all" if all(value) else "none"
            look(f'with "{inp["label"]}" at {value}')
        page.page.evaluate(SET_JS, [inp["index"], inp["kind"], inp["initial"]])
        page.settle()
    page.assert_clean()
    assert not found, f"{stem} at {width} px:\n  " + "\n  ".join(
        f"{p} ({state})" for p, state in found.items()
    )
