"""One typed view of a section's figures per direction, read from the record's section table.

A record keeps each section as a TOML table (``[sections.read]``, ``[sections.write]``...), whose
keys ``docs/record-format.md`` lists. Everything that reads those figures back (compare, exports,
sweeps, History, the report, the cache checks) reads them through :func:`direction_figures`: one
place says which keys a direction holds and how a value becomes a figure (a number, never a
``bool``; absent where the table has none). The view never writes: the section table stays the
record's one copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from iotui.core.numbers import number
from iotui.core.records.schema import CPU_KEYS, DIRECTION_KEYS, DIRECTIONS

# The figures a direction holds, in the record's own keys and units (ns, bytes, bytes/s, IO/s):
# the schema's own list, so a key added there is read here too.
FIGURE_KEYS = DIRECTION_KEYS


@dataclass(frozen=True)
class DirectionFigures:
    """One direction of one section (``read``, ``write``, ``trim`` or fio's ``mixed``); absent figures are None."""

    direction: str
    iops: float | None = None
    bw_bytes: float | None = None
    io_bytes: float | None = None
    total_ios: float | None = None
    lat_mean_ns: float | None = None
    lat_min_ns: float | None = None
    lat_max_ns: float | None = None
    lat_p50_ns: float | None = None
    lat_p90_ns: float | None = None
    lat_p99_ns: float | None = None
    lat_p99_9_ns: float | None = None
    iops_printed: float | None = None  # an imported text report's rate as fio printed it (rounded)
    bw_bytes_printed: float | None = None
    lat_source: str | None = None  # where the latency came from (schema.LAT_SOURCES); None: fio's own job entry

    def figure(self, key: str) -> float | None:
        """One figure by its record key (``lat_p99_ns``); None for a key a direction does not hold."""
        if key not in FIGURE_KEYS:
            return None
        value: float | None = getattr(self, key)
        return value

    @property
    def known_bw_bytes(self) -> float | None:
        """The bandwidth, or None where a published table gave IOPS only (its 0 is "unknown", not a figure)."""
        if not self.bw_bytes and self.iops:
            return None
        return self.bw_bytes


def direction_figures(section: Mapping[str, object], direction: str) -> DirectionFigures | None:
    """The figures of one direction of a section table; None where that direction did no I/O
    (and for a name that is no direction, such as ``cpu``)."""
    table = section.get(direction)
    if direction not in DIRECTIONS or not isinstance(table, Mapping):
        return None
    source = table.get("lat_source")
    figures = {key: number(table.get(key)) for key in FIGURE_KEYS}
    return DirectionFigures(direction, **figures, lat_source=source if isinstance(source, str) else None)


def section_figures(section: Mapping[str, object]) -> tuple[DirectionFigures, ...]:
    """Every direction that did I/O in one section, in read/write/trim/mixed order."""
    found = (direction_figures(section, direction) for direction in DIRECTIONS)
    return tuple(figures for figures in found if figures is not None)


def section_directions(section: Mapping[str, object]) -> list[str]:
    """The directions that did I/O in one section, in read/write/trim/mixed order."""
    return [figures.direction for figures in section_figures(section)]


def section_metric(section: Mapping[str, object], direction: str, key: str) -> float | None:
    """One figure of one section's direction (None where absent)."""
    figures = direction_figures(section, direction)
    return figures.figure(key) if figures is not None else None


def section_total_iops(section: Mapping[str, object]) -> float:
    """Read + write + trim IOPS of one section: directions that ran at the same time."""
    return sum(figures.iops or 0.0 for figures in section_figures(section))


def worst_p99_ns(section: Mapping[str, object]) -> float | None:
    """The higher p99 of a section's directions (they ran at the same time); None where none has one."""
    values = [figures.lat_p99_ns for figures in section_figures(section) if figures.lat_p99_ns is not None]
    return max(values) if values else None


# The figures of a section's ``cpu`` table (schema.CPU_KEYS): the host's shares and rates while fio
# ran, fio's own cost, and IOPS per core. Not a direction's figures: they belong to the section.
@dataclass(frozen=True)
class CpuFigures:
    """One section's CPU cost; absent figures are None."""

    user_pct: float | None = None
    system_pct: float | None = None
    iowait_pct: float | None = None
    ctx_switches_per_s: float | None = None
    interrupts_per_s: float | None = None
    fio_user_pct: float | None = None  # fio's own processes, where the platform could tell them apart
    fio_system_pct: float | None = None
    fio_cpu_cores: float | None = None
    iops_per_fio_core: float | None = None
    iops_per_busy_core: float | None = None

    @property
    def has_fio_split(self) -> bool:
        """True where fio's own user or system share was measured."""
        return self.fio_user_pct is not None or self.fio_system_pct is not None


def cpu_figures(section: Mapping[str, object]) -> CpuFigures | None:
    """The figures of a section's ``cpu`` table; None where the section has none (or an empty one)."""
    table = section.get("cpu")
    if not isinstance(table, Mapping) or not table:
        return None
    return CpuFigures(**{key: number(table.get(key)) for key in CPU_KEYS})
