"""code/data_jobs.py: every file in data/ is one job's output, jobs are functions, and `check`
tells a file the graph makes from one it does not.

The tiny reasoners' recipe runs here at a small size (the shipped one takes minutes): training
lowers the loss, and a shortened evaluation agrees with data/tiny_reasoner_eval.json where the
two are comparable.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from arithmetic_task import held_out_problems
from data_jobs import (
    CHEAP,
    check,
    compare,
    data_files,
    graph,
    job_other_machine,
    shipped_output,
    write_data,
)
from data_paths import DATA_DIR, TINY_REASONER_EVAL_PATH
from job_graph import Output, Store

ROOT = Path(__file__).resolve().parents[1]


def _shipped_files() -> set[str]:
    return {p.name for p in DATA_DIR.iterdir() if not p.name.startswith(".")}


def test_every_file_in_data_is_made_by_exactly_one_job_of_the_graph():
    made = [p.name for files in data_files().values() for p in files]
    assert len(made) == len(set(made)), "two jobs write the same file"
    assert set(made) == _shipped_files()
    jobs = graph()
    assert set(data_files()) <= set(jobs)
    assert set(CHEAP) <= set(data_files())
    r1_runs = jobs["r1_runs"]  # the gathering job needs every R1 record
    assert "cold" in r1_runs.deps and "rerun_rl_gspo_s0" in r1_runs.deps


def test_code_runs_no_script_and_no_subprocess():
    """Jobs call functions: no module in code/ imports subprocess or a module of scripts/."""
    scripts = {p.stem for p in (ROOT / "scripts").glob("*.py")}
    for path in sorted((ROOT / "code").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                names = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not names & ({"subprocess"} | scripts), f"{path.name} imports {names}"


def test_compare_tells_timings_from_results():
    made = json.dumps({"acc": 0.5, "timing": {"seconds": 1.0}, "rows": [{"seconds": 2}]})
    assert compare(made.encode(), made.encode()) == "same"
    slower = json.dumps({"acc": 0.5, "timing": {"seconds": 9.0}, "rows": [{"seconds": 3}]})
    assert compare(made.encode(), slower.encode()) == "same but timings"
    other = json.dumps({"acc": 0.6, "timing": {"seconds": 1.0}, "rows": [{"seconds": 2}]})
    assert compare(made.encode(), other.encode()) == "DIFFERENT"
    assert compare(b"\x00\x01", b"\x00\x02") == "DIFFERENT"


def test_check_finds_a_changed_data_file_and_passes_the_shipped_one(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(DATA_DIR / "vote_sims.json", data / "vote_sims.json")
    store = Store(tmp_path / "runs")
    lines: list[str] = []
    assert check(graph(), ["vote_sims"], store, data, log=lines.append) == {
        "vote_sims.json": "same"
    }
    doc = json.loads((data / "vote_sims.json").read_text())
    doc["condorcet"]["rows"][0]["acc"] += 0.001
    (data / "vote_sims.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    assert check(graph(), ["vote_sims"], store, data, log=lines.append) == {
        "vote_sims.json": "DIFFERENT"
    }
    assert not (tmp_path / "runs").exists(), "check wrote into the runs folder"
    with pytest.raises(ValueError, match="writes no data/ file"):
        check(graph(), ["rl_grpo_s0"], store, data)


def test_write_data_copies_only_recorded_jobs_that_write_data(tmp_path):
    store = Store(tmp_path / "runs")
    store.save(shipped_output("vote_sims"))
    store.save(Output("base4", {"kind": "pretrain"}, {"base4.json": b"{}"}))
    out = tmp_path / "data"
    out.mkdir()
    assert write_data(store, ["vote_sims", "base4", "game24"], out, log=lambda _: None) == [
        "vote_sims.json"
    ]
    assert (out / "vote_sims.json").read_bytes() == (DATA_DIR / "vote_sims.json").read_bytes()
    store.save(Output("game24", {"kind": "data"}, {"elsewhere.json": b"{}"}))
    with pytest.raises(ValueError, match="game24"):
        write_data(store, ["game24"], out, log=lambda _: None)


def test_the_other_machine_job_needs_its_input_and_names_it():
    with pytest.raises(ValueError, match="first_edition"):
        job_other_machine("r1_other_machine", "e92358b", None)


# ---------------------------------------------------------------------------------------------
# The tiny reasoners' recipe, small
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_training_a_small_config_lowers_the_loss():
    import torch

    from tiny_gpt import TinyGPTConfig
    from tiny_reasoners import checkpoint_metrics, train_reasoner

    torch.set_num_threads(1)
    config = TinyGPTConfig(n_layer=1, n_embd=32, n_head=2)
    model, training = train_reasoner(0, None, steps=40, batch_size=32, lr=1e-2, warmup=5,
                                     config=config)  # fmt: skip
    assert "routes" not in training  # the single-path record, as data/tiny_reasoner.json's
    assert training["steps"] == 40 and training["parameters"] < 20_000
    assert training["final_loss"] < 0.75 * training["first_loss"]
    metrics = checkpoint_metrics(model, routes=False)
    assert 0.0 <= metrics["greedy"]["accuracy"] <= 1.0
    assert "route_share" not in metrics["greedy"]  # as data/tiny_reasoner.json's metrics
    assert set(checkpoint_metrics(model)["greedy"]["route_share"]) == {"left", "signs", "pairs",
                                                                       "None"}  # fmt: skip


@pytest.fixture(scope="module")
def short_eval(tiny_reasoner_checkpoint):
    import torch

    from tiny_reasoners import evaluate_reasoner

    torch.set_num_threads(1)
    model, meta = tiny_reasoner_checkpoint
    header = {"json": "tiny_reasoner.json", "sha256": meta["sha256"], "metrics": meta["metrics"]}
    return evaluate_reasoner(model, header, problems=24, samples=16, num_bootstrap=50, examples=1)


@pytest.fixture(scope="module")
def shipped_eval():
    return json.loads(TINY_REASONER_EVAL_PATH.read_text())


def curve(data, temperature, metric):
    rows = [r for r in data["curves"] if r["temperature"] == temperature and r["metric"] == metric]
    return {r["k"]: r for r in rows}


def test_shipped_eval_meets_the_issue(shipped_eval, tiny_reasoner_checkpoint):
    assert shipped_eval["problems"] >= 500 and shipped_eval["samples"] >= 128
    _, meta = tiny_reasoner_checkpoint
    assert shipped_eval["checkpoint"]["sha256"] == meta["sha256"]
    assert shipped_eval["ks"] == [1, 2, 4, 8, 16, 32, 64, 128]
    for temperature in (0.0, 0.7, 1.0):
        for metric in ("pass@k", "cons@k"):
            rows = curve(shipped_eval, temperature, metric)
            assert sorted(rows) == shipped_eval["ks"]
            for r in rows.values():
                assert r["lo"] <= r["value"] <= r["hi"]
    greedy = curve(shipped_eval, 0.0, "pass@k")[1]["value"]
    assert greedy == meta["metrics"]["greedy"]["accuracy"]  # the same 500 problems
    assert len(shipped_eval["vote_curve"]["rows"]) == 41
    assert shipped_eval["examples"], "no example chains for chapter 2"


@pytest.mark.slow
def test_short_eval_has_the_shape_of_the_shipped_one(short_eval):
    assert short_eval["ks"] == [1, 2, 4, 8, 16]
    for temperature in (0.7, 1.0):
        passes = curve(short_eval, temperature, "pass@k")
        cons = curve(short_eval, temperature, "cons@k")
        values = [passes[k]["value"] for k in short_eval["ks"]]
        assert values == sorted(values)  # pass@k grows with k
        for k in short_eval["ks"]:
            assert passes[k]["value"] >= cons[k]["value"] - 1e-12  # pass@k >= cons@k
            assert passes[k]["lo"] <= passes[k]["value"] <= passes[k]["hi"]
        assert passes[1]["value"] == pytest.approx(cons[1]["value"])  # one vote is one sample
    assert len(short_eval["vote_curve"]["rows"]) == 16


@pytest.mark.slow
def test_short_eval_agrees_with_the_shipped_one(short_eval, shipped_eval):
    m = short_eval["problems"]
    problems = held_out_problems(m, seed=shipped_eval["problem_seed"])
    assert short_eval["per_problem"]["problem"] == problems
    assert shipped_eval["per_problem"]["problem"][:m] == problems
    # greedy decoding is deterministic: the same chains, problem by problem
    shipped_greedy = shipped_eval["per_problem"]["greedy_right"][:m]
    assert short_eval["per_problem"]["greedy_right"] == shipped_greedy
    # sampled accuracy on the same problems agrees within sampling error (16 vs 128 draws each)
    for temperature in ("0.7", "1.0"):
        short = sum(short_eval["per_problem"][f"correct_{temperature}"]) / (m * 16)
        full = sum(shipped_eval["per_problem"][f"correct_{temperature}"][:m]) / (m * 128)
        assert short == pytest.approx(full, abs=0.1), temperature
