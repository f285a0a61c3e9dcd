"""Argument checks for the public functions of ``code/``: one place, one argument order.

Every check takes the argument's *name first*, then its value, then keyword-only limits, and
returns the value in its canonical type (``int``, ``float``, ``list``, a tensor):

    n = require_int("n", n, low=1, high=MAX_SAMPLES)
    p = require_prob("p", p)
    mode = require_choice("mode", mode, ("cut", "extend"))

Each raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for one out of range,
with a message that starts with the argument's name (``"p must be in [0, 1], got 1.5"``), as
CONTRIBUTING.md promises. Public entry points call these once; the helpers they call trust them.

Sizes are capped (``high=``) wherever a size drives work or memory, so a mistyped ``10**9``
is refused in microseconds instead of hanging or allocating gigabytes; each cap is documented
where it is used.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral, Real
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from torch import Tensor


def _torch():
    """torch, imported on first use: only the tensor checks need it, and the chapters that never
    touch a tensor (Tree of Thoughts, process rewards) should not pay a second to import it."""
    import torch

    return torch


def _is_tensor(value: object) -> bool:
    """Whether ``value`` is a torch.Tensor (there is none before torch has been imported)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)

__all__ = [
    "MAX_SEED",
    "require_arg_name",
    "require_bool",
    "require_callable",
    "require_choice",
    "require_float",
    "require_int",
    "require_optional_float",
    "require_prob",
    "require_seed",
    "require_sequence",
    "require_sequence_of_sequences",
    "require_str",
    "require_tensor",
    "require_same_shape",
    "require_mask",
    "require_finite_where",
    "require_advantages",
    "require_open_unit",
    "require_logp_pair",
    "require_plain_name",
]

MAX_SEED = 2**63 - 1  # numpy's default_rng and torch's manual_seed both take 0..2**63 - 1


def _kind(value: object) -> str:
    return type(value).__name__


MAX_ITEMS = 10**6  # an iterable with no length is read this far at most: an endless one is refused


def _show(value: int) -> str:
    """An int for a message: a huge one as its size (CPython refuses str() past 4,300 digits)."""
    if abs(value) < 10**30:
        return str(value)
    digits = int(value.bit_length() * 0.30103)  # log10(2) digits per bit
    return f"{'a negative' if value < 0 else 'an'} int of about {digits} digits"


def require_int(
    name: str, value: object, *, low: int | None = None, high: int | None = None
) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (either bound optional).

    ``bool`` is refused although it subclasses ``int``: ``n=True`` is a bug, not one sample.
    NumPy integers are accepted and returned as ``int``.
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int, got {_kind(value)}")
    value = int(value)
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {_show(value)}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {_show(value)}")
    return value


def require_float(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """``value`` as a ``float``: a real number (not bool), finite unless ``finite=False``.

    ``low``/``high`` bound it (inclusive, or strict with ``low_open``/``high_open``). NaN is
    always refused: no bound can hold for it, and a NaN setting only ever surfaces later.
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {_kind(value)}")
    try:
        out = float(value)
    except OverflowError:  # an int such as 10**400: no float holds it
        raise ValueError(f"{name} must be a finite number, got {_show(int(value))}") from None
    if math.isnan(out) or (finite and not math.isfinite(out)):
        raise ValueError(f"{name} must be a finite number, got {out}")
    if low is not None and (out < low or (low_open and out == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {out}")
    if high is not None and (out > high or (high_open and out == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {out}")
    return out


def require_optional_float(name: str, value: object, **limits: Any) -> float | None:
    """``None``, or ``require_float(name, value, **limits)``."""
    return None if value is None else require_float(name, value, **limits)


def require_prob(name: str, value: object) -> float:
    """A probability: a real number in [0, 1]."""
    return require_float(name, value, low=0.0, high=1.0)


def require_bool(name: str, value: object) -> bool:
    """A ``bool`` (a NumPy bool too); ``0``/``1`` or a string are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {_kind(value)}")
    return bool(value)


def require_arg_name(name: str, value: object) -> str:
    """The name a helper puts in its messages: a Python identifier, maybe indexed (``xs[3]``)."""
    require_str(name, value)
    if not value.split("[")[0].isidentifier():
        raise ValueError(f"{name} must be an argument name such as 'numbers', got {value!r}")
    return value


def require_str(name: str, value: object) -> str:
    """A ``str``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {_kind(value)}")
    return value


def require_path(name: str, value: object) -> Path:
    """``value`` as a ``Path``: a non-empty ``str`` or ``Path`` with no NUL byte.

    The OS cannot open a name holding NUL; ``open`` would say only "embedded null byte".
    """
    if not isinstance(value, (str, PurePath)):
        raise TypeError(f"{name} must be a str or Path, got {_kind(value)}")
    if not str(value):
        raise ValueError(f"{name} must not be empty")
    if "\x00" in str(value):
        raise ValueError(f"{name} must not contain a NUL byte, got {str(value)!r}")
    return Path(value)


MAX_NAME_LEN = 200  # a file name, with room for a suffix, under the usual 255-byte limit


def require_plain_name(name: str, value: object) -> str:
    """A name that stays inside the folder it is joined to: a job's or a file's name.

    Refused: the empty name, ``.`` and ``..``, hidden names (a leading ``.``; the store's
    temporary files are hidden), any path separator (``/``, ``\\``), a NUL byte, and names
    longer than ``MAX_NAME_LEN`` characters. ``Path(folder) / value`` is then always a child of
    ``folder``: an absolute path or ``../x`` cannot reach anything else.
    """
    require_str(name, value)
    why = (
        "is empty" if not value
        else "starts with '.'" if value.startswith(".")
        else "holds a path separator" if "/" in value or "\\" in value
        else "holds a NUL byte" if "\0" in value
        else f"is longer than {MAX_NAME_LEN} characters" if len(value) > MAX_NAME_LEN
        else None
    )
    if why:
        raise ValueError(
            f"{name} must be a plain name (no '/', '\\', NUL, '..', not empty or hidden): "
            f"{value!r:.80} {why}"
        )
    return value


def require_choice(name: str, value: object, choices: Sequence[str]) -> str:
    """One of a closed set of string options; the error lists the valid ones."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(choices)}, got {_kind(value)}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def require_seed(name: str, value: object) -> int:
    """A seed: an int in [0, 2**63 - 1]. ``None`` is refused: every draw in the book is seeded."""
    if value is None:
        raise TypeError(f"{name} must be an int seed (every draw is seeded), got None")
    return require_int(name, value, low=0, high=MAX_SEED)


def require_instance(name: str, value: object, cls: type) -> Any:
    """An instance of ``cls`` (a model, a config): refused with the type it got otherwise."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be of type {cls.__name__}, got {type(value).__name__}")
    return value


def require_callable(name: str, value: object) -> Any:
    """A callable."""
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {_kind(value)}")
    return value


def require_sequence(
    name: str, value: object, *, min_len: int = 0, max_len: int | None = None
) -> list:
    """A list, tuple or other iterable (not a ``str``/``bytes``/mapping), materialised as a list.

    A bare string is refused: iterating it would treat every character as an item.
    """
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence, got {_kind(value)}")
    if _is_tensor(value) and value.dim() == 0:
        raise TypeError(f"{name} must be a sequence, got a 0-d tensor")
    if max_len is not None and hasattr(value, "__len__") and len(value) > max_len:
        raise ValueError(f"{name} must hold at most {max_len} items, got {len(value)}")
    if hasattr(value, "__len__"):
        out = list(value)
    else:  # an iterator: read no further than the cap, so an endless one cannot hang the call
        cap = MAX_ITEMS if max_len is None else min(max_len, MAX_ITEMS)
        out = list(itertools.islice(value, cap + 1))
        if len(out) > cap:
            raise ValueError(f"{name} must hold at most {cap} items (an endless iterator?)")
    if len(out) < min_len:
        least = "one item" if min_len == 1 else f"{min_len} items"
        raise ValueError(f"{name} must hold at least {least}, got {len(out)}")
    if max_len is not None and len(out) > max_len:
        raise ValueError(f"{name} must hold at most {max_len} items, got {len(out)}")
    return out


def require_sequence_of_sequences(name: str, value: object, *, min_len: int = 0) -> list[list]:
    """A sequence whose items are themselves sequences (not strings), e.g. chains per problem.

    This is the check that keeps a flat list of strings, where a list of lists belongs, from
    being read one character at a time.
    """
    rows = require_sequence(name, value, min_len=min_len)
    out = []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes, dict)) or not isinstance(row, Iterable):
            raise TypeError(f"{name}[{i}] must be a sequence, got {_kind(row)}")
        out.append(list(row))
    return out


_DTYPE_KINDS = {
    "float": (lambda t: t.is_floating_point(), "a floating-point"),
    "bool": (lambda t: t.dtype == _torch().bool, "a bool"),
    "int": (
        lambda t: not t.is_floating_point() and not t.is_complex() and t.dtype != _torch().bool,
        "an integer",
    ),
}


def require_tensor(
    name: str,
    value: object,
    *,
    ndim: int | Sequence[int] | None = None,
    dtype: str | None = None,
    finite: bool = True,
    nonempty: bool = True,
) -> Tensor:
    """A ``torch.Tensor`` with ``ndim`` dimensions (one number or a set of them).

    ``dtype`` is a kind: ``"float"``, ``"bool"`` or ``"int"``. ``finite`` refuses NaN and +-inf
    in a floating tensor (a NaN log-prob must not become a loss); ``nonempty`` refuses zero
    elements.
    """
    if not _is_tensor(value):
        raise TypeError(f"{name} must be a torch.Tensor, got {_kind(value)}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if value.dim() not in allowed:
            want = " or ".join(f"{d}-D" for d in allowed)
            raise ValueError(f"{name} must be {want}, got shape {tuple(value.shape)}")
    if dtype is not None:
        test, label = _DTYPE_KINDS[dtype]
        if not test(value):
            raise TypeError(f"{name} must be {label} tensor, got dtype {value.dtype}")
    if nonempty and value.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(value.shape)}")
    if finite and value.is_floating_point() and not bool(_torch().isfinite(value.detach()).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return value


def require_same_shape(name: str, value: Tensor, other_name: str, other: Tensor) -> Tensor:
    """``value`` must have the shape of ``other`` (both already checked tensors or arrays)."""
    if tuple(value.shape) != tuple(other.shape):
        raise ValueError(
            f"{name} must have the shape of {other_name} {tuple(other.shape)}, "
            f"got {tuple(value.shape)}"
        )
    return value


def require_mask(name: str, mask: object, shape: Sequence[int]) -> Tensor | None:
    """``None``, or a bool ``(G, T)`` tensor of ``shape`` marking >= 1 valid token per row."""
    if mask is None:
        return None
    m = require_tensor(name, mask, dtype="bool")
    if len(shape) != 2:
        raise ValueError(f"{name} needs (G, T) log-probs, got log-prob shape {tuple(shape)}")
    if tuple(m.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {tuple(m.shape)}")
    if not bool(m.any(dim=-1).all()):
        raise ValueError(f"{name} must mark at least one valid token in every response")
    return m


def require_finite_where(name: str, value: Tensor, mask: Tensor | None) -> Tensor:
    """``value`` must be finite wherever ``mask`` is True (everywhere when it is None).

    Padding positions may hold anything: the losses zero them before any arithmetic.
    """
    bad = ~_torch().isfinite(value.detach())
    if mask is not None:
        bad = bad & mask
    if bool(bad.any()):
        raise ValueError(f"{name} must be finite (no NaN or inf) at every valid token")
    return value


def require_advantages(
    name: str, value: object, shape: Sequence[int], *, broadcast: bool = True
) -> Tensor:
    """Advantages for log-probs of ``shape``, as a finite float tensor ready to multiply.

    A ``(G,)`` tensor for ``(G, T)`` log-probs gets a trailing token axis (one advantage per
    response). Otherwise the tensor must broadcast to ``shape`` (``broadcast=True``) or be a
    scalar or exactly ``shape`` (``broadcast=False``).
    """
    adv = require_tensor(name, value)
    if not adv.is_floating_point():
        adv = adv.to(_torch().get_default_dtype())
    shape = _torch().Size(shape)
    if len(shape) == 2 and adv.dim() == 1 and adv.shape[0] == shape[0]:
        return adv.unsqueeze(-1)
    if broadcast:
        try:  # expand, not broadcast_shapes: the latter's first call imports sympy (~1 s)
            adv.expand(shape)
            ok = True
        except RuntimeError:
            ok = False
    else:
        ok = adv.dim() == 0 or adv.shape == shape
    if not ok:
        raise ValueError(
            f"{name} of shape {tuple(adv.shape)} must be a scalar, (G,), or "
            f"{'broadcast to' if broadcast else 'shaped like'} the log-probs {tuple(shape)}"
        )
    return adv


def require_open_unit(name: str, value: object) -> float:
    """A real number strictly inside (0, 1), e.g. a clip width (``1 - eps`` stays positive)."""
    return require_float(name, value, low=0.0, high=1.0, low_open=True, high_open=True)


def require_clip_eps(
    name: str, value: object, *, side: str, optional: bool = False
) -> float | None:
    """A trust region's width: ``eps_low`` (``side="low"``) in (0, 1), so the floor
    ``1 - eps_low`` stays a positive ratio, or ``eps_high`` (``side="high"``) > 0. With
    ``optional=True``, ``None`` (no wall on that side) passes through."""
    if side not in ("low", "high"):
        raise ValueError(f"side must be 'low' or 'high', got {side!r:.40}")
    if value is None and optional:
        return None
    if side == "low":
        return require_open_unit(name, value)
    return require_float(name, value, low=0.0, low_open=True)


def require_logp_pair(
    new_name: str,
    new: object,
    old_name: str,
    old: object,
    *,
    mask: object = None,
    ndim: int | Sequence[int] = (1, 2),
) -> tuple[Tensor, Tensor, Tensor | None]:
    """Two float log-prob tensors of one shape and an optional bool ``mask`` (see
    ``require_mask``); both finite wherever the mask is True. Returns ``(new, old, mask)``."""
    new_t = require_tensor(new_name, new, ndim=ndim, dtype="float", finite=False)
    old_t = require_tensor(old_name, old, dtype="float", finite=False)
    require_same_shape(old_name, old_t, new_name, new_t)
    m = require_mask("mask", mask, new_t.shape)
    require_finite_where(new_name, new_t, m)
    require_finite_where(old_name, old_t, m)
    return new_t, old_t, m


def require_rows(
    name: str, value: object, numbers: Sequence[str], *, optional: Sequence[str] = (),
    min_len: int = 1,
) -> list[Mapping]:
    """A data file's table: a list of at least ``min_len`` mappings, each holding every key of
    ``numbers`` as a finite number, and every key of ``optional`` as one or ``None``.

    ``name`` says where the table is (``"path data/vote_sims.json: condorcet.rows"``), so a bad
    cell is named by file and field: ``... condorcet.rows[3]['acc'] must be a real number``.
    """
    rows = require_sequence(name, value, min_len=min_len)
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ValueError(f"{name}[{i}] must be an object, got {_kind(row)}")
        for key in (*numbers, *optional):
            if key not in row:
                raise ValueError(f"{name}[{i}] has no {key!r}")
            if key in numbers or row[key] is not None:
                require_float(f"{name}[{i}][{key!r}]", row[key])
    return rows
