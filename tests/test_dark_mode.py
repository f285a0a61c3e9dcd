"""Every widget reads on the book's light and dark theme (WCAG AA), as a real Quarto page draws it.

Each chapter's OJS cells run on a page dressed as a Quarto 1.7 book page
(booktools/harness/theme.py: Bootswatch cosmo, or darkly layered on cosmo with body class
`quarto-dark`, the book's styles.css, Quarto's rules for controls and inline code, its OJS
runtime's fix-ups of cell outputs, and the Plot 0.6.11 that Quarto loads). Then, in every widget
(`[data-widget]`) and every input form:

- each piece of text (SVG `<text>` such as tick labels and axis labels, readouts, legends, list
  items, button and input labels, the text in an input) must have a contrast of at least 4.5:1
  against what is painted behind it (WCAG 2.1 AA for normal text);
- each axis tick must reach 4.5:1 as well (the issue asks axes to read like their labels);
- no widget may paint a light background of its own on the dark page.

What is "behind" a glyph is measured, not assumed: the stack of elements under the centre of the
text (`document.elementsFromPoint`) is composited from the bottom up: the page, every box with a
background colour, and every SVG shape whose *fill* covers that point (`isPointInFill`), each with
its opacity. So a label drawn inside a bar or a cell is measured against that bar's fill, which is
what the reader sees it on, and a label on the bare panel against the panel. A text with a halo
(a stroke at least 2 px wide, as Plot draws for labels over marks) is measured against its halo.
Text that is drawn translucent is composited with its opacity first; text with zero opacity or no
box is not shown and not measured.

A legend glyph that stands for a mark (a coloured "●" marked `data-swatch`) is a graphical key,
not text: it must match its mark's colour and is left out, like the marks themselves.
"""

from __future__ import annotations

import re

import pytest

from conftest import ROOT, book_chapters, executed

pytestmark = pytest.mark.browser

AA_TEXT = 4.5
WIDGET_CHAPTERS = [p.stem for p in book_chapters() if "```{ojs}" in p.read_text()]

# Runs in the page; returns every measured item and what failed.
MEASURE = r"""
(minRatio) => {
  const parse = (c) => {
    const m = /^rgba?\(([^)]+)\)$/.exec(String(c).trim());
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const over = (top, alpha, bottom) => ({
    r: top.r * alpha + bottom.r * (1 - alpha), g: top.g * alpha + bottom.g * (1 - alpha),
    b: top.b * alpha + bottom.b * (1 - alpha), a: 1
  });
  const lum = ({r, g, b}) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (x, y) => { const [a, b] = [lum(x), lum(y)].sort((u, v) => v - u); return (a + 0.05) / (b + 0.05); };
  const hex = ({r, g, b}) => "#" + [r, g, b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  const opacity = (el) => { let o = 1; for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const isShape = (el) => el instanceof SVGGeometryElement;
  const inSvg = (el) => el instanceof SVGElement && el.tagName.toLowerCase() !== "svg";

  // What is painted under client point (x, y), below `self`, composited bottom-up.
  function backdrop(x, y, self) {
    const stack = document.elementsFromPoint(x, y);
    if (!stack.length) throw new Error(`nothing under (${x}, ${y}): the element is off screen`);
    let i = stack.indexOf(self);
    const below = stack.slice(i < 0 ? 0 : i).filter((e) => e !== self || !inSvg(e));
    let colour = {r: 255, g: 255, b: 255, a: 1};  // the browser's canvas
    for (const e of below.reverse()) {
      if (e === self && !(e instanceof HTMLElement)) continue;
      if (e.closest("text")) continue;  // other text is not a backdrop
      const cs = getComputedStyle(e);
      let c = null, a = 0;
      if (isShape(e)) {
        if (cs.fill === "none" || !(c = parse(cs.fill))) continue;
        const m = e.getScreenCTM();
        if (!m || !e.isPointInFill(new DOMPoint(x, y).matrixTransform(m.inverse()))) continue;
        a = c.a * Number(cs.fillOpacity) * opacity(e);
      } else if (!inSvg(e)) {
        c = parse(cs.backgroundColor);
        if (!c || c.a === 0) continue;
        a = c.a * opacity(e);
      } else continue;
      colour = over(c, a, colour);
    }
    return colour;
  }

  function measure(el, kind, where, paint) {
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible") return null;
    const op = opacity(el);
    if (op === 0) return null;
    if (rect.top < 0 || rect.bottom > innerHeight) el.scrollIntoView({block: "center", behavior: "instant"});
    const r = el.getBoundingClientRect();
    const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
    const fg = parse(paint === "stroke" ? cs.stroke : el instanceof SVGElement ? cs.fill : cs.color);
    const text = (el.textContent || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 40);
    if (!fg) return {kind, where, text, fg: String(paint === "stroke" ? cs.stroke : cs.fill), bg: "?", ratio: 0};
    let bg = backdrop(x, y, el);
    const halo = el instanceof SVGElement && paint !== "stroke" ? parse(cs.stroke) : null;
    if (halo && parseFloat(cs.strokeWidth) >= 2) bg = over(halo, halo.a * Number(cs.strokeOpacity), bg);
    const alpha = fg.a * op * (el instanceof SVGElement ? Number(paint === "stroke" ? cs.strokeOpacity : cs.fillOpacity) : 1);
    const seen = over(fg, alpha, bg);
    return {kind, where, text, fg: hex(seen), bg: hex(bg), ratio: Math.round(ratio(seen, bg) * 100) / 100};
  }

  const hasText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const skip = "title, desc, style, script, option, defs *, [data-swatch]";
  function texts(root) {
    const out = [...root.querySelectorAll("*")].filter((el) => !el.matches(skip) && hasText(el));
    if (hasText(root)) out.push(root);
    for (const input of root.querySelectorAll("input, select, textarea")) {
      if (!/^(range|checkbox|radio|color|hidden)$/.test(input.type)) out.push(input);
    }
    return out;
  }

  const items = [], lightPanels = [];
  const pageBg = backdrop(2, 2, null);
  const pageIsDark = lum(pageBg) < 0.2;
  const roots = [...document.querySelectorAll("[data-widget]")].filter((w) => !w.parentElement.closest("[data-widget]"));
  const forms = [...document.querySelectorAll("form")].filter((f) => !f.closest("[data-widget]"));
  for (const [root, name] of [...roots.map((w) => [w, w.dataset.widget]), ...forms.map((f) => [f, `form "${(f.querySelector("label")?.textContent || "").trim()}"`])]) {
    for (const el of texts(root)) {
      const kind = el.closest("svg") ? "svg text" : el.closest("button") ? "button" : el.matches("input, select, textarea") || el.closest("label") ? "input" : "text";
      const m = measure(el, kind, name);
      if (m) items.push(m);
    }
    for (const tick of root.querySelectorAll('g[aria-label$="-axis tick"] path, g[aria-label$="-axis tick"] line')) {
      const m = measure(tick, "axis tick", name, "stroke");
      if (m) items.push(m);
    }
    if (pageIsDark) {
      for (const el of [root, ...root.querySelectorAll("*")].filter((e) => !inSvg(e))) {
        const c = parse(getComputedStyle(el).backgroundColor);
        if (c && c.a * opacity(el) > 0.5 && lum(c) > 0.4) {
          lightPanels.push({where: name, element: el.tagName.toLowerCase() + (el.className?.baseVal ?? el.className ? "." + (el.className.baseVal ?? el.className) : ""), bg: hex(c)});
        }
      }
    }
  }
  return {widgets: roots.length, forms: forms.length, page: hex(pageBg), items, failures: items.filter((m) => m.ratio < minRatio), lightPanels};
}
"""  # noqa: E501 (JavaScript)


@pytest.fixture(scope="module")
def themed(browser, server):
    """themed(stem, mode) -> a ChapterPage whose page is dressed as the Quarto book in `mode`."""
    from booktools.harness.browser import ChapterPage
    from booktools.harness.theme import dress_page

    contexts = []

    def _open(stem: str, mode: str) -> ChapterPage:
        context = browser.new_context(viewport={"width": 900, "height": 1200})
        contexts.append(context)
        page = context.new_page()
        dress_page(page, mode)
        return ChapterPage(page, executed(stem), server)

    yield _open
    for context in contexts:
        context.close()


def _summary(report: dict) -> str:
    lines = [
        f"  {f['where']}: {f['kind']} {f['text']!r} {f['fg']} on {f['bg']} = {f['ratio']}:1"
        for f in report["failures"]
    ]
    lines += [
        f"  {p['where']}: <{p['element']}> paints a light background {p['bg']}"
        for p in report["lightPanels"]
    ]
    return "\n".join(lines)


@pytest.mark.parametrize("mode", ["dark", "light"])
@pytest.mark.parametrize("stem", WIDGET_CHAPTERS)
def test_widgets_read_on_the_theme(themed, stem, mode):
    page = themed(stem, mode)
    page.assert_clean()
    report = page.page.evaluate(MEASURE, AA_TEXT)
    assert report["widgets"] > 0, f"{stem}: no [data-widget] drawn"
    assert report["page"] == ("#222222" if mode == "dark" else "#ffffff"), report["page"]
    bad = len(report["failures"]) + len(report["lightPanels"])
    assert not bad, (
        f"{stem} ({mode}): {len(report['failures'])} of {len(report['items'])} texts/ticks below "
        f"{AA_TEXT}:1, {len(report['lightPanels'])} light panels:\n" + _summary(report)
    )


def test_theme_css_is_quartos_order():
    """Dark is darkly layered on cosmo (Quarto keeps the light sheet on), then the book's CSS."""
    from booktools.harness.theme import theme_css

    dark = theme_css("dark")
    assert dark.index("Bootswatch v5.3.8") < dark.rindex("Bootswatch v5.3.8")
    assert "darkly" in dark and "cosmo" in dark.lower()
    assert not re.search(r"@import url\(https?:", dark)
    if (ROOT / "styles.css").exists():
        assert dark.endswith((ROOT / "styles.css").read_text())
    with pytest.raises(ValueError, match="mode"):
        theme_css("sepia")


PROBE_PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>theme probe</title></head><body><main>
<p>Inline <code id="code">ojs_define</code> in a sentence.</p>
<div id="node" style="background: var(--mermaid-node-bg-color)">
  <span id="label" style="color: var(--mermaid-label-fg-color)">policy (the LLM)</span></div>
<div id="edge" style="background: var(--mermaid-edge-color)"></div>
<div id="border" style="background: var(--mermaid-node-fg-color)"></div>
</main></body></html>"""

# Colours of the probe's elements, as the page resolves them (Chrome reports color-mix() results
# as `color(srgb r g b / a)`).
PROBE = r"""
() => {
  const parse = (c) => {
    let m = /^rgba?\(([^)]+)\)$/.exec(c);
    if (m) { const p = m[1].split(/[\s,\/]+/).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
    m = /^color\(srgb ([^)]+)\)$/.exec(c);
    if (m) { const p = m[1].split(/[\s\/]+/).map(Number); return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
    throw new Error(`unparsed colour ${c}`);
  };
  const cs = (id, prop) => parse(getComputedStyle(document.getElementById(id))[prop]);
  return {
    page: parse(getComputedStyle(document.body).backgroundColor),
    code: cs("code", "color"), codeBg: cs("code", "backgroundColor"),
    label: cs("label", "color"), node: cs("node", "backgroundColor"),
    edge: cs("edge", "backgroundColor"), border: cs("border", "backgroundColor"),
  };
}
"""  # noqa: E501 (JavaScript)


def _over(top: list[float], bottom: list[float]) -> list[float]:
    """`top` (RGBA, alpha 0-1) composited over an opaque `bottom`."""
    a = top[3]
    return [top[i] * a + bottom[i] * (1 - a) for i in range(3)]


def _luminance(rgb: list[float]) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour with channels 0-255."""
    channels = [v / 255 for v in rgb]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: list[float], b: list[float]) -> float:
    """WCAG contrast ratio of two opaque colours."""
    hi, lo = sorted([_luminance(a), _luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("mode", ["dark", "light"])
def test_inline_code_and_mermaid_read_on_the_theme(browser, server, mode):
    """Inline code is no light pill on the dark page; Quarto's mermaid colours stay visible.

    Quarto's mermaid theme draws node labels in --mermaid-label-fg-color on
    --mermaid-node-bg-color (a 10% tint of the primary colour over the page), edges in
    --mermaid-edge-color and node borders in --mermaid-node-fg-color. Labels are text (4.5:1);
    edges and borders are graphics, for which WCAG 2.1 (1.4.11) asks 3:1 against the page.
    """
    from booktools.harness.theme import dress_page

    server.pages["/chapters/theme-probe.html"] = PROBE_PAGE
    context = browser.new_context()
    try:
        page = context.new_page()
        dress_page(page, mode)
        page.goto(server.origin + "/chapters/theme-probe.html")
        c = page.evaluate(PROBE)
    finally:
        context.close()
    page_bg = c["page"][:3]
    code_bg = _over(c["codeBg"], page_bg)
    node_bg = _over(c["node"], page_bg)
    checks = {
        "inline code text on its pill": (_contrast(_over(c["code"], code_bg), code_bg), AA_TEXT),
        "mermaid node label": (_contrast(_over(c["label"], node_bg), node_bg), AA_TEXT),
        "mermaid edge": (_contrast(_over(c["edge"], page_bg), page_bg), 3.0),
        "mermaid node border": (_contrast(_over(c["border"], page_bg), page_bg), 3.0),
    }
    failed = {k: round(r, 2) for k, (r, need) in checks.items() if r < need}
    if mode == "dark" and _luminance(code_bg) >= 0.2:  # a white pill on the #222 page
        failed["inline code pill's luminance (must be < 0.2)"] = round(_luminance(code_bg), 2)
    assert not failed, f"{mode}: below WCAG AA: {failed}"


HOVER_TIP = r"""
async (name) => {
  const w = document.querySelector(`[data-widget="${name}"]`);
  w.scrollIntoView({block: "center", behavior: "instant"});
  const bar = w.querySelector('g[aria-label="bar"] rect');
  const r = bar.getBoundingClientRect();
  const at = {bubbles: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, pointerType: "mouse"};
  bar.ownerSVGElement.dispatchEvent(new PointerEvent("pointerenter", at));
  bar.ownerSVGElement.dispatchEvent(new PointerEvent("pointermove", at));
  await new Promise((done) => setTimeout(done, 200));
  const tip = w.querySelector('g[aria-label="tip"] path');
  const text = w.querySelector('g[aria-label="tip"] text');
  return tip && text ? [getComputedStyle(text).fill, getComputedStyle(tip).fill] : null;
}
"""  # noqa: E501 (JavaScript)


@pytest.mark.parametrize("mode", ["dark", "light"])
def test_plot_tooltip_reads_on_the_theme(themed, mode):
    """Plot 0.6.11 fills its tooltip box white and writes in the text colour: white on white."""
    page = themed("07-dapo", mode)
    colours = page.page.evaluate(HOVER_TIP, "token-level")
    assert colours, "hovering a token-level bar drew no tooltip"
    text, box = ([float(v) for v in re.findall(r"[\d.]+", c)[:3]] for c in colours)
    assert _contrast(text, box) >= AA_TEXT, f"{mode}: tooltip text {text} on {box}"
