"""The recorded R1 runs read and checked: `data/r1_runs.json` and the two small records beside it.

`scripts/run_r1.py` trains every stage of the R1 recipe on the tiny reasoner and writes one record
per job into `data/r1_runs.json`; :func:`load_records` reads it back and checks, at load, every
field the chapters' tables read (``r1_runs``), naming a wrong one by its place in the file
(``runs.cold.final.counts[3]``): a hollow or truncated document is refused here instead of
failing later inside a chapter with a KeyError or a division by zero. :func:`load_exercise3`
and :func:`other_machine` read the exercise's record and the two-machine comparison the same way.

Nothing here trains, samples or computes a table: reading the records needs no training code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from checks import require_path
from data_paths import R1_EXERCISE3_PATH, R1_OTHER_MACHINE_PATH, R1_RUNS_PATH, read_json
from objectives import OBJECTIVE_LABELS  # the five stage-2 objectives and their names

__all__ = ["SEEDS", "check_records", "load_exercise3", "load_records", "other_machine"]

SEEDS = (0, 1)  # every RL run of stage 2, R1-Zero and the RL'd student has two seeds


# --------------------------------------------------------------------------- reading


def load_records(path: str | os.PathLike = R1_RUNS_PATH) -> dict:
    """The document `scripts/run_r1.py` wrote: ``{"settings": {...}, "runs": {name: {...}}}``."""
    doc = _load_json(path)
    check_records(doc, "path")
    _check_contents(doc, f"path {path}")
    return doc


def load_exercise3(path: str | os.PathLike = R1_EXERCISE3_PATH) -> dict:
    """Chapter 12's exercise 2 as `scripts/run_r1_exercise.py` recorded it."""
    record = _load_json(path)
    for key in ("settings", "pass_at_1_before", "pass_at_1_after"):
        if key not in record:
            raise ValueError(f"path {path} holds no {key!r}: not a recorded exercise 3")
    where = _Where(f"path {path}")
    for key in ("pass_at_1_before", "pass_at_1_after"):
        _num(where / key, record[key], 0.0, 1.0)
    _mapping(where / "settings", record["settings"])
    return record


def _load_json(path: object) -> dict:
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or a path, got {type(path).__name__}")
    path = require_path("path", os.fspath(path))
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise ValueError(f"path {path} holds {type(doc).__name__}, not a JSON object")
    return doc


def check_records(doc: object, name: str = "doc") -> Mapping:
    """``doc``'s shape, checked once at each entry point that takes the loaded records (the
    table functions of ``r1_runs`` call it, and trust the fields :func:`load_records` checked)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"name must be the records' argument name (an identifier), "
                        f"got {name!r:.40}")
    if not isinstance(doc, Mapping):
        raise TypeError(f"{name} must be the loaded records (a mapping), got {type(doc).__name__}")
    runs, settings = doc.get("runs"), doc.get("settings")
    if not isinstance(runs, Mapping) or not isinstance(settings, Mapping):
        raise ValueError(f"{name} must hold 'runs' and 'settings' mappings (see load_records)")
    missing = [n for n in _REQUIRED_RUNS if n not in runs]
    if missing:
        raise ValueError(f"{name} lacks the runs {missing} that scripts/run_r1.py records")
    return doc


_REQUIRED_RUNS = (
    "base4", "base2", "cold", "rs", "stage3", "stage4_s0", "distill", "budget",
    *(f"{p}_s{s}" for p in ("zero", "student_rl", *(f"rl_{o}" for o in OBJECTIVE_LABELS))
      for s in SEEDS),
)


# --------------------------------------------------------------------------- what a record holds
# Every value the functions below read is checked here, at load, and named by its place in the
# file (``runs.cold.final.counts[3]``): a hollow or truncated document is refused with the field
# that is wrong instead of failing later inside a chapter with a KeyError or a division by zero.


class _Where:
    """A field's place in the document, for messages: ``<file>: runs.cold.final``."""

    def __init__(self, source: str, path: str = "") -> None:
        self.source, self.path = source, path

    def __truediv__(self, key: object) -> _Where:
        step = f"[{key}]" if isinstance(key, int) else f".{key}" if self.path else str(key)
        return _Where(self.source, self.path + step)

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{self.source}: {self.path or 'the document'} {what}")


def _get(where: _Where, obj: Mapping, key: str) -> object:
    if key not in obj:
        raise where.fail(f"has no {key!r}")
    return obj[key]


def _mapping(where: _Where, value: object, keys: tuple[str, ...] = ()) -> Mapping:
    if not isinstance(value, Mapping):
        raise where.fail(f"must be an object, got {type(value).__name__}")
    for key in keys:
        _get(where, value, key)
    return value


def _list(where: _Where, value: object, min_len: int = 1) -> list:
    if not isinstance(value, list):
        raise where.fail(f"must be a list, got {type(value).__name__}")
    if len(value) < min_len:
        raise where.fail(f"must hold at least {min_len} items, got {len(value)}")
    return value


def _int(where: _Where, value: object, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.fail(f"must be an int, got {type(value).__name__}")
    if value < low or (high is not None and value > high):
        raise where.fail(f"must be in [{low}, {high if high is not None else 'inf'}], got {value}")
    return value


def _num(where: _Where, value: object, low=None, high=None, optional: bool = False):
    """A finite number (None too when ``optional``: a statistic with nothing to average)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise where.fail(f"must be a number, got {value!r:.40}")
    if abs(value) == float("inf"):
        raise where.fail(f"must be finite, got {value}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise where.fail(f"must be in [{low}, {high}], got {value}")
    return value


def _check_eval(where: _Where, ev: object, problems: int, counts: bool) -> None:
    """One evaluation: pass@k and its interval by k, lengths, modes; per-problem counts."""
    keys = ("problems", "samples_per_problem", "pass_at_k", "pass_at_k_ci", "length_right",
            "length_wrong", "length", "mode_share")
    ev = _mapping(where, ev, keys + (("counts",) if counts else ()))
    n_problems = _int(where / "problems", ev["problems"], low=1)
    if n_problems != problems:
        raise (where / "problems").fail(f"must be the settings' eval_problems {problems}")
    n = _int(where / "samples_per_problem", ev["samples_per_problem"], low=1)
    pk, ci = _mapping(where / "pass_at_k", ev["pass_at_k"], ("1",)), ev["pass_at_k_ci"]
    ci = _mapping(where / "pass_at_k_ci", ci, tuple(pk))
    for k, p in pk.items():
        if not k.isdigit() or not 1 <= int(k) <= n:
            raise (where / "pass_at_k").fail(f"has k = {k!r}, not in 1..{n}")
        _num(where / "pass_at_k" / k, p, 0.0, 1.0)
        lo, hi = _list(where / "pass_at_k_ci" / k, ci[k], 2)[:2]
        if len(ci[k]) != 2 or not _num(where / "pass_at_k_ci" / k, lo, 0.0, 1.0) <= _num(
            where / "pass_at_k_ci" / k, hi, 0.0, 1.0
        ):
            raise (where / "pass_at_k_ci" / k).fail(f"must be [low, high], got {ci[k]!r:.60}")
    for key in ("length_right", "length_wrong", "length"):
        _num(where / key, ev[key], 0.0, optional=True)
    for key, share in _mapping(where / "mode_share", ev["mode_share"]).items():
        _num(where / "mode_share" / key, share, 0.0, 1.0)
    if counts:
        rows = _list(where / "counts", ev["counts"])
        if len(rows) != problems:
            raise (where / "counts").fail(f"must hold one count per problem ({problems})")
        if not all(type(c) is int and 0 <= c <= n for c in rows):  # the fast path: all fine
            for i, c in enumerate(rows):
                _int(where / "counts" / i, c, 0, n)


_HISTORY_KEYS = ("step", "reward", "accuracy", "kl", "clip_fraction", "length_correct",
                 "length_wrong", "zero_advantage_groups", "groups", "discarded_groups")


def _fine_row(row: object, step: int) -> bool:
    """Whether a history row is sound (checked without building messages; most are)."""
    return (
        isinstance(row, Mapping)
        and row.get("step") == step
        and all(
            (v := row.get(k, "")) is None
            or (type(v) in (int, float) and v == v and abs(v) != float("inf"))
            for k in _HISTORY_KEYS[1:]
        )
    )


def _check_run(where: _Where, name: str, run: object, settings: Mapping) -> None:
    run = _mapping(where, run, ("kind",))
    kind = run["kind"]
    problems = settings["eval_problems"]
    if kind not in ("pretrain", "sft", "rl", "rejection", "budget"):
        raise (where / "kind").fail(f"must be a job kind of scripts/run_r1.py, got {kind!r:.40}")
    if kind in ("pretrain", "sft", "rl"):
        _check_eval(where / "final", _get(where, run, "final"), problems,
                    counts=not name.startswith("rerun_"))
    if kind == "sft":
        _int(where / "examples", _get(where, run, "examples"), low=1)
        for i, loss in enumerate(_list(where / "losses", _get(where, run, "losses"))):
            _num(where / "losses" / i, loss)
    elif kind == "rl":
        steps = _int(where / "steps", _get(where, run, "steps"), low=1)
        config = _mapping(where / "config", _get(where, run, "config"),
                          ("objective", "prompts_per_step", "group_size"))
        _int(where / "config" / "group_size", config["group_size"], low=2)
        history = _list(where / "history", _get(where, run, "history"))
        if len(history) != steps:
            raise (where / "history").fail(f"must hold one row per step ({steps}), got "
                                            f"{len(history)}")
        for i, row in enumerate(history):
            if _fine_row(row, i + 1):
                continue
            at = where / "history" / i
            row = _mapping(at, row, _HISTORY_KEYS)
            if row["step"] != i + 1:
                raise (at / "step").fail(f"must be {i + 1}")
            for key in _HISTORY_KEYS[1:]:
                _num(at / key, row[key], optional=True)
        curve = _list(where / "curve", _get(where, run, "curve"), 2)
        for i, point in enumerate(curve):
            _check_eval(where / "curve" / i, point, problems, counts=False)
            _int(where / "curve" / i / "step", _get(where / "curve" / i, point, "step"), 0, steps)
        if curve[0]["step"] != 0 or curve[-1]["step"] != steps:
            raise (where / "curve").fail(f"must run from step 0 to step {steps}")
    elif kind == "rejection":
        stats = _mapping(where / "stats", _get(where, run, "stats"),
                         ("samples", "right_share", "kept", "problems_covered"))
        _num(where / "stats" / "samples", stats["samples"], 1.0)
        _num(where / "stats" / "right_share", stats["right_share"], 0.0, 1.0)
        _num(where / "stats" / "kept", stats["kept"], 1.0)
        _num(where / "stats" / "problems_covered", stats["problems_covered"], 1.0)
        for i, pair in enumerate(_list(where / "pairs", _get(where, run, "pairs"))):
            if not (isinstance(pair, list) and len(pair) == 2
                    and all(isinstance(s, str) for s in pair)):
                raise (where / "pairs" / i).fail("must be a [problem, completion] pair of strings")
    elif kind == "budget":
        models = _list(where / "models", _get(where, run, "models"))
        rows = _list(where / "rows", _get(where, run, "rows"))
        seen = set()
        for i, row in enumerate(rows):
            row = _mapping(where / "rows" / i, row, ("model", "budget", "mode", "accuracy",
                                                     "thinking_tokens", "answer_tokens"))
            if row["model"] not in models or row["mode"] not in ("cut", "extend"):
                raise (where / "rows" / i).fail(f"names an unknown model or mode: {row!r:.80}")
            _int(where / "rows" / i / "budget", row["budget"])
            _num(where / "rows" / i / "accuracy", row["accuracy"], 0.0, 1.0)
            for key in ("thinking_tokens", "answer_tokens"):
                _num(where / "rows" / i / key, row[key], 0.0)
            seen.add((row["model"], row["mode"], row["budget"]))
        wanted = {(m, mode, b) for m in models for mode in ("cut", "extend")
                  for b in settings["budgets"]}
        if wanted - seen:
            raise (where / "rows").fail(f"lacks rows {sorted(wanted - seen)[:3]}")


def _check_settings(where: _Where, settings: Mapping) -> None:
    for key in ("rl_steps", "eval_every", "curve_samples", "eval_problems"):
        _int(where / key, _get(where, settings, key), low=1)
    _int(where / "eval_seed", _get(where, settings, "eval_seed"))
    final = _mapping(where / "final_samples", _get(where, settings, "final_samples"),
                     tuple(str(s) for s in SEEDS))
    for seed, n in final.items():
        _int(where / "final_samples" / seed, n, low=1)
    for i, b in enumerate(_list(where / "budgets", _get(where, settings, "budgets"))):
        _int(where / "budgets" / i, b)
    for block in ("cold_start", "rejection", "sft_large"):
        _mapping(where / block, _get(where, settings, block))


def _check_contents(doc: Mapping, source: str) -> None:
    """Every field the chapter functions read, with its type, length and range."""
    where = _Where(source)
    _check_settings(where / "settings", doc["settings"])
    for name, run in doc["runs"].items():
        _check_run(where / "runs" / name, name, run, doc["settings"])


def other_machine(path: str | os.PathLike = R1_OTHER_MACHINE_PATH) -> dict:
    """data/r1_other_machine.json: how long one job on two machines stayed the same run."""
    record = _load_json(path)
    for key in ("source", "agreement", "max_seed_gap"):
        if key not in record:
            raise ValueError(f"path {path} holds no {key!r}: not scripts/record_other_machine.py's")
    where = _Where(f"path {path}")
    _num(where / "max_seed_gap", record["max_seed_gap"], 0.0, 1.0)
    agreement = _mapping(where / "agreement", record["agreement"], tuple(OBJECTIVE_LABELS))
    for objective in OBJECTIVE_LABELS:
        at = where / "agreement" / objective
        row = _mapping(at, agreement[objective], ("same_steps", "steps", "same_final"))
        steps = _int(at / "steps", row["steps"], low=1)
        _int(at / "same_steps", row["same_steps"], 0, steps)
    return record
