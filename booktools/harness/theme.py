"""Dress a test page the way a rendered Quarto 1.7 book dresses a chapter, light or dark.

The chapter page the harness builds (browser.chapter_html) carries no theme at all, so it cannot
show what a reader sees. `dress_page` adds, before the page loads, what the real page has:

- the Bootstrap theme: Bootswatch's cosmo CSS for light; for dark, darkly layered *on top of*
  cosmo (Quarto enables the dark stylesheet without disabling the light one), and the body class
  Quarto's toggle sets (`quarto-light` / `quarto-dark`);
- the book's own `styles.css`, as `css: styles.css` in _quarto.yml loads it;
- the rules of Quarto's own stylesheet that colour its page chrome (section numbers, citation
  links, the code-fold summary, the Code button, breadcrumbs and the previous / next links), each
  theme's compiled values;
- the few rules of Quarto's own stylesheet that touch widgets, written out here in terms of
  Bootstrap's CSS variables: form controls painted with the page background, inline code on
  `$code-bg` (gray-100 in both themes), and the `--mermaid-*` colours Quarto's mermaid theme uses;
- what Quarto's OJS runtime does to each cell's output as it is added: a Plot `<svg>` that is the
  output itself gets `style.background = "none"` (one that sits inside a widget's `<div>` does
  not), and every `<button>` inside the output gets Quarto's `btn btn-quarto` classes.
  Quarto's `.btn-quarto` is Bootstrap's button variant on `$secondary`, which is exactly what
  Bootswatch's `.btn-secondary` is, so the button also gets that class here;
- Plot 0.6.11 in place of the npm Plot the stdlib asks for: Quarto 1.7.34's runtime loads
  `@observablehq/plot@0.6.11`, whose default style paints every chart `background: white`.
"""

from __future__ import annotations

import json
import re

from .server import ROOT

THEMES = {"light": ("cosmo",), "dark": ("cosmo", "darkly")}
PLOT_AS_QUARTO = ROOT / "node_modules" / "observablehq-plot-0.6.11" / "dist"

# Quarto's own rules (its SCSS, compiled per theme) that reach a widget, restated with the
# theme's CSS variables so one block serves both themes.
QUARTO_RULES = """
input, button, select, optgroup, textarea { background-color: var(--bs-body-bg); }
p code:not(.sourceCode), li code:not(.sourceCode), td code:not(.sourceCode) {
  background-color: var(--bs-gray-100); padding: 0.2em;
}
code { color: #7d12ba; }
:root {
  --mermaid-bg-color: var(--bs-body-bg);
  --mermaid-edge-color: var(--bs-secondary);
  --mermaid-fg-color: var(--bs-body-color);
  --mermaid-label-bg-color: var(--bs-body-bg);
  --mermaid-label-fg-color: var(--bs-primary);
  --mermaid-node-fg-color: var(--bs-primary);
  --mermaid-node-bg-color: color-mix(in srgb, var(--bs-primary) 10%, transparent);
}
"""

# Quarto's rules for its own page chrome (booktools/harness/page.py draws the markup), with the values
# its SCSS compiles to for each theme: cosmo's link colour as Quarto overrides it; section numbers
# in the body's secondary colour (`body-secondary`); citations and footnote marks without their
# underline; the folded cell's summary, the Code tools button, the previous / next links and the
# current breadcrumb in $gray-600, the same grey on both themes.
QUARTO_CHROME_RULES = {
    "light": """
:root { --bs-link-color: #2761e3; --bs-link-color-rgb: 39, 97, 227; }
.header-section-number { color: hsl(210, 10.3448%, 47.745%); }
""",
    "dark": """
.header-section-number { color: hsl(0, 0%, 75%); }
""",
    "both": """
.nav-link.active .header-section-number { color: inherit; }
.citation a, .footnote-ref { text-decoration: none; }
details > summary { color: #6c757d; }
.code-tools-button { color: #6c757d; background-color: transparent; }
.nav-page a { color: #6c757d; text-decoration: none; display: flex; align-items: center; }
.quarto-title-breadcrumbs .breadcrumb { margin-bottom: 0.5em; font-size: 0.9rem; }
.quarto-title-breadcrumbs .breadcrumb li:last-of-type a { color: #6c757d; }
""",
}

# Runs in the page before any of its scripts: add the stylesheets and body class, and watch
# each OJS cell's output as Quarto's runtime does.
INIT_SCRIPT = """
(({css, mode}) => {
  const style = document.createElement("style");
  style.id = "quarto-theme-under-test";
  style.textContent = css;
  const bodyClass = mode === "dark" ? "quarto-dark" : "quarto-light";
  const fix = (added) => {
    if (added.tagName === "svg" && [...added.classList].some((c) => /^plot-[0-9a-f]+$/.test(c))) {
      added.style.background = "none";
    }
    for (const b of added.querySelectorAll("button")) b.classList.add("btn", "btn-quarto", "btn-secondary");
  };
  // The init script runs before <html> exists: watch the whole document as it is built. Each
  // cell of the harness page shows its value in a div.ojs-cell-output (Quarto: div.observablehq).
  new MutationObserver((records) => {
    if (document.head && !style.isConnected) document.head.append(style);
    if (document.body && !document.body.classList.contains(bodyClass)) document.body.classList.add(bodyClass);
    for (const r of records) {
      if (r.target.nodeType !== 1 || !r.target.matches(".ojs-cell-output")) continue;
      for (const n of r.addedNodes) if (n.nodeType === 1) fix(n);
    }
  }).observe(document, {childList: true, subtree: true});
})
"""


def theme_css(mode: str) -> str:
    """The page's stylesheets for `mode` ("light" or "dark"), in the order Quarto loads them."""
    if mode not in THEMES:
        raise ValueError(f"mode must be one of {sorted(THEMES)}, got {mode!r}")
    sheets = []
    for name in THEMES[mode]:
        path = ROOT / "node_modules" / "bootswatch" / "dist" / name / "bootstrap.min.css"
        if not path.exists():
            raise RuntimeError("bootswatch is missing from node_modules: run `npm ci`")
        # Bootswatch imports web fonts from Google; the test machine is offline, and a failed
        # request would be a console error. Typefaces do not change colours.
        sheets.append(re.sub(r"@import url\([^)]*\);?", "", path.read_text()))
    sheets.append(QUARTO_RULES)
    # Quarto compiles one stylesheet per theme, so the dark values replace the light ones.
    sheets += [QUARTO_CHROME_RULES[mode], QUARTO_CHROME_RULES["both"]]
    book_css = ROOT / "styles.css"
    if book_css.exists():
        sheets.append(book_css.read_text())
    return "\n".join(sheets)


def dress_page(page, mode: str) -> None:
    """Make `page` (not yet navigated) load as a Quarto 1.7 book page in the `mode` theme."""
    page.add_init_script(
        script=f"{INIT_SCRIPT}({json.dumps({'css': theme_css(mode), 'mode': mode})});"
    )

    def plot_as_quarto(route) -> None:
        name = route.request.url.rsplit("/", 1)[-1]
        file = PLOT_AS_QUARTO / name
        if not file.is_file():
            return route.fulfill(status=404, body=f"no {name} in Plot 0.6.11")
        return route.fulfill(path=str(file), content_type="text/javascript")

    page.route(re.compile(r"/npm/@observablehq/plot@[^/]+/dist/[^/]+$"), plot_as_quarto)
