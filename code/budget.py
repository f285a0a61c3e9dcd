"""Controlling thinking: budget forcing on the tiny reasoner, and the thinking-token ledger.

s1's budget forcing [Muennighoff et al. 2025] steers *how long* a model thinks without retraining:

- **cut**: once the chain has used its budget of thinking tokens, force the answer marker
  (here `####`) so the model must answer with what it has worked out so far;
- **extend**: forbid the marker until the budget is spent, so the model keeps writing steps.

Both are a logits hook on sampling (`tiny_gpt.sample(..., logits_hook=...)`): a forbidden token
gets log-probability -inf, a forced one is the only token left. The chain before `####` is the
thinking; the digits after it are the answer.
"""

from __future__ import annotations

import torch
from torch import Tensor

from arithmetic_task import (
    ANSWER_MARKER,
    VOCAB,
    grade,
    prompt_of,
    require_problems,
    thinking_ledger,
)
from checks import (
    require_choice,
    require_float,
    require_instance,
    require_int,
    require_seed,
    require_sequence,
    require_tensor,
)
from tiny_gpt import TinyGPT, sample

MODES = ("cut", "extend")
_HASH = VOCAB.index("#")


def budget_hook(budget: int, mode: str = "cut"):
    """A logits hook enforcing a thinking budget of `budget` generated tokens.

    `mode="cut"`: a row that has not started its answer marker by step `budget` is forced to
    write `####` now. `mode="extend"`: before step `budget`, `#` is forbidden (keep thinking);
    from then on the row is cut as above.
    """
    budget = require_int("budget", budget, low=0)
    mode = require_choice("mode", mode, MODES)

    def hook(t: int, logp: Tensor, tokens: Tensor) -> Tensor:
        # Checked here, as any public function's arguments: a caller other than tiny_gpt.sample
        # passing a list got AttributeError ('bool' object has no attribute 'sum').
        t = require_int("t", t, low=0)
        logp = require_tensor("logp", logp, ndim=2, dtype="float", finite=False)
        tokens = require_tensor("tokens", tokens, ndim=2, dtype="int", nonempty=False)
        if tokens.shape[0] != logp.shape[0]:
            raise ValueError(f"tokens must have one row per logp row ({logp.shape[0]}), "
                             f"got {tokens.shape[0]}")
        hashes = (tokens == _HASH).sum(dim=1)  # marker characters written so far, per row
        out = logp.clone()
        if t < budget:
            if mode == "extend":
                out[hashes == 0, _HASH] = float("-inf")
            return out
        # Past the budget: a row inside (or not yet in) its marker must finish writing it.
        force = hashes < len(ANSWER_MARKER)
        out[force] = float("-inf")
        out[force, _HASH] = 0.0
        return out

    return hook


@torch.no_grad()
def accuracy_vs_budget(
    model: TinyGPT,
    problems: list[str],
    budgets: list[int],
    mode: str = "cut",
    temperature: float = 0.0,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Accuracy and the token ledger at each thinking budget (greedy decoding by default).

    Returns records {"budget", "mode", "accuracy", "thinking_tokens", "answer_tokens"}, the
    token counts averaged over problems.
    """
    require_instance("model", model, TinyGPT)
    problems = require_problems("problems", problems, min_len=1)
    budgets = [require_int("budgets", b, low=0) for b in require_sequence("budgets", budgets)]
    mode = require_choice("mode", mode, MODES)
    temperature = require_float("temperature", temperature, low=0.0)
    seed = require_seed("seed", seed)
    prompts = [prompt_of(p) for p in problems]
    rows = []
    for budget in budgets:
        generator = torch.Generator().manual_seed(seed) if temperature > 0 else None
        out = sample(
            model, prompts, temperature, generator=generator, logits_hook=budget_hook(budget, mode)
        )
        ledgers = [thinking_ledger(c) for c in out.completions]
        rows.append(
            {
                "budget": budget,
                "mode": mode,
                "accuracy": sum(grade(p, c) for p, c in zip(problems, out.completions, strict=True))
                / len(problems),
                "thinking_tokens": sum(t for t, _ in ledgers) / len(ledgers),
                "answer_tokens": sum(a for _, a in ledgers) / len(ledgers),
            }
        )
    return rows
