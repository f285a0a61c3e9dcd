"""code/data_paths.py names every file in data/ once; the book reads each through a named loader.

- Every file in data/ has its name in data_paths (a checkpoint's .bin beside its .json header),
  and every name there is a shipped file.
- No module, script or test spells a path into data/ itself: `ROOT / "data" / ...` or a
  `"data/x.json"` string is refused outside data_paths (the pages' `{ojs}` cells and widgets
  fetch `../data/<name>`, which must be one of data_paths' files).
- The named loaders refuse a damaged file with its path and the field that is wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import data_paths
from data_paths import DATA_DIR, DATA_FILES, page_url, read_json, weights_of

ROOT = Path(__file__).resolve().parents[1]

# A path into the book's data/ built by hand: `ROOT / "data"`, `.parent.parent / "data"`,
# `parents[1] / "data"` (a test's `tmp_path / "data"` is its own folder, not the book's).
SPELLED = re.compile(
    r"""(\bROOT|\.parent|\.parents\[\d\]|__file__\)?)\s*/\s*["']data["']"""
)
# Files that still spell a path, each with the reason; empty when every caller uses data_paths.
PENDING: dict[str, str] = {
    "tests/test_harness.py": "H7 (issue 28) is moving the harness (its check reads a shipped file)",
}
# The page's fetches: "../data/name" in an {ojs} cell, origin + "/data/name" in a widget test.
PAGE_FETCH = re.compile(r"""\.\./data/\$?\{?([\w.]+)""")


def _python_files() -> list[Path]:
    return [p for folder in ("code", "scripts", "tests", "booktools")
            for p in sorted((ROOT / folder).rglob("*.py"))
            if p.name != "data_paths.py" and "node_modules" not in p.parts]


def test_every_shipped_file_is_named_and_every_name_is_shipped():
    named = {p.name for p in DATA_FILES}
    named |= {weights_of(p).name for p in DATA_FILES if weights_of(p).exists()}
    shipped = {p.name for p in DATA_DIR.iterdir() if p.is_file()}
    assert shipped == named, (sorted(shipped - named), sorted(named - shipped))
    assert all(p.parent == DATA_DIR for p in DATA_FILES)
    assert len(set(DATA_FILES)) == len(DATA_FILES)


def test_no_module_script_or_test_spells_a_data_path():
    spelled = []
    for path in _python_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel in PENDING or rel == "tests/test_data_paths.py":
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SPELLED.search(line):
                spelled.append(f"{rel}:{i}: {line.strip()}")
    assert not spelled, "import the path from code/data_paths.py instead:\n" + "\n".join(spelled)


def test_the_spelled_path_pattern_catches_what_it_should():
    assert SPELLED.search('CHECKPOINT = ROOT / "data" / "r1_cold_start.json"')
    assert SPELLED.search("p = Path(__file__).parents[1] / 'data'")
    assert SPELLED.search('x = Path(__file__).resolve().parents[1] / "data" / "r1_runs.json"')
    assert not SPELLED.search('payload = {"data": 1}') and not SPELLED.search("x = DATA_DIR / n")
    assert not SPELLED.search('out = tmp_path / "data"')


def test_pages_fetch_only_named_files():
    urls = {page_url(p) for p in DATA_FILES} | {page_url(p)[:-5] + ".bin" for p in DATA_FILES}
    fetched = []
    for path in [*(ROOT / "chapters").glob("*.qmd"), *(ROOT / "widgets").glob("*.js")]:
        text = path.read_text(encoding="utf-8")
        fetched += [(path.name, m.group(1)) for m in PAGE_FETCH.finditer(text)]
    assert fetched, "no page fetches a data file? the pattern is broken"
    for where, name in fetched:
        assert "{" in name or f"../data/{name}" in urls or name.endswith("tr_model"), (where, name)


def test_page_url_and_weights_of():
    assert page_url(data_paths.R1_COLD_START_PATH) == "../data/r1_cold_start.json"
    assert weights_of(data_paths.TINY_REASONER_PATH).name == "tiny_reasoner.bin"
    with pytest.raises(ValueError, match="path"):
        page_url(Path("/etc/passwd"))
    with pytest.raises(TypeError, match="path"):
        page_url("../data/game24.json")
    with pytest.raises(ValueError, match="checkpoint"):
        weights_of(data_paths.TINY_REASONER_PATH.with_suffix(".bin"))


def test_read_json_names_a_broken_file(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"a": [1, 2')
    with pytest.raises(ValueError, match=r"x\.json is not a JSON file.*run it again"):
        read_json(bad, fix="run it again")
    with pytest.raises(TypeError, match="path"):
        read_json(str(bad))


# ------------------------------------------------------------------ the named loaders


def _loaders():
    import reasoning
    import tiny_reasoners

    return {
        "vote_sims": (reasoning.load_vote_sims, data_paths.VOTE_SIMS_PATH),
        "tiny_reasoner_eval": (tiny_reasoners.load_tiny_reasoner_eval,
                               data_paths.TINY_REASONER_EVAL_PATH),
        "multipath_eval": (tiny_reasoners.load_multipath_eval, data_paths.MULTIPATH_EVAL_PATH),
    }


# (loader, a change to the shipped document, a pattern the error must match besides the path)
DAMAGE = [
    ("vote_sims", lambda d: d["condorcet"]["rows"][3].update(acc="0.5"),
     r"condorcet\.rows\[3\]\['acc'\]"),
    ("vote_sims", lambda d: d["vote_vs_verifier"].pop("trials"), "vote_vs_verifier"),
    ("vote_sims", lambda d: d.pop("condorcet"), "condorcet"),
    ("tiny_reasoner_eval", lambda d: d["curves"][5].pop("hi"), r"curves\[5\] has no 'hi'"),
    ("tiny_reasoner_eval", lambda d: d["vote_curve"]["rows"][0].update(value=None),
     r"vote_curve\.rows\[0\]\['value'\]"),
    ("tiny_reasoner_eval", lambda d: d["per_problem"]["greedy_right"].pop(),
     "per_problem.greedy_right"),
    ("tiny_reasoner_eval", lambda d: d.update(samples=0), "samples"),
    ("tiny_reasoner_eval", lambda d: d["examples"][0].pop("chains"), r"examples\[0\]"),
    ("multipath_eval", lambda d: d["models"]["multi"]["greedy"].pop("value"), r"\['greedy'\]"),
    ("multipath_eval", lambda d: d.update(samples="32"), "samples"),
]


@pytest.mark.parametrize(("loader", "change", "field"), DAMAGE,
                         ids=[f"{d[0]}-{i}" for i, d in enumerate(DAMAGE)])
def test_a_loader_names_the_file_and_the_field(loader, change, field, tmp_path):
    load, shipped = _loaders()[loader]
    doc = json.loads(shipped.read_text())
    load(shipped)  # the shipped file passes
    change(doc)
    path = tmp_path / shipped.name
    path.write_text(json.dumps(doc))
    with pytest.raises((ValueError, TypeError), match=field) as err:
        load(path)
    assert str(path) in str(err.value)


def test_the_checkpoint_loaders_read_the_shipped_models():
    import tiny_reasoners
    from r1_pipeline import load_cold_start

    for load, path in ((tiny_reasoners.load_tiny_reasoner, data_paths.TINY_REASONER_PATH),
                       (tiny_reasoners.load_multipath_reasoner, data_paths.MULTIPATH_PATH),
                       (load_cold_start, data_paths.R1_COLD_START_PATH)):
        model, meta = load()
        assert meta["sha256"] == json.loads(path.read_text())["sha256"]
