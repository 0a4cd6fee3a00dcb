"""What no record may hold, checked before a record is used: bad input never crashes a reader.

A record file comes from anywhere (another machine, an editor, a broken disk). Before any
figure is read, its parsed document is walked once, without recursion, and refused with a
sentence naming the file when it nests deeper than a record ever does, holds a number that is
not finite (``inf``, ``nan``), or a string with a NUL byte or another control character.
"""

from __future__ import annotations

import math
import re
MAX_DEPTH = 32
"""A record nests a few tables deep (sections, hosts, their samples); far more is not a record."""
# Tab and line feed are text; a carriage return is not (a lone one draws a line over another:
# tomllib reads a written CRLF as LF, so only an escaped "\r" reaches here).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def record_problem(doc: object) -> str | None:
    """Why a parsed record document must not be used (a clause), or None."""
    stack: list[tuple[object, str, int]] = [(doc, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"it nests more than {MAX_DEPTH} levels deep (at {where[:80]}...)"
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _CONTROL.search(key):
                    return f"the key {key!r} holds a control character"
                stack.append((item, f"{where}.{key}" if where else str(key), depth + 1))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                stack.append((item, f"{where}[{index}]", depth + 1))
        elif isinstance(value, float) and not math.isfinite(value):
            return f"key '{where}' is {value}, not a finite number"
        elif isinstance(value, str) and _CONTROL.search(value):
            return f"key '{where}' holds a NUL byte or another control character"
    return None
