"""The book's own tooling: Python that reads the book's sources, not the book's subject.

- `booktools.qmd` reads a chapter as Quarto does (front matter, prose, cells and their options,
  inline expressions), with one fence scanner;
- `booktools.notebooks` builds the Jupyter notebook each chapter page links;
- `booktools.harness` imitates Quarto for the tests and the scripts (benchmark, screenshot,
  check_site): it runs a chapter's Python in Jupyter, draws its page and runs its OJS in Chromium.

`scripts/` and `tests/` both import from here, and this package imports from neither, so a
script never imports a test module nor a test a script. (`code/` is the book's subject, the
modules the chapters call; this is not part of it.)
"""
