"""The argument checks (code/checks.py): name first, canonical value back, errors that name it."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from checks import (
    MAX_SEED,
    require_advantages,
    require_bool,
    require_callable,
    require_choice,
    require_finite_where,
    require_float,
    require_int,
    require_logp_pair,
    require_mask,
    require_open_unit,
    require_optional_float,
    require_path,
    require_prob,
    require_same_shape,
    require_seed,
    require_sequence,
    require_sequence_of_sequences,
    require_str,
    require_tensor,
)


def test_require_int_accepts_ints_and_numpy_ints_and_returns_int():
    assert require_int("n", 3) == 3
    out = require_int("n", np.int64(7), low=1, high=7)
    assert out == 7 and type(out) is int


@pytest.mark.parametrize("value", [True, 1.0, "3", None, np.float64(2.0)])
def test_require_int_refuses_non_ints_naming_the_argument(value):
    with pytest.raises(TypeError, match=r"^n must be an int"):
        require_int("n", value)


def test_require_int_bounds():
    with pytest.raises(ValueError, match=r"^n must be >= 1, got 0"):
        require_int("n", 0, low=1)
    with pytest.raises(ValueError, match=r"^n must be <= 10, got 11"):
        require_int("n", 11, high=10)


def test_require_float_refuses_nan_always_and_inf_unless_asked():
    assert require_float("x", 2) == 2.0 and type(require_float("x", 2)) is float
    with pytest.raises(ValueError, match="^x must be a finite number"):
        require_float("x", math.nan)
    with pytest.raises(ValueError, match="^x must be a finite number"):
        require_float("x", math.nan, finite=False)
    with pytest.raises(ValueError, match="^x must be a finite number"):
        require_float("x", math.inf)
    assert require_float("x", math.inf, finite=False) == math.inf
    with pytest.raises(TypeError, match="^x must be a real number"):
        require_float("x", True)
    with pytest.raises(TypeError, match="^x must be a real number"):
        require_float("x", "1.0")


def test_require_float_open_and_closed_bounds():
    assert require_float("x", 0.0, low=0.0) == 0.0
    with pytest.raises(ValueError, match="^x must be > 0"):
        require_float("x", 0.0, low=0.0, low_open=True)
    with pytest.raises(ValueError, match="^x must be < 1"):
        require_float("x", 1.0, high=1.0, high_open=True)
    assert require_open_unit("eps", 0.2) == 0.2
    for bad in (0.0, 1.0, -0.1, math.nan):
        with pytest.raises(ValueError, match="^eps must"):
            require_open_unit("eps", bad)


def test_require_prob_and_optional_float():
    assert require_prob("p", 1) == 1.0
    with pytest.raises(ValueError, match=r"^p must be <= 1.0"):
        require_prob("p", 1.5)
    assert require_optional_float("eps", None) is None
    assert require_optional_float("eps", 0.5, low=0.0) == 0.5


def test_require_choice_lists_the_options():
    assert require_choice("mode", "cut", ("cut", "extend")) == "cut"
    with pytest.raises(ValueError, match=r"^mode must be one of \('cut', 'extend'\), got 'cutt'"):
        require_choice("mode", "cutt", ("cut", "extend"))
    with pytest.raises(TypeError, match="^mode must be one of"):
        require_choice("mode", 1, ("cut", "extend"))


def test_require_seed_refuses_none_negative_and_huge():
    assert require_seed("seed", 0) == 0
    assert require_seed("seed", MAX_SEED) == MAX_SEED
    with pytest.raises(TypeError, match="^seed must be an int seed"):
        require_seed("seed", None)
    with pytest.raises(ValueError, match="^seed must be >= 0"):
        require_seed("seed", -1)
    with pytest.raises(ValueError, match="^seed must be <="):
        require_seed("seed", MAX_SEED + 1)


def test_require_bool_str_callable():
    assert require_bool("verbose", np.bool_(True)) is True
    with pytest.raises(TypeError, match="^verbose must be a bool"):
        require_bool("verbose", 1)
    assert require_str("text", "a") == "a"
    with pytest.raises(TypeError, match="^text must be a str"):
        require_str("text", b"a")
    assert require_callable("f", len) is len
    with pytest.raises(TypeError, match="^f must be callable"):
        require_callable("f", 3)


def test_require_sequence_refuses_strings_and_mappings_and_counts():
    assert require_sequence("xs", (1, 2)) == [1, 2]
    assert require_sequence("xs", iter([1])) == [1]
    for bad in ("ab", b"ab", {"a": 1}, 3, None, torch.tensor(1.0)):
        with pytest.raises(TypeError, match="^xs must be a sequence"):
            require_sequence("xs", bad)
    with pytest.raises(ValueError, match="^xs must hold at least one item"):
        require_sequence("xs", [], min_len=1)
    with pytest.raises(ValueError, match="^xs must hold at most 2 items"):
        require_sequence("xs", [1, 2, 3], max_len=2)


def test_require_sequence_of_sequences_refuses_a_flat_list_of_strings():
    assert require_sequence_of_sequences("chains", [["a"], ("b", "c")]) == [["a"], ["b", "c"]]
    with pytest.raises(TypeError, match=r"^chains\[0\] must be a sequence, got str"):
        require_sequence_of_sequences("chains", ["7+5=12;####12"])


def test_require_tensor_kind_ndim_finiteness_and_emptiness():
    t = torch.zeros(2, 3)
    assert require_tensor("x", t, ndim=2, dtype="float") is t
    with pytest.raises(TypeError, match="^x must be a torch.Tensor"):
        require_tensor("x", [1.0])
    with pytest.raises(ValueError, match="^x must be 1-D or 2-D"):
        require_tensor("x", torch.zeros(1, 1, 1), ndim=(1, 2))
    with pytest.raises(TypeError, match="^x must be a floating-point tensor"):
        require_tensor("x", torch.tensor([1, 2]), dtype="float")
    with pytest.raises(TypeError, match="^x must be a bool tensor"):
        require_tensor("x", torch.tensor([1, 2]), dtype="bool")
    with pytest.raises(TypeError, match="^x must be an integer tensor"):
        require_tensor("x", torch.tensor([1.0]), dtype="int")
    with pytest.raises(ValueError, match="^x must not be empty"):
        require_tensor("x", torch.zeros(0))
    assert require_tensor("x", torch.zeros(0), nonempty=False).numel() == 0
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match="^x must be finite"):
            require_tensor("x", torch.tensor([0.0, bad]))
    assert require_tensor("x", torch.tensor([math.inf]), finite=False).isinf().all()


def test_require_same_shape_names_both():
    with pytest.raises(ValueError, match=r"^b must have the shape of a \(2,\), got \(3,\)"):
        require_same_shape("b", torch.zeros(3), "a", torch.zeros(2))


def test_require_mask_and_finite_where():
    m = torch.tensor([[True, False], [True, True]])
    assert require_mask("mask", None, (2, 2)) is None
    assert require_mask("mask", m, (2, 2)) is m
    with pytest.raises(TypeError, match="^mask must be a bool tensor"):
        require_mask("mask", m.float(), (2, 2))
    with pytest.raises(ValueError, match="^mask must mark at least one valid token"):
        require_mask("mask", torch.tensor([[True, True], [False, False]]), (2, 2))
    with pytest.raises(ValueError, match=r"^mask must have shape \(2, 3\)"):
        require_mask("mask", m, (2, 3))
    x = torch.tensor([[0.0, math.nan], [1.0, 2.0]])
    assert require_finite_where("x", x, m) is x  # the NaN sits in padding
    with pytest.raises(ValueError, match="^x must be finite"):
        require_finite_where("x", x, None)


def test_require_logp_pair_and_advantages():
    new, old = torch.zeros(2, 3), torch.zeros(2, 3)
    assert require_logp_pair("logp_new", new, "logp_old", old)[2] is None
    with pytest.raises(ValueError, match="^logp_old must have the shape of logp_new"):
        require_logp_pair("logp_new", new, "logp_old", torch.zeros(3, 2))
    with pytest.raises(ValueError, match="^logp_new must be finite"):
        require_logp_pair("logp_new", torch.full((2, 3), -math.inf), "logp_old", old)
    assert require_advantages("adv", torch.ones(2), (2, 3)).shape == (2, 1)
    assert require_advantages("adv", torch.tensor([1, 2]), (2, 3)).is_floating_point()
    assert require_advantages("adv", torch.ones(3), (2, 3)).shape == (3,)  # broadcasts
    with pytest.raises(ValueError, match="^adv of shape"):
        require_advantages("adv", torch.ones(3), (2, 3), broadcast=False)
    with pytest.raises(ValueError, match="^adv must be finite"):
        require_advantages("adv", torch.tensor([math.nan, 1.0]), (2, 3))


def test_the_search_chapters_modules_do_not_import_torch():
    """Chapters 10 and 11 never touch a tensor; importing torch would cost them a second."""
    import subprocess
    import sys
    from pathlib import Path

    code = Path(__file__).resolve().parents[1] / "code"
    probe = "import sys, game24, tree_of_thoughts, prm, reasoning; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], cwd=code, capture_output=True, text=True,
                         env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"}, check=True)
    assert out.stdout.strip() == "False"


def test_require_path_refuses_a_nul_byte_naming_the_argument():
    """open() of a name holding NUL says only "embedded null byte" (issue 29)."""
    from pathlib import Path

    assert require_path("path", "a/b.json") == Path("a/b.json")
    with pytest.raises(ValueError, match="^path must not contain a NUL byte"):
        require_path("path", "x\x00y")
    with pytest.raises(ValueError, match="^path must not be empty"):
        require_path("path", "")
    with pytest.raises(TypeError, match="^path must be a str or Path, got int"):
        require_path("path", 3)
