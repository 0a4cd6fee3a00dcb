"""One sweep point's figures as the analysis needs them, and which points it can judge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from iotui.core import format as fmt
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
        """Take the figures from a RunRecord's one section (a record of several has none to give)."""
        summary = record.summary
        read = summary.get("read", {})
        write = summary.get("write", {})
        cpu = summary.get("cpu", {})
        return cls(
            sections=max(len(getattr(record, "sections", [])), 1),
            cpu_user_pct=_number(cpu.get("user_pct")),
            cpu_system_pct=_number(cpu.get("system_pct")),
            ctx_switches_per_s=_number(cpu.get("ctx_switches_per_s")),
            interrupts_per_s=_number(cpu.get("interrupts_per_s")),
            params=dict(params),
            read_iops=_number(read.get("iops")),
            write_iops=_number(write.get("iops")),
            read_bw_bytes=_number(read.get("bw_bytes")),
            write_bw_bytes=_number(write.get("bw_bytes")),
            read_lat_p99_ns=_number(read.get("lat_p99_ns")),
            write_lat_p99_ns=_number(write.get("lat_p99_ns")),
            read_lat_mean_ns=_number(read.get("lat_mean_ns")),
            write_lat_mean_ns=_number(write.get("lat_mean_ns")),
            **{
                f"{direction}_{key}": _number(table.get(key))
                for direction, table in (("read", read), ("write", write))
                for key in ("lat_p50_ns", "lat_p90_ns", "lat_p99_9_ns")
            },
            responsiveness=summary.get("pressure", {}).get("responsiveness"),
            responsiveness_detail=verdict_text(summary.get("pressure")),
            iops_per_fio_core=_number(cpu.get("iops_per_fio_core")),
            iops_per_busy_core=_number(cpu.get("iops_per_busy_core")),
            status=record.status,
            record=record_path if record_path is not None else (str(record.path) if record.path else None),
            mount_options=record.target.get("mount_options") or None,
        )


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
        return f"it ran {point.sections} sections, and a point needs one figure"
    return "no I/O"
