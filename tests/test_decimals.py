"""decimals.fixed: a float that prints its trailing zeros, and is otherwise the float it is."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from decimals import MAX_PLACES, fixed, signed


def test_trailing_zeros_are_kept():
    assert repr(fixed(0.54, 3)) == "0.540" and str(fixed(0.54, 3)) == "0.540"
    assert f"{fixed(0.94, 3)}" == "0.940" and repr(fixed(2, 0)) == "2"
    assert repr([fixed(0.1, 2)]) == "[0.10]"  # inside a container too


def test_it_is_the_rounded_float():
    v = fixed(0.5404, 3)
    assert v == 0.54 and isinstance(v, float) and type(v + 0) is float
    assert json.dumps({"v": v}) == '{"v": 0.54}'  # ojs_define sends the number, not the text
    assert repr(pickle.loads(pickle.dumps(v))) == "0.540"


@given(st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 6))
def test_text_parses_back_to_the_value(x, places):
    v = fixed(x, places)
    assert isinstance(v, float)
    assert float(repr(v)) == pytest.approx(round(x, places), abs=10**-places)
    assert len((repr(v).split(".") + [""])[1]) == places


def test_bad_input():
    with pytest.raises(ValueError, match="places"):
        fixed(0.5, -1)
    with pytest.raises(ValueError, match="places"):
        fixed(0.5, MAX_PLACES + 1)
    with pytest.raises(TypeError, match="x"):
        fixed("0.5", 3)
    with pytest.raises(ValueError, match="x"):
        fixed(float("nan"), 3)


def test_signed_prints_a_true_minus():
    assert signed(-0.093, 3) == "\u2212" + "0.093" and signed(0.0172, 3) == "+0.017"
    assert signed(0.0, 4) == "0.0000" and signed(-0.00004, 4) == "0.0000"  # no sign on zero
    assert "-" not in signed(-1.5, 1)


@given(st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 6))
def test_signed_reads_back_as_fixed(x, places):
    text = signed(x, places)
    value = float(text.replace("\u2212", "-"))
    assert value == pytest.approx(float(fixed(x, places)), abs=10**-places)


def test_signed_bad_input():
    with pytest.raises(ValueError, match="places"):
        signed(0.5, -1)
    with pytest.raises(TypeError, match="x"):
        signed("0.5", 3)
