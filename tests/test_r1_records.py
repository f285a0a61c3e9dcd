"""code/r1_records.py: the recorded R1 runs read and checked at load (data/r1_runs.json, the
exercise's record and the two-machine comparison); tests/test_bad_input.py damages them field by
field. r1_runs re-exports the loaders for the chapters."""

from __future__ import annotations

import json

import pytest

import r1_records
import r1_runs
from data_paths import R1_RUNS_PATH

DOC = r1_records.load_records()


# --------------------------------------------------------------------------- reading


def test_load_records_reads_the_shipped_file():
    assert set(DOC) >= {"runs", "settings"}
    assert R1_RUNS_PATH.name == "r1_runs.json" and R1_RUNS_PATH.exists()


def test_load_records_refuses_what_is_not_a_record(tmp_path):
    with pytest.raises(OSError):
        r1_records.load_records(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="path"):
        r1_records.load_records(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"runs": {}, "settings": {}}))
    with pytest.raises(ValueError, match="lacks the runs"):
        r1_records.load_records(other)
    with pytest.raises(TypeError, match="path"):
        r1_records.load_records(None)


def test_exercise_record_is_the_recorded_run():
    ex = r1_records.load_exercise3()
    assert 0 <= ex["pass_at_1_before"] <= 1 and 0 <= ex["pass_at_1_after"] <= 1
    assert len(ex["problems"]) == ex["settings"]["problems"]


def test_r1_runs_reads_through_r1_records():
    # One way to read: the chapters' `r1_runs.load_records` is r1_records' loader, not a copy.
    for name in ("load_records", "load_exercise3", "other_machine", "check_records", "SEEDS"):
        assert getattr(r1_runs, name) is getattr(r1_records, name), name


def test_check_records_refuses_a_document_that_is_not_the_records():
    with pytest.raises(TypeError, match="doc"):
        r1_records.check_records([1, 2])
    with pytest.raises(ValueError, match="lacks the runs"):
        r1_records.check_records({"runs": {"cold": {}}, "settings": {}})
    assert r1_records.check_records(DOC) is DOC
