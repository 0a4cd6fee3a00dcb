"""fio intervals -> the record's ``[[samples]]`` rows, and the host's CPU averages.

The per-section figures of fio's final document live in
:mod:`iotui.core.fio.sections`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from iotui.core.fio.intervals import PERCENTILES, IntervalSample

if TYPE_CHECKING:
    from iotui.core.host.counters import HostSample


def sample_row(interval: IntervalSample, host: HostSample | None = None) -> dict[str, object]:
    """One ``[[samples]]`` row: fio's interval figures beside the host's."""
    row: dict[str, object] = {"t_s": round(interval.t_s, 3), "dt_s": round(interval.dt_s, 3)}
    if interval.paused:
        row["paused"] = True
    for direction, figures in interval.directions.items():
        row[f"{direction}_iops"] = figures.iops
        row[f"{direction}_bw_bytes"] = figures.bw_bytes
        row[f"{direction}_lat_mean_ns"] = figures.lat_mean_ns
        for name, _ in PERCENTILES:
            row[f"{direction}_lat_{name}_ns"] = figures.lat_percentiles_ns.get(name)
        row[f"{direction}_lat_max_ns"] = figures.lat_max_ns
    if host is not None:
        for key in HOST_SAMPLE_KEYS:
            row[key] = getattr(host, key, None)
    return row


# Host figures kept per sample in the record (absent where the platform lacks them).
HOST_SAMPLE_KEYS = (
    "cpu_user_pct",
    "cpu_system_pct",
    "cpu_iowait_pct",
    "ctx_switches_per_s",
    "interrupts_per_s",
    "device_read_iops",
    "device_write_iops",
    "psi_cpu_some_pct",
    "psi_io_some_pct",
    "psi_io_full_pct",
    "psi_memory_some_pct",
    "psi_memory_full_pct",
    "fio_cpu_cores",
)


def _mean(values: Iterable[float | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def cpu_summary(host_samples: Sequence[HostSample], total_iops: float) -> dict[str, float]:
    """Averages of the host samples taken while fio ran, and IOPS per core."""
    table: dict[str, float | None] = {
        "user_pct": _mean(s.cpu_user_pct for s in host_samples),
        "system_pct": _mean(s.cpu_system_pct for s in host_samples),
        "iowait_pct": _mean(s.cpu_iowait_pct for s in host_samples),
        "ctx_switches_per_s": _mean(s.ctx_switches_per_s for s in host_samples),
        "interrupts_per_s": _mean(s.interrupts_per_s for s in host_samples),
        "fio_cpu_cores": _mean(s.fio_cpu_cores for s in host_samples),
    }
    busy_cores = _mean(s.busy_cores for s in host_samples)
    fio_cores = table["fio_cpu_cores"]
    table["iops_per_fio_core"] = total_iops / fio_cores if fio_cores else None
    table["iops_per_busy_core"] = total_iops / busy_cores if busy_cores else None
    return {key: value for key, value in table.items() if value is not None}
