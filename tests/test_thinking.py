"""thinking.py: compute per answer and the thinking-vs-answer token ledger."""

from __future__ import annotations

import pytest

from thinking import TokenLedger, count_tokens, generation_flops, token_ledger, training_flops


def test_flops_rules_of_thumb():
    assert training_flops(7e9, 2e12) == pytest.approx(6 * 7e9 * 2e12)
    assert generation_flops(7e9, 3000) == pytest.approx(2 * 7e9 * 3000)
    assert generation_flops(7e9, 3000) / generation_flops(7e9, 5) == pytest.approx(600)


@pytest.mark.parametrize("bad", [0, -1.0])
def test_flops_reject_non_positive(bad):
    with pytest.raises(ValueError, match="params"):
        training_flops(bad, 10)
    with pytest.raises(ValueError, match="tokens"):
        generation_flops(10, bad)


def test_flops_reject_non_numbers():
    with pytest.raises(TypeError, match="params"):
        generation_flops("7e9", 10)
    with pytest.raises(TypeError, match="tokens"):
        generation_flops(7e9, True)


def test_count_tokens_words_numbers_punctuation():
    assert count_tokens("7+5=12;12-3=9") == 11
    assert count_tokens("The answer is 42.") == 5
    assert count_tokens("") == 0
    with pytest.raises(TypeError, match="text"):
        count_tokens(None)


def test_ledger_splits_thinking_from_answer():
    ledger = token_ledger("<think>a b c d</think><answer>42</answer>", price_per_million=10.0)
    assert (ledger.thinking_tokens, ledger.answer_tokens, ledger.total_tokens) == (4, 1, 5)
    assert ledger.thinking_share == pytest.approx(0.8)
    assert ledger.cost == pytest.approx(5 * 10.0 / 1e6)


def test_malformed_completion_is_all_answer():
    ledger = token_ledger("just 42", price_per_million=1.0)
    assert ledger.thinking_tokens == 0 and ledger.answer_tokens == 2
    assert TokenLedger(0, 0, 1.0).thinking_share == 0.0


def test_ledger_rejects_negative_price():
    with pytest.raises(ValueError, match="price_per_million"):
        token_ledger("<think>x</think><answer>1</answer>", price_per_million=-1)
