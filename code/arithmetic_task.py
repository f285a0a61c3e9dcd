"""The tiny reasoner's task: left-to-right arithmetic chains with a verifiable answer.

A problem is 3-5 single digits joined by ``+`` or ``-`` (``7+5-3-6+7``). The prompt is the
problem followed by ``=``; the reasoning is the same chain of thought ``reasoning.solve_chain``
writes, one step per ``;``, ending in the GSM8K marker that ``reasoning.extract_answer`` reads:

    7+5-3-6+7=   ->   7+5=12;12-3=9;9-6=3;3+7=10;####10

Three things make this a good laboratory for test-time compute:

* **A natural chain of thought.** Each step depends on the previous result, so the answer
  cannot be read off the prompt without doing the steps.
* **A verifiable answer.** ``grade`` compares the number after the chain's ``####`` marker with
  the right one: a program.
* **Controllable imperfection.** ``make_trace`` writes a share ``slip_share`` of the training
  traces with exactly one *slip*: one step's result off by +-1 or +-2, carried through the rest
  of the chain as a person's mistake would be. A model trained on these traces learns to slip
  too, so its sampled chains disagree, and wrong chains scatter over different wrong answers.

Problems are split into train and held-out by a hash of the problem string
(``is_held_out``), so the split does not depend on any seed or on the order problems are drawn.

The tokenizer is character level over ``VOCAB``: three special symbols (pad, begin, end) and
the 15 characters a problem or chain can contain.

This module owns the chain format, so every chapter reads a chain the same way: ``ANSWER_MARKER``,
``format_reward`` (is it a well-formed chain?), ``thinking_mode`` (chain, bare answer or neither),
``recheck_count`` (repeated steps) and ``thinking_ledger`` (characters before and after the marker).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence

import torch
from torch import Tensor

from checks import (
    require_arg_name,
    require_choice,
    require_int,
    require_prob,
    require_seed,
    require_sequence,
    require_str,
)
from reasoning import extract_answer, solve_chain

__all__ = [
    "ANSWER_MARKER",
    "BOS",
    "EOS",
    "HELD_OUT_SHARE",
    "PAD",
    "PROMPT_CHARS",
    "ROUTES",
    "ROUTE_TOKENS",
    "VOCAB",
    "add_rechecks",
    "answer_of",
    "batch_of",
    "decode",
    "encode",
    "first_route_slip",
    "first_slip",
    "format_reward",
    "grade",
    "held_out_problems",
    "is_held_out",
    "make_batch",
    "make_route_batch",
    "make_route_trace",
    "encode_example",
    "make_trace",
    "prompt_of",
    "random_problem",
    "recheck_count",
    "require_problems",
    "require_routes",
    "route_of",
    "thinking_ledger",
    "thinking_mode",
    "write_chain",
    "write_route_chain",
]

#: Padding (never predicted), beginning of sequence, end of sequence.
PAD, BOS, EOS = "_", "^", "$"
#: The model's vocabulary, one character per token; a token's id is its index here.
VOCAB = PAD + BOS + EOS + "0123456789+-=;#"
_STOI = {ch: i for i, ch in enumerate(VOCAB)}
#: Characters a prompt may contain (the specials are added by the tokenizer, never typed).
PROMPT_CHARS = frozenset("0123456789+-=;#")

#: What separates a chain's thinking from its answer (the GSM8K marker: ``...;####10``).
ANSWER_MARKER = "####"
# A well-formed chain: steps "a+b=c" separated by ";", then the marker and the final number.
_CHAIN = re.compile(r"(?:-?[0-9]+[+-][0-9]=-?[0-9]+;)+" + ANSWER_MARKER + r"-?[0-9]+")

#: Share of all problems that are held out (by hash) for evaluation.
HELD_OUT_SHARE = 0.1
_PROBLEM = re.compile(r"[0-9](?:[+-][0-9]){2,4}")


# ---------------------------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------------------------


#: How many distinct held-out problems exist (of 1,684,000 problems, 3-5 operands);
#: tests/test_bad_input.py recounts them.
NUM_HELD_OUT = 168_792
MAX_CONTEXT = 4096  # tokens of one training row
MAX_BATCH = 100_000  # rows of one training batch (a (batch, context) tensor pair)


def _require_rng(rng: object) -> random.Random:
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, got {type(rng).__name__}")
    return rng


def _check_problem(problem: object) -> str:
    require_str("problem", problem)
    if _PROBLEM.fullmatch(problem) is None:
        raise ValueError(
            f"problem must be 3-5 single digits joined by + or - (like '7+5-3'), got {problem!r}"
        )
    return problem


def require_problems(name: str, problems: object, *, min_len: int = 0) -> list[str]:
    """A sequence of the task's problems (``"7+5-3"``), each checked, errors naming ``name[i]``."""
    require_arg_name("name", name)
    out = require_sequence(name, problems, min_len=require_int("min_len", min_len, low=0))
    for i, problem in enumerate(out):
        try:
            _check_problem(problem)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{name}[{i}]: {err}") from None
    return out


# ---------------------------------------------------------------------------------------------
# Tokenizer
# ---------------------------------------------------------------------------------------------


def encode(text: str) -> list[int]:
    """Token ids of ``text``, one per character. Every character must be in ``VOCAB``."""
    require_str("text", text)
    bad = sorted({ch for ch in text if ch not in _STOI})
    if bad:
        raise ValueError(f"text contains characters outside the vocabulary {VOCAB!r}: {bad}")
    return [_STOI[ch] for ch in text]


def decode(ids: Sequence[int]) -> str:
    """The text of token ids, stopping at the first EOS; PAD and BOS are dropped."""
    out = []
    if isinstance(ids, Tensor):
        ids = ids.tolist()
    for i in require_sequence("ids", ids):
        i = require_int("ids", i)
        if not 0 <= i < len(VOCAB):
            raise ValueError(f"ids must be in [0, {len(VOCAB)}), got {i}")
        ch = VOCAB[i]
        if ch == EOS:
            break
        if ch not in (PAD, BOS):
            out.append(ch)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Problems and the held-out split
# ---------------------------------------------------------------------------------------------


def is_held_out(problem: str) -> bool:
    """True for the ~10% of problems whose SHA-256 lands in the held-out bucket.

    bucket = int(sha256(problem)[:8 hex digits]) / 16^8, held out iff bucket < HELD_OUT_SHARE.
    """
    digest = hashlib.sha256(_check_problem(problem).encode()).hexdigest()
    return int(digest[:8], 16) / 16**8 < HELD_OUT_SHARE


def random_problem(rng: random.Random, split: str = "train") -> str:
    """One problem from ``split`` ("train" or "held_out"): 3-5 operands, uniform digits and ops.

    The operand count is uniform on {3, 4, 5}; problems of the other split are redrawn.
    """
    _require_rng(rng)
    split = require_choice("split", split, ("train", "held_out"))
    want_held_out = split == "held_out"
    while True:
        num = rng.randint(3, 5)
        parts = [str(rng.randint(0, 9))]
        for _ in range(num - 1):
            parts.append(rng.choice("+-") + str(rng.randint(0, 9)))
        problem = "".join(parts)
        if is_held_out(problem) == want_held_out:
            return problem


def held_out_problems(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct held-out problems, in a fixed order for a given seed (the eval sets).

    At most ``NUM_HELD_OUT`` (168,792) exist; asking for more is refused rather than searched
    for forever.
    """
    n = require_int("n", n, low=1)
    if n > NUM_HELD_OUT:
        raise ValueError(f"n must be <= {NUM_HELD_OUT}, the number of held-out problems, got {n}")
    rng = random.Random(require_seed("seed", seed))
    seen: dict[str, None] = {}
    while len(seen) < n:
        seen.setdefault(random_problem(rng, "held_out"))
    return list(seen)


def prompt_of(problem: str) -> str:
    """The model's prompt: the problem and an ``=`` (``"7+5-3" -> "7+5-3="``)."""
    return _check_problem(problem) + "="


def answer_of(problem: str) -> str:
    """The correct final answer, as ``extract_answer`` reads it from the correct chain."""
    answer = extract_answer(solve_chain(_check_problem(problem)))
    assert answer is not None  # a chain always ends in "####N"
    return answer


# ---------------------------------------------------------------------------------------------
# Chains of thought, with an optional slip
# ---------------------------------------------------------------------------------------------


def write_chain(problem: str, slip_step: int | None = None, slip_delta: int = 0) -> str:
    """The chain for ``problem``, with step ``slip_step`` (0-based) off by ``slip_delta``.

    Without a slip this is exactly ``reasoning.solve_chain(problem)``. With one, that step's
    result is wrong by ``slip_delta`` and every later step starts from the wrong value:
    ``write_chain("7+5-3", 0, 1) == "7+5=13;13-3=10;####10"``.
    """
    _check_problem(problem)
    num_steps = len(problem) // 2
    if slip_step is not None:
        require_int("slip_step", slip_step, low=0)
        if slip_step >= num_steps:
            raise ValueError(f"slip_step must be < {num_steps} for {problem!r}, got {slip_step}")
    slip_delta = require_int("slip_delta", slip_delta, low=-1000, high=1000)
    if slip_step is None:
        return solve_chain(problem)
    value = int(problem[0])
    lines = []
    for step in range(num_steps):
        op, operand = problem[2 * step + 1], int(problem[2 * step + 2])
        result = value + operand if op == "+" else value - operand
        if step == slip_step:
            result += slip_delta
        lines.append(f"{value}{op}{operand}={result}")
        value = result
    lines.append(f"{ANSWER_MARKER}{value}")
    return ";".join(lines)


def add_rechecks(chain: str, rng: random.Random, recheck_share: float, max_chars: int) -> str:
    """``chain`` with some steps written twice: a re-check that lengthens but never changes it.

    After each step, while ``rng.random() < recheck_share`` and at most twice, the step is
    repeated (``7+5=12;7+5=12;12-3=9;####9``). Re-checks that would push the chain past
    ``max_chars`` characters are skipped, so the trace always fits the model's context. The
    answer and its correctness are untouched: only the *length* of the thinking varies, which is
    what chapter 12 needs to watch an RL objective's length bias.
    """
    require_str("chain", chain)
    _require_rng(rng)
    recheck_share = require_prob("recheck_share", recheck_share)
    max_chars = require_int("max_chars", max_chars, low=len(chain))
    *steps, answer = chain.split(";")
    out: list[str] = []
    budget = max_chars - len(chain)
    for step in steps:
        out.append(step)
        for _ in range(2):
            if rng.random() >= recheck_share:
                break
            if len(step) + 1 <= budget:  # the repeat plus its ";"
                out.append(step)
                budget -= len(step) + 1
    return ";".join([*out, answer])


def make_trace(
    problem: str,
    rng: random.Random,
    slip_share: float,
    recheck_share: float = 0.0,
    answer_only_share: float = 0.0,
    max_chars: int = 52,
) -> str:
    """A training trace: with probability ``slip_share`` one slip, else the correct chain.

    The slip's step is uniform over the chain's steps, its size uniform on {-2, -1, +1, +2}.
    Draws: one ``rng.random()``, plus ``rng.randrange`` and ``rng.choice`` when slipping.

    Two optional ingredients make the *pre-training mix* of chapter 12 (both off by default, and
    then no extra draws are made, so the chapter 2 reasoner's data are unchanged):

    * ``answer_only_share``: that share of traces is the bare answer ``####N`` with no thinking,
      like text that states a result without working it out (drawn first, one ``rng.random()``);
    * ``recheck_share``: steps are re-checked (repeated) as in ``add_rechecks``, within
      ``max_chars`` characters.
    """
    _check_problem(problem)
    _require_rng(rng)
    slip_share = require_prob("slip_share", slip_share)
    answer_only_share = require_prob("answer_only_share", answer_only_share)
    recheck_share = require_prob("recheck_share", recheck_share)
    max_chars = require_int("max_chars", max_chars, low=0)
    if answer_only_share > 0 and rng.random() < answer_only_share:
        return ANSWER_MARKER + answer_of(problem)
    if rng.random() < slip_share:
        step = rng.randrange(len(problem) // 2)
        chain = write_chain(problem, step, rng.choice((-2, -1, 1, 2)))
    else:
        chain = write_chain(problem)
    if recheck_share > 0:
        chain = add_rechecks(chain, rng, recheck_share, max_chars)
    return chain


def encode_example(problem: str, completion: str, context: int = 64) -> tuple[Tensor, Tensor]:
    """One training row ``BOS prompt completion EOS PAD...`` as ``(x, y)``, each ``(context,)``.

    ``x`` is the row without its last token and ``y`` the row shifted by one, with -100 (ignored
    by the loss) wherever the target is part of the prompt or padding: the model is trained to
    write the completion, not the question.
    """
    context = require_int("context", context, low=2, high=MAX_CONTEXT)
    require_str("completion", completion)
    prompt = encode(BOS + prompt_of(problem))
    try:
        target = encode(completion + EOS)
    except ValueError as err:  # encode() calls its argument "text"
        raise ValueError(f"completion: {err}") from None
    seq = prompt + target
    if len(seq) > context + 1:
        raise ValueError(f"context={context} is too short for {problem!r} ({len(seq)} tokens)")
    x = torch.full((context,), _STOI[PAD], dtype=torch.long)
    y = torch.full((context,), -100, dtype=torch.long)
    x[: len(seq) - 1] = torch.tensor(seq[:-1])
    y[len(prompt) - 1 : len(seq) - 1] = torch.tensor(target)
    return x, y


def batch_of(pairs: Sequence[tuple[str, str]], context: int = 64) -> tuple[Tensor, Tensor]:
    """Stack ``(problem, completion)`` pairs into a training batch ``(x, y)``, ``(B, context)``."""
    pairs = require_sequence("pairs", pairs, min_len=1, max_len=MAX_BATCH)
    for pair in pairs:
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise TypeError(f"pairs must hold (problem, completion) pairs, got {pair!r:.60}")
    rows = [encode_example(p, c, context) for p, c in pairs]
    return torch.stack([x for x, _ in rows]), torch.stack([y for _, y in rows])


def make_batch(
    rng: random.Random,
    batch_size: int,
    slip_share: float,
    context: int = 64,
    recheck_share: float = 0.0,
    answer_only_share: float = 0.0,
) -> tuple[Tensor, Tensor]:
    """One training batch of next-token prediction on fresh train-split problems.

    Each row is a problem and its ``make_trace`` trace, encoded by ``encode_example``.
    Returns ``(x, y)``, both ``(batch_size, context)`` int64.
    """
    _require_rng(rng)
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    context = require_int("context", context, low=2, high=MAX_CONTEXT)
    require_prob("slip_share", slip_share)
    require_prob("recheck_share", recheck_share)
    require_prob("answer_only_share", answer_only_share)
    pairs = []
    for _ in range(batch_size):
        problem = random_problem(rng, "train")
        # The trace may use what is left of the context after BOS, the prompt and EOS.
        room = context - len(problem) - 2
        trace = make_trace(problem, rng, slip_share, recheck_share, answer_only_share, room)
        pairs.append((problem, trace))
    return batch_of(pairs, context)


# ---------------------------------------------------------------------------------------------
# Grading
# ---------------------------------------------------------------------------------------------


def grade(problem: str, completion: str) -> float:
    """1.0 if the completion's final answer is right, else 0.0: the book's accuracy reward.

    The answer is read as ``answer_of`` reads the right one, by ``reasoning.extract_answer``:
    the number after the last ``ANSWER_MARKER`` (``####``), or failing that the last number.
    """
    predicted = extract_answer(require_str("completion", completion))
    return 1.0 if predicted == answer_of(problem) else 0.0


def format_reward(completion: str) -> float:
    """1.0 if the completion is a well-formed chain (``a+b=c;...;####N``), else 0.0."""
    require_str("completion", completion)
    return 1.0 if _CHAIN.fullmatch(completion) else 0.0


def thinking_mode(completion: str) -> str:
    """'answer_only' (``####N``, no thinking), 'chain' (well-formed steps), or 'malformed'."""
    require_str("completion", completion)
    if format_reward(completion) == 1.0:
        return "chain"
    marker = len(ANSWER_MARKER)
    if completion.startswith(ANSWER_MARKER) and completion[marker:].lstrip("-").isdigit():
        return "answer_only"
    return "malformed"


def recheck_count(completion: str) -> int:
    """Number of steps that repeat the step just before them (the re-checks)."""
    steps = require_str("completion", completion).split(";")
    return sum(a == b for a, b in zip(steps, steps[1:], strict=False))


def thinking_ledger(completion: str) -> tuple[int, int]:
    """(thinking tokens, answer tokens) of a chain: characters before / after the ``####``."""
    require_str("completion", completion)
    head, marker, tail = completion.partition(ANSWER_MARKER)
    if not marker:
        return len(completion), 0
    return len(head), len(tail)


_STEP = re.compile(r"(-?[0-9]+)([+-])([0-9])=(-?[0-9]+)")


def first_slip(problem: str, chain: str) -> int | None:
    """Index of the first step of ``chain`` that is not the right next step, or None.

    Step i is right when it reads ``a op b = a op b`` with ``op b`` the problem's i-th
    operation and ``a`` the previous step's result (the first operand for step 0). A chain
    that is right at every step but stops early, runs on, or ends in a different ``####``
    value is wrong at the step after its last right one. None means the chain is
    exactly ``solve_chain(problem)``.
    """
    _check_problem(problem)
    require_str("chain", chain)
    if chain == solve_chain(problem):
        return None
    value = int(problem[0])
    parts = chain.split(";")
    for i in range(len(problem) // 2):
        match = _STEP.fullmatch(parts[i]) if i < len(parts) else None
        op, operand = problem[2 * i + 1], int(problem[2 * i + 2])
        if (
            match is None
            or int(match.group(1)) != value
            or match.group(2) != op
            or int(match.group(3)) != operand
        ):
            return i
        right = value + operand if op == "+" else value - operand
        if int(match.group(4)) != right:
            return i
        value = right
    return len(problem) // 2  # every step right; the ending (####, length) is not


# ---------------------------------------------------------------------------------------------
# Several routes to one answer (the multi-path task of chapter 2's second reasoner)
# ---------------------------------------------------------------------------------------------
#
# The single-path format above stays exactly as it is. A *route chain* opens with its route's
# token and a ";" and then follows that route's steps, each written "a op b=c" as before:
#
#   left   1;7+5=12;12-3=9;9-6=3;3+7=10;####10     left to right (the chain above)
#   signs  2;7+5=12;12+7=19;3+6=9;19-9=10;####10   positives summed, negatives summed, combined
#   pairs  3;5-3=2;6-7=-1;7+2=9;9+1=10;####10      pairs from the right first, then combined
#
# Every route of an n-operand problem has n - 1 steps and ends on the same ####-answer, so the
# same verifier (``grade``) grades them all. What differs is *which* steps are hard: the left
# route carries a growing, often negative running value through every step; the signs route
# only adds non-negative numbers until one final subtraction of two multi-digit numbers; the
# pairs route starts with digit-by-digit steps and leaves multi-digit operands to the end.

#: The routes, in the order their tokens are numbered.
ROUTES = ("left", "signs", "pairs")
#: The character a route chain opens with (one token of ``VOCAB``; no new vocabulary, so a
#: multi-path model has the same parameter count as the single-path one).
ROUTE_TOKENS = {"left": "1", "signs": "2", "pairs": "3"}
_ROUTE_OF_TOKEN = {token: route for route, token in ROUTE_TOKENS.items()}

# A step reads two operands, each a literal digit ("d", value) or an earlier step's result
# ("s", index), and combines them with "+" or "-".
_Ref = tuple[str, int]
_Spec = tuple[_Ref, str, _Ref]


def _terms(problem: str) -> list[tuple[str, int]]:
    """The signed terms of a problem: ``"7+5-3"`` -> ``[("+", 7), ("+", 5), ("-", 3)]``."""
    return [("+", int(problem[0]))] + [
        (problem[i], int(problem[i + 1])) for i in range(1, len(problem), 2)
    ]


def _flip(op: str) -> str:
    return "-" if op == "+" else "+"


def _route_program(problem: str, route: str) -> list[_Spec]:
    """The steps of ``route`` for ``problem``, as operand references (no values yet)."""
    terms = _terms(problem)
    steps: list[_Spec] = []

    def add(left: _Ref, op: str, right: _Ref) -> _Ref:
        steps.append((left, op, right))
        return ("s", len(steps) - 1)

    if route == "left":
        acc: _Ref = ("d", terms[0][1])
        for op, digit in terms[1:]:
            acc = add(acc, op, ("d", digit))
    elif route == "signs":
        pos = [d for op, d in terms if op == "+"]
        neg = [d for op, d in terms if op == "-"]
        pos_ref: _Ref = ("d", pos[0])
        for digit in pos[1:]:
            pos_ref = add(pos_ref, "+", ("d", digit))
        if neg:
            neg_ref: _Ref = ("d", neg[0])
            for digit in neg[1:]:
                neg_ref = add(neg_ref, "+", ("d", digit))
            add(pos_ref, "-", neg_ref)
    else:  # pairs: from the right, so an odd problem leaves its first digit on its own
        start = len(terms) % 2
        pair_refs = []
        for i in range(start, len(terms), 2):
            (sign_a, a), (sign_b, b) = terms[i], terms[i + 1]
            # A pair led by "-" is subtracted whole: -a + b = -(a - b), so its inner op flips.
            inner = sign_b if sign_a == "+" else _flip(sign_b)
            pair_refs.append((sign_a, add(("d", a), inner, ("d", b))))
        acc = ("d", terms[0][1]) if start else pair_refs.pop(0)[1]
        for sign, ref in pair_refs:
            acc = add(acc, sign, ref)
    return steps


def write_route_chain(
    problem: str, route: str, slip_step: int | None = None, slip_delta: int = 0
) -> str:
    """The chain of ``problem`` along ``route``, with step ``slip_step`` off by ``slip_delta``.

    The chain opens with ``ROUTE_TOKENS[route]`` and ``;``; a slip is carried into every later
    step that reads the slipped result, as in ``write_chain``. A step whose right operand is
    negative is written with the sign folded in (``-5+-7`` is written ``-5-7``). Along
    ``"left"`` the steps are exactly ``write_chain``'s:
    ``write_route_chain(p, "left") == "1;" + write_chain(p)``.
    """
    _check_problem(problem)
    route = require_choice("route", route, ROUTES)
    program = _route_program(problem, route)
    if slip_step is not None:
        slip_step = require_int("slip_step", slip_step, low=0)
        if slip_step >= len(program):
            raise ValueError(f"slip_step must be < {len(program)} for {problem!r}, got {slip_step}")
    slip_delta = require_int("slip_delta", slip_delta, low=-1000, high=1000)
    return _write_program(route, program, slip_step, slip_delta)


def _route_chain(
    problem: str, route: str, slip_step: int | None = None, slip_delta: int = 0
) -> str:
    """``write_route_chain`` for callers in this module that have checked their arguments."""
    return _write_program(route, _route_program(problem, route), slip_step, slip_delta)


def _write_program(route: str, program: list[_Spec], slip_step: int | None, slip_delta: int) -> str:
    """The chain text of ``route``'s ``program``, the slip (if any) carried forward."""
    results: list[int] = []
    lines = [ROUTE_TOKENS[route]]

    def value(ref: _Ref) -> int:
        kind, x = ref
        return x if kind == "d" else results[x]

    for step, (left, op, right) in enumerate(program):
        a, b = value(left), value(right)
        result = a + b if op == "+" else a - b
        if step == slip_step:
            result += slip_delta
        shown_op, shown_b = (op, b) if b >= 0 else (_flip(op), -b)
        lines.append(f"{a}{shown_op}{shown_b}={result}")
        results.append(result)
    lines.append(f"{ANSWER_MARKER}{results[-1]}")
    return ";".join(lines)


def route_of(chain: str) -> str | None:
    """The route a chain announces (its first token), or None when it announces none."""
    return _route_of(require_str("chain", chain))


def _route_of(chain: str) -> str | None:
    if len(chain) >= 2 and chain[1] == ";":
        return _ROUTE_OF_TOKEN.get(chain[0])
    return None


def require_routes(name: str, routes: object) -> list[str]:
    """A non-empty sequence of ``ROUTES`` as a list (repeats allowed: they weight the draw)."""
    require_arg_name("name", name)
    routes = require_sequence(name, routes, min_len=1)
    for route in routes:
        require_choice(name, route, ROUTES)
    return routes


def make_route_trace(
    problem: str, rng: random.Random, slip_share: float, routes: Sequence[str] = ROUTES
) -> str:
    """A multi-path training trace: a route uniform over ``routes``, then ``make_trace``'s slip.

    Draws: one ``rng.choice`` for the route, one ``rng.random()``, and ``rng.randrange`` and
    ``rng.choice`` when slipping (the slip's step uniform over the route's steps, its size
    uniform on {-2, -1, +1, +2}, as in the single-path traces).
    """
    _check_problem(problem)
    _require_rng(rng)
    slip_share = require_prob("slip_share", slip_share)
    return _route_trace(problem, rng, slip_share, require_routes("routes", routes))


def _route_trace(problem: str, rng: random.Random, slip_share: float, routes: list[str]) -> str:
    route = rng.choice(routes)
    if rng.random() < slip_share:
        # Every route of an n-operand problem has n - 1 = len(problem) // 2 steps.
        step = rng.randrange(len(problem) // 2)
        return _route_chain(problem, route, step, rng.choice((-2, -1, 1, 2)))
    return _route_chain(problem, route)


def make_route_batch(
    rng: random.Random,
    batch_size: int,
    slip_share: float,
    context: int = 64,
    routes: Sequence[str] = ROUTES,
) -> tuple[Tensor, Tensor]:
    """``make_batch`` for the multi-path task: fresh train-split problems, each with a
    ``make_route_trace`` trace. The prompt is the bare problem: no route is given."""
    _require_rng(rng)
    batch_size = require_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    context = require_int("context", context, low=2, high=MAX_CONTEXT)
    slip_share = require_prob("slip_share", slip_share)
    # Checked (and materialised) once here, not once per row: an iterator of routes would
    # otherwise be used up by the first row.
    routes = require_routes("routes", routes)
    pairs = []
    for _ in range(batch_size):
        problem = random_problem(rng, "train")
        pairs.append((problem, _route_trace(problem, rng, slip_share, routes)))
    return batch_of(pairs, context)


def first_route_slip(problem: str, chain: str) -> int | None:
    """Index of the first step of ``chain`` that differs from its announced route's right chain.

    None when the chain is exactly that route's correct chain. A chain that announces no route
    is wrong at step 0; one that is right at every step but ends differently is wrong at the
    step after its last (``len(problem) // 2``).
    """
    _check_problem(problem)
    require_str("chain", chain)
    route = _route_of(chain)
    if route is None:
        return 0
    right = _route_chain(problem, route)
    if chain == right:
        return None
    got, want = chain.split(";")[1:], right.split(";")[1:-1]
    for i, step in enumerate(want):
        if i >= len(got) or got[i] != step:
            return i
    return len(want)
