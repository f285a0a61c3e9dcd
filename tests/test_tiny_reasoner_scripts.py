"""Shortened runs of the tiny reasoner's scripts: training lowers the loss, evaluation agrees
with the shipped data/tiny_reasoner_eval.json where the two are comparable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arithmetic_task import held_out_problems
from tiny_gpt import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_EVAL = ROOT / "data" / "tiny_reasoner_eval.json"


def run_script(name: str, *args: str) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "code"), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_training_a_small_config_lowers_the_loss(tmp_path):
    out = tmp_path / "small.json"
    stdout = run_script(
        "train_tiny_reasoner.py",
        "--steps",
        "40",
        "--batch-size",
        "32",
        "--n-layer",
        "1",
        "--n-embd",
        "32",
        "--n-head",
        "2",
        "--lr",
        "1e-2",
        "--warmup",
        "5",
        "--threads",
        "1",
        "--greedy-problems",
        "10",
        "--sampled-problems",
        "5",
        "--sampled-n",
        "2",
        "--log-every",
        "0",
        "--out",
        str(out),
    )
    assert "wrote" in stdout
    model, meta = load_checkpoint(out)
    training = meta["training"]
    assert training["steps"] == 40 and training["parameters"] < 20_000
    assert training["final_loss"] < 0.75 * training["first_loss"]
    assert 0.0 <= meta["metrics"]["greedy"]["accuracy"] <= 1.0


@pytest.fixture(scope="module")
def short_eval(tmp_path_factory):
    out = tmp_path_factory.mktemp("eval") / "short.json"
    run_script(
        "eval_tiny_reasoner.py",
        "--problems",
        "24",
        "--samples",
        "16",
        "--bootstrap",
        "50",
        "--threads",
        "1",
        "--examples",
        "1",
        "--out",
        str(out),
    )
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def shipped_eval():
    return json.loads(SHIPPED_EVAL.read_text())


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
