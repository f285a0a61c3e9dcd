"""Screenshot widgets with the test harness (the README's picture comes from here).

    python scripts/screenshot.py                                          # the README's widget
    python scripts/screenshot.py 03-evaluating-reasoners pass-at-k /tmp/pk.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # booktools, the book's tooling package

from booktools.harness.browser import CHROMIUM_ARGS, ChapterPage, build_runner, chromium_path  # noqa: E402
from booktools.harness.kernel import run_chapter  # noqa: E402
from booktools.harness.server import BookServer  # noqa: E402


def screenshot(stem: str, widget: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    build_runner()
    server = BookServer()
    run = run_chapter(ROOT / "chapters" / f"{stem}.qmd")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = ChapterPage(browser.new_page(viewport={"width": 900, "height": 1200}), run, server)
        page.assert_clean()
        # the widget together with the inputs that drive it (the cell chunk that holds both)
        page.page.locator(f'[data-widget="{widget}"]').locator(
            "xpath=ancestor::div[@class='cell']"
        ).screenshot(path=str(out))
        browser.close()
    server.close()
    print(f"wrote {out}")


def main() -> None:
    """The README's picture by default, or STEM WIDGET OUT."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("stem", nargs="?", default="02-self-consistency",
                        help="the chapter, e.g. 02-self-consistency (the default)")
    parser.add_argument("widget", nargs="?", default="condorcet",
                        help='its data-widget name (default: "condorcet")')
    parser.add_argument("out", nargs="?", type=Path,
                        default=ROOT / "images" / "condorcet-widget.png",
                        help="the PNG to write (default: images/condorcet-widget.png)")
    args = parser.parse_args()
    screenshot(args.stem, args.widget, args.out)


if __name__ == "__main__":
    main()
