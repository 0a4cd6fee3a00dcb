"""What no record may hold, checked before a record is used: bad input never crashes a reader.

Every kind of record (run records, sweep records) is read through :func:`read_guarded_toml`.

A record file comes from anywhere (another machine, an editor, a broken disk). Before any
figure is read, its parsed document is walked once, without recursion, and refused with a
sentence naming the file when it nests deeper than a record ever does, holds a number that is
not finite (``inf``, ``nan``), or a string with a NUL byte or another control character.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Literal

from iotui.core.input_files import InputFileError, read_input_file
from iotui.core.toml_reader import tomllib

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


MAX_KEY_PARTS = 64
"""The most dot-separated parts one TOML key or table header may have before it is parsed.

The standard library's TOML parser takes time growing with the square of a key's parts (a key of
10,000 parts: 14 s; 40,000: 269 s), so a key far longer than any record's is refused unparsed."""
# A line with at least as many dots as a key may have parts. The lookahead and back-reference make
# each run between dots atomic (no backtracking into it, Python 3.10 has no possessive ``*+``).
_MANY_DOTS_LINE = re.compile(r"^(?:(?=([^\n.]*))\1\.){" + str(MAX_KEY_PARTS) + r"}[^\n]*", re.MULTILINE)
_TOKEN = re.compile(
    r'"""[\s\S]*?"""(?!")|\'\'\'[\s\S]*?\'\'\'(?!\')'  # multi-line strings
    r'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\''  # one-line strings
    r"|#[^\n]*"  # comments
    r"|[.=,\[\]{}\n]"
)


def toml_text_problem(text: str) -> str | None:
    """Why TOML text must not be parsed at all (a clause), or None: a key of too many parts.

    A key or table header sits on one line, so only a line with as many dots as a key may have
    parts is scanned, outside strings and comments (the whole text where it has multi-line
    strings, which a line cannot be read without). Linear in the text: 0.8 s on 22 MB, where
    parsing it takes 47 s."""
    lines = [match for match in _MANY_DOTS_LINE.finditer(text)]
    if not lines:
        return None
    if '"""' in text or "'''" in text:
        return _long_key(text, 0, len(text))
    for line in lines:
        problem = _long_key(text, line.start(), line.end())
        if problem:
            return problem
    return None


def _long_key(text: str, start: int, end: int) -> str | None:
    dots = 0
    for match in _TOKEN.finditer(text, start, end):
        token = match.group()
        if token == ".":
            dots += 1
            if dots >= MAX_KEY_PARTS:
                line = text.count("\n", 0, match.start()) + 1
                return f"line {line:,} holds a key of more than {MAX_KEY_PARTS} parts (far deeper than a record nests)"
        elif len(token) == 1:
            dots = 0
    return None


GuardCode = Literal["unreadable", "not-utf8", "not-toml", "too-deep", "too-big", "refused"]


class GuardError(Exception):
    """A record file that is not used: ``code`` says why, str() is a sentence naming the file."""

    def __init__(self, code: GuardCode, sentence: str) -> None:
        super().__init__(sentence)
        self.code: GuardCode = code


def read_guarded_toml(path: Path, what: str = "record") -> dict[str, Any]:
    """One record file of any kind, read bounded, parsed and walked by :func:`record_problem`.

    ``what`` names the kind in the sentences ("record", "sweep record")."""
    try:
        raw = read_input_file(path, what)
    except InputFileError as error:
        raise GuardError("unreadable", str(error)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise GuardError("not-utf8", f"{path}: the {what} is not UTF-8 text.") from None
    problem = toml_text_problem(text)
    if problem:
        raise GuardError("too-deep", f"{path}: the {what} nests too deeply to be a {what}: {problem}.")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise GuardError("not-toml", f"{path}: the {what} is not valid TOML ({error}).") from None
    except RecursionError:
        raise GuardError("too-deep", f"{path}: the {what} nests too deeply to be a {what}.") from None
    except MemoryError:
        raise GuardError(
            "too-big", f"{path}: the {what} ({len(raw):,} bytes) does not fit in the memory available."
        ) from None
    problem = record_problem(doc)
    if problem:
        raise GuardError("refused", f"{path}: the {what} cannot be used: {problem}.")
    return doc
