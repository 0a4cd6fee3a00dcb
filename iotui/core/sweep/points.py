"""One sweep point's figures as the analysis needs them, and which points it can judge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from iotui.core import format as fmt
from iotui.core.host.levels import CAUSES
from iotui.core.host.verdict import verdict_text


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
    def from_record(cls, record: Any, params: Mapping[str, str], record_path: str | None = None) -> PointResult:
        """Take the figures from a RunRecord's one section; a record of several gives each section's own."""
        sections = [section for section in getattr(record, "sections", []) if isinstance(section, Mapping)]
        common: dict[str, Any] = {
            "params": dict(params),
            "status": record.status,
            "record": record_path if record_path is not None else (str(record.path) if record.path else None),
            "mount_options": record.target.get("mount_options") or None,
        }
        if len(sections) > 1:
            by_section = tuple(
                cls(section=str(section.get("name") or f"section {index + 1}"),
                    **figures_from_tables(section, section.get("pressure")), **common)
                for index, section in enumerate(sections)
            )
            return cls(sections=len(sections), by_section=by_section, **common)
        summary = record.summary
        return cls(sections=max(len(sections), 1), **figures_from_tables(summary, summary.get("pressure")), **common)


def figures_from_tables(tables: Mapping[str, Any], pressure: Any) -> dict[str, Any]:
    """The analysis's figures from one section's (or summary's) direction, cpu and pressure tables."""
    read = _table(tables.get("read"))
    write = _table(tables.get("write"))
    cpu = _table(tables.get("cpu"))
    pressure = _table(pressure)
    figures: dict[str, Any] = {
        f"{direction}_{key}": _number(table.get(key))
        for direction, table in (("read", read), ("write", write))
        for key in ("iops", "bw_bytes", "lat_p99_ns", "lat_mean_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_9_ns")
    }
    figures.update({
        key: _number(cpu.get(key))
        for key in ("user_pct", "system_pct", "ctx_switches_per_s", "interrupts_per_s",
                    "iops_per_fio_core", "iops_per_busy_core")
    })
    figures["cpu_user_pct"] = figures.pop("user_pct")
    figures["cpu_system_pct"] = figures.pop("system_pct")
    figures["responsiveness"] = pressure.get("responsiveness")
    figures["responsiveness_detail"] = verdict_text(pressure)
    cause = pressure.get("cause")
    figures["responsiveness_cause"] = str(cause) if cause and figures["responsiveness"] != "ok" else None
    for key, figure in (("wakeup_p99_ms", "probe_p99_ms_max"), ("io_read_p99_ms", "io_probe_p99_ms_max"),
                        ("io_write_p99_ms", "io_probe_write_p99_ms_max")):
        figures[key] = _number(pressure.get(figure))
    return figures


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


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
