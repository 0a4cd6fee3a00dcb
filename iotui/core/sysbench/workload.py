"""sysbench fileio: the fio workload translated to its options, and its report parsed.

The sysbench-compare study (seed 001) runs the same disk through sysbench and
fio and finds different numbers. iotui runs both and puts sysbench's report in
a run record with the same summary keys, mapping only what sysbench prints:

* ``reads/s`` and ``writes/s`` -> ``iops``; ``read, MiB/s`` / ``written, MiB/s``
  -> ``bw_bytes``; ``total_ios`` and ``io_bytes`` are those rates times the run
  time (sysbench 1.0 prints no per-direction totals);
* latency: sysbench reports ONE distribution over all its events (reads,
  writes and fsyncs together), in ms with two decimals (10 µs resolution):
  min/avg/max -> ``lat_min_ns``/``lat_mean_ns``/``lat_max_ns`` and its
  percentile (95th by default) -> ``lat_p95_ns``. There is no p99, p50 or
  p90 in the report, so the record has none.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Mapping

from iotui.core.fio.units import numeric_value


class SysbenchError(Exception):
    """A sysbench report or workload iotui cannot use; str() is a full sentence."""


# -- the report -------------------------------------------------------------------------


@dataclass(frozen=True)
class SysbenchReport:
    """The figures of one ``sysbench fileio ... run`` report (1.0.x)."""

    version: str | None
    threads: int | None
    block_size_bytes: int | None
    reads_per_s: float
    writes_per_s: float
    fsyncs_per_s: float
    read_mib_per_s: float
    written_mib_per_s: float
    total_time_s: float
    total_events: int
    lat_min_ms: float | None = None
    lat_avg_ms: float | None = None
    lat_max_ms: float | None = None
    lat_percentile: int | None = None
    lat_percentile_ms: float | None = None
    lat_sum_ms: float | None = None
    notes: list[str] = field(default_factory=list)


_LINE = re.compile(r"^\s*(?P<label>[A-Za-z0-9 ,/()%]+?):\s*(?P<value>\S.*?)\s*$")
_VERSION = re.compile(r"^sysbench (\d[\w.\-]*)")
_THREADS = re.compile(r"^Number of threads:\s*(\d+)")
_BLOCK = re.compile(r"^Block size (\d+(?:\.\d+)?)([KMG]i?B|b)?", re.IGNORECASE)
_PERCENTILE = re.compile(r"^(\d+)(?:st|nd|rd|th) percentile$")
_UNIT_BYTES = {"": 1, "b": 1, "kib": 1024, "kb": 1024, "mib": 1 << 20, "mb": 1 << 20, "gib": 1 << 30, "gb": 1 << 30}


def _float(value: str, label: str) -> float:
    match = re.match(r"^([0-9]+(?:\.[0-9]+)?)", value)
    if match is None:
        raise SysbenchError(f"sysbench printed {label!r} as {value!r}, which is not a number.")
    return float(match.group(1))


def parse_sysbench_output(text: str) -> SysbenchReport:
    """Parse the stdout of ``sysbench fileio ... run`` (sysbench 1.0.x).

    Labels are matched wherever they appear (1.0.9 printed the MiB/s lines
    under "File operations", 1.0.20 under "Throughput"). A report without
    results raises SysbenchError quoting sysbench's own FATAL line if any.
    """
    version = threads = block_size = None
    values: dict[str, str] = {}
    in_latency = False
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line:
            continue
        if (match := _VERSION.match(line)) and version is None:
            version = match.group(1)
            continue
        if match := _THREADS.match(line):
            threads = int(match.group(1))
            continue
        if match := _BLOCK.match(line):
            unit = (match.group(2) or "b").lower()
            block_size = int(float(match.group(1)) * _UNIT_BYTES.get(unit, 1))
            continue
        if line.endswith(":") and not _LINE.match(line):
            in_latency = line.lower().startswith("latency")
            if in_latency and "(ms)" not in line:
                raise SysbenchError(f"sysbench printed latency as {line!r}; iotui reads latency in ms (sysbench 1.0).")
            continue
        match = _LINE.match(line)
        if match is None:
            continue
        label = match.group("label").strip().lower()
        key = f"latency {label}" if in_latency else label
        values.setdefault(key, match.group("value"))
    required = ("reads/s", "writes/s", "read, mib/s", "written, mib/s", "total time", "total number of events")
    missing = [label for label in required if label not in values]
    if missing:
        fatal = next((line.strip() for line in text.splitlines() if line.strip().startswith("FATAL")), "")
        if fatal:
            raise SysbenchError(f"sysbench did not report results: {fatal}")
        raise SysbenchError(
            f"The sysbench report has no {missing[0]!r} line; iotui reads reports of sysbench 1.0 "
            "('sysbench fileio ... run')."
        )
    percentile = percentile_ms = None
    for key, value in values.items():
        if key.startswith("latency ") and (match := _PERCENTILE.match(key[len("latency ") :])):
            percentile = int(match.group(1))
            percentile_ms = _float(value, key)

    def latency(name: str) -> float | None:
        key = f"latency {name}"
        return _float(values[key], key) if key in values else None

    return SysbenchReport(
        version=version,
        threads=threads,
        block_size_bytes=block_size,
        reads_per_s=_float(values["reads/s"], "reads/s"),
        writes_per_s=_float(values["writes/s"], "writes/s"),
        fsyncs_per_s=_float(values.get("fsyncs/s", "0"), "fsyncs/s"),
        read_mib_per_s=_float(values["read, mib/s"], "read, MiB/s"),
        written_mib_per_s=_float(values["written, mib/s"], "written, MiB/s"),
        total_time_s=_float(values["total time"], "total time"),
        total_events=int(_float(values["total number of events"], "total number of events")),
        lat_min_ms=latency("min"),
        lat_avg_ms=latency("avg"),
        lat_max_ms=latency("max"),
        lat_percentile=percentile,
        lat_percentile_ms=percentile_ms,
        lat_sum_ms=latency("sum"),
    )


def summary_from_report(report: SysbenchReport, block_size_bytes: int | None = None) -> dict[str, dict[str, float]]:
    """The record's ``[summary.read]``/``[summary.write]`` (+ ``[summary.sysbench]``) tables."""
    block = block_size_bytes or report.block_size_bytes
    summary: dict[str, dict[str, float]] = {}
    directions = (("read", report.reads_per_s, report.read_mib_per_s), ("write", report.writes_per_s, report.written_mib_per_s))
    for direction, per_s, mib_per_s in directions:
        if per_s <= 0:
            continue
        total_ios = int(round(per_s * report.total_time_s))
        bw_bytes = mib_per_s * (1 << 20)
        table: dict[str, float] = {
            "iops": per_s,
            "bw_bytes": bw_bytes,
            "total_ios": total_ios,
            "io_bytes": total_ios * block if block else int(round(bw_bytes * report.total_time_s)),
        }
        for key, value_ms in (("lat_min_ns", report.lat_min_ms), ("lat_mean_ns", report.lat_avg_ms), ("lat_max_ns", report.lat_max_ms)):
            if value_ms is not None:
                table[key] = value_ms * 1e6
        if report.lat_percentile is not None and report.lat_percentile_ms is not None:
            table[f"lat_p{report.lat_percentile}_ns"] = report.lat_percentile_ms * 1e6
        summary[direction] = table
    summary["sysbench"] = {
        "fsyncs_per_s": report.fsyncs_per_s,
        "total_events": report.total_events,
        "total_time_s": report.total_time_s,
        "events_per_s": report.total_events / report.total_time_s if report.total_time_s else 0.0,
    }
    return summary


def latency_warnings(report: SysbenchReport) -> list[str]:
    """Sentences the record carries about what sysbench's latency figures can mean."""
    warnings = []
    kinds = [name for name, rate in (("reads", report.reads_per_s), ("writes", report.writes_per_s), ("fsyncs", report.fsyncs_per_s)) if rate > 0]
    if len(kinds) > 1:
        warnings.append(
            f"sysbench reports one latency distribution over all its requests ({', '.join(kinds)} together); "
            "the same figures are shown for each direction, so compare them with fio's per-direction "
            "latency with care."
        )
    figures = (report.lat_min_ms, report.lat_avg_ms, report.lat_percentile_ms)
    if any(value is not None and value < 0.01 for value in figures):
        warnings.append(
            "sysbench prints latency in ms with two decimals: a figure shown as 0 was below 5 µs, "
            "and every figure is rounded to 10 µs."
        )
    return warnings


# -- the workload ----------------------------------------------------------------------------

_MODES = {"read": "seqrd", "write": "seqwr", "randread": "rndrd", "randwrite": "rndwr", "randrw": "rndrw"}
_SYNC_ENGINES = {"sync", "psync", "vsync", "pvsync", "pvsync2"}
# fio options that change nothing sysbench could do differently, or that iotui sets itself.
_IGNORED = {
    "name", "group_reporting", "time_based", "filename", "directory", "randrepeat", "norandommap",
    "random_generator", "thread", "stonewall", "wait_for_previous", "description", "percentile_list",
    "clat_percentiles", "lat_percentiles", "status-interval", "output-format", "eta", "create_on_open",
    "allow_file_create", "kb_base", "invalidate", "overwrite", "fallocate", "file_service_type",
}


@dataclass(frozen=True)
class SysbenchWorkload:
    """``sysbench fileio`` options equal to a fio job, and what could not be carried over."""

    options: dict[str, str]
    block_size_bytes: int
    runtime_s: int
    not_translated: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # where the translation is close but not the same

    def argv(self, sysbench_binary: str, command: str) -> list[str]:
        """``sysbench fileio --opt=value ... prepare|run|cleanup``."""
        return [sysbench_binary, "fileio", *(f"--{key}={value}" for key, value in self.options.items()), command]


def _bytes(options: Mapping[str, str], key: str) -> int | None:
    value = options.get(key)
    if value is None or str(value).strip() == "":
        return None
    number = numeric_value(str(value))
    if number is None:
        raise SysbenchError(f"sysbench needs {key} as a plain size, found {key}={value!r}.")
    return int(number)


_TIME_UNITS_S = {"": 1.0, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0, "ms": 1e-3, "us": 1e-6}


def fio_seconds(text: str) -> float | None:
    """A fio time value (``30``, ``30s``, ``2m``, ``500ms``) in seconds, else None."""
    match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$", str(text).lower())
    if match is None or match.group(2) not in _TIME_UNITS_S:
        return None
    return float(match.group(1)) * _TIME_UNITS_S[match.group(2)]


def _true(value: str | None) -> bool:
    return value is not None and str(value).strip().lower() in ("1", "true", "yes", "on", "")


def sysbench_workload(options: Mapping[str, str], runtime_default_s: float = 60.0) -> SysbenchWorkload:
    """Translate fio job options (one job section) into ``sysbench fileio`` options.

    Refuses what sysbench cannot do (sequential mixed I/O, io_uring, split block
    sizes) with a sentence; options it silently lacks are listed in
    ``not_translated`` so the record can say so.
    """
    options = {key.strip(): str(value).strip() for key, value in options.items()}
    sections = sorted({key.split(".", 1)[0] for key in options if "." in key})
    if sections:
        raise SysbenchError(
            f"sysbench runs one workload at a time, and this preset has several job sections "
            f"({', '.join(sections)}); vary what differs between them in the sweep instead."
        )
    consumed: set[str] = set()

    def take(*keys: str) -> str | None:
        for key in keys:
            if key in options:
                consumed.add(key)
        return next((options[key] for key in keys if key in options), None)

    rw = (take("rw", "readwrite") or "read").split(":")[0]
    if rw not in _MODES:
        raise SysbenchError(f"sysbench fileio has no equivalent of rw={rw}; it runs read, write, randread, randwrite or randrw.")
    bs_text = take("bs", "blocksize") or "4k"
    if "," in bs_text or "-" in bs_text:
        raise SysbenchError(f"sysbench uses one block size for reads and writes; bs={bs_text} cannot be carried over.")
    block_size = _bytes({"bs": bs_text}, "bs") or 4096
    total_bytes = _bytes(options, "size")
    consumed.add("size")
    if not total_bytes:
        raise SysbenchError("sysbench needs the total file size; give the job a size (for example 1G).")
    file_count = int(take("nrfiles") or "1")
    sb: dict[str, str] = {
        "file-test-mode": _MODES[rw],
        "file-num": str(file_count),
        "file-block-size": str(block_size),
        "file-total-size": str(total_bytes),
    }
    if rw == "randrw":
        read_pct = take("rwmixread")
        write_pct = take("rwmixwrite")
        if read_pct is None and write_pct is not None:
            read_pct = str(100 - float(write_pct))
        read_share = float(read_pct) if read_pct is not None else 50.0
        if not 0 < read_share < 100:
            raise SysbenchError(f"sysbench's mixed test needs reads and writes; rwmixread={read_share:g} leaves one out.")
        sb["file-rw-ratio"] = f"{read_share / (100 - read_share):.6g}"
    else:
        take("rwmixread", "rwmixwrite")
    engine = take("ioengine") or "psync"
    iodepth = take("iodepth") or "1"
    if engine in _SYNC_ENGINES:
        sb["file-io-mode"] = "sync"
    elif engine == "libaio":
        sb["file-io-mode"] = "async"
        sb["file-async-backlog"] = iodepth
    elif engine == "mmap":
        sb["file-io-mode"] = "mmap"
    else:
        raise SysbenchError(f"sysbench fileio has no equivalent of ioengine={engine}; it does sync, libaio (async) and mmap.")
    flags = []
    if _true(take("direct")):
        flags.append("direct")
    sync_value = take("sync")
    if sync_value is not None and sync_value.lower() in ("1", "true", "sync"):
        flags.append("sync")
    elif sync_value is not None and sync_value.lower() == "dsync":
        flags.append("dsync")
    if flags:
        sb["file-extra-flags"] = ",".join(flags)
    fsync_every = take("fsync")
    fdatasync_every = take("fdatasync")
    if fdatasync_every not in (None, "0"):
        sb["file-fsync-freq"] = fdatasync_every
        sb["file-fsync-mode"] = "fdatasync"
    else:
        sb["file-fsync-freq"] = fsync_every or "0"  # sysbench's default is 100; fio's is none
    sb["file-fsync-end"] = "on" if _true(take("end_fsync")) else "off"
    sb["threads"] = take("numjobs") or "1"
    runtime_text = take("runtime")
    runtime_number = fio_seconds(runtime_text) if runtime_text else None
    runtime_s = max(1, int(math.ceil(runtime_number if runtime_number else runtime_default_s)))
    sb["time"] = str(runtime_s)
    sb["events"] = "0"
    not_translated = tuple(sorted(key for key in options if key not in consumed and key not in _IGNORED))
    notes = []
    if sb["file-fsync-freq"] != "0":
        notes.append(
            f"fio's fsync={sb['file-fsync-freq']} syncs its file after that many writes; sysbench's "
            f"--file-fsync-freq={sb['file-fsync-freq']} counts every request (reads too) and then syncs each of "
            f"its {file_count} files, so sysbench syncs more often."
        )
    return SysbenchWorkload(sb, block_size, runtime_s, not_translated, tuple(notes))
