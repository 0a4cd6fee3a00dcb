"""A remote host's fio JSON, judged before any figure of it is used.

The host is another machine: its "fio" may print anything JSON can carry. Python's
json reads ``NaN`` and ``Infinity`` and integers of any length (orjson reads one over
64 bits as a float), none of which a record can hold (TOML's integers are signed 64-bit,
and a record holds only finite numbers), and a huge integer breaks the percentile walk.
So a number that is not finite, or whose size lies outside the signed 64-bit range in
either spelling (no count, byte total or nanosecond figure of fio's comes near 2**63), is
refused. A document with one is
refused for that host alone (the session marks the host failed with the sentence);
every other host's figures and the record are kept. Strings are made terminal-safe
(job names, fio's messages) before they reach a screen or a record.
"""

from __future__ import annotations

import math
from typing import Any

from iotui.core.terminal_text import strip_document, terminal_safe

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def number_problem(doc: Any) -> str | None:
    """Why the document's numbers cannot be used (a clause naming the key), or None."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            stack.extend((item, f"{where}.{key}" if where else str(key)) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{index}]") for index, item in enumerate(value))
        elif isinstance(value, bool):
            continue
        elif isinstance(value, float) and not math.isfinite(value):
            return f"'{_short(where)}' is {value}, not a finite number"
        elif isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
            return f"'{_short(where)}' is an integer of {len(str(abs(value)))} digits, outside a signed 64-bit integer"
        elif isinstance(value, float) and not INT64_MIN <= value <= INT64_MAX:
            # A JSON parser may read an integer over 64 bits as a float (orjson does): no figure
            # of fio's (counts, bytes, nanoseconds) reaches 2**63, so none may in any spelling.
            return f"'{_short(where)}' is {value:.3g}, outside a signed 64-bit integer"
    return None


def _short(where: str) -> str:
    where = terminal_safe(where)
    return where if len(where) <= 120 else where[:117] + "..."


def checked_document(doc: dict) -> tuple[dict | None, str | None]:
    """(the document with terminal-safe strings, None) or (None, why it is refused)."""
    problem = number_problem(doc)
    if problem is not None:
        return None, problem
    cleaned = strip_document(doc)
    assert isinstance(cleaned, dict)
    return cleaned, None
