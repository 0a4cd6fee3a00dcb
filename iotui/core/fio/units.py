"""fio's units: sizes (4k, 1M, 1MiB with fio's kb_base rules) and times (30s, 2m, 500ms)."""

from __future__ import annotations

import re

# fio 3.33's integer syntax, exactly as far as fio reads it: an optional '+', then hex (0x..., no
# suffix: fio reads the suffix of a hex number as part of the number's text and ignores it) or
# decimal digits with an optional unit. Anything else (a fraction, a space before the unit, an
# unknown unit, 'e', 'z') is refused rather than guessed: fio reads "1.5M" as 1 byte and "4 k" as 4.
_HEX_SIZE = re.compile(r"\+?0[xX]([0-9a-fA-F]+)")
_DECIMAL_SIZE = re.compile(r"\+?([0-9]+)(?:([kKmMgGtTpP])([iI]?)([bB]?)|([bB]))?")
_SIZE_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
FIO_LARGEST_SIZE = (1 << 63) - 1
# A percentage of a file's or a device's size (fio: size=50%, offset=10%).
PERCENT_SIZE = re.compile(r"\+?[0-9]+(?:\.[0-9]+)?%")


def parse_size_bytes(value: str | None, *, kb_base: int = 1024) -> int | None:
    """A size as fio 3.33 reads it (4k, 1G, 512m, 1MiB, 0x20000000, +512M) in bytes; None otherwise.

    fio's default kb_base=1024 is its compatibility mode: K, M, G (and KB, MB,
    Ki, Mi) are powers of 1024 while KiB, MiB, GiB are powers of 1000, the
    opposite of the standards (fio's own documentation, and what fio 3.33 lays
    out). kb_base=1000 swaps them back. None for a percentage, a range, an
    empty value and every spelling fio would read differently from how it looks.
    """
    if value is None:
        return None
    text = str(value)
    hexadecimal = _HEX_SIZE.fullmatch(text)
    match = None if hexadecimal else _DECIMAL_SIZE.fullmatch(text)
    if hexadecimal:
        size = int(hexadecimal.group(1), 16)
    elif match is None:
        return None
    elif match.group(2) is None:
        size = int(match.group(1))
    else:
        other_base = 1000 if kb_base == 1024 else 1024
        # "KiB" is the other base; "Ki" and "KB" are kb_base (fio matches "kib" first, then "k").
        base = other_base if match.group(3) and match.group(4) else kb_base
        size = int(match.group(1)) * base ** _SIZE_POWERS[match.group(2).lower()]
    # fio reads the number with strtoll and multiplies in 64 bits: beyond that it refuses or wraps.
    return size if size <= FIO_LARGEST_SIZE else None


def fio_kb_base(value: str | None) -> int:
    """fio's kb_base option: 1000, else its default 1024."""
    return 1000 if (value or "").strip() == "1000" else 1024


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


def size_problem(text: str) -> str | None:
    """Why ``text`` is not a size in fio's syntax (4k, 1M, 1G, 512MiB), or None when it is one.

    The app's option editor and the command line's --size and --bs both ask this, so ``64Q``
    is refused in both places instead of reaching fio (which reads it as 64 bytes).
    """
    value = parse_size_bytes(str(text).strip(" "))
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
