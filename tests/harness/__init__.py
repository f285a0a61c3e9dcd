"""The book's test harness: parse chapters, run Python in Jupyter, OJS in Chromium.

It reads chapters with `booktools.qmd` (the project's top-level tooling package, shared with
scripts/build_notebooks.py), so the project's root must be importable; the scripts that drive the
harness (benchmark, screenshot, bench_*) put only tests/ on the path, hence the line below.
"""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.append(_ROOT)
