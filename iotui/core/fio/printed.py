"""fio's printed figures: reading them (every unit fio prints) and checking an exact figure against them.

fio prints IOPS and bandwidth rounded (``IOPS=14.3k``, ``BW=22.7MiB/s``,
``iops=5``, ``bw=958205Kbit/s``). Where a report also holds the exact inputs
(I/O count, bytes, runtime), the exact figure is kept only when printing it
the way fio prints reproduces the text: :func:`fio_num2str` is fio's
``num2str()`` (lib/num2str.c), and fio computes the printed value by integer
division first (``iops = 1000 * total_ios / runtime``), which is why fio 2.x
shows a job of 4,232 I/Os in 792.6 s as ``iops=5``.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# fio 3.x: "k"/"M"/"G" are powers of 1000, "Ki"/"Mi"/"Gi" of 1024 (num2str's sistr/iecstr).
_V3_PREFIX = {"": 1, "k": 1000, "K": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4, "P": 1000**5,
              "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50}
# fio 2.x printed binary multiples with decimal-looking names ("KB/s" meant KiB/s, "Kbit/s" 1024 bits).
_V2_PREFIX = {"": 1, "k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50,
              "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50}
_COUNT_SUFFIX = {"": 1, "k": 1000, "K": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4}
RATE = re.compile(r"(?P<num>\d+(?:\.\d+)?)(?P<prefix>[kKMGTP]i?)?(?P<unit>B|bit)?(?:/s)?")
COUNT = re.compile(r"(?P<num>\d+(?:\.\d+)?)(?P<prefix>[kKMGT]?)")

_SI = ("", "k", "M", "G", "T", "P")
_IEC = ("", "Ki", "Mi", "Gi", "Ti", "Pi")
_V2_NAMES = ("", "K", "M", "G", "P", "E")


def bytes_of(text: str, *, legacy: bool) -> Decimal:
    """``22.7MiB/s`` -> bytes (per second); ``958205Kbit/s`` -> bits / 8. ``legacy``: fio 2.x's names."""
    match = RATE.fullmatch(text.strip())
    if not match:
        raise InvalidOperation(text)
    prefix = match.group("prefix") or ""
    value = Decimal(match.group("num")) * (_V2_PREFIX if legacy else _V3_PREFIX)[prefix]
    return value / 8 if match.group("unit") == "bit" else value


def count_of(text: str) -> Decimal:
    """``114751k`` -> 114751000: fio abbreviates IOPS and I/O counts with k/M (x1000)."""
    match = COUNT.fullmatch(text.strip())
    if not match:
        raise InvalidOperation(text)
    return Decimal(match.group("num")) * _COUNT_SUFFIX[match.group("prefix")]


def fio_num2str(num: int, maxlen: int, pow2: bool, names: tuple[str, ...], rollover: bool = True) -> str:
    """fio's ``num2str(num, maxlen, 1, pow2, N2S_NONE)`` without the unit: digits and prefix.

    ``rollover``: fio 3.x since 2018 carries ``0.95`` -> ``1.0`` into the integer
    part; older versions print the digits after the point as they come.
    """
    thousand = 1024 if pow2 else 1000
    post_index = 0
    modulo: int | None = None
    carry = False
    while post_index < len(names) and len(str(num)) > maxlen:
        modulo = num % thousand
        num //= thousand
        carry = modulo >= thousand // 2
        post_index += 1
    if post_index >= len(names):
        post_index = 0
    if modulo is None:
        return f"{num}{names[post_index]}"
    decimals = maxlen - len(str(num)) - 1
    if decimals <= 0:
        return f"{num + (1 if carry else 0)}{names[post_index]}"
    fraction = f"{modulo / thousand:.{decimals}f}"
    if fraction[0] == "1" and rollover:
        num += 1
    return f"{num}.{fraction[2:]}{names[post_index]}"


def legacy_num2str(num: int, maxlen: int, pow2: bool, first: int = 0) -> str:
    """fio 2.x's ``num2str``: the digits after the point are the remainder, divided by 10 (rounding up)
    until they fit. ``first``: the value is already in K (fio 2.x's group lines count KiB)."""
    thousand = 1024 if pow2 else 1000
    post_index, modulo, carry = first, None, False
    while post_index < len(_V2_NAMES) - 1 and len(str(num)) > maxlen:
        modulo = num % thousand
        num //= thousand
        carry = modulo >= thousand // 2
        post_index += 1
    if modulo is None:
        return f"{num}{_V2_NAMES[post_index]}"
    decimals = maxlen - len(str(num))
    if decimals <= 1:
        return f"{num + (1 if carry else 0)}{_V2_NAMES[post_index]}"
    while len(str(modulo)) > decimals - 1:
        modulo = (modulo + 9) // 10
    return f"{num}.{modulo}{_V2_NAMES[post_index]}"


def reproduces(value: int, printed: str, *, pow2: bool, legacy: bool, first: int = 0) -> bool:
    """Whether fio, printing the whole number ``value``, could have printed ``printed`` (its digits and prefix).

    fio prints with ``significant_figures`` digits (4 by default in 3.x, 6 in 2.x; 1 to 10 allowed).
    """
    text = printed.strip().lower()
    names = _IEC if pow2 else _SI
    for maxlen in range(1, 11):
        if legacy and legacy_num2str(value, maxlen, pow2, first).lower() == text:
            return True
        if not legacy and any(fio_num2str(value, maxlen, pow2, names, r).lower() == text for r in (True, False)):
            return True
    return False


def split_rate(text: str) -> tuple[str, bool, int]:
    """``22.7MiB/s`` -> (``22.7Mi``, pow2, 8 or 1 for bits): what :func:`reproduces` compares."""
    match = RATE.fullmatch(text.strip())
    if not match:
        raise InvalidOperation(text)
    prefix = match.group("prefix") or ""
    bits = match.group("unit") == "bit"
    return match.group("num") + prefix, prefix.endswith("i"), 1 if bits else 8
