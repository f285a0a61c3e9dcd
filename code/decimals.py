"""A measured number printed with a fixed number of decimals, trailing zeros kept.

Python prints ``round(0.5401, 3)`` as ``0.54``: beside ``0.478`` and ``0.416`` in the same sentence
the short one reads as a coarser measurement. ``fixed(x, 3)`` is a float (it compares, adds and
serialises to JSON as the number it is) whose text, ``repr`` and ``str``, is always ``x`` to three
decimals, ``0.540``, which is what an inline `{python}` value and a printed table show.
"""

from __future__ import annotations

from checks import require_float, require_int

MAX_PLACES = 12  # beyond a double's ~16 significant digits nothing is left to show


class _Fixed(float):
    """A float that prints with ``places`` decimals (arithmetic on it gives a plain float)."""

    places: int

    def __new__(cls, value: float, places: int) -> _Fixed:
        self = super().__new__(cls, round(value, places))
        self.places = places
        return self

    def __repr__(self) -> str:
        return f"{float(self):.{self.places}f}"

    __str__ = __repr__

    def __reduce__(self):  # pickle / copy keep the format
        return (_Fixed, (float(self), self.places))


def fixed(x: float, places: int) -> _Fixed:
    """``x`` rounded to ``places`` decimals, printing all of them: ``fixed(0.54, 3)`` is 0.540."""
    places = require_int("places", places, low=0, high=MAX_PLACES)
    x = require_float("x", x)
    return _Fixed(x, places)


def signed(x: float, places: int) -> str:
    """``x`` to ``places`` decimals with its sign, a true minus as the widgets print it:
    ``signed(0.0172, 3)`` is "+0.017", ``signed(-0.093, 3)`` is "−0.093" (U+2212, not the
    hyphen-minus Python prints), and a value that rounds to zero has no sign, "0.000"."""
    places = require_int("places", places, low=0, high=MAX_PLACES)
    x = require_float("x", x)
    text = f"{abs(x):.{places}f}"
    if float(text) == 0:
        return text
    return ("+" if x > 0 else "\N{MINUS SIGN}") + text
