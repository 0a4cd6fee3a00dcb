"""Varied keys and their values: parsing ``--vary KEY=V1,V2`` and ordering values.

A sweep axis is one varied key with the values to try, kept as the strings fio
reads. "Smallest value" (the sweet spot's rule) needs an order: numbers and fio
sizes (``4k``, ``2m``) sort by magnitude, anything else (engine names, targets)
keeps the order the user gave, which is how people list cheaper choices first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from iotui.core.fio.units import numeric_value

# Keys that are not fio options: the target directory, the benchmark tool, and
# the preset's job section to run alone.
TARGET_KEY = "target"
TOOL_KEY = "tool"
JOB_KEY = "job"
SPECIAL_KEYS = (TARGET_KEY, TOOL_KEY, JOB_KEY)
TOOLS = ("fio", "sysbench")

_KEY_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


class SweepValueError(Exception):
    """A varied entry (``KEY=V1,V2``) or ``[sweep]`` entry that cannot be used; str() says how to fix it.

    ``source`` says where a typed entry came from (``"vary"`` or ``"targets"``; None for a
    preset's table) and ``entry`` is the text as typed, so each front end can name it in its
    own terms (the command line as ``--vary 'numjobs'``). The sentence itself starts with the
    quoted entry and names no flag.
    """

    def __init__(self, message: str, *, source: str | None = None, entry: str | None = None) -> None:
        super().__init__(message)
        self.source = source
        self.entry = entry


@dataclass(frozen=True)
class SweepAxis:
    """One varied key and its values, in the order given."""

    key: str
    values: tuple[str, ...]

    def order(self) -> dict[str, int]:
        """Each value's rank from smallest to largest (see :func:`value_order`)."""
        return {value: rank for rank, value in enumerate(value_order(self.values))}


def value_order(values: Sequence[str]) -> list[str]:
    """Values from smallest to largest: by magnitude when all are numeric, else as given."""
    magnitudes = [numeric_value(value) for value in values]
    if all(magnitude is not None for magnitude in magnitudes):
        ranked = sorted(range(len(values)), key=lambda i: (magnitudes[i], i))
        return [values[i] for i in ranked]
    return list(values)


def _split_values(text: str, where: str, **facts: str | None) -> tuple[str, ...]:
    values = tuple(value.strip() for value in text.split(","))
    if not text.strip() or any(not value for value in values):
        raise SweepValueError(
            f"{where}: give the values separated by commas, with none empty (for example numjobs=1,2,4).", **facts
        )
    duplicates = sorted({value for value in values if values.count(value) > 1})
    if duplicates:
        raise SweepValueError(f"{where}: the value {duplicates[0]!r} is listed twice; list each value once.", **facts)
    return values


def _check_key(key: str, where: str, **facts: str | None) -> str:
    key = key.strip().lstrip("-")
    if not _KEY_PATTERN.match(key):
        raise SweepValueError(
            f"{where}: {key!r} is not an option name; use KEY=V1,V2 with a fio option such as numjobs or bs.", **facts
        )
    return key


def parse_vary(text: str) -> SweepAxis:
    """``KEY=V1,V2,...`` -> SweepAxis, or SweepValueError with the fix."""
    where = repr(text)
    facts: dict[str, str | None] = {"source": "vary", "entry": text}
    key, separator, values_text = text.partition("=")
    if not separator:
        raise SweepValueError(f"{where} should look like KEY=V1,V2 (for example numjobs=1,2,4,8).", **facts)
    key = _check_key(key, where, **facts)
    axis = SweepAxis(key, _split_values(values_text, where, **facts))
    _check_special(axis, where, **facts)
    return axis


def parse_targets(text: str) -> SweepAxis:
    """``DIR1,DIR2`` -> the ``target`` axis."""
    return SweepAxis(TARGET_KEY, _split_values(text, repr(text), source="targets", entry=text))


def axes_from_table(table: Mapping[str, object] | None, where: str) -> list[SweepAxis]:
    """A preset's ``[sweep]`` table as axes: ``vary = { key = [values] }`` (a list or a comma string)."""
    axes: list[SweepAxis] = []
    vary = (table or {}).get("vary", {})
    if not isinstance(vary, Mapping):
        raise SweepValueError(f"{where}: [sweep] vary should be a table of KEY = [values].")
    for raw_key, raw_values in vary.items():
        entry = f"{where} [sweep] vary.{raw_key}"
        key = _check_key(str(raw_key), entry)
        if key == "targets":
            key = TARGET_KEY
        if isinstance(raw_values, (list, tuple)):
            text = ",".join(str(value) for value in raw_values)
        else:
            text = str(raw_values)
        axis = SweepAxis(key, _split_values(text, entry))
        _check_special(axis, entry)
        axes.append(axis)
    return axes


def _check_special(axis: SweepAxis, where: str, **facts: str | None) -> None:
    if axis.key == TOOL_KEY:
        unknown = [value for value in axis.values if value not in TOOLS]
        if unknown:
            raise SweepValueError(f"{where}: tool {unknown[0]!r} is not known; use {' or '.join(TOOLS)}.", **facts)


def merge_axes(*groups: Iterable[SweepAxis]) -> list[SweepAxis]:
    """Concatenate axes; a key given twice is refused (it would multiply nothing)."""
    merged: list[SweepAxis] = []
    seen: set[str] = set()
    for group in groups:
        for axis in group:
            if axis.key in seen:
                raise SweepValueError(f"The key {axis.key!r} is varied twice; give all its values in one KEY=V1,V2 entry.")
            seen.add(axis.key)
            merged.append(axis)
    return merged
