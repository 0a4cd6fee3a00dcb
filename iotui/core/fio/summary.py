"""fio's final document -> the record's ``[summary.*]`` tables and samples.

With one job entry (one job, or ``group_reporting``) every figure is copied
from fio's own report, so it equals fio's numbers exactly. Several job entries
are aggregated: IOPS, bandwidth and counts are summed, the mean latency is
N-weighted, min/max are the extremes, and percentiles are walked over the
merged histogram bins the way fio walks them.
"""

from __future__ import annotations

from typing import Any, Iterable

from iotui.core.fio.intervals import (
    DIRECTIONS,
    PERCENTILES,
    IntervalSample,
    fio_percentiles,
    snapshot_from_document,
)

# fio's JSON percentile keys for the percentiles iotui reports.
_FIO_PERCENTILE_KEYS = {name: f"{value:.6f}" for name, value in PERCENTILES}


def _did_io(stats: dict) -> bool:
    return bool(stats.get("total_ios") or stats.get("io_bytes") or stats.get("runtime"))


def _single_job_direction(stats: dict) -> dict[str, Any]:
    clat = stats.get("clat_ns") or {}
    table: dict[str, Any] = {
        "iops": float(stats.get("iops", 0.0)),
        "bw_bytes": int(stats.get("bw_bytes", 0)),
        "io_bytes": int(stats.get("io_bytes", 0)),
        "total_ios": int(stats.get("total_ios", 0)),
    }
    if clat.get("N"):
        table["lat_mean_ns"] = float(clat.get("mean", 0.0))
        table["lat_min_ns"] = int(clat.get("min", 0))
        table["lat_max_ns"] = int(clat.get("max", 0))
        percentiles = clat.get("percentile") or {}
        for name, key in _FIO_PERCENTILE_KEYS.items():
            if key in percentiles:
                table[f"lat_{name}_ns"] = int(percentiles[key])
    return table


def _aggregate_direction(jobs: list[dict], direction: str) -> dict[str, Any]:
    snapshot = snapshot_from_document({"jobs": jobs})
    totals = snapshot.directions[direction]
    table: dict[str, Any] = {
        "iops": sum(float(job[direction].get("iops", 0.0)) for job in jobs if direction in job),
        "bw_bytes": sum(int(job[direction].get("bw_bytes", 0)) for job in jobs if direction in job),
        "io_bytes": totals.io_bytes,
        "total_ios": totals.total_ios,
    }
    if totals.clat_n:
        table["lat_mean_ns"] = totals.clat_sum_ns / totals.clat_n
        table["lat_min_ns"] = totals.clat_min_ns
        table["lat_max_ns"] = totals.clat_max_ns
        sorted_bins = sorted(totals.bins.items())
        values = fio_percentiles(sorted_bins, totals.clat_n, tuple(p for _, p in PERCENTILES))
        for (name, _), value in zip(PERCENTILES, values):
            if value is not None:
                table[f"lat_{name}_ns"] = value
    return table


def direction_summaries(doc: dict) -> dict[str, dict[str, Any]]:
    """``{direction: table}`` for each direction that did I/O."""
    jobs = [job for job in doc.get("jobs") or [] if isinstance(job, dict)]
    summaries: dict[str, dict[str, Any]] = {}
    for direction in DIRECTIONS:
        doing = [job for job in jobs if isinstance(job.get(direction), dict) and _did_io(job[direction])]
        if not doing:
            continue
        if len(jobs) == 1:
            summaries[direction] = _single_job_direction(jobs[0][direction])
        else:
            summaries[direction] = _aggregate_direction(doing, direction)
    return summaries


def job_summaries(doc: dict) -> list[dict[str, Any]]:
    """One row per fio job name (sections of a preset), aggregated over clones."""
    jobs = [job for job in doc.get("jobs") or [] if isinstance(job, dict)]
    by_name: dict[str, list[dict]] = {}
    for job in jobs:
        by_name.setdefault(str(job.get("jobname", "")), []).append(job)
    rows: list[dict[str, Any]] = []
    for name, clones in by_name.items():
        row: dict[str, Any] = {"name": name}
        options = clones[0].get("job options") or {}
        for key in ("rw", "bs", "iodepth", "numjobs", "ioengine", "direct"):
            if key in options:
                row[key] = str(options[key])
        sub_doc = {"jobs": clones}
        for direction, table in direction_summaries(sub_doc).items():
            for key, value in table.items():
                row[f"{direction}_{key}"] = value
        rows.append(row)
    return rows


def sample_row(interval: IntervalSample, host: Any | None = None) -> dict[str, Any]:
    """One ``[[samples]]`` row: fio's interval figures beside the host's."""
    row: dict[str, Any] = {"t_s": round(interval.t_s, 3), "dt_s": round(interval.dt_s, 3)}
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
    "fio_cpu_cores",
)


def _mean(values: Iterable[float | None]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def cpu_summary(host_samples: list[Any], total_iops: float) -> dict[str, Any]:
    """Averages of the host samples taken while fio ran, and IOPS per core."""
    table: dict[str, Any] = {
        "user_pct": _mean(getattr(s, "cpu_user_pct", None) for s in host_samples),
        "system_pct": _mean(getattr(s, "cpu_system_pct", None) for s in host_samples),
        "iowait_pct": _mean(getattr(s, "cpu_iowait_pct", None) for s in host_samples),
        "ctx_switches_per_s": _mean(getattr(s, "ctx_switches_per_s", None) for s in host_samples),
        "interrupts_per_s": _mean(getattr(s, "interrupts_per_s", None) for s in host_samples),
        "fio_cpu_cores": _mean(getattr(s, "fio_cpu_cores", None) for s in host_samples),
    }
    busy_cores = _mean(getattr(s, "busy_cores", None) for s in host_samples)
    fio_cores = table["fio_cpu_cores"]
    table["iops_per_fio_core"] = total_iops / fio_cores if fio_cores else None
    table["iops_per_busy_core"] = total_iops / busy_cores if busy_cores else None
    return {key: value for key, value in table.items() if value is not None}
