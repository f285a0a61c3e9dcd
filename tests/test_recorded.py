"""code/recorded.py, the reader: data/recorded_calls.json (which the graph's recorded_calls job
writes from recorded_calls.recorded_calls()) read back by function and arguments, importing none
of the modules whose results it holds."""

from __future__ import annotations

import ast
import importlib
import json
import math
from pathlib import Path

import pytest

import recorded as rec
from data_paths import RECORDED_CALLS_PATH
from grpo import grpo_learning_curves
from recorded_calls import recorded_calls


def _same(a, b, rel: float = 1e-6) -> bool:
    """Equal structure, ints and strings; floats to ``rel`` (test_machine_independence's
    tolerance: another machine's SIMD may move a float's last bits)."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(
            a, b, rel_tol=rel, abs_tol=1e-12
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def test_the_file_holds_the_recorded_calls_in_order():
    calls = json.loads(RECORDED_CALLS_PATH.read_text())["calls"]
    assert [(c["function"], c["arguments"]) for c in calls] == [
        (rec.call_name(fn), rec.call_arguments(fn, **kw)) for fn, kw in recorded_calls()
    ]


def test_every_recorded_call_reruns_to_its_record():
    # The file cannot go stale: each call is run again with the module's own function.
    for call in json.loads(RECORDED_CALLS_PATH.read_text())["calls"]:
        module, name = call["function"].rsplit(".", 1)
        fn = getattr(importlib.import_module(module), name)
        fresh = json.loads(json.dumps(fn(**call["arguments"])))
        assert _same(fresh, call["result"]), call["function"]


def test_same_is_strict_where_it_should_be():
    assert _same([{"a": 1.0, "b": "x"}], [{"a": 1.0 + 1e-9, "b": "x"}])
    assert not _same([{"a": 1.0}], [{"a": 1.001}])
    assert not _same({"a": 1}, {"a": 2}) and not _same([1], [1, 2]) and not _same("x", "y")


def test_recorded_returns_the_record_and_a_fresh_copy():
    kw = {"group_sizes": (4, 16, 64), "betas": (0.0, 0.04, 1.0), "steps": 40}
    first = rec.recorded(grpo_learning_curves, **kw)
    assert first == rec.recorded(grpo_learning_curves, **{**kw, "seed": 0})  # a default, spelt out
    first[0]["p_correct"] = -1.0
    assert rec.recorded(grpo_learning_curves, **kw)[0]["p_correct"] != -1.0


def test_an_unrecorded_call_names_itself_and_the_script():
    with pytest.raises(ValueError, match=r"grpo\.grpo_learning_curves.*make_data\.py"):
        rec.recorded(grpo_learning_curves, steps=41)
    with pytest.raises(TypeError, match="fn"):
        rec.recorded(grpo_learning_curves, no_such_argument=1)
    with pytest.raises(TypeError, match="fn"):
        rec.recorded(None)
    with pytest.raises(TypeError, match="kwargs"):
        rec.recorded(grpo_learning_curves, group_sizes={4})


def test_a_call_missing_from_the_file_says_how_to_record_it(tmp_path, monkeypatch):
    # Issue 29: a listed call missing from the file needs recording, an unlisted one listing first;
    # the reader does not import the list (issue 28), so its message gives both steps, in order.
    fn, kwargs = recorded_calls()[0]
    doc = json.loads(RECORDED_CALLS_PATH.read_text())
    name = rec.call_name(fn)
    doc["calls"] = [c for c in doc["calls"] if c["function"] != name]
    path = tmp_path / "recorded_calls.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(rec, "RECORDED_CALLS_PATH", path)
    steps = (r"list the call in recorded_calls\.recorded_calls\(\)"
             r".*make_data\.py --jobs recorded_calls")
    with pytest.raises(ValueError, match=rf"holds 0 other call\(s\).*{steps}"):
        rec.recorded(fn, **kwargs)
    monkeypatch.undo()
    with pytest.raises(ValueError, match=rf"grpo_learning_curves.*holds 1 other.*{steps}"):
        rec.recorded(grpo_learning_curves, steps=41)


def test_the_reader_imports_none_of_the_modules_it_holds_results_of():
    # Issue 28: recorded.py sat on a high floor because it imported four chapter modules for its
    # list of calls. It reads keys made from fn.__module__ / __qualname__ and imports only these.
    tree = ast.parse(Path(rec.__file__).read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree)
                 if isinstance(n, ast.ImportFrom) and n.module}
    assert imported <= {"__future__", "inspect", "json", "collections", "functools", "pathlib",
                        "typing", "checks", "data_paths"}, imported
    recorded_modules = {c["function"].rsplit(".", 1)[0]
                        for c in json.loads(RECORDED_CALLS_PATH.read_text())["calls"]}
    assert recorded_modules and not recorded_modules & imported


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('{"calls": [{"function": "a.b", "argum', "not a JSON file"),
        ('{"generated_by": "x"}', "no 'calls' list"),
        ('{"calls": [{"function": "a.b"}]}', r"calls\[0\] must be"),
    ],
)
def test_a_damaged_record_file_names_the_file(text, match, tmp_path, monkeypatch):
    path = tmp_path / "recorded_calls.json"
    path.write_text(text)
    monkeypatch.setattr(rec, "RECORDED_CALLS_PATH", path)
    with pytest.raises(ValueError, match=match) as err:
        rec.recorded(grpo_learning_curves, steps=40)
    assert str(path) in str(err.value)
