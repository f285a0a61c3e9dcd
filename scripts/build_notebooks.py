"""Build one Jupyter notebook per chapter, next to the chapter's page in the rendered book.

Quarto runs this after a render (``post-render`` in _quarto.yml) and it writes
``<output-dir>/chapters/<stem>.ipynb``, the file each chapter's "Download as a Jupyter notebook"
link (``code-links`` in its front matter) points to. By hand: ``python scripts/build_notebooks.py
[--out DIR]``. The notebooks themselves (why Quarto cannot write them for a book, and what
differs from the chapter) are `booktools/notebooks.py`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # `booktools`, the book's tooling, sits at the project's top

from booktools.notebooks import write_notebooks  # noqa: E402


def main() -> None:
    """Quarto's post-render hook (output dir from QUARTO_PROJECT_OUTPUT_DIR), or --out DIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(os.environ.get("QUARTO_PROJECT_OUTPUT_DIR", ROOT / "_book")),
        help="the rendered book's directory (default: Quarto's output dir, else _book)",
    )
    args = parser.parse_args()
    for target in write_notebooks(args.out):
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
