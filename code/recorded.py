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

The calls themselves are listed here, in :func:`recorded_calls`; the script runs that list.
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

SCRIPT = "scripts/record_calls.py"

__all__ = ["call_name", "call_arguments", "recorded", "recorded_calls"]


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
            f"run python {SCRIPT} to write it again"
        ) from None
    calls = data.get("calls") if isinstance(data, dict) else None
    if not isinstance(calls, list):
        raise ValueError(f"{path} holds no 'calls' list: not the file {SCRIPT} writes")
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
        return json.loads(_records(RECORDED_CALLS_PATH)[key])
    except KeyError:
        pass
    listed = any(
        (call_name(f), json.dumps(call_arguments(f, **kw), sort_keys=True)) == key
        for f, kw in recorded_calls()
    )
    fix = (
        f"it is listed in recorded.recorded_calls() but missing from the file: run "
        f"python {SCRIPT} to record it"
        if listed
        else f"add it to recorded.recorded_calls() in code/recorded.py, then run python {SCRIPT}"
    )
    where = f"data/{RECORDED_CALLS_PATH.name}"
    raise ValueError(f"fn {key[0]}({key[1]}) is not recorded in {where}: {fix}")


def recorded_calls() -> list[tuple[Callable, dict[str, Any]]]:
    """Every call ``scripts/record_calls.py`` runs and stores, in the file's order.

    Returns:
        ``(fn, kwargs)`` pairs. Each is the call its chapter makes, argument for argument, so the
        chapter's ``recorded(fn, **kwargs)`` finds it; ``tests/test_recorded.py`` checks the
        file holds exactly these and reruns them.
    """
    # Imported here, not at the top: a chapter reading one record should not import every other
    # chapter's module (and none of those imports this one).
    from dr_grpo import length_drift_simulation
    from grpo import grpo_learning_curves
    from gspo import demonstrate_gspo, demonstrate_length_variance, demonstrate_token_grpo
    from prm import demonstrate_prm

    # Chapter 6: when to stop, trained under GRPO and Dr. GRPO (Dr. GRPO's rate is scaled by
    # 2 * cap / start so that a token of a start-length chain takes GRPO's step).
    drift = {"steps": 200, "group_size": 16, "start_length": 20.0, "max_len": 1000}
    return [
        # Chapter 5: GRPO's learning curves over group size and KL weight (the widget's grid).
        (
            grpo_learning_curves,
            {"group_sizes": (4, 16, 64), "betas": (0.0, 0.04, 1.0), "steps": 40},
        ),
        (length_drift_simulation, {"method": "grpo", **drift, "lr": 0.5}),
        (length_drift_simulation, {"method": "dr_grpo", **drift, "lr": 0.5 * 2 * 1000 / 20.0}),
        # Chapter 7: the variance law's Monte-Carlo dots, one sweep over lengths per variance v.
        *(
            (demonstrate_length_variance, {"v": round(0.02 * k, 2), "num_samples": 4000, "seed": 0})
            for k in range(1, 6)
        ),
        # Chapter 7: how much of the training each trust region clips, three 40-step runs.
        (demonstrate_gspo, {"steps": 40, "verbose": False, "eps_low": 0.2, "eps_high": 0.2}),
        (demonstrate_gspo, {"steps": 40, "verbose": False, "eps_low": 3e-4, "eps_high": 4e-4}),
        (demonstrate_token_grpo, {"steps": 40, "verbose": False, "eps_low": 0.2, "eps_high": 0.2}),
        # Chapter 11: the reranking experiment on three more draws (seed 0 runs in the chapter).
        *((demonstrate_prm, {"seed": s}) for s in (1, 2, 3)),
    ]
