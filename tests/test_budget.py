"""Budget forcing on the tiny reasoner: cut and extend thinking with a logits hook."""

from __future__ import annotations

import pytest
import torch

from arithmetic_task import ANSWER_MARKER, held_out_problems
from budget import accuracy_vs_budget, budget_hook
from tiny_gpt import sample

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture
def model(tiny_reasoner):
    """Chapter 2's tiny reasoner (conftest's shared checkpoint)."""
    return tiny_reasoner


def test_hook_validation(model):
    with pytest.raises(ValueError, match="budget"):
        budget_hook(-1)
    with pytest.raises(ValueError, match="mode"):
        budget_hook(3, mode="stretch")
    with pytest.raises(TypeError, match="logits_hook"):
        sample(model, ["7+5-3="], 0.0, logits_hook=5)


def test_cut_forces_the_marker_at_the_budget(model):
    out = sample(model, ["7+5-3-6+7="] * 2, 0.0, logits_hook=budget_hook(12, "cut"))
    for chain in out.completions:
        assert chain.index(ANSWER_MARKER) == 12  # thinking stopped exactly at the budget


def test_a_generous_budget_changes_nothing(model):
    plain = sample(model, ["7+5-3-6+7=", "9-2+4="], 0.0).completions
    cut = sample(model, ["7+5-3-6+7=", "9-2+4="], 0.0, logits_hook=budget_hook(60)).completions
    assert cut == plain


def test_extend_forbids_the_marker_until_the_budget(model):
    out = sample(model, ["7+5-3="] * 2, 0.0, logits_hook=budget_hook(20, "extend"))
    for chain in out.completions:
        assert chain.index(ANSWER_MARKER) >= 20


def test_hook_leaves_recorded_logprobs_the_models_own(model):
    gen = torch.Generator().manual_seed(0)
    out = sample(model, ["7+5-3-6+7="], 1.0, generator=gen, logits_hook=budget_hook(8))
    from tiny_gpt import completion_logprobs

    assert torch.allclose(completion_logprobs(model, out), out.logprobs, atol=1e-5)


def test_accuracy_rises_with_the_budget_until_the_chain_fits(model):
    problems = held_out_problems(60, seed=3)
    rows = accuracy_vs_budget(model, problems, [0, 12, 30, 60], mode="cut")
    acc = [r["accuracy"] for r in rows]
    assert acc[0] < acc[1] < acc[2] <= acc[3] + 1e-9
    assert rows[-1]["thinking_tokens"] < 60  # chains end on their own well inside the budget
    with pytest.raises(ValueError, match="problems"):
        accuracy_vs_budget(model, [], [4])
