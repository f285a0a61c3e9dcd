"""The shipped checkpoint loads, reproduces its recorded accuracy, and bad files are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from arithmetic_task import held_out_problems
from data_paths import TINY_REASONER_PATH
from tiny_gpt import (
    TinyGPT,
    TinyGPTConfig,
    accuracy,
    count_parameters,
    load_checkpoint,
    sample_chains,
    save_checkpoint,
)

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = TINY_REASONER_PATH
SMALL = TinyGPTConfig(n_layer=1, n_embd=16, n_head=2)

pytestmark = pytest.mark.usefixtures("one_thread")


def test_shipped_checkpoint_is_small_and_complete(tiny_reasoner_checkpoint):
    model, meta = tiny_reasoner_checkpoint
    size = SHIPPED.stat().st_size + SHIPPED.with_suffix(".bin").stat().st_size
    assert size < 2_000_000
    assert count_parameters(model) == meta["training"]["parameters"] == 803_840
    assert meta["config"] == TinyGPTConfig().to_dict()
    for key in ("steps", "batch_size", "seed", "seconds", "slip_share"):
        assert key in meta["training"]
    assert set(meta["metrics"]["per_sample"]["accuracy"]) == {"0.7", "1.0"}
    assert model.wte.weight.dtype == torch.float32


def test_shipped_checkpoint_reproduces_its_greedy_accuracy(tiny_reasoner_checkpoint):
    model, meta = tiny_reasoner_checkpoint
    record = meta["metrics"]["greedy"]
    problems = held_out_problems(record["problems"], seed=record["problem_seed"])
    chains = sample_chains(model, problems, 1, 0.0, batch_size=record["batch_size"])
    assert accuracy(problems, chains) == record["accuracy"]  # exactly


def test_round_trip_is_fp16_exact(tmp_path):
    model = TinyGPT(SMALL, seed=5)
    save_checkpoint(model, tmp_path / "m.json", metrics={"note": 1})
    loaded, meta = load_checkpoint(tmp_path / "m.json")
    assert meta["metrics"] == {"note": 1}
    for (name, a), (_, b) in zip(
        model.state_dict().items(), loaded.state_dict().items(), strict=True
    ):
        assert torch.equal(a.half().float(), b), name
    with pytest.raises(ValueError, match=r"\.json"):
        save_checkpoint(model, tmp_path / "m.bin")


@pytest.fixture
def copy(tmp_path):
    """A scratch copy of a small checkpoint: (json_path, bin_path, meta)."""
    save_checkpoint(TinyGPT(SMALL, seed=1), tmp_path / "c.json")
    return tmp_path / "c.json", tmp_path / "c.bin", json.loads((tmp_path / "c.json").read_text())


def rewrite(path: Path, meta: dict) -> None:
    path.write_text(json.dumps(meta))


def test_corrupted_byte_is_refused(copy):
    js, bn, _ = copy
    blob = bytearray(bn.read_bytes())
    blob[1234] ^= 0x01
    bn.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="SHA-256"):
        load_checkpoint(js)


def test_truncated_file_is_refused(copy):
    js, bn, _ = copy
    bn.write_bytes(bn.read_bytes()[:-2])
    with pytest.raises(ValueError, match="truncated"):
        load_checkpoint(js)


def test_mismatched_shape_is_refused(copy):
    js, _, meta = copy
    meta["tensors"][0]["shape"] = [16, 18]
    rewrite(js, meta)
    with pytest.raises(ValueError, match="shape"):
        load_checkpoint(js)


def test_mismatched_config_is_refused(copy):
    js, _, meta = copy
    meta["config"]["n_layer"] = 2  # the .bin holds one layer
    rewrite(js, meta)
    with pytest.raises(ValueError, match="tensors"):
        load_checkpoint(js)
    meta["config"] = {**meta["config"], "n_layer": 1, "n_head": 3}
    rewrite(js, meta)
    with pytest.raises(ValueError, match="bad config"):
        load_checkpoint(js)


@pytest.mark.parametrize(
    "edit,match",
    [
        (lambda m: m.update(vocab=m["vocab"][::-1]), "vocabulary"),
        (lambda m: m.update(format="other"), "format"),
        (lambda m: m["tensors"].pop(), "tensors"),
        (lambda m: m["tensors"][1].update(offset=0), "starts at byte"),
        (lambda m: m.update(bin="../c.bin"), "bad .bin"),
        (lambda m: m.update(bin="missing.bin"), "cannot read"),
    ],
)
def test_mismatched_records_are_refused(copy, edit, match):
    js, _, meta = copy
    edit(meta)
    rewrite(js, meta)
    with pytest.raises(ValueError, match=match):
        load_checkpoint(js)


def test_unreadable_json_is_refused(copy, tmp_path):
    js, _, _ = copy
    js.write_text("{not json")
    with pytest.raises(ValueError, match="JSON"):
        load_checkpoint(js)
    with pytest.raises(ValueError, match="JSON"):
        load_checkpoint(tmp_path / "nowhere.json")


def test_non_finite_weights_are_refused(copy):
    js, bn, meta = copy
    blob = bytearray(bn.read_bytes())
    blob[0:2] = b"\x00\x7c"  # fp16 +inf
    bn.write_bytes(bytes(blob))
    import hashlib

    meta["sha256"] = hashlib.sha256(bytes(blob)).hexdigest()
    rewrite(js, meta)
    with pytest.raises(ValueError, match="non-finite"):
        load_checkpoint(js)


def test_shipped_files_load_from_a_copy(tmp_path):
    """The .bin is found beside the .json wherever the pair is copied."""
    for suffix in (".json", ".bin"):
        shutil.copy(SHIPPED.with_suffix(suffix), tmp_path / f"tiny_reasoner{suffix}")
    model, _ = load_checkpoint(tmp_path / "tiny_reasoner.json")
    assert isinstance(model, TinyGPT)
