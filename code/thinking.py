"""What thinking costs: compute per answer, and the thinking-vs-answer token ledger.

A transformer with N parameters spends about 2N floating-point operations per generated token
(one multiply and one add per weight), and about 6N per training token (forward plus a backward
pass that costs twice the forward) [Kaplan et al. 2020]. Test-time compute is the first of these
multiplied by how many tokens we let the model write before it answers.

Reasoning models write those tokens inside a template:

    <think> ...the chain of thought... </think> <answer> ...the final answer... </answer>

The user reads the answer; the bill counts both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from checks import require_float, require_int
from rewards import split_blocks  # the one parser of the <think>/<answer> template

# A crude but honest stand-in for a BPE tokenizer: words, numbers and single punctuation marks.
# Real tokenizers split differently (about 3/4 of a word per token in English), but the ledger's
# point, that thinking tokens dwarf answer tokens, does not depend on the exact split.
_TOKEN = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")


def count_tokens(text: str) -> int:
    """Number of tokens in `text` under the book's simple word/number/punctuation tokenizer."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return sum(1 for _ in _TOKEN.finditer(text))


def training_flops(params: float, tokens: float) -> float:
    """Approximate training compute: 6 * N * D."""
    params, tokens = _positive("params", params), _positive("tokens", tokens)
    return 6.0 * params * tokens


def generation_flops(params: float, tokens: float) -> float:
    """Approximate inference compute to generate `tokens` tokens: 2 * N per token."""
    params, tokens = _positive("params", params), _positive("tokens", tokens)
    return 2.0 * params * tokens


def _positive(name: str, value: object) -> float:
    # Capped at 1e30 so the product (6 N D) stays a finite float for any pair of inputs.
    return require_float(name, value, low=0.0, high=1e30, low_open=True)


@dataclass(frozen=True)
class TokenLedger:
    """How a completion's tokens split between thinking and answering, and what they cost."""

    thinking_tokens: int
    answer_tokens: int
    price_per_million: float

    def __post_init__(self) -> None:
        require_int("thinking_tokens", self.thinking_tokens, low=0)
        require_int("answer_tokens", self.answer_tokens, low=0)
        require_float("price_per_million", self.price_per_million, low=0.0, high=1e12)

    @property
    def total_tokens(self) -> int:
        return self.thinking_tokens + self.answer_tokens

    @property
    def thinking_share(self) -> float:
        return self.thinking_tokens / self.total_tokens if self.total_tokens else 0.0

    @property
    def cost(self) -> float:
        """Output cost: every output token is billed, hidden thinking included."""
        return self.total_tokens * self.price_per_million / 1e6


def token_ledger(completion: str, price_per_million: float = 10.0) -> TokenLedger:
    """Count thinking and answer tokens of a templated completion and price them.

    A completion that does not follow the template is all answer (a non-reasoning model).
    `price_per_million` is the output price in dollars per million tokens.
    """
    price_per_million = require_float("price_per_million", price_per_million, low=0.0, high=1e12)
    parts = split_blocks(completion)
    if parts is None:
        return TokenLedger(0, count_tokens(completion), price_per_million)
    think, answer = parts
    return TokenLedger(count_tokens(think), count_tokens(answer), price_per_million)
