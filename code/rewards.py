"""Rule-based rewards for RL on reasoning (the R1 recipe): programs, not learned models.

A completion is expected to follow the template

    <think> ...the reasoning... </think> <answer> ...the final answer... </answer>

and is graded by three deterministic checks:

* ``format_reward``: 1 if the completion is exactly one think block followed by one answer
  block (only whitespace around and between them), else 0;
* ``accuracy_reward``: 1 if the final answer equals the reference answer, else 0. Both sides
  go through ``reasoning.extract_answer`` so "1,024", "1024." and "1024" agree;
* ``language_consistency_reward``: the fraction of the reasoning's words written in the target
  script, R1's remedy for chains of thought that drift between languages.

``total_reward`` adds them with weights: ``r = w_f r_format + w_a r_accuracy + w_l r_language``.
By default ``w_f = w_a = 1`` and ``w_l = 0`` (the R1-Zero sum ``r_format + r_accuracy``); set
``w_l`` (e.g. to 1) for R1's language term, or lower ``w_f`` if the format bonus should stay
small next to correctness.

Every parser here is a single left-to-right scan, so a 1 MB adversarial string is graded in
linear time; malformed strings score 0 and never raise (only a non-``str`` raises TypeError).
"""

from __future__ import annotations

import math
import numbers
import re
import string
from collections.abc import Mapping

from checks import require_str
from reasoning import extract_answer

__all__ = [
    "ASCII_SCRIPT",
    "DEFAULT_WEIGHTS",
    "accuracy_reward",
    "demonstrate_rewards",
    "extract_tagged_answer",
    "format_reward",
    "language_consistency_reward",
    "reward_breakdown",
    "split_blocks",
    "total_reward",
]

#: Characters of the default target script: ASCII letters, digits and punctuation.
ASCII_SCRIPT = string.ascii_letters + string.digits + string.punctuation

#: ``total_reward``'s default weights (R1-Zero: format + accuracy, no language term).
DEFAULT_WEIGHTS: dict[str, float] = {"format": 1.0, "accuracy": 1.0, "language": 0.0}

# The four tags, matched literally (lower case, no spaces inside the angle brackets).
_TAG = re.compile(r"</?(?:think|answer)>")
_TEMPLATE = ("<think>", "</think>", "<answer>", "</answer>")
_WORD = re.compile(r"\S+")


def split_blocks(completion: str) -> tuple[str, str] | None:
    """Return ``(think_content, answer_content)`` for a well-formed completion, else None.

    Well-formed means the tags, read in order, are exactly ``<think> </think> <answer>
    </answer>`` (so no tag is missing, duplicated, nested or out of order) and the text outside
    the two blocks is whitespace only. The scan stops at the fifth tag, so it is linear in the
    length of the string.

    Raises:
        TypeError: ``completion`` is not a ``str``.
    """
    text = require_str("completion", completion)
    tags = []
    for match in _TAG.finditer(text):
        tags.append(match)
        if len(tags) > len(_TEMPLATE):
            return None
    if tuple(m.group() for m in tags) != _TEMPLATE:
        return None
    think_open, think_close, answer_open, answer_close = tags
    outside = (
        text[: think_open.start()],
        text[think_close.end() : answer_open.start()],
        text[answer_close.end() :],
    )
    if any(part.strip() for part in outside):
        return None
    return (
        text[think_open.end() : think_close.start()],
        text[answer_open.end() : answer_close.start()],
    )


def format_reward(completion: str) -> float:
    """1.0 iff ``completion`` is one ``<think>`` block then one ``<answer>`` block, else 0.0.

    Whitespace is allowed before, between and after the blocks; anything else outside them,
    or any missing / repeated / nested / reordered / unclosed tag, scores 0.

    Raises:
        TypeError: ``completion`` is not a ``str``.
    """
    return 0.0 if split_blocks(completion) is None else 1.0


def extract_tagged_answer(completion: str) -> str | None:
    """The canonical number inside the ``<answer>`` block, or None.

    None when the completion is not well-formed (see ``format_reward``) or its answer block
    holds no number. The block's text is read by ``reasoning.extract_answer``.
    """
    blocks = split_blocks(completion)
    return None if blocks is None else extract_answer(blocks[1])


def _canonical_reference(correct: object) -> str:
    if isinstance(correct, bool) or not isinstance(correct, (str, numbers.Real)):
        raise TypeError(f"correct must be a str or a number, got {type(correct).__name__}")
    if isinstance(correct, numbers.Integral):
        correct = int(correct)  # exact: float() of 10**400 would raise OverflowError
        if abs(correct) >= 10**4000:  # repr() stops at CPython's 4,300-digit limit
            raise ValueError("correct must have fewer than 4,000 digits")
    elif isinstance(correct, numbers.Real) and not math.isfinite(float(correct)):
        raise ValueError(f"correct must be finite, got {correct}")
    answer = extract_answer(correct if isinstance(correct, str) else repr(correct))
    if answer is None:
        raise ValueError(f"correct must contain a number, got {correct!r}")
    return answer


def accuracy_reward(completion: str, correct: str | int | float) -> float:
    """1.0 iff the completion's final answer equals ``correct`` (both canonicalised), else 0.0.

    A well-formed completion is judged on its ``<answer>`` block only; a malformed one falls
    back to ``reasoning.extract_answer`` on the whole text (so correctness and format stay
    separate signals, as in R1).

    Args:
        completion: the model's output.
        correct: the reference answer, e.g. ``"1,024"``, ``"#### 5"`` or ``5``.

    Raises:
        TypeError: ``completion`` is not a ``str``, or ``correct`` is neither str nor number.
        ValueError: ``correct`` holds no number.
    """
    text = require_str("completion", completion)
    reference = _canonical_reference(correct)
    blocks = split_blocks(text)
    predicted = extract_answer(text) if blocks is None else extract_answer(blocks[1])
    return 1.0 if predicted == reference else 0.0


def language_consistency_reward(completion: str, allowed: str = ASCII_SCRIPT) -> float:
    """Fraction of the reasoning's words written entirely in the target script.

    The reasoning is the ``<think>`` block of a well-formed completion, or the whole text of a
    malformed one. Words are maximal runs of non-whitespace; a word counts when every character
    is in ``allowed``. No words at all scores 0.0.

    Args:
        completion: the model's output.
        allowed: the characters of the target script (default: ASCII letters, digits and
            punctuation, i.e. an English chain of thought).

    Raises:
        TypeError: ``completion`` or ``allowed`` is not a ``str``.
        ValueError: ``allowed`` is empty.
    """
    text = require_str("completion", completion)
    if not isinstance(allowed, str):
        raise TypeError(f"allowed must be a str of characters, got {type(allowed).__name__}")
    if not allowed:
        raise ValueError("allowed must contain at least one character")
    blocks = split_blocks(text)
    reasoning = text if blocks is None else blocks[0]
    alphabet = frozenset(allowed)
    total = in_script = 0
    for word in _WORD.finditer(reasoning):
        total += 1
        in_script += alphabet.issuperset(word.group())
    return in_script / total if total else 0.0


def _resolve_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    resolved = dict(DEFAULT_WEIGHTS)
    if weights is None:
        return resolved
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping, got {type(weights).__name__}")
    for key, value in weights.items():
        if key not in DEFAULT_WEIGHTS:
            raise ValueError(f"weights keys must be among {sorted(DEFAULT_WEIGHTS)}, got {key!r}")
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"weights[{key!r}] must be a number, got {type(value).__name__}")
        if not math.isfinite(float(value)):
            raise ValueError(f"weights[{key!r}] must be finite, got {value}")
        resolved[key] = float(value)
    return resolved


def reward_breakdown(
    completion: str,
    correct: str | int | float,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Each reward term and their weighted sum: ``{"format", "accuracy", "language", "total"}``.

    ``weights`` overrides any of ``DEFAULT_WEIGHTS`` (keys ``"format"``, ``"accuracy"``,
    ``"language"``); the language term is reported whatever its weight.
    """
    w = _resolve_weights(weights)
    terms = {
        "format": format_reward(completion),
        "accuracy": accuracy_reward(completion, correct),
        "language": language_consistency_reward(completion),
    }
    terms["total"] = sum(w[key] * terms[key] for key in DEFAULT_WEIGHTS)
    return terms


def total_reward(
    completion: str,
    correct: str | int | float,
    weights: Mapping[str, float] | None = None,
) -> float:
    """``w_format * r_format + w_accuracy * r_accuracy + w_language * r_language``.

    Args:
        completion: the model's output.
        correct: the reference answer.
        weights: overrides for ``DEFAULT_WEIGHTS`` = ``{"format": 1, "accuracy": 1,
            "language": 0}``, i.e. R1-Zero's ``r_format + r_accuracy`` unless told otherwise;
            ``{"language": 1.0}`` adds R1's language-consistency term.

    Raises:
        TypeError / ValueError: as the individual rewards, or for unknown keys / non-finite
            weights.
    """
    w = _resolve_weights(weights)
    total = w["format"] * format_reward(completion)
    total += w["accuracy"] * accuracy_reward(completion, correct)
    if w["language"] != 0.0:
        total += w["language"] * language_consistency_reward(completion)
    return float(total)


_EXAMPLES = (
    ("two steps, right", "<think>Add 4: 3x = 15. Divide by 3: x = 5.</think><answer>5</answer>"),
    ("well-formed, wrong", "<think>3x = 11 - 4 = 7, so x = 7/3.</think><answer>7/3</answer>"),
    ("right, no tags", "3x = 15, so x = 5. The answer is 5."),
    ("mixed languages", "<think>3x = 15 所以 x = 5，答案 5</think>\n<answer>x = 5</answer>"),
    ("nested tags", "<think>3x = 15 <think>x = 5</think></think><answer>5</answer>"),
)


def demonstrate_rewards(
    correct: str = "5", weights: Mapping[str, float] | None = None, verbose: bool = True
) -> list[dict[str, float | str]]:
    """Grade a few completions to "Solve 3x - 4 = 11" with every reward term.

    Returns:
        Records ``{"label", "completion", "format", "accuracy", "language", "total"}``.
    """
    if weights is None:
        weights = {"language": 1.0}
    records: list[dict[str, float | str]] = []
    for label, text in _EXAMPLES:
        terms = reward_breakdown(text, correct, weights)
        records.append({"label": label, "completion": text, **terms})
    if verbose:
        print(f"{'completion':<20} {'format':>6} {'accuracy':>8} {'language':>8} {'total':>6}")
        for r in records:
            print(
                f"{r['label']:<20} {r['format']:>6.1f} {r['accuracy']:>8.1f} "
                f"{r['language']:>8.2f} {r['total']:>6.2f}"
            )
    return records
