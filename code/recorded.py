"""Slow calls, recorded once by a script and read back by the chapters.

A chapter must execute in a few seconds, so a training run, a simulation or a sweep it shows is
run by ``scripts/record_calls.py`` and stored in ``data/recorded_calls.json``. The chapter keeps
the call in plain sight and wraps it:

    curves = recorded(grpo_learning_curves, group_sizes=(4, 16, 64), steps=40)

returns what ``grpo_learning_curves(group_sizes=(4, 16, 64), steps=40)`` returned when it was
recorded, as JSON gives it back (a tuple comes back as a list). A call is matched by its
function and by *all* its arguments, defaults included, so changing a default in the module
makes the chapter's lookup fail until the call is recorded again; ``tests/test_recorded.py``
reruns every recorded call and compares, so the file cannot go stale either.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from checks import require_callable

RECORD_PATH = Path(__file__).resolve().parent.parent / "data" / "recorded_calls.json"
SCRIPT = "scripts/record_calls.py"

__all__ = ["RECORD_PATH", "call_name", "call_arguments", "recorded"]


def call_name(fn: Callable) -> str:
    """``"module.function"``: how the record names a function."""
    fn = require_callable("fn", fn)
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def call_arguments(fn: Callable, **kwargs: Any) -> dict[str, Any]:
    """Every argument of ``fn(**kwargs)``, defaults filled in, as JSON would give it back."""
    fn = require_callable("fn", fn)
    try:
        bound = inspect.signature(fn).bind(**kwargs)
    except (TypeError, ValueError) as err:
        raise TypeError(f"fn {call_name(fn)} does not take these arguments: {err}") from None
    bound.apply_defaults()
    try:
        return json.loads(json.dumps(bound.arguments))
    except (TypeError, ValueError) as err:
        raise TypeError(f"kwargs of {call_name(fn)} must be JSON values: {err}") from None


@cache
def _records(path: Path) -> dict[tuple[str, str], str]:
    """(function, arguments) -> the result's JSON text, parsed afresh on every lookup so that a
    chapter changing what it got back cannot change what the next lookup returns."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return {
        (c["function"], json.dumps(c["arguments"], sort_keys=True)): json.dumps(c["result"])
        for c in data["calls"]
    }


def recorded(fn: Callable, **kwargs: Any) -> Any:
    """What ``fn(**kwargs)`` returned when ``scripts/record_calls.py`` ran it.

    Args:
        fn: the module function the chapter shows (``length_drift_simulation``).
        **kwargs: its arguments, by keyword, exactly as the direct call would take them.

    Returns:
        The recorded result: plain JSON values (lists, dicts with string keys, floats, ...).

    Raises:
        ValueError: the call is not in ``data/recorded_calls.json``.
        TypeError: ``fn`` is not callable, or the arguments do not fit it or are not JSON.
    """
    key = (call_name(fn), json.dumps(call_arguments(fn, **kwargs), sort_keys=True))
    try:
        return json.loads(_records(RECORD_PATH)[key])
    except KeyError:
        raise ValueError(
            f"fn {key[0]}({key[1]}) is not recorded in data/{RECORD_PATH.name}: add the call to "
            f"{SCRIPT} and run it"
        ) from None
