"""The job graph on Ray: the same records as each job run alone, resumable, and failure-tolerant.

A small graph of chapter 11's real jobs (`r1_experiments.Settings.smoke()`: the same functions at
a few steps each) runs twice: on a local Ray with two workers, and job by job in this process.
Every record (but its wall-clock timing) and every checkpoint byte must agree.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

pytest.importorskip("ray")

from job_graph import Job, Store, _closure, run_alone, run_graph  # noqa: E402
from r1_experiments import Settings, graph, job_rl  # noqa: E402

pytestmark = pytest.mark.slow
# Every kind of R1 job: pretraining (both bases), cold-start SFT, RL with two objectives,
# rejection sampling and the budget sweep; and a job that always fails, with one that needs it.
SELECTED = ["rl_gspo_s0", "rs", "budget", "student_rl_s0", "broken", "after_broken"]


def _graph() -> dict[str, Job]:
    s = Settings.smoke()
    jobs = graph(s)
    bad = replace(s, rl_overrides={"group_size": 1})  # a group of one has no baseline: raises
    jobs["broken"] = Job("broken", job_rl, (bad, "grpo", 0), ("base2",))
    jobs["after_broken"] = Job("after_broken", job_rl, (s, "grpo", 0), ("broken",))
    return jobs


def _without_timing(store: Store, name: str) -> dict:
    record = store.load(name).record
    record.pop("timing")
    return record


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    jobs = _graph()
    ray_store = Store(tmp_path_factory.mktemp("ray"))
    log: list[str] = []
    failed = run_graph(jobs, ray_store, SELECTED, workers=2, log=log.append)
    alone = Store(tmp_path_factory.mktemp("alone"))
    run_alone(jobs, alone, [n for n in SELECTED if "broken" not in n])
    return jobs, ray_store, alone, failed, log


def test_a_job_on_ray_writes_the_record_it_writes_alone(runs):
    jobs, ray_store, alone, _, _ = runs
    names = sorted(p.stem for p in (alone.root / "records").glob("*.json"))
    assert len(names) == 8  # the selected good jobs and the five jobs they need
    for name in names:
        assert _without_timing(ray_store, name) == _without_timing(alone, name), name
        assert ray_store.load(name).files == alone.load(name).files, name
        # bit for bit on disk too, once the timing is set aside
        raw = json.loads(ray_store.record_path(name).read_text())
        assert raw.keys() == json.loads(alone.record_path(name).read_text()).keys()


def test_a_failed_job_is_reported_and_its_dependents_skipped_while_the_rest_go_on(runs):
    _, ray_store, _, failed, log = runs
    assert set(failed) == {"broken", "after_broken"}
    assert "group_size" in failed["broken"]  # the job's own error, after its retry
    assert failed["after_broken"].startswith("skipped")
    assert not ray_store.done("broken") and ray_store.done("student_rl_s0")
    assert any(line.startswith("FAILED broken") for line in log)
    assert any("done 8/10" in line for line in log)  # the progress line counts the graph


def test_recorded_jobs_are_not_recomputed(runs):
    jobs, ray_store, _, _, _ = runs
    good = [n for n in SELECTED if "broken" not in n]
    assert _closure(jobs, ray_store, good) == []
    log: list[str] = []
    assert run_graph(jobs, ray_store, good, workers=2, log=log.append) == {}
    assert log == ["every selected job is already recorded"]


def test_the_closure_orders_dependencies_first_and_refuses_unknown_jobs(tmp_path):
    jobs = _graph()
    order = _closure(jobs, Store(tmp_path), ["stage4_s0"])
    assert order == ["base4", "cold", "rl_grpo_s0", "rs", "stage3", "stage4_s0"]
    with pytest.raises(ValueError, match="not in the graph"):
        _closure(jobs, Store(tmp_path), ["no_such_job"])
