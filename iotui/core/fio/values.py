"""The one check of an edited option's value (runtime, size, bs, iodepth, numjobs).

The app's option editor and the command line (``--runtime``, ``--size``, ``--set KEY=VALUE``)
both ask :func:`value_problem`, so ``runtime=abc``, ``bs=4Q`` or ``iodepth=-1`` is refused
with the same words in both places before fio starts (fio would read ``64Q`` as 64 bytes,
and fail on ``abc`` only after iotui had set the run up). fio's units are read by
:mod:`iotui.core.fio.units`.
"""

from __future__ import annotations

from iotui.core.fio.units import parse_seconds, parse_size_bytes, size_problem

# The options whose values are checked here, by fio's canonical names (the editor's fields).
CHECKED_OPTIONS = ("runtime", "size", "bs", "iodepth", "numjobs")


def runtime_problem(text: str) -> str | None:
    """Why ``text`` is not a runtime above 0 in fio's time syntax (10, 10s, 2m, 500ms), or None."""
    seconds = parse_seconds(text)
    if seconds is None or seconds <= 0:
        return f"should be a number of seconds above 0 (such as 10, 10s or 2m), not {text!r}"
    return None


def runtime_seconds(text: str) -> float | None:
    """The runtime ``text`` in seconds, or None when :func:`runtime_problem` refuses it."""
    return None if runtime_problem(text) else parse_seconds(text)


# fio keeps iodepth and numjobs in 32 bits: it reads numjobs=4294967298 as 2 jobs, so a larger
# count is refused rather than judged as a number fio would not run.
COUNT_MAX = 2**32 - 1


def _count_problem(text: str) -> str | None:
    stripped = text.strip()
    # ASCII digits only: isdigit() also takes '²' (which int() refuses) and other scripts' digits (which fio does).
    if not (stripped.isascii() and stripped.isdigit()) or not 1 <= int(stripped) <= COUNT_MAX:
        return f"should be a whole number from 1 to {COUNT_MAX}, not {text!r}"
    return None


def _block_size_problem(text: str) -> str | None:
    """bs takes one size, or one per direction separated by commas (``4k,64k``; an empty part keeps fio's)."""
    parts = text.split(",")
    if len(parts) > 3 or not any(part.strip() for part in parts) or any(
        part.strip() and size_problem(part) for part in parts
    ):
        return f"should be a size such as 4k or 64k (or one per direction, 4k,64k), not {text!r}"
    return None


_CHECKS = {
    "runtime": runtime_problem,
    "size": size_problem,
    "bs": _block_size_problem,
    "iodepth": _count_problem,
    "numjobs": _count_problem,
}


def value_problem(option: str, text: str) -> str | None:
    """Why ``text`` is not a value for fio's option ``option`` (canonical name), or None.

    The answer is a clause to put after the option's name: ``runtime should be a number
    of seconds above 0 ..., not 'abc'``. Options outside :data:`CHECKED_OPTIONS` are not
    judged here (the option policy still judges them).
    """
    check = _CHECKS.get(option)
    return check(str(text)) if check else None


# What fio 3.33 accepts for rw (``fio --cmdhelp=rw``), compared as fio does: exactly, case and all,
# up to a ``:N`` that sets the offset's increment (randread:8).
RW_VALUES = ("read", "write", "trim", "randread", "randwrite", "randtrim", "rw", "readwrite", "randrw",
             "trimwrite", "randtrimwrite")
# Whole numbers fio reads with its size suffixes (iodepth=4k is 4096) and whose smallest value is 1.
_COUNT_OPTIONS = frozenset({"iodepth", "numjobs"})
# fio's own types (``fio --cmdhelp=OPTION``), for a few common options: 0 or 1 ("boolean value",
# range 0 to 1), a time ("string with time postfix") and a percentage (range 0 to 100). Only what
# fio surely refuses is refused here (a value with no digit; a plain number out of the range):
# fio reads 0x1 and 01 as 1, so any other spelling is left to fio, whose refusal saves nothing.
BOOLEAN_OPTIONS = frozenset({"direct", "buffered"})
TIME_OPTIONS = frozenset({"runtime", "ramp_time"})
PERCENT_OPTIONS = frozenset({"rwmixread", "rwmixwrite"})


def _out_of_range(value: str, high: int) -> bool:
    """True where fio surely refuses ``value`` for an option from 0 to ``high``."""
    stripped = value.strip()
    if not any(character.isdigit() for character in stripped):
        return True
    return stripped.isascii() and stripped.isdigit() and int(stripped) > high


def fio_would_refuse(option: str, value: str) -> str | None:
    """What fio accepts for ``option``, where fio's own parser would refuse ``value`` before any job
    starts (``rw=randreed``, ``iodepth=abc``), or None."""
    if option == "rw":
        if value.split(":", 1)[0].split(",", 1)[0] not in RW_VALUES:
            return f"fio accepts {', '.join(RW_VALUES)} (with an optional :N, such as randread:8)"
    elif option in _COUNT_OPTIONS:
        count = parse_size_bytes(value.strip())
        if count is None or count < 1:
            return "fio wants a whole number of 1 or more (such as 1, 16 or 64)"
    elif option in BOOLEAN_OPTIONS and _out_of_range(value, 1):
        return "fio accepts 0 or 1"
    elif option in PERCENT_OPTIONS and _out_of_range(value, 100):
        return "fio accepts a whole number from 0 to 100 (a percentage)"
    elif option in TIME_OPTIONS and not any(character.isdigit() for character in value):
        return "fio wants a time such as 10s, 500ms or 2m (a bare number is seconds)"
    return None
