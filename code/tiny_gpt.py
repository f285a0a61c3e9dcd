"""A character-level GPT small enough to train on a laptop: the book's real reasoner.

The architecture is nanoGPT's, written out in full (about 0.8M parameters in the default
configuration: 4 layers, width 128, 4 heads, learned positions, context 64):

    h_0     = E[x_t] + P[t]                                   token + learned position embedding
    h_l'    = h_{l-1} + Attn(LN(h_{l-1}))                      causal multi-head self-attention
    h_l     = h_l' + W_2 GELU(W_1 LN(h_l'))                    MLP, 4x wide, exact (erf) GELU
    logits  = LN(h_L) E^T                                      the output head tied to E

with Attn(X) = W_o concat_h softmax(Q_h K_h^T / sqrt(d_h) + causal mask) V_h.

On top of the model:

* ``sample``: batched decoding with a key/value cache, temperature and top-p (nucleus)
  sampling, every random draw from a caller's ``torch.Generator``. It returns the sampled
  tokens with the model's per-token log-probabilities and a mask, the shapes the GRPO-family
  losses in ``grpo.py`` take; ``completion_logprobs`` recomputes those log-probabilities
  *with* gradients, for a policy-gradient step.
* ``train``: AdamW with linear warm-up and cosine decay, on batches from ``arithmetic_task``.
* ``save_checkpoint`` / ``load_checkpoint``: one format for Python and the browser. A ``.bin``
  of little-endian fp16 tensors, concatenated, and a ``.json`` with the config, vocabulary,
  tensor index (name, shape, byte offset), the SHA-256 of the ``.bin`` and recorded metrics.
  The loader checks everything before it builds a model, so a bad file is refused whole.

Prompts and completions are strings over ``arithmetic_task.VOCAB``; answers are read with
``reasoning.extract_answer`` and graded with ``arithmetic_task.grade``.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from arithmetic_task import (
    BOS,
    EOS,
    PAD,
    PROMPT_CHARS,
    VOCAB,
    encode,
    grade,
    prompt_of,
    require_problems,
)
from checks import (
    require_callable,
    require_finite_where,
    require_float,
    require_instance,
    require_int,
    require_path,
    require_same_shape,
    require_seed,
    require_sequence,
    require_sequence_of_sequences,
    require_str,
    require_tensor,
)

__all__ = [
    "CHECKPOINT_FORMAT",
    "KVCache",
    "Samples",
    "TinyGPT",
    "TinyGPTConfig",
    "accuracy",
    "completion_logprobs",
    "count_parameters",
    "encode_prompts",
    "lm_loss",
    "load_checkpoint",
    "sample",
    "sample_chains",
    "save_checkpoint",
    "tensor_shapes",
    "train",
]

CHECKPOINT_FORMAT = "tiny-gpt-fp16-v1"
_PAD_ID, _BOS_ID, _EOS_ID = VOCAB.index(PAD), VOCAB.index(BOS), VOCAB.index(EOS)


# ---------------------------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------------------------


# Size caps: a model, cache or batch past these would need gigabytes (the book's reasoner has
# 0.8M parameters, a context of 64 and batches of a few thousand rows).
MAX_PARAMS = 100_000_000  # ~12 * n_layer * n_embd**2 + embeddings, in float32: 400 MB
MAX_CONTEXT = 4096
MAX_CACHE = 100_000_000  # elements of one KV cache (batch * layers * context * n_embd * 2)
MAX_ROWS = 1_000_000  # prompts or chains in one call
MAX_STEPS = 10_000_000


def _require_model(model: object) -> TinyGPT:
    return require_instance("model", model, TinyGPT)


def _require_generator(generator: object, temperature: float) -> torch.Generator | None:
    if generator is None:
        if temperature > 0:
            raise ValueError("generator is required when temperature > 0 (pass a torch.Generator)")
        return None
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return generator


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TinyGPTConfig:
    """Shape of a ``TinyGPT``; the defaults are the book's shipped reasoner (803,840 params)."""

    vocab_size: int = len(VOCAB)
    context: int = 64
    n_layer: int = 4
    n_embd: int = 128
    n_head: int = 4

    def __post_init__(self) -> None:
        for f in fields(self):
            # each at most MAX_PARAMS: a 10**400 field cannot reach the float format below
            require_int(f.name, getattr(self, f.name), low=1, high=MAX_PARAMS)
        require_int("context", self.context, high=MAX_CONTEXT)
        params = 12 * self.n_layer * self.n_embd**2 + (self.vocab_size + self.context) * self.n_embd
        if params > MAX_PARAMS:
            raise ValueError(
                f"n_layer={self.n_layer}, n_embd={self.n_embd} make about {params:.2g} "
                f"parameters, more than {MAX_PARAMS:.0e}"
            )
        if self.n_embd % self.n_head:
            raise ValueError(
                f"n_embd must be divisible by n_head, got n_embd={self.n_embd}, "
                f"n_head={self.n_head}"
            )

    def to_dict(self) -> dict[str, int]:
        """The config as plain JSON-able ints."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> TinyGPTConfig:
        """Rebuild a config, refusing missing or unknown keys."""
        if not isinstance(data, dict):
            raise TypeError(f"config must be a dict, got {type(data).__name__}")
        expected = {f.name for f in fields(cls)}
        if set(data) != expected:
            raise ValueError(
                f"config must have exactly the keys {sorted(expected)}, got {sorted(data)}"
            )
        return cls(**data)


class KVCache:
    """Keys and values of every layer for positions [0, length), preallocated to the context.

    ``keys[l]`` and ``values[l]`` have shape (batch, heads, context, head_dim); a forward pass
    with the cache writes its new positions and attends over everything cached so far.
    """

    def __init__(self, config: TinyGPTConfig, batch_size: int, dtype: torch.dtype) -> None:
        if not isinstance(config, TinyGPTConfig):
            raise TypeError(f"config must be a TinyGPTConfig, got {type(config).__name__}")
        batch_size = require_int("batch_size", batch_size, low=1)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating torch.dtype, got {dtype!r}")
        if 2 * batch_size * config.n_layer * config.context * config.n_embd > MAX_CACHE:
            raise ValueError(f"batch_size={batch_size} makes a cache of more than {MAX_CACHE:.0e}")
        head_dim = config.n_embd // config.n_head
        shape = (batch_size, config.n_head, config.context, head_dim)
        self.keys = [torch.zeros(shape, dtype=dtype) for _ in range(config.n_layer)]
        self.values = [torch.zeros(shape, dtype=dtype) for _ in range(config.n_layer)]
        self.length = 0
        self.context = config.context


class _Attention(nn.Module):
    def __init__(self, config: TinyGPTConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.scale = 1.0 / math.sqrt(config.n_embd // config.n_head)
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.proj = nn.Linear(config.n_embd, config.n_embd)

    def forward(self, x: Tensor, cache: KVCache | None, layer: int) -> Tensor:
        b, t, c = x.shape  # batch, time (new tokens), channels (n_embd)
        q, k, v = self.qkv(x).split(c, dim=2)  # each (b, t, c)
        # split the channels into heads: (b, t, c) -> (b, n_head, t, head_dim)
        q, k, v = (z.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for z in (q, k, v))
        if cache is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (b, n_head, t, hd)
        else:
            start = cache.length
            cache.keys[layer][:, :, start : start + t] = k
            cache.values[layer][:, :, start : start + t] = v
            k = cache.keys[layer][:, :, : start + t]  # (b, n_head, start + t, hd)
            v = cache.values[layer][:, :, : start + t]
            if t == 1:  # one new query sees every cached key (two small matmuls: faster on
                # CPU than the fused kernel for a single query); weights (b, nh, 1, start + 1)
                weights = torch.softmax(q @ k.transpose(-1, -2) * self.scale, dim=-1)
                y = weights @ v  # (b, n_head, 1, hd)
            else:  # query i (at position start + i) sees keys 0..start + i
                allowed = torch.ones(t, start + t, dtype=torch.bool).tril(diagonal=start)
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # (b, nh, t, hd)
        # heads back side by side: (b, n_head, t, hd) -> (b, t, c), then the output projection
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class _Block(nn.Module):
    def __init__(self, config: TinyGPTConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(config.n_embd)
        self.attn = _Attention(config)
        self.ln2 = nn.LayerNorm(config.n_embd)
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.fc_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x: Tensor, cache: KVCache | None, layer: int) -> Tensor:
        x = x + self.attn(self.ln1(x), cache, layer)  # (b, t, c): attention, residual
        return x + self.fc_proj(F.gelu(self.fc(self.ln2(x))))  # (b, t, 4c) -> (b, t, c)


class TinyGPT(nn.Module):
    """The decoder-only transformer above. ``forward(idx)`` returns next-token logits.

    Weights are initialised as in GPT-2 (normal, std 0.02; residual projections scaled by
    1 / sqrt(2 n_layer)) from a ``torch.Generator`` seeded with ``seed``.
    """

    def __init__(self, config: TinyGPTConfig | None = None, seed: int = 0) -> None:
        super().__init__()
        config = TinyGPTConfig() if config is None else config
        if not isinstance(config, TinyGPTConfig):
            raise TypeError(f"config must be a TinyGPTConfig, got {type(config).__name__}")
        self.config = config
        seed = require_seed("seed", seed)
        # torch's layers draw default weights from the global RNG as they are built; fork it so
        # building a model leaves it untouched (every weight is then drawn from `seed`).
        with torch.random.fork_rng(devices=[]):
            self.wte = nn.Embedding(config.vocab_size, config.n_embd)
            self.wpe = nn.Embedding(config.context, config.n_embd)
            self.blocks = nn.ModuleList(_Block(config) for _ in range(config.n_layer))
            self.ln_f = nn.LayerNorm(config.n_embd)
        self._init_weights(seed)

    def _init_weights(self, seed: int) -> None:
        g = torch.Generator().manual_seed(seed)
        residual_std = 0.02 / math.sqrt(2 * self.config.n_layer)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif ".ln" in name or name.startswith("ln_f"):
                    p.fill_(1.0)
                else:
                    std = residual_std if name.endswith("proj.weight") else 0.02
                    p.normal_(0.0, std, generator=g)

    def forward(self, idx: Tensor, cache: KVCache | None = None) -> Tensor:
        """Logits (batch, time, vocab) for token ids ``idx`` (batch, time).

        With a ``cache`` the tokens sit at positions ``cache.length + 0..time-1``, attend to
        the cached keys as well as to each other, and are appended to the cache.
        """
        if not isinstance(idx, Tensor) or idx.dtype != torch.long or idx.dim() != 2:
            raise TypeError("idx must be a 2-D torch.long tensor of token ids")
        b, t = idx.shape
        start = 0 if cache is None else cache.length
        if start + t > self.config.context:
            raise ValueError(
                f"idx: {start + t} positions exceed the context of {self.config.context}"
            )
        if t == 0:
            raise ValueError("idx must hold at least one token")
        low, high = int(idx.min()), int(idx.max())
        if low < 0 or high >= self.config.vocab_size:  # else the embedding fails inside torch
            raise ValueError(
                f"idx must hold token ids in [0, {self.config.vocab_size}), got {low}..{high}"
            )
        pos = torch.arange(start, start + t)
        x = self.wte(idx) + self.wpe(pos)
        for layer, block in enumerate(self.blocks):
            x = block(x, cache, layer)
        if cache is not None:
            cache.length += t
        return self.ln_f(x) @ self.wte.weight.T  # the tied output head


def count_parameters(model: nn.Module) -> int:
    """Number of distinct trainable parameters (a tied weight counts once)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters())


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


def lm_loss(model: TinyGPT, x: Tensor, y: Tensor) -> Tensor:
    """Mean next-token cross-entropy over targets that are not -100 (prompt and padding)."""
    model = _require_model(model)
    x = require_tensor("x", x, ndim=2, dtype="int")
    y = require_tensor("y", y, ndim=2, dtype="int")
    require_same_shape("y", y, "x", x)
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=-100)


def train(
    model: TinyGPT,
    batches: Callable[[], tuple[Tensor, Tensor]],
    steps: int,
    lr: float = 3e-3,
    min_lr: float = 1e-4,
    warmup: int = 30,
    weight_decay: float = 0.1,
    grad_clip: float = 1.0,
    log_every: int = 0,
) -> list[float]:
    """Train ``model`` for ``steps`` AdamW steps on ``batches()``; return the loss of each step.

    Learning rate: linear warm-up to ``lr`` over ``warmup`` steps, then cosine decay to
    ``min_lr``. Weight decay applies to the matrices (the embeddings included), not to biases
    or LayerNorm gains. The data come from ``batches`` (seed it), so a run is reproducible on
    the same machine with the same thread count.
    """
    _require_model(model)
    require_callable("batches", batches)
    steps = require_int("steps", steps, low=1, high=MAX_STEPS)
    warmup = require_int("warmup", warmup, low=0, high=MAX_STEPS)
    lr = require_float("lr", lr, low=0.0, low_open=True)
    min_lr = require_float("min_lr", min_lr, low=0.0)
    # A NaN here would not fail: AdamW and the clip would quietly make every weight NaN.
    weight_decay = require_float("weight_decay", weight_decay, low=0.0)
    grad_clip = require_float("grad_clip", grad_clip, low=0.0, low_open=True)
    log_every = require_int("log_every", log_every, low=0)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0}],
        lr=lr,
        betas=(0.9, 0.99),
    )

    def lr_at(step: int) -> float:
        if step < warmup:
            return lr * (step + 1) / warmup
        progress = (step - warmup) / max(1, steps - warmup)
        return min_lr + 0.5 * (lr - min_lr) * (1 + math.cos(math.pi * progress))

    model.train()
    losses = []
    start = time.perf_counter()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step)
        x, y = batches()
        # Positions past the longest row hold only padding: drop them (the loss ignores them).
        width = int((y != -100).any(dim=0).nonzero().max()) + 1 if bool((y != -100).any()) else 1
        loss = lm_loss(model, x[:, :width], y[:, :width])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        losses.append(float(loss.detach()))
        if log_every and (step % log_every == 0 or step == steps - 1):
            elapsed = time.perf_counter() - start
            print(f"step {step:>5}  loss {losses[-1]:.4f}  lr {lr_at(step):.2e}  {elapsed:6.1f}s")
    model.eval()
    return losses


# ---------------------------------------------------------------------------------------------
# Sampling
# ---------------------------------------------------------------------------------------------


def encode_prompts(prompts: Sequence[str], context: int) -> list[list[int]]:
    """``[BOS] + encode(prompt)`` for each prompt, refusing prompts the model cannot continue.

    A prompt must be a non-empty string of the task's characters (digits, ``+-=;#``), and
    leave room in the context for at least one generated token.
    """
    prompts = require_sequence("prompts", prompts, min_len=1, max_len=MAX_ROWS)
    context = require_int("context", context, low=2, high=MAX_CONTEXT)
    out = []
    for i, prompt in enumerate(prompts):
        if not isinstance(prompt, str):
            raise TypeError(f"prompts[{i}] must be a str, got {type(prompt).__name__}")
        if not prompt:
            raise ValueError(f"prompts[{i}] is empty")
        bad = sorted({ch for ch in prompt if ch not in PROMPT_CHARS})
        if bad:
            raise ValueError(
                f"prompts[{i}] = {prompt!r} has characters outside the vocabulary: {bad} "
                f"(allowed: {''.join(sorted(PROMPT_CHARS))})"
            )
        if len(prompt) + 1 >= context:
            raise ValueError(
                f"prompts[{i}] is {len(prompt)} characters; with the start token it must be "
                f"shorter than the context of {context}"
            )
        out.append([_BOS_ID, *encode(prompt)])
    return out


# A logits hook sees the step t (tokens generated so far), the (batch, vocab) log-probs and the
# (batch, t) tokens drawn so far, and returns the log-probs to draw from (-inf forbids a token).
LogitsHook = Callable[[int, Tensor, Tensor], Tensor]


@dataclass
class Samples:
    """Sampled completions of a batch of prompts, row ``i`` for ``prompts[i]``.

    ``tokens`` (batch, length): the generated ids, ending in EOS when finished, PAD after.
    ``logprobs`` (batch, length): log pi(token | prefix) under the model itself, i.e. the
    temperature-1, unfiltered softmax, whatever temperature or top-p drew the token (the
    quantity a policy-gradient loss needs); 0 where ``mask`` is False.
    ``mask`` (batch, length): True on generated tokens, the EOS included.
    ``finished`` (batch,): True if the row wrote EOS before running out of context.
    ``completions``: the generated text of each row, without the EOS.
    """

    prompts: list[str]
    completions: list[str]
    tokens: Tensor
    logprobs: Tensor
    mask: Tensor
    finished: Tensor

    def __post_init__(self) -> None:
        rows = len(require_sequence("prompts", self.prompts))
        if len(require_sequence("completions", self.completions)) != rows:
            raise ValueError("completions must hold one completion per prompt")
        for name in ("prompts", "completions"):
            for text in getattr(self, name):
                require_str(name, text)
        grid = require_tensor("tokens", self.tokens, ndim=2, nonempty=False)
        for name in ("logprobs", "mask"):
            require_same_shape(
                name, require_tensor(name, getattr(self, name), nonempty=False), "tokens", grid
            )
        require_tensor("finished", self.finished, ndim=1, nonempty=False)
        if grid.shape[0] != rows or self.finished.shape[0] != rows:
            raise ValueError(f"tokens and finished must have one row per prompt ({rows})")
        if rows:  # (an empty batch is built from plain zeros)
            require_tensor("tokens", grid, dtype="int")
            require_tensor("mask", self.mask, dtype="bool")
            require_tensor("logprobs", self.logprobs, dtype="float", finite=False)
            require_finite_where("logprobs", self.logprobs, self.mask)


def _output_log_probs(logits: Tensor) -> Tensor:
    """log-softmax over the tokens a completion can contain.

    PAD and BOS are input-only symbols (never a training target), so they are removed from
    the output distribution: their logits are set to -inf before the softmax. Sampling and
    ``completion_logprobs`` both go through here, so they agree on what pi(token) is.
    """
    logits = logits.float().clone()
    logits[..., [_PAD_ID, _BOS_ID]] = float("-inf")
    return torch.log_softmax(logits, dim=-1)


def _next_tokens(
    logits: Tensor, temperature: float, top_p: float, generator: torch.Generator | None
) -> Tensor:
    """Draw one token per row from softmax(logits / T), restricted to the top-p nucleus.

    ``logits`` may hold -inf (tokens that can never be drawn); they get probability 0.

    The nucleus is the smallest set of most likely tokens whose mass reaches ``top_p`` (the
    most likely token is always in it). The draw is an inverse-CDF lookup of one uniform per
    row over the tokens sorted by probability. T = 0 is greedy: the argmax, no draw.
    """
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits.double() / temperature, dim=-1)
    sorted_probs, order = probs.sort(dim=-1, descending=True, stable=True)
    if top_p < 1.0:
        mass_before = sorted_probs.cumsum(dim=-1) - sorted_probs
        sorted_probs = sorted_probs * (mass_before < top_p)
    cdf = sorted_probs.cumsum(dim=-1)
    u = torch.rand(logits.shape[0], generator=generator, dtype=torch.float64) * cdf[:, -1]
    pick = (cdf <= u[:, None]).sum(dim=-1).clamp(max=logits.shape[-1] - 1)
    return order.gather(1, pick[:, None]).squeeze(1)


def _steered(logits_hook: LogitsHook, t: int, logp: Tensor, tokens: Tensor) -> Tensor:
    """The caller's hook, its answer checked: None or a narrower tensor would otherwise fail
    inside the draw (AttributeError) or, worse, silently draw from the wrong columns."""
    out = logits_hook(t, logp, tokens)
    if not isinstance(out, Tensor) or not out.is_floating_point() or out.shape != logp.shape:
        got = (f"shape {tuple(out.shape)}, {out.dtype}" if isinstance(out, Tensor)
               else type(out).__name__)
        raise TypeError(f"logits_hook must return a float tensor of its logp's shape "
                        f"{tuple(logp.shape)}, got {got}")
    return out


@torch.no_grad()
def _sample_group(
    model: TinyGPT,
    prompt_ids: list[list[int]],
    max_new: int,
    temperature: float,
    top_p: float,
    generator: torch.Generator | None,
    use_cache: bool,
    logits_hook: LogitsHook | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Decode prompts of one common length together. Returns tokens, logprobs, finished."""
    b = len(prompt_ids)
    seq = torch.tensor(prompt_ids, dtype=torch.long)
    cache = KVCache(model.config, b, model.wte.weight.dtype) if use_cache else None
    tokens = torch.full((b, max_new), _PAD_ID, dtype=torch.long)
    logprobs = torch.zeros(b, max_new)
    done = torch.zeros(b, dtype=torch.bool)
    feed = seq
    for t in range(max_new):
        logits = model(feed, cache)[:, -1] if use_cache else model(seq)[:, -1]
        logp = _output_log_probs(logits)
        # A hook steers the draw (budget forcing); the recorded log-probs stay the model's own.
        steered = logp if logits_hook is None else _steered(logits_hook, t, logp, tokens[:, :t])
        nxt = _next_tokens(steered, temperature, top_p, generator)
        nxt = torch.where(done, torch.full_like(nxt, _PAD_ID), nxt)
        lp = logp.gather(1, nxt[:, None]).squeeze(1)
        tokens[:, t] = nxt
        logprobs[:, t] = torch.where(done, torch.zeros_like(lp), lp)
        done = done | (nxt == _EOS_ID)
        if bool(done.all()):
            return tokens[:, : t + 1], logprobs[:, : t + 1], done
        seq = torch.cat([seq, nxt[:, None]], dim=1)
        feed = nxt[:, None]
    return tokens, logprobs, done


def sample(
    model: TinyGPT,
    prompts: Sequence[str],
    temperature: float = 1.0,
    top_p: float = 1.0,
    generator: torch.Generator | None = None,
    max_new_tokens: int | None = None,
    use_cache: bool = True,
    logits_hook: LogitsHook | None = None,
) -> Samples:
    """Sample one completion per prompt, all prompts decoded as a batch.

    Prompts of equal length are decoded together, shortest first; each step draws one uniform
    per row from ``generator`` (none when ``temperature == 0``, greedy decoding). A row stops
    at EOS, or when prompt and completion fill the context. ``use_cache=False`` reruns the
    whole prefix at every step instead of reading the key/value cache (same draws, same
    result, slower: the check that the cache is right). ``logits_hook`` (see ``LogitsHook``)
    may reshape the distribution each token is drawn from, e.g. to force or forbid a token
    (``budget.py``'s budget forcing); ``Samples.logprobs`` still records the model's own.
    """
    model = _require_model(model)
    if logits_hook is not None:
        require_callable("logits_hook", logits_hook)
    temperature = require_float("temperature", temperature, low=0.0)
    top_p = require_float("top_p", top_p, low=0.0, high=1.0, low_open=True)
    generator = _require_generator(generator, temperature)
    context = model.config.context
    ids = encode_prompts(prompts, context)
    if max_new_tokens is not None:
        max_new_tokens = require_int("max_new_tokens", max_new_tokens, low=1)
    if not isinstance(use_cache, bool):
        raise TypeError(f"use_cache must be a bool, got {type(use_cache).__name__}")

    b = len(ids)
    groups: dict[int, list[int]] = {}
    for row, prompt in enumerate(ids):
        groups.setdefault(len(prompt), []).append(row)
    parts = {}
    for length in sorted(groups):
        max_new = context - length
        if max_new_tokens is not None:
            max_new = min(max_new, max_new_tokens)
        rows = groups[length]
        parts[length] = _sample_group(
            model,
            [ids[r] for r in rows],
            max_new,
            temperature,
            top_p,
            generator,
            use_cache,
            logits_hook,
        )
    width = max(part[0].shape[1] for part in parts.values())
    tokens = torch.full((b, width), _PAD_ID, dtype=torch.long)
    logprobs = torch.zeros(b, width)
    finished = torch.zeros(b, dtype=torch.bool)
    for length, (tok, lp, done) in parts.items():
        rows = torch.tensor(groups[length])
        tokens[rows, : tok.shape[1]] = tok
        logprobs[rows, : lp.shape[1]] = lp
        finished[rows] = done
    # A token is generated (mask True) up to and including the first EOS; PAD fills the rest
    # (the model never writes PAD: it is an input-only symbol, see ``_output_log_probs``).
    mask = tokens != _PAD_ID
    completions = [
        "".join(VOCAB[i] for i, keep in zip(row, keep_row, strict=True) if keep and i != _EOS_ID)
        for row, keep_row in zip(tokens.tolist(), mask.tolist(), strict=True)
    ]
    return Samples(list(prompts), completions, tokens, logprobs, mask, finished)


def completion_logprobs(model: TinyGPT, samples: Samples) -> Tensor:
    """log pi(token | prefix) of each sampled token, recomputed in one pass *with* gradients.

    Teacher-forces ``[BOS] prompt completion`` for every row (right-padded; the causal mask
    keeps padding out of earlier positions) and gathers the log-softmax at each completion
    token. Returns (batch, length) with 0 where ``samples.mask`` is False; equal to
    ``samples.logprobs`` when the weights have not changed.
    """
    model = _require_model(model)
    if not isinstance(samples, Samples):
        raise TypeError(f"samples must be a Samples, got {type(samples).__name__}")
    ids = encode_prompts(samples.prompts, model.config.context)
    b, width = samples.tokens.shape
    lengths = [len(p) for p in ids]
    total = max(lengths) + width - 1
    seq = torch.full((b, total), _PAD_ID, dtype=torch.long)
    for row, prompt in enumerate(ids):
        full = prompt + samples.tokens[row, : width - 1].tolist()
        seq[row, : len(full)] = torch.tensor(full)
    logp = _output_log_probs(model(seq[:, : model.config.context]))
    pos = torch.tensor(lengths)[:, None] - 1 + torch.arange(width)[None, :]
    pos = pos.clamp(max=logp.shape[1] - 1)
    picked = logp.gather(1, pos[:, :, None].expand(-1, -1, logp.shape[-1]))
    picked = picked.gather(2, samples.tokens[:, :, None]).squeeze(2)
    return torch.where(samples.mask, picked, torch.zeros_like(picked))


def sample_chains(
    model: TinyGPT,
    problems: Sequence[str],
    n: int,
    temperature: float,
    top_p: float = 1.0,
    seed: int = 0,
    batch_size: int = 512,
) -> list[list[str]]:
    """``n`` sampled chains for every problem: ``out[i][j]`` is chain j of ``problems[i]``.

    Chains are decoded ``batch_size`` at a time (the problems in order, each repeated ``n``
    times), all draws from one ``torch.Generator`` seeded with ``seed``. With
    ``temperature == 0`` the chains are greedy and all ``n`` are the same.
    """
    _require_model(model)
    problems = require_problems("problems", problems)
    n = require_int("n", n, low=1, high=MAX_ROWS)
    if n * len(problems) > MAX_ROWS:
        raise ValueError(f"n x len(problems) must be <= {MAX_ROWS} chains")
    batch_size = require_int("batch_size", batch_size, low=1)
    temperature = require_float("temperature", temperature, low=0.0)
    generator = torch.Generator().manual_seed(require_seed("seed", seed))
    prompts = [prompt_of(p) for p in problems for _ in range(n)]
    completions: list[str] = []
    for start in range(0, len(prompts), batch_size):
        chunk = prompts[start : start + batch_size]
        completions += sample(model, chunk, temperature, top_p, generator).completions
    return [completions[i * n : (i + 1) * n] for i in range(len(problems))]


def accuracy(problems: Sequence[str], chains: Sequence[Sequence[str]]) -> float:
    """Mean reward (``arithmetic_task.grade``) over every chain of every problem.

    ``chains`` holds one *list* of chains per problem; a flat list of strings is refused (it
    would grade single characters).
    """
    problems = require_problems("problems", problems)
    chains = require_sequence_of_sequences("chains", chains)
    if len(problems) != len(chains):
        raise ValueError(
            f"chains must hold one list per problem, got {len(chains)} lists "
            f"for {len(problems)} problems"
        )
    scores = [grade(p, c) for p, cs in zip(problems, chains, strict=True) for c in cs]
    if not scores:
        raise ValueError("chains must hold at least one chain")
    return math.fsum(scores) / len(scores)


# ---------------------------------------------------------------------------------------------
# Checkpoints: fp16 .bin + .json, shared with the browser
# ---------------------------------------------------------------------------------------------


def _require_path(path: object) -> Path:
    return require_path("path", path)


def save_checkpoint(
    model: TinyGPT, path: str | Path, metrics: dict | None = None, training: dict | None = None
) -> dict:
    """Write ``path`` (.json) and its ``.bin`` beside it; return the JSON written.

    The .bin holds every tensor of ``model.state_dict()`` as little-endian fp16, in order,
    concatenated; the .json indexes them (name, shape, byte offset) and records the config,
    vocabulary, the .bin's SHA-256 and the given ``metrics`` / ``training`` dicts.
    """
    model = _require_model(model)
    path = _require_path(path)
    for name, extra in (("metrics", metrics), ("training", training)):
        if extra is not None and not isinstance(extra, dict):
            raise TypeError(f"{name} must be a dict or None, got {type(extra).__name__}")
    if path.suffix != ".json":
        raise ValueError(f"path must end in .json, got {path}")
    bin_path = path.with_suffix(".bin")
    index, chunks, offset = [], [], 0
    for name, tensor in model.state_dict().items():
        data = tensor.detach().to(torch.float16).numpy().astype("<f2").tobytes()
        index.append({"name": name, "shape": list(tensor.shape), "offset": offset})
        chunks.append(data)
        offset += len(data)
    blob = b"".join(chunks)
    meta = {
        "format": CHECKPOINT_FORMAT,
        "config": model.config.to_dict(),
        "vocab": VOCAB,
        "special": {"pad": PAD, "bos": BOS, "eos": EOS},
        "bin": bin_path.name,
        "dtype": "float16",
        "byteorder": "little",
        "bytes": len(blob),
        "sha256": hashlib.sha256(blob).hexdigest(),
        "tensors": index,
        "metrics": metrics or {},
        "training": training or {},
    }
    bin_path.write_bytes(blob)
    path.write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def tensor_shapes(config: TinyGPTConfig) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor a ``TinyGPT(config)`` holds, in ``state_dict`` order.

    Worked out from the config alone, so a checkpoint can be checked before a model is built
    (``widgets/tiny_gpt_forward.js`` has the same list as ``expectedTensors``).
    """
    if not isinstance(config, TinyGPTConfig):
        raise TypeError(f"config must be a TinyGPTConfig, got {type(config).__name__}")
    c = config.n_embd
    shapes: dict[str, tuple[int, ...]] = {
        "wte.weight": (config.vocab_size, c),
        "wpe.weight": (config.context, c),
    }
    for layer in range(config.n_layer):
        p = f"blocks.{layer}."
        shapes |= {
            f"{p}ln1.weight": (c,),
            f"{p}ln1.bias": (c,),
            f"{p}attn.qkv.weight": (3 * c, c),
            f"{p}attn.qkv.bias": (3 * c,),
            f"{p}attn.proj.weight": (c, c),
            f"{p}attn.proj.bias": (c,),
            f"{p}ln2.weight": (c,),
            f"{p}ln2.bias": (c,),
            f"{p}fc.weight": (4 * c, c),
            f"{p}fc.bias": (4 * c,),
            f"{p}fc_proj.weight": (c, 4 * c),
            f"{p}fc_proj.bias": (c,),
        }
    shapes |= {"ln_f.weight": (c,), "ln_f.bias": (c,)}
    return shapes


def load_checkpoint(path: str | Path) -> tuple[TinyGPT, dict]:
    """Load a checkpoint written by ``save_checkpoint``; return ``(model, meta)``.

    Refused with a ValueError naming the problem, before any model is built, when: the JSON
    is unreadable or not this format; the config is malformed; the vocabulary is not the
    task's; the .bin's size or SHA-256 differs from the record; the tensor index does not
    list exactly the model's tensors, with their shapes, back to back; or a weight is not
    finite. The fp16 weights are widened to fp32 for computation.
    """
    path = _require_path(path)
    try:
        meta = json.loads(path.read_text())
    except RecursionError:
        raise ValueError(
            f"checkpoint {path} could not be read as JSON: nested too deeply"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"checkpoint path {path} could not be read as JSON: {err}") from err
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint {path} is not in the {CHECKPOINT_FORMAT!r} format")
    try:
        config = TinyGPTConfig.from_dict(meta.get("config"))
    except (TypeError, ValueError) as err:
        raise ValueError(f"checkpoint {path} has a bad config: {err}") from err
    if meta.get("vocab") != VOCAB or config.vocab_size != len(VOCAB):
        raise ValueError(
            f"checkpoint {path} has vocabulary {meta.get('vocab')!r} of size "
            f"{config.vocab_size}; the task's is {VOCAB!r} ({len(VOCAB)})"
        )
    if meta.get("dtype") != "float16" or meta.get("byteorder") != "little":
        raise ValueError(f"checkpoint {path} must hold little-endian float16 tensors")
    bin_name = meta.get("bin")
    if not isinstance(bin_name, str) or Path(bin_name).name != bin_name:
        raise ValueError(f"checkpoint {path} names a bad .bin file: {bin_name!r}")
    try:
        blob = (path.parent / bin_name).read_bytes()
    except OSError as err:
        raise ValueError(f"checkpoint {path}: cannot read {bin_name}: {err}") from err
    if len(blob) != meta.get("bytes"):
        raise ValueError(
            f"checkpoint {path}: {bin_name} is {len(blob)} bytes, the record says "
            f"{meta.get('bytes')} (truncated or wrong file)"
        )
    if hashlib.sha256(blob).hexdigest() != meta.get("sha256"):
        raise ValueError(f"checkpoint {path}: {bin_name} does not match its SHA-256 (corrupted)")

    expected = tensor_shapes(config)
    index = meta.get("tensors")
    if not isinstance(index, list) or not all(isinstance(e, dict) for e in index):
        raise ValueError(f"checkpoint {path}: the tensor index must be a list of records")
    names = [e.get("name") for e in index]
    if names != list(expected):
        raise ValueError(
            f"checkpoint {path}: tensors {names} do not match the model's {list(expected)} "
            "(names and order)"
        )
    arrays, offset = {}, 0
    for entry in index:
        name, shape = entry["name"], entry.get("shape")
        # A list of ints exactly: 18.0 == 18 in Python, but not as a numpy count.
        if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in shape
        ):
            raise ValueError(f"checkpoint {path}: tensor {name} has a bad shape {shape!r}")
        shape = tuple(shape)
        if shape != expected[name]:
            raise ValueError(
                f"checkpoint {path}: tensor {name} has shape {list(shape)}, the config "
                f"needs {list(expected[name])}"
            )
        if type(entry.get("offset")) is not int or entry.get("offset") != offset:
            raise ValueError(
                f"checkpoint {path}: tensor {name} starts at byte {entry.get('offset')}, "
                f"expected {offset}"
            )
        size = 2 * math.prod(shape)
        if offset + size > len(blob):
            raise ValueError(
                f"checkpoint {path}: tensor {name} needs bytes {offset}..{offset + size}, but "
                f"{bin_name} holds {len(blob)} (truncated)"
            )
        values = np.frombuffer(blob, dtype="<f2", count=size // 2, offset=offset)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"checkpoint {path}: tensor {name} holds non-finite values")
        arrays[name] = torch.from_numpy(values.astype(np.float32).reshape(shape))
        offset += size
    if offset != len(blob):
        raise ValueError(f"checkpoint {path}: the index covers {offset} of {len(blob)} bytes")

    model = TinyGPT(config)
    model.load_state_dict(arrays, strict=True)
    model.eval()
    return model, meta
