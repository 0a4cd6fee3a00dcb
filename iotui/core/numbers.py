"""The one reading of a figure out of a record, a sample or a parsed report: a number or nothing.

TOML and JSON hand iotui plain values: a figure is an ``int`` or a ``float``, and anything else
(a string, a table, ``true``) is no figure at all. ``bool`` is a subclass of ``int`` in Python, so
``True`` would pass an ``isinstance(value, (int, float))`` test and count as 1: every reader of a
figure asks here instead, and gets ``None`` where the value is not a number.
"""

from __future__ import annotations

import math
from typing import Iterable, TypeGuard


def is_number(value: object) -> TypeGuard[int | float]:
    """True for an ``int`` or a ``float`` (NaN and infinities included), never for a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number(value: object) -> float | None:
    """The value as a float where it is a number (see :func:`is_number`), else ``None``."""
    return float(value) if is_number(value) else None


def finite_number(value: object) -> float | None:
    """As :func:`number`, but NaN and the infinities are no figure either (a chart or a verdict needs a value)."""
    found = number(value)
    return found if found is not None and math.isfinite(found) else None


def numbers(values: Iterable[object]) -> list[float]:
    """The numbers among ``values``, as floats, in order; the rest left out."""
    return [float(value) for value in values if is_number(value)]
