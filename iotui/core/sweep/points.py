"""One sweep point's figures as the analysis needs them, and which points it can judge."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.numbers import number
from iotui.core.host.levels import CAUSES, Level
from iotui.core.host.verdict import verdict_text
from iotui.core.records.direction_figures import DirectionFigures
from iotui.core.records.record import RunRecord


@dataclass(frozen=True)
class PointResult:
    """One point's figures as the analysis needs them (absent figures are None)."""

    params: dict[str, str]
    read_iops: float | None = None
    write_iops: float | None = None
    read_bw_bytes: float | None = None
    write_bw_bytes: float | None = None
    read_lat_p99_ns: float | None = None
    write_lat_p99_ns: float | None = None
    read_lat_mean_ns: float | None = None
    write_lat_mean_ns: float | None = None
    read_lat_p50_ns: float | None = None
    write_lat_p50_ns: float | None = None
    read_lat_p90_ns: float | None = None
    write_lat_p90_ns: float | None = None
    read_lat_p99_9_ns: float | None = None
    write_lat_p99_9_ns: float | None = None
    responsiveness: str | None = None
    responsiveness_detail: str | None = None  # the verdict in words: level · signal value > threshold
    responsiveness_cause: str | None = None  # the signal behind a level above ok (levels.CAUSES)
    # The felt figures the level is judged by: each probe's worst second (p99) over the point's run.
    wakeup_p99_ms: float | None = None
    io_read_p99_ms: float | None = None
    io_write_p99_ms: float | None = None
    iops_per_fio_core: float | None = None
    iops_per_busy_core: float | None = None
    cpu_user_pct: float | None = None
    cpu_system_pct: float | None = None
    ctx_switches_per_s: float | None = None
    interrupts_per_s: float | None = None
    status: str = "completed"
    record: str | None = None
    mount_options: str | None = None
    sections: int = 1
    # A preset of several sections (fio reporting groups run one after another): each section's own
    # figures, in fio's order, named by ``section``; the point's own figures are then absent.
    section: str | None = None
    by_section: tuple[PointResult, ...] = ()

    @property
    def felt_responsiveness(self) -> str | None:
        """The level, where felt evidence gave it; "ok" for a level an older record took from io PSI alone."""
        if self.responsiveness not in (None, "ok") and self.responsiveness_cause is not None \
                and self.responsiveness_cause not in CAUSES:
            return "ok"
        return self.responsiveness

    @property
    def total_iops(self) -> float:
        """Read + write IOPS (the sweet spot's throughput)."""
        return (self.read_iops or 0.0) + (self.write_iops or 0.0)

    @property
    def total_bw_bytes(self) -> float:
        return (self.read_bw_bytes or 0.0) + (self.write_bw_bytes or 0.0)

    def throughput(self, metric: str) -> float:
        return self.total_bw_bytes if metric == "bw_bytes" else self.total_iops

    def latency_ns(self, kind: str) -> float | None:
        """The higher of the directions' ``kind`` latency ("p99" or "mean"): one direction's figure, never a blend."""
        values = [
            getattr(self, f"{direction}_lat_{kind}_ns")
            for direction in ("read", "write")
            if (getattr(self, f"{direction}_iops") or 0.0) > 0 or getattr(self, f"{direction}_lat_{kind}_ns") is not None
        ]
        present = [value for value in values if value is not None]
        return max(present) if present else None

    def latency_text(self, kind: str) -> str:
        """``read 118µs, write 3.23ms``: each direction's latency, named."""
        parts = [
            f"{direction} {fmt.latency_ns(value)}"
            for direction in ("read", "write")
            if (value := getattr(self, f"{direction}_lat_{kind}_ns")) is not None
        ]
        return ", ".join(parts) or fmt.NO_VALUE

    @classmethod
    def from_record(cls, record: RunRecord, params: Mapping[str, str], record_path: str | None = None) -> PointResult:
        """Take the figures from a RunRecord's one section; a record of several gives each section's own."""
        common = cls(
            params=dict(params),
            status=record.status,
            record=record_path if record_path is not None else (str(record.path) if record.path else None),
            mount_options=str(record.target.get("mount_options") or "") or None,
        )
        sections = record.sections
        if len(sections) > 1:
            by_section = tuple(
                with_figures(replace(common, section=str(section.get("name") or f"section {index + 1}")),
                             record.figures(index), section.get("cpu"),
                             section.get("pressure") or _least_responsive_host(record, index))
                for index, section in enumerate(sections)
            )
            return replace(common, sections=len(sections), by_section=by_section)
        only = record.only_section or {}
        return with_figures(common, record.figures(), only.get("cpu"), record.pressure or _least_responsive_host(record))


def _least_responsive_host(record: RunRecord, section: int | None = None) -> Mapping[str, object] | None:
    """A multi-host point's pressure: the least responsive host's (this machine is not probed when
    fio runs on the hosts); a section's own from each host's sections, or each host's whole run."""
    tables: list[Mapping[str, object]] = []
    for host in record.hosts:
        if section is None:
            table = host.get("pressure")
        else:
            host_sections = host.get("sections")
            entry = host_sections[section] if isinstance(host_sections, list) and section < len(host_sections) else None
            table = entry.get("pressure") if isinstance(entry, Mapping) else None
        if isinstance(table, Mapping) and table.get("responsiveness") in {level.value for level in Level}:
            tables.append(table)
    if not tables:
        return None
    return max(tables, key=lambda table: Level(table["responsiveness"]).rank)


def with_figures(point: PointResult, figures: Sequence[DirectionFigures], cpu: object, pressure: object) -> PointResult:
    """``point`` with the analysis's figures from one section's directions, its cpu table and a pressure table."""
    read = next((f for f in figures if f.direction == "read"), DirectionFigures("read"))
    write = next((f for f in figures if f.direction == "write"), DirectionFigures("write"))
    cpu_table: Mapping[str, object] = cpu if isinstance(cpu, Mapping) else {}
    pressure_table: Mapping[str, object] = pressure if isinstance(pressure, Mapping) else {}
    level = pressure_table.get("responsiveness")
    cause = pressure_table.get("cause")
    return replace(
        point,
        read_iops=read.iops, write_iops=write.iops,
        read_bw_bytes=read.bw_bytes, write_bw_bytes=write.bw_bytes,
        read_lat_p99_ns=read.lat_p99_ns, write_lat_p99_ns=write.lat_p99_ns,
        read_lat_mean_ns=read.lat_mean_ns, write_lat_mean_ns=write.lat_mean_ns,
        read_lat_p50_ns=read.lat_p50_ns, write_lat_p50_ns=write.lat_p50_ns,
        read_lat_p90_ns=read.lat_p90_ns, write_lat_p90_ns=write.lat_p90_ns,
        read_lat_p99_9_ns=read.lat_p99_9_ns, write_lat_p99_9_ns=write.lat_p99_9_ns,
        cpu_user_pct=number(cpu_table.get("user_pct")),
        cpu_system_pct=number(cpu_table.get("system_pct")),
        ctx_switches_per_s=number(cpu_table.get("ctx_switches_per_s")),
        interrupts_per_s=number(cpu_table.get("interrupts_per_s")),
        iops_per_fio_core=number(cpu_table.get("iops_per_fio_core")),
        iops_per_busy_core=number(cpu_table.get("iops_per_busy_core")),
        responsiveness=level if isinstance(level, str) else None,
        responsiveness_detail=verdict_text(pressure_table),
        responsiveness_cause=str(cause) if cause and level != "ok" else None,
        wakeup_p99_ms=number(pressure_table.get("probe_p99_ms_max")),
        io_read_p99_ms=number(pressure_table.get("io_probe_p99_ms_max")),
        io_write_p99_ms=number(pressure_table.get("io_probe_write_p99_ms_max")),
    )


# Statuses of whole results: a run that completed, an imported fio report, a published table row.
FINISHED_STATUSES = ("completed", "imported", "reference")


def usable_points(points: Iterable[PointResult]) -> list[PointResult]:
    """Points that finished and did I/O in one section: the only ones the analysis can judge."""
    return [
        point for point in points
        if point.status in FINISHED_STATUSES and point.sections <= 1
        and (point.total_iops > 0 or point.total_bw_bytes > 0)
    ]


def left_out_reason(point: PointResult) -> str:
    """Why a point is not in the analysis, in a few words."""
    if point.status not in FINISHED_STATUSES:
        return point.status
    if point.sections > 1:
        return f"it ran {point.sections} sections, each analysed on its own"
    return "no I/O"
