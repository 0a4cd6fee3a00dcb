"""The one place numbers become text: IOPS, bytes/s, latencies, durations.

Values arrive in base units (ns, bytes, bytes/s, seconds); names carry the
unit. Shared by the CLI and the app so both print the same figure the same
way. Never imports Textual.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from iotui.core.numbers import number

NO_VALUE = "-"


def _missing(value: float) -> bool:
    """NaN reads as no value (None is checked before, so the type narrows)."""
    return isinstance(value, float) and math.isnan(value)


def iops(value: float | None) -> str:
    """12.3k style, like fio's own output."""
    if value is None or _missing(value):
        return NO_VALUE
    value = float(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= limit:
            scaled = value / limit
            return f"{scaled:.1f}{suffix}" if abs(scaled) < 100 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.1f}"


def bytes_per_s(value: float | None) -> str:
    """Binary units, as fio prints them (MiB/s)."""
    if value is None or _missing(value):
        return NO_VALUE
    return f"{size_bytes(value)}/s"


def size_bytes(value: float | None) -> str:
    if value is None or _missing(value):
        return NO_VALUE
    value = float(value)
    for limit, suffix in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if abs(value) >= limit:
            scaled = value / limit
            return f"{scaled:.1f}{suffix}" if abs(scaled) < 100 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}B"


def latency_ns(value: float | None) -> str:
    """ns, µs, ms or s with three significant figures."""
    if value is None or _missing(value):
        return NO_VALUE
    value = float(value)
    for limit, divisor, suffix in ((1e9, 1e9, "s"), (1e6, 1e6, "ms"), (1e3, 1e3, "µs")):
        # A value that rounds to 1000 of the smaller unit takes this one: 999.6 ns is 1.00µs, not
        # "1000ns" (a null-engine run's mean beside a p50 of 161ns). Only the unit moves, the value
        # is rounded once.
        if abs(value) >= limit * 0.9995:
            return _three_figures(value / divisor) + suffix
    return f"{value:.0f}ns"


def _three_figures(value: float) -> str:
    # The edges where rounding adds a figure: 9.996 is "10.0", not "10.00".
    if abs(value) >= 99.95:
        return f"{value:.0f}"
    if abs(value) >= 9.995:
        return f"{value:.1f}"
    return f"{value:.2f}"


def percent(value: float | None) -> str:
    if value is None or _missing(value):
        return NO_VALUE
    return f"{float(value):.1f}%"


def fio_percent(value: float | None) -> str:
    """A share fio printed itself (``usr_cpu``, ``cpu : usr=2.07%``), with fio's two decimals at most:
    2.07 stays 2.07%, 33.70 is 33.7%."""
    if value is None or _missing(value):
        return NO_VALUE
    return f"{float(value):.2f}".rstrip("0").rstrip(".") + "%"


def rate(value: float | None) -> str:
    """Events per second (context switches, interrupts)."""
    if value is None or _missing(value):
        return NO_VALUE
    return iops(value)


def duration_s(value: float | None) -> str:
    if value is None or _missing(value):
        return NO_VALUE
    total = int(round(float(value)))
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{seconds:02d}s"
    if minutes:
        return f"{minutes}m{seconds:02d}s"
    return f"{seconds}s"


def mib_per_s(value_bytes_per_s: float | None) -> str:
    """Plain MiB/s with one decimal, as in the studies' tables."""
    if value_bytes_per_s is None or _missing(value_bytes_per_s):
        return NO_VALUE
    return f"{float(value_bytes_per_s) / (1 << 20):,.1f}"


def microseconds(value_ns: float | None) -> str:
    """Plain µs with two decimals, as in the studies' tables."""
    if value_ns is None or _missing(value_ns):
        return NO_VALUE
    return f"{float(value_ns) / 1000:,.2f}"


def count(value: float | None) -> str:
    """A whole number with thousands separators (439,728), as in the studies' tables."""
    if value is None or _missing(value):
        return NO_VALUE
    return f"{float(value):,.0f}"


def section_heading(section: Mapping[str, object]) -> str:
    """``4k-direct (4k, QD32 x 4 jobs, randread, 10.0 s)``: what a section ran."""
    found = section.get("options")
    options: Mapping[str, object] = found if isinstance(found, Mapping) else {}
    parts = [str(options[key]) for key in ("bs",) if options.get(key)]
    if options.get("iodepth") or options.get("numjobs"):
        parts.append(f"QD{options.get('iodepth', '1')} x {options.get('numjobs', '1')} jobs")
    if options.get("rw"):
        parts.append(str(options["rw"]))
    section_s = number(section.get("duration_s"))
    if section_s is not None:
        parts.append(duration_s(section_s))
    paused_s = number(section.get("paused_s"))
    if paused_s:
        parts.append(paused(paused_s))
    names = section.get("jobs")
    jobs = [str(name) for name in (names if isinstance(names, list) else []) if name != section.get("name")]
    if jobs:
        parts.append("with " + ", ".join(jobs))
    return f"{section.get('name', '?')} ({', '.join(parts)})" if parts else str(section.get("name", "?"))


def paused(seconds: float | None) -> str:
    """``paused 12 s``: how long a run (or section) stood still; empty when never paused."""
    if seconds is None or _missing(seconds) or not seconds:
        return ""
    return f"paused {float(seconds):.0f} s" if seconds >= 1 else f"paused {float(seconds):.1f} s"


def size_spaced(value: float | None) -> str:
    """A size in binary units with a space and no trailing .0, for sentences: 12.3 GiB, 4 GiB."""
    if value is None or _missing(value):
        return NO_VALUE
    value = float(value)
    for limit, suffix in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if abs(value) >= limit:
            text = f"{value / limit:.1f}"
            return f"{text[:-2] if text.endswith('.0') else text} {suffix}"
    return f"{value:.0f} B"


def in_unit(value: float | None, divisor: float) -> str:
    """A number in a unit the column's header names (``6.72`` under "p99 ms"): three figures, or
    three decimals below 1 so that 0.120 ms keeps its µs."""
    if value is None or _missing(value):
        return NO_VALUE
    scaled = float(value) / divisor
    if 0 < abs(scaled) < 0.0005:
        # A null-engine run's p99 of 207 ns read "0.000" under "p99 ms", as if it were none.
        return "<0.001" if scaled > 0 else ">-0.001"
    return f"{scaled:.3f}" if abs(scaled) < 1 else _three_figures(scaled)


_LATENCY_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns"))
_RATE_UNITS = ((float(1 << 30), "GiB/s"), (float(1 << 20), "MiB/s"), (float(1 << 10), "KiB/s"), (1.0, "B/s"))


def latency_unit(values_ns: Sequence[float | None]) -> tuple[str, float]:
    """(unit, divisor) that shows the largest of these latencies in ns, µs, ms or s, for a shared header."""
    return _unit_for(values_ns, _LATENCY_UNITS)


def bytes_rate_unit(values: Sequence[float | None]) -> tuple[str, float]:
    """(unit, divisor) in binary units (KiB/s, MiB/s, GiB/s) for the largest of these rates."""
    return _unit_for(values, _RATE_UNITS)


def _unit_for(values: Sequence[float | None], units: tuple[tuple[float, str], ...]) -> tuple[str, float]:
    largest = max((abs(float(v)) for v in values if v is not None and not _missing(v)), default=0.0)
    for divisor, unit in units:
        if largest >= divisor:
            return unit, divisor
    divisor, unit = units[-1]
    return unit, divisor


def hosts(names: Sequence[str], most: int = 8) -> str:
    """``2 hosts: h1,h2``; past ``most`` names, the first ones and how many more (a line, not a table)."""
    listed = ",".join(names[:most])
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return f"{len(names)} host{'' if len(names) == 1 else 's'}: {listed}{more}"
