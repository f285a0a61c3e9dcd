"""Tests for code/rewards.py: format / accuracy / language rewards, robustness, speed."""

from __future__ import annotations

import json
import time

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo import group_relative_advantages
from rewards import (
    ASCII_SCRIPT,
    DEFAULT_WEIGHTS,
    accuracy_reward,
    demonstrate_rewards,
    extract_tagged_answer,
    format_reward,
    language_consistency_reward,
    reward_breakdown,
    split_blocks,
    total_reward,
)

GOOD = "<think>2x = 15 - 5 = 10, so x = 5.</think><answer>5</answer>"


# ------------------------------------------------------------------ format


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        "<think>\n  reasoning\n</think>\n\n<answer>\n  5\n</answer>\n",
        "  \t<think></think> <answer></answer>  ",
        "<think>uses < and > and <thinking> freely</think><answer>x</answer>",
    ],
)
def test_format_accepts_the_template(text):
    assert format_reward(text) == 1.0


@pytest.mark.parametrize(
    "text",
    [
        "",
        "5",
        "<answer>5</answer>",  # no think block
        "<think>x = 5</think>",  # no answer block
        "<think>a</think><think>b</think><answer>5</answer>",  # duplicated think
        "<think>a</think><answer>5</answer><answer>6</answer>",  # duplicated answer
        "<think>a <think>b</think> c</think><answer>5</answer>",  # nested
        "<think>a<answer>5</answer></think>",  # answer nested in think
        "<answer>5</answer><think>a</think>",  # out of order
        "<think>a</think><answer>5",  # unclosed answer
        "<think>a<answer>5</answer>",  # unclosed think
        "</think>a<think><answer>5</answer>",  # closing before opening
        "Sure! <think>a</think><answer>5</answer>",  # text before
        "<think>a</think>so<answer>5</answer>",  # text between
        "<think>a</think><answer>5</answer> Hope this helps",  # text after
        "<THINK>a</THINK><ANSWER>5</ANSWER>",  # tags are lower case
    ],
)
def test_format_rejects_malformed(text):
    assert format_reward(text) == 0.0
    assert extract_tagged_answer(text) is None


@pytest.mark.parametrize("bad", [None, 5, b"<think></think><answer>1</answer>", ["x"]])
def test_non_string_raises_type_error(bad):
    for fn in (format_reward, extract_tagged_answer, language_consistency_reward, split_blocks):
        with pytest.raises(TypeError, match="completion"):
            fn(bad)
    with pytest.raises(TypeError, match="completion"):
        accuracy_reward(bad, "5")


def test_split_blocks_returns_contents():
    assert split_blocks(" <think> a </think>\n<answer>42</answer>") == (" a ", "42")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["<think>", "</think>", "<answer>", "</answer>", " ", "\n", "7", "x", "<", ">", "/"]
        ),
        max_size=12,
    ).map("".join)
    | st.text(max_size=60)
)
def test_property_rewards_never_crash_on_strings(text):
    f = format_reward(text)
    assert f in (0.0, 1.0)
    assert accuracy_reward(text, 7) in (0.0, 1.0)
    assert 0.0 <= language_consistency_reward(text) <= 1.0
    assert 0.0 <= total_reward(text, "7", {"language": 1.0}) <= 3.0
    # well-formed iff the tags read think, /think, answer, /answer with only space outside
    blocks = split_blocks(text)
    assert (blocks is not None) == (f == 1.0)
    if blocks is not None:
        rebuilt = f"<think>{blocks[0]}</think><answer>{blocks[1]}</answer>"
        assert format_reward(rebuilt) == 1.0


HUGE = {
    "repeated open tag": "<think>" * 200_000,
    "1 MB answer": "<think>x</think><answer>" + "9" * 1_000_000 + "</answer>",
    "angle brackets": "<" * 1_000_000,
    "unclosed close tags": "</think" * 150_000,
    "comma digits": "1," * 500_000,
    "many words": "word " * 200_000,
    "non-ascii think": "<think>" + "所以 " * 300_000 + "</think><answer>1</answer>",
}


@pytest.mark.parametrize("name", list(HUGE))
def test_one_megabyte_inputs_are_linear_time(name):
    text = HUGE[name]
    t0 = time.perf_counter()
    total_reward(text, "1", {"language": 1.0})
    extract_tagged_answer(text)
    assert time.perf_counter() - t0 < 2.0


# ------------------------------------------------------------------ accuracy


def test_extract_tagged_answer_reads_the_answer_block():
    assert extract_tagged_answer(GOOD) == "5"
    assert extract_tagged_answer("<think>it is 7</think><answer>1,024.</answer>") == "1024"
    assert extract_tagged_answer("<think>it is 7</think><answer>x = \\boxed{3}</answer>") == "3"
    assert extract_tagged_answer("<think>it is 7</think><answer>no idea</answer>") is None


@pytest.mark.parametrize(
    "text, correct, expected",
    [
        (GOOD, "5", 1.0),
        (GOOD, 5, 1.0),
        (GOOD, 5.0, 1.0),
        (GOOD, "#### 5", 1.0),
        (GOOD, "10", 0.0),
        ("<think>so 1000 + 24</think><answer>$1,024</answer>", "1024", 1.0),
        ("<think>so 1000 + 24</think><answer>1024.50</answer>", "1024.5", 1.0),
        # well-formed: only the answer block counts, even if the think block has the number
        ("<think>x = 5</think><answer>unsure</answer>", "5", 0.0),
        ("<think>x = 5</think><answer>10</answer>", "5", 0.0),
        # malformed: fall back to the whole text
        ("x = 10, so the answer is 5", "5", 1.0),
        ("<think>x = 5<answer>5</answer>", "5", 1.0),
        ("no number at all", "5", 0.0),
    ],
)
def test_accuracy_reward(text, correct, expected):
    assert accuracy_reward(text, correct) == expected


def test_accuracy_reward_bad_reference():
    with pytest.raises(ValueError, match="correct"):
        accuracy_reward(GOOD, "five")
    with pytest.raises(TypeError, match="correct"):
        accuracy_reward(GOOD, None)
    with pytest.raises(TypeError, match="correct"):
        accuracy_reward(GOOD, True)
    with pytest.raises(ValueError, match="correct"):
        accuracy_reward(GOOD, float("nan"))


# ------------------------------------------------------------------ language consistency


def test_language_consistency():
    assert language_consistency_reward(GOOD) == 1.0
    mixed = "<think>3x = 15 所以 x = 5</think><answer>5</answer>"
    assert language_consistency_reward(mixed) == pytest.approx(6 / 7)
    assert language_consistency_reward("<think>所以 答案</think><answer>5</answer>") == 0.0
    assert language_consistency_reward("<think>  </think><answer>5</answer>") == 0.0
    # only the think block is read when the format is right
    assert language_consistency_reward("<think>ok</think><answer>答案 5</answer>") == 1.0
    # a malformed completion is judged on its whole text
    assert language_consistency_reward("ok 答案") == 0.5
    # another target script
    assert language_consistency_reward("<think>所以 x</think><answer>1</answer>", "所以") == 0.5
    assert set(ASCII_SCRIPT) >= set("aZ09+=.,")
    with pytest.raises(ValueError, match="allowed"):
        language_consistency_reward(GOOD, "")
    with pytest.raises(TypeError, match="allowed"):
        language_consistency_reward(GOOD, None)


# ------------------------------------------------------------------ total


def test_total_reward_default_is_format_plus_accuracy():
    assert DEFAULT_WEIGHTS == {"format": 1.0, "accuracy": 1.0, "language": 0.0}
    assert total_reward(GOOD, "5") == 2.0
    assert total_reward(GOOD, "6") == 1.0
    assert total_reward("the answer is 5", "5") == 1.0
    assert total_reward("nothing", "5") == 0.0
    mixed = "<think>3x = 15 所以 x = 5</think><answer>5</answer>"
    assert total_reward(mixed, "5") == 2.0
    assert total_reward(mixed, "5", {"language": 1.0}) == pytest.approx(2 + 6 / 7)
    assert total_reward(GOOD, "5", {"format": 0.1}) == pytest.approx(1.1)
    assert isinstance(total_reward(GOOD, "5"), float)


def test_total_reward_bad_weights():
    with pytest.raises(ValueError, match="weights"):
        total_reward(GOOD, "5", {"style": 1.0})
    with pytest.raises(TypeError, match="weights"):
        total_reward(GOOD, "5", [1.0, 1.0])
    with pytest.raises(TypeError, match="weights"):
        total_reward(GOOD, "5", {"format": "high"})
    with pytest.raises(ValueError, match="weights"):
        total_reward(GOOD, "5", {"format": float("inf")})


def test_reward_breakdown_and_demo(capsys):
    terms = reward_breakdown(GOOD, "5", {"language": 1.0})
    assert terms == {"format": 1.0, "accuracy": 1.0, "language": 1.0, "total": 3.0}
    recs = demonstrate_rewards()
    assert "format" in capsys.readouterr().out
    assert json.loads(json.dumps(recs)) == recs
    by_label = {r["label"]: r for r in recs}
    assert by_label["two steps, right"]["total"] == 3.0
    assert by_label["well-formed, wrong"]["accuracy"] == 0.0
    assert by_label["right, no tags"]["format"] == 0.0
    assert by_label["right, no tags"]["accuracy"] == 1.0
    assert by_label["mixed languages"]["language"] < 1.0
    assert by_label["nested tags"]["format"] == 0.0


def test_seed_grpo_step_by_step_group():
    # Section 8.12: "Solve: 2x + 5 = 15", completions graded by rule, then standardised.
    group = [
        "<think>Let me move 5: 2x = 10. Then x = 5.</think><answer>5</answer>",
        "<think>2x = 15 - 5 = 10, so x = 5.</think><answer>5</answer>",
        "<think>2x + 5 = 15, so x = 10.</think><answer>10</answer>",
        "<think>Subtract 5 and halve.</think><answer>5</answer>",
    ]
    r = torch.tensor([accuracy_reward(o, "5") for o in group])
    assert r.tolist() == [1.0, 1.0, 0.0, 1.0]
    assert float(r.mean()) == 0.75
    assert round(float(r.std(unbiased=False)), 2) == 0.43
    adv = group_relative_advantages(r)
    assert adv[2] < 0 < adv[0]
    assert [round(a, 3) for a in adv.tolist()] == [0.577, 0.577, -1.732, 0.577]
