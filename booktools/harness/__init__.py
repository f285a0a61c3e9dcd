"""The harness that imitates Quarto: parse chapters, run Python in Jupyter, OJS in Chromium.

Part of the book's tooling (`booktools`), so that the tests and the scripts that drive it
(benchmark, screenshot, check_site, bench_*) import it the same way, `from booktools.harness.kernel
import run_chapter`, with the project's root on the path. Wherever it differs from Quarto, Quarto
is right. It reads chapters with `booktools.qmd`, the reader the notebook builder uses too.
"""
