"""Slow calls, recorded once by the data graph and read back by the chapters.

A chapter must execute in a few seconds, so a training run, a simulation or a sweep it shows is
run by the data graph's ``recorded_calls`` job and stored in
``data/recorded_calls.json``. The chapter keeps the call in plain sight and wraps it:

    curves = recorded(grpo_learning_curves, group_sizes=(4, 16, 64), steps=40)

returns what ``grpo_learning_curves(group_sizes=(4, 16, 64), steps=40)`` returned when it was
recorded, as JSON gives it back (a tuple comes back as a list). A call is matched by its
function and by *all* its arguments, defaults included, so changing a default in the module
makes the chapter's lookup fail until the call is recorded again; ``tests/test_recorded.py``
reruns every recorded call and compares, so the file cannot go stale either.

This module only reads. A record is keyed by the function's own ``__module__`` and
``__qualname__`` (taken from the ``fn`` the chapter passes) and its arguments, so the reader
imports none of the modules whose results it holds; the list of calls to record is the
producer's, ``recorded_calls.recorded_calls()`` (``code/recorded_calls.py``).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from checks import require_callable
from data_paths import RECORDED_CALLS_PATH

MAKE = "python scripts/make_data.py --jobs recorded_calls"

__all__ = ["call_name", "call_arguments", "recorded"]


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
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise ValueError(
            f"{path} is not a JSON file ({err}): a truncated copy? Restore it from git, or "
            f"run {MAKE} to write it again"
        ) from None
    calls = data.get("calls") if isinstance(data, dict) else None
    if not isinstance(calls, list):
        raise ValueError(f"{path} holds no 'calls' list: not the file {MAKE} writes")
    out = {}
    for i, c in enumerate(calls):
        if (
            not isinstance(c, dict)
            or set(c) != {"function", "arguments", "result"}
            or not isinstance(c["function"], str)
            or not isinstance(c["arguments"], dict)
        ):
            raise ValueError(
                f"{path}: calls[{i}] must be {{'function': str, 'arguments': {{...}}, "
                f"'result': ...}}, got {str(c)[:80]}"
            )
        out[(c["function"], json.dumps(c["arguments"], sort_keys=True))] = json.dumps(c["result"])
    return out


def recorded(fn: Callable, **kwargs: Any) -> Any:
    """What ``fn(**kwargs)`` returned when the ``recorded_calls`` job ran it.

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
        return json.loads(_records(RECORDED_CALLS_PATH)[key])
    except KeyError:
        pass
    others = sum(f == key[0] for f, _ in _records(RECORDED_CALLS_PATH))
    where = f"data/{RECORDED_CALLS_PATH.name}"
    raise ValueError(
        f"fn {key[0]}({key[1]}) is not recorded in {where} (it holds {others} other call(s) of "
        f"{key[0]}): list the call in recorded_calls.recorded_calls() if it is not there, then run "
        f"{MAKE} to record it"
    )
