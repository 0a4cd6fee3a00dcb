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

import json
import math
import re

from iotui.core.terminal_text import strip_document, terminal_safe

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is optional, as for the status documents
    orjson = None  # type: ignore[assignment]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def number_problem(doc: object) -> str | None:
    """Why the document's numbers cannot be used (a clause naming the key), or None."""
    stack: list[tuple[object, str]] = [(doc, "")]
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


# What an encoder's text of a document shows when the walks below are needed: an integer of 19
# digits or more, a float of 1e18 or more (both encoders write "e+18"), a NaN or an infinity (orjson
# writes null for them; fio writes no null), a control character or a bidirectional override in a
# string (written as an escape, or \n, \t..., or by orjson as itself in UTF-8). Each test is a C-speed scan of the text.
_DIGITS_AS_ZERO = bytes(48 if 48 <= code <= 57 else 32 for code in range(256))
_LARGE_EXPONENT = re.compile(rb"e\+(?:1[89]|[2-9][0-9]|[0-9]{3})")
# Every number token that the two tests above can have seen: 19 or more digits (with a point or
# not) or an exponent of 18 and more. A match inside a string only costs a needless walk.
_LONG_NUMBER = re.compile(
    rb"-?[0-9.]*[0-9]{19}[0-9.]*(?:[eE][-+]?[0-9]+)?|-?[0-9][0-9.]*[eE]\+(?:1[89]|[2-9][0-9]|[0-9]{3,})"
)
_SUSPECT_TEXT = re.compile(
    rb"\\(?:[nrtbf]|u00[01][0-9a-fA-F]|u007[fF]|u00[89][0-9a-fA-F]|u202[a-eA-E]|u206[6-9])"  # json's escapes
    rb"|[\x00-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"  # orjson's UTF-8
)
# Every match of _SUSPECT_TEXT starts with one of these bytes. The expression tries each of a
# document's positions in turn (96 us for a 9-KB document, 12 ms a second at 128 hosts);
# mapping the bytes and looking for the mark is two C passes (about 3 us), so only a
# document that holds one of them is searched.
_SUSPECT_START = bytes(
    33 if code < 0x20 or code in (0x5C, 0x7F, 0xC2, 0xE2) else 32 for code in range(256)
)


def _suspect_text(encoded: bytes) -> bool:
    return b"!" in encoded.translate(_SUSPECT_START) and _SUSPECT_TEXT.search(encoded) is not None


def _suspect_number(encoded: bytes) -> bool:
    if b":null" in encoded or b"[null" in encoded or b",null" in encoded:
        # orjson's NaN or infinity (fio writes no null) as a value, never the word in a string:
        # the held start's prerun option holds "/dev/null", and every host's every document
        # was walked for it.
        return True
    if b"0" * 19 not in encoded.translate(_DIGITS_AS_ZERO) and not (
        b"e+" in encoded and _LARGE_EXPONENT.search(encoded) is not None
    ):
        return False
    # A long or large number is there: fio writes some that fit (a 19-digit count, a float of
    # 1e18 and more that is still below 2**63). Each is read from the text, so the walk over the
    # whole document (a fifth of iotui's time at 128 hosts, where every host sent one) runs only
    # where one really does not fit, to name its key.
    for token in _LONG_NUMBER.findall(encoded):
        try:
            value = float(token) if any(mark in token for mark in b".eE") else int(token)
        except ValueError:
            return True
        if not INT64_MIN <= value <= INT64_MAX:
            return True
    return False


def _encoded(doc: dict[str, object]) -> bytes | None:
    """The document as JSON text from a C encoder, or None where it cannot be written (then: walk)."""
    try:
        if orjson is not None:
            return orjson.dumps(doc)  # raises on an integer over 64 bits
        return json.dumps(doc, allow_nan=False).encode()  # raises on NaN and Infinity
    except (ValueError, TypeError, RecursionError):  # orjson's JSONEncodeError is a TypeError
        return None


def checked_document(doc: dict[str, object]) -> tuple[dict[str, object] | None, str | None]:
    """(the document with terminal-safe strings, None) or (None, why it is refused).

    A host sends a json+ document a second (thousands of values with its latency bins), up to 128
    hosts at once, so the Python walks run only where a C encoder's text shows they are needed: a
    clean document costs one encoding and two regular-expression scans.
    """
    encoded = _encoded(doc)
    if encoded is None or _suspect_number(encoded):
        problem = number_problem(doc)
        if problem is not None:
            return None, problem
    if encoded is None or _suspect_text(encoded):
        cleaned = strip_document(doc)
        assert isinstance(cleaned, dict)
        return cleaned, None
    return doc, None
