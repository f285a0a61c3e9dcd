"""Where each file in ``data/`` lives: one name per file, spelled once.

The book's shipped data is found from this file rather than the working directory, so a chapter's
notebook run from anywhere (after ``pip install -e .``) reads the same files as the page. A module
that reads a file, a job that writes one and a test that checks one all import its name from here.
A checkpoint is a ``.json`` header with its weights in the ``.bin`` beside it
(``tiny_gpt.save_checkpoint``); :func:`weights_of` names that ``.bin``.

Every loader reads its file with :func:`read_json`, so a truncated or hand-damaged file is refused
with the file's name (the loaders then check the fields they return, naming each).

The pages fetch some of these files in the browser; :func:`page_url` is the address a chapter's
``{ojs}`` cell uses for one (a chapter page sits one folder below the site's root, as the
chapter files sit one below ``data/``'s parent).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = [
    "BEAM_SWEEP_PATH",
    "DATA_DIR",
    "DATA_FILES",
    "GAME24_PATH",
    "MULTIPATH_EVAL_PATH",
    "MULTIPATH_PATH",
    "R1_COLD_START_PATH",
    "R1_EXERCISE3_PATH",
    "R1_OTHER_MACHINE_PATH",
    "R1_RUNS_PATH",
    "RECORDED_CALLS_PATH",
    "RL_DEBATES_PATH",
    "SEARCH_TREES_PATH",
    "TINY_REASONER_EVAL_PATH",
    "TINY_REASONER_PATH",
    "VOTE_SIMS_PATH",
    "page_url",
    "read_json",
    "weights_of",
]

DATA_DIR = Path(__file__).resolve().parent.parent / "data"

#: Every Game-of-24 puzzle and whether it can be solved (chapters 10 and 11).
GAME24_PATH = DATA_DIR / "game24.json"
#: Which puzzle each beam setting solved (chapter 10's sweep).
BEAM_SWEEP_PATH = DATA_DIR / "beam_sweep.json"
#: The recorded search trees chapter 10's widget replays.
SEARCH_TREES_PATH = DATA_DIR / "search_trees.json"
#: Chapter 2's self-consistency simulations.
VOTE_SIMS_PATH = DATA_DIR / "vote_sims.json"
#: Chapter 2's single-path tiny reasoner (its weights in ``tiny_reasoner.bin``).
TINY_REASONER_PATH = DATA_DIR / "tiny_reasoner.json"
#: The single-path reasoner's evaluation (chapter 3).
TINY_REASONER_EVAL_PATH = DATA_DIR / "tiny_reasoner_eval.json"
#: The multipath tiny reasoner (its weights in ``tiny_reasoner_multipath.bin``).
MULTIPATH_PATH = DATA_DIR / "tiny_reasoner_multipath.json"
#: The multipath reasoner's evaluation (chapters 2 and 3).
MULTIPATH_EVAL_PATH = DATA_DIR / "multipath_eval.json"
#: The tiny R1 pipeline's recorded runs (chapters 12 and 13, the appendix).
R1_RUNS_PATH = DATA_DIR / "r1_runs.json"
#: The R1 pipeline's cold-start model (its weights in ``r1_cold_start.bin``), which the RL
#: chapters' browser trainer starts from.
R1_COLD_START_PATH = DATA_DIR / "r1_cold_start.json"
#: The recorded run of chapter 12's third exercise.
R1_EXERCISE3_PATH = DATA_DIR / "r1_exercise3.json"
#: One job run on two machines (the appendix).
R1_OTHER_MACHINE_PATH = DATA_DIR / "r1_other_machine.json"
#: The slow calls chapters read back with ``recorded(fn, **kwargs)``.
RECORDED_CALLS_PATH = DATA_DIR / "recorded_calls.json"
#: The runs of chapter 14 on what RL teaches (`rl_debates`), read by `debate_findings`.
RL_DEBATES_PATH = DATA_DIR / "rl_debates.json"

#: Every named file (checkpoints by their ``.json`` header), in the order above.
DATA_FILES = (
    GAME24_PATH,
    BEAM_SWEEP_PATH,
    SEARCH_TREES_PATH,
    VOTE_SIMS_PATH,
    TINY_REASONER_PATH,
    TINY_REASONER_EVAL_PATH,
    MULTIPATH_PATH,
    MULTIPATH_EVAL_PATH,
    R1_RUNS_PATH,
    R1_COLD_START_PATH,
    R1_EXERCISE3_PATH,
    R1_OTHER_MACHINE_PATH,
    RECORDED_CALLS_PATH,
    RL_DEBATES_PATH,
)


def weights_of(checkpoint: Path) -> Path:
    """The ``.bin`` that holds a checkpoint's weights, beside its ``.json`` header."""
    if not isinstance(checkpoint, Path):
        raise TypeError(f"checkpoint must be a pathlib.Path, got {type(checkpoint).__name__}")
    if checkpoint.suffix != ".json":
        raise ValueError(f"checkpoint must be a .json header, got {checkpoint.name!r}")
    return checkpoint.with_suffix(".bin")


def page_url(path: Path) -> str:
    """The address a chapter page fetches a data file by: ``"../data/<name>"``."""
    if not isinstance(path, Path):
        raise TypeError(f"path must be a pathlib.Path, got {type(path).__name__}")
    if path not in DATA_FILES:
        raise ValueError(f"path must be one of data_paths' files, got {str(path)!r}")
    return f"../data/{path.name}"


def read_json(path: Path, fix: str = "") -> object:
    """The JSON value in ``path``; a file that is not JSON raises a ValueError naming it.

    ``fix`` (optional) is appended to the message: how to write the file again.
    """
    if not isinstance(path, Path):
        raise TypeError(f"path must be a pathlib.Path, got {type(path).__name__}")
    with open(path, encoding="utf-8") as fh:
        try:
            return json.load(fh)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
            hint = f": {fix}" if fix else ""
            raise ValueError(f"path {path} is not a JSON file ({err}){hint}") from None
