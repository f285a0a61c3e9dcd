"""Write a generated data file, or check that the shipped copy is up to date.

The scripts that record a chapter's data in data/ share this: `--check` exits 1 when the file
on disk differs from what the script would write now, so a stale file cannot go unnoticed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path


def dumps(record: dict) -> str:
    """Compact JSON: every byte of a data file is downloaded by every reader of its page."""
    return json.dumps(record, separators=(",", ":")) + "\n"


def write_or_check(out: Path, build: Callable[[], dict], description: str) -> None:
    """The scripts' command line: write `build()` to `out`, or with --check compare them."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args()
    text = dumps(build())
    root = out.resolve().parents[1]
    if args.check:
        fresh = out.exists() and out.read_text() == text
        print(f"{out.relative_to(root)} is {'up to date' if fresh else 'STALE'}")
        sys.exit(0 if fresh else 1)
    out.write_text(text)
    print(f"wrote {out.relative_to(root)} ({len(text.encode()) / 1024:.0f} KB)")
