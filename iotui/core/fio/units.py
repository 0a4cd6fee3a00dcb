"""fio's units: sizes (4k, 1M, 1MiB with fio's kb_base rules) and times (30s, 2m, 500ms)."""

from __future__ import annotations

import re

_SIZE_PATTERN = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")
_SIZE_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


def parse_size_bytes(value: str | None, *, kb_base: int = 1024) -> int | None:
    """fio's size syntax in bytes (4k, 1G, 512m, 1MiB); None for a percentage or anything else.

    fio's default kb_base=1024 is its compatibility mode: K, M, G (and KB, MB)
    are powers of 1024 while KiB, MiB, GiB are powers of 1000, the opposite of
    the standards (fio's own documentation, and what fio 3.33 lays out).
    kb_base=1000 swaps them back.
    """
    if value is None:
        return None
    match = _SIZE_PATTERN.fullmatch(str(value))
    if not match:
        return None
    number, suffix = match.group(1), match.group(2).lower()
    if suffix in ("", "b"):
        multiplier = 1
    else:
        power = _SIZE_POWERS.get(suffix[0])
        rest = suffix[1:]
        if power is None or rest not in ("", "b", "i", "ib"):
            return None
        other_base = 1000 if kb_base == 1024 else 1024
        multiplier = (other_base if rest == "ib" else kb_base) ** power
    return int(float(number) * multiplier)


_TIME_UNITS = {
    "us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "": 1.0, "s": 1.0, "sec": 1.0,
    "m": 60.0, "min": 60.0, "h": 3600.0, "hour": 3600.0, "d": 86400.0, "day": 86400.0,
}


def parse_seconds(value: str | None) -> float | None:
    """fio's time syntax (30, 30s, 2m, 1h, 500ms); plain numbers are seconds."""
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", str(value).lower())
    if not match or match.group(2) not in _TIME_UNITS:
        return None
    return float(match.group(1)) * _TIME_UNITS[match.group(2)]


def upper_end(value: str | None) -> str | None:
    """The upper end of a fio range (``1-5``, ``1M-4M``, ``1M:4M``)."""
    if value is None:
        return None
    return re.split(r"[-:]", value)[-1]


def whole_number(value: str | None, default: int) -> int | None:
    if value is None or value.strip() == "":
        return default
    text = value.strip()
    return int(text) if text.isdigit() else None


def size_problem(text: str) -> str | None:
    """Why ``text`` is not a size in fio's syntax (4k, 1M, 1G, 512MiB), or None when it is one.

    The app's option editor and the command line's --size and --bs both ask this, so ``64Q``
    is refused in both places instead of reaching fio (which reads it as 64 bytes).
    """
    value = parse_size_bytes(text)
    if value is None or value <= 0:
        return f"should be a size such as 4k, 1M or 1G, not {text!r}"
    return None


# Sweeps order values by magnitude (see core/sweep/values.py value_order): looser than fio's own
# reading, since it only ranks values the user typed, and fractions such as 1.5m still rank.
_NUMBER_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*([kmgtp]?)(i?b?)\s*$", re.IGNORECASE)
_SUFFIX_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def numeric_value(text: str) -> float | None:
    """A number or fio size (``4k`` = 4096, fio's default kb_base) as a float, else None."""
    match = _NUMBER_PATTERN.match(str(text))
    if match is None:
        return None
    number, suffix, _ = match.groups()
    return float(number) * (1024 ** _SUFFIX_POWER[suffix.lower()])
