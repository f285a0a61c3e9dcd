"""Chapter 14 asks five questions of recorded runs: each opens with its paper's claim (cited),
states a prediction before the result, and nothing trains on the render path."""

from __future__ import annotations

import re

import pytest

from booktools.qmd import parse_file
from conftest import ROOT

STEM = "13-what-rl-teaches"
PATH = ROOT / "chapters" / f"{STEM}.qmd"
TRAINING_CALLS = re.compile(r"\b(train_rl|rl_step|sft|pretrain_base|rejection_sample|train)\(")
QUESTIONS = {  # section heading -> the sources it must cite
    "## Sharpening or new ability?": ("yue2025limit",),
    "## Does RL shrink what the model can reach?": ("wu2025invisible",),
    "## Spurious rewards": ("shao2025spurious", "oertell2025heuristics"),
    "## One training example": ("wang2025oneshot",),
    "## Does a longer chain mean a better one?": ("deepseek2025r1", "liu2025drgrpo"),
}


def _section(text: str, heading: str) -> str:
    return text.split(heading + "\n", 1)[1].split("\n## ", 1)[0]


def test_nothing_trains_on_the_render_path():
    cells = [c for c in parse_file(PATH)
             if c.kind == "python" and c.options.get("eval") is not False]
    assert not [c.line for c in cells if TRAINING_CALLS.search(c.source)]


@pytest.mark.parametrize("heading", QUESTIONS)
def test_each_question_cites_predicts_then_measures(heading):
    body = _section(PATH.read_text(), heading)
    for key in QUESTIONS[heading]:
        assert f"@{key}" in body, f"{heading}: cite {key}"
    predicted, measured = body.find("**Prediction.**"), body.find("**Result.**")
    assert 0 <= predicted < measured, f"{heading}: a prediction, then the result"
