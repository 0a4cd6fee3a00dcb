"""fio's final document -> the record's sections: one per reporting group, as fio reports it.

A section is one fio ``groupid`` (jobs that ran at the same time; ``stonewall`` or
``new_group`` starts the next), in fio's order, named after its first job, with
every job name listed (numjobs clones are one name).

With one job entry in the group (one job, or ``group_reporting``) every figure
is copied from fio's report. With several entries fio's JSON has no group total,
so the group's figures are computed the way fio computes them when it merges a
group (``sum_thread_stats`` in fio's stat.c): bytes and I/O counts summed, the
runtime is the longest job's, bandwidth = bytes × 1000 / runtime (integer, which
is also the "Run status group" line), IOPS = I/Os × 1000 / runtime, the mean
latency N-weighted, min/max the extremes, and percentiles walked over the merged
json+ bins. ``docs/numbers.md`` says why.
"""

from __future__ import annotations

from typing import Any

from iotui.core.fio.intervals import DIRECTIONS, PERCENTILES, fio_percentiles

_FIO_PERCENTILE_KEYS = {name: f"{value:.6f}" for name, value in PERCENTILES}
# Options a section shows: what it ran with.
SECTION_OPTION_KEYS = (
    "rw", "bs", "iodepth", "numjobs", "ioengine", "direct", "size", "runtime", "rate_iops", "rate",
    "rwmixread", "sync", "fsync", "buffered", "time_based",
)


def _did_io(stats: Any) -> bool:
    return isinstance(stats, dict) and bool(stats.get("total_ios") or stats.get("io_bytes") or stats.get("runtime"))


def group_entries(doc: dict) -> list[tuple[int, list[dict]]]:
    """``(groupid, job entries)`` per reporting group, in fio's order."""
    groups: dict[int, list[dict]] = {}
    for job in doc.get("jobs") or []:
        if not isinstance(job, dict):
            continue
        groupid = job.get("groupid", 0)
        groups.setdefault(int(groupid) if isinstance(groupid, (int, float)) else 0, []).append(job)
    return sorted(groups.items())


def copied_direction(stats: dict) -> dict[str, Any]:
    """One job entry's direction, copied from fio's report."""
    clat = stats.get("clat_ns") or {}
    table: dict[str, Any] = {
        "iops": float(stats.get("iops", 0.0)),
        "bw_bytes": int(stats.get("bw_bytes", 0)),
        "io_bytes": int(stats.get("io_bytes", 0)),
    }
    if not stats.get("total_ios_derived"):  # fio 2.1.x: no count in the report; absent, not a guess
        table["total_ios"] = int(stats.get("total_ios", 0))
    if clat.get("N"):
        if stats.get("lat_derived"):
            table["lat_source"] = "derived"
        table["lat_mean_ns"] = float(clat.get("mean", 0.0))
        for key in ("min", "max"):
            if clat.get(key) is not None:
                table[f"lat_{key}_ns"] = int(clat[key])
        percentiles = clat.get("percentile") or {}
        for name, key in _FIO_PERCENTILE_KEYS.items():
            if key in percentiles:
                table[f"lat_{name}_ns"] = int(percentiles[key])
    return table


def merged_direction(entries: list[dict]) -> dict[str, Any]:
    """Several job entries' direction merged the way fio merges a group (see the module doc)."""
    io_bytes = sum(int(e.get("io_bytes", 0) or 0) for e in entries)
    total_ios = sum(int(e.get("total_ios", 0) or 0) for e in entries)
    runtime_ms = max(int(e.get("runtime", 0) or 0) for e in entries)
    table: dict[str, Any] = {
        "iops": 1000.0 * total_ios / runtime_ms if runtime_ms else 0.0,
        "bw_bytes": io_bytes * 1000 // runtime_ms if runtime_ms else 0,
        "io_bytes": io_bytes,
        "total_ios": total_ios,
    }
    if any(e.get("total_ios_derived") for e in entries):
        del table["total_ios"]  # fio 2.1.x: counts derived from IOPS x runtime are not kept as counts
    clats = [e.get("clat_ns") or {} for e in entries]
    counted = [c for c in clats if c.get("N")]
    n = sum(int(c["N"]) for c in counted)
    if not n:
        return table
    table["lat_mean_ns"] = sum(float(c.get("mean", 0.0)) * int(c["N"]) for c in counted) / n
    if all(c.get("min") is not None and c.get("max") is not None for c in counted):
        table["lat_min_ns"] = min(int(c["min"]) for c in counted)
        table["lat_max_ns"] = max(int(c["max"]) for c in counted)
    if all(isinstance(c.get("bins"), dict) for c in counted):
        merged: dict[int, int] = {}
        for clat in counted:
            for value, count in clat["bins"].items():
                merged[int(value)] = merged.get(int(value), 0) + int(count)
        if sum(merged.values()) == n:
            values = fio_percentiles(sorted(merged.items()), n, tuple(p for _, p in PERCENTILES))
            for (name, _), value in zip(PERCENTILES, values):
                if value is not None:
                    table[f"lat_{name}_ns"] = value
            table["lat_source"] = "bins"
    if any(e.get("lat_derived") for e in entries):
        table["lat_source"] = "derived"
    return table


def _fio_cpu(entries: list[dict]) -> dict[str, float]:
    """fio's usr/sys for the group: each entry's share weighted by its job runtime, as fio sums them."""
    usable = [e for e in entries if isinstance(e.get("usr_cpu"), (int, float))]
    if not usable:
        return {}
    weights = [float(e.get("job_runtime") or 0) for e in usable]
    if not all(weights):
        weights = [1.0] * len(usable)
    total = sum(weights)
    return {
        "fio_user_pct": sum(float(e["usr_cpu"]) * w for e, w in zip(usable, weights)) / total,
        "fio_system_pct": sum(float(e.get("sys_cpu", 0.0)) * w for e, w in zip(usable, weights)) / total,
    }


def _options(entries: list[dict], global_options: dict) -> dict[str, str]:
    """The group's options; where its jobs differ (4k and 8k), the distinct values joined by "/"."""
    options = {k: str(v) for k, v in global_options.items() if k in SECTION_OPTION_KEYS}
    seen: dict[str, list[str]] = {}
    for entry in entries:
        for key, value in (entry.get("job options") or {}).items():
            if key in SECTION_OPTION_KEYS and str(value) not in seen.setdefault(key, []):
                seen[key].append(str(value))
    options.update({key: "/".join(values) for key, values in seen.items()})
    if "numjobs" not in options and len(entries) > 1 and len({e.get("jobname") for e in entries}) == 1:
        options["numjobs"] = str(len(entries))
    return options


def section_of_group(groupid: int, entries: list[dict], global_options: dict | None = None) -> dict[str, Any]:
    """One reporting group as a section: names, options, per-direction figures, fio's CPU."""
    names = list(dict.fromkeys(str(e.get("jobname", "")) for e in entries))
    section: dict[str, Any] = {"name": names[0], "jobs": names, "groupid": groupid}
    runtimes = [int(e[d].get("runtime", 0) or 0) for e in entries for d in DIRECTIONS if isinstance(e.get(d), dict)]
    if runtimes:
        section["duration_s"] = max(runtimes) / 1000.0
    options = _options(entries, global_options or {})
    if options:
        section["options"] = options
    for direction in DIRECTIONS:
        doing = [e[direction] for e in entries if _did_io(e.get(direction))]
        if not doing:
            continue
        section[direction] = copied_direction(doing[0]) if len(doing) == 1 else merged_direction(doing)
    cpu = _fio_cpu(entries)
    if cpu:
        section["cpu"] = cpu
    return section


def fio_sections(doc: dict) -> list[dict[str, Any]]:
    """Every reporting group of a final fio document as a section, in fio's order."""
    global_options = doc.get("global options") if isinstance(doc.get("global options"), dict) else {}
    sections = [section_of_group(groupid, entries, global_options) for groupid, entries in group_entries(doc)]
    return [s for s in sections if any(d in s for d in DIRECTIONS)]
