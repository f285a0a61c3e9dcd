"""Write data/recorded_calls.json: the slow calls the chapters show, run once.

    python scripts/record_calls.py           # writes data/recorded_calls.json
    python scripts/record_calls.py --check   # exit 1 if the file is stale

A chapter wraps each of these calls in ``recorded(fn, **kwargs)`` (code/recorded.py), which
looks the call up here instead of training or sweeping on every render. The calls are
``recorded.recorded_calls()``, each the one its chapter makes, argument for argument; a chapter
whose call is missing fails with the call's name, and tests/test_recorded.py reruns them all
against the file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))

from data_paths import RECORDED_CALLS_PATH  # noqa: E402
from recorded import call_arguments, call_name, recorded_calls  # noqa: E402


def record(fn, kwargs: dict) -> dict:
    """Run one call; its entry in the file."""
    return {
        "function": call_name(fn),
        "arguments": call_arguments(fn, **kwargs),
        "result": json.loads(json.dumps(fn(**kwargs))),
    }


def build() -> dict:
    """Every call of ``recorded_calls()``, run in order."""
    calls = [record(f, kw) for f, kw in recorded_calls()]
    return {"generated_by": "scripts/record_calls.py", "calls": calls}


if __name__ == "__main__":
    from data_file import write_or_check  # scripts/, on the path when run as a script

    write_or_check(RECORDED_CALLS_PATH, build, __doc__.splitlines()[0])
