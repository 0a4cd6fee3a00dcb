"""fio's terse output (``--minimal``, ``--output-format=terse``, terse versions 2 to 5) -> the runs in it.

One line per job, fields separated by ``;`` (fio's ``show_thread_status_terse_all``)::

    3;fio-3.33;randread;0;0;90292;90201;22550;1001;<slat x4>;<clat x4>;<20 percentiles>;<lat x4>;<bw x5>;...

Version 2 has no fio version field; versions 2, 4 and 5 print read, write and
trim, version 3 read and write; version 5 adds the bandwidth samples and IOPS
statistics to each direction. With ``unified_rw_reporting`` the read slot is
the ``mixed`` direction and no write or trim follows; with ``unified_rw_reporting=both``
the mixed direction follows read, write (and trim). Per direction: KiB moved,
KiB/s, IOPS (fio's integer division), runtime (ms), then latencies in µs. The
terse line has no I/O count and no block size, so the figures are fio's
printed ones. Jobs of one run are consecutive lines; a line that is not terse,
or a group number going back, starts the next run. The lines become the same
job blocks as the normal report's (:mod:`iotui.core.fio.text_report`), so a
group printed job by job is merged the same way.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from iotui.core.fio.text_report import Block, DirectionText, ReportContext, TextReport

_START = re.compile(r"^(?:2;[^;]*;\d+;-?\d+;|[345];fio-[^;]*;[^;]*;\d+;-?\d+;)")
_PERCENTILE_NAMES = {"50.000000": "p50", "90.000000": "p90", "99.000000": "p99", "99.900000": "p99_9"}
_DIRECTION_FIELDS = 41
_V5_EXTRA = 6
# After usr;sys: ctx, majf, minf, 7 I/O depths, 10 µs and 12 ms latency buckets; then (versions 3 to 5)
# each disk as name;read ios;write ios;read merges;write merges;read ticks;write ticks;in_queue;util%.
_TO_DISKS = 2 + 3 + 7 + 10 + 12
_DISK = re.compile(r"[^;\d%][^;%]*(?:;\d+){7};\d+(?:\.\d+)?%")
MIN_FIELDS = 4 + _DIRECTION_FIELDS + 5


def is_terse_line(line: str) -> bool:
    return bool(_START.match(line)) and line.count(";") >= MIN_FIELDS


def _direction(fields: list[str]) -> tuple[DirectionText, bool]:
    """One direction's 41 fields -> its printed figures; False where it did no I/O."""
    io_kib, bw_kib, iops, runtime_ms = (int(value) for value in fields[:4])
    figures = DirectionText(str(iops), f"{bw_kib}KiB/s", legacy=False, io_text=f"{io_kib}KiB", runtime_ms=runtime_ms)
    clat_min, clat_max, clat_mean = fields[8:11]
    if int(runtime_ms) and Decimal(clat_mean) > 0:
        figures.lat["lat_min_ns"] = int(clat_min) * 1000
        figures.lat["lat_max_ns"] = int(clat_max) * 1000
        figures.lat["lat_mean_ns"] = float(Decimal(clat_mean) * 1000)
        for item in fields[12:32]:
            percentile, _, value = item.partition("%=")
            name = _PERCENTILE_NAMES.get(percentile)
            if name:
                figures.lat[f"lat_{name}_ns"] = int(value) * 1000
    return figures, bool(runtime_ms and (io_kib or iops))


def _disk_names(fields: list[str]) -> list[str]:
    """The devices of the disk util fields (md members' aggregate figures, where printed, end the list)."""
    names: list[str] = []
    while len(fields) >= 9 and _DISK.fullmatch(";".join(fields[:9])):
        names.append(fields[0])
        fields = fields[9:]
    return names


def _block(line: str) -> tuple[Block, str, list[str]]:
    """One terse line -> a job block, the fio version it names ("" for version 2) and its devices."""
    fields = line.rstrip("\r\n").split(";")
    version = int(fields[0])
    if version == 2:
        name, groupid, error, at, fio_version = fields[1], int(fields[2]), int(fields[3]), 4, ""
    else:
        name, groupid, error, at, fio_version = fields[2], int(fields[3]), int(fields[4]), 5, fields[1]
    width = _DIRECTION_FIELDS + (_V5_EXTRA if version == 5 else 0)
    block = Block(name, groupid, error=error)
    first, did_io = _direction(fields[at:at + width])
    at += width
    mixed = fields[at].endswith("%")  # unified_rw_reporting: the CPU figures follow the one direction
    if mixed:
        if did_io:
            block.directions["mixed"] = first
    else:
        if did_io:
            block.directions["read"] = first
        others = ("write", "trim") if version in (2, 4, 5) else ("write",)
        for direction in others:
            figures, did_io = _direction(fields[at:at + width])
            at += width
            if did_io:
                block.directions[direction] = figures
        if not fields[at].endswith("%"):  # unified_rw_reporting=both: the mixed direction follows
            figures, did_io = _direction(fields[at:at + width])
            at += width
            if did_io:
                block.directions["mixed"] = figures
    if not (fields[at].endswith("%") and fields[at + 1].endswith("%")):
        raise ValueError("the CPU figures are not where this terse version puts them")
    usr, sys = (float(value.rstrip("%")) for value in fields[at:at + 2])
    block.cpu = {"usr": usr, "sys": sys}
    return block, fio_version, _disk_names(fields[at + _TO_DISKS:]) if version >= 3 else []


def read_terse_reports(text: str) -> list[TextReport]:
    """Every fio run printed as terse lines in the text, in order (none: no terse output)."""
    reports: list[TextReport] = []
    current: TextReport | None = None
    for line in text.splitlines():
        if not is_terse_line(line):
            if line.strip():
                current = None
            continue
        try:
            block, fio_version, devices = _block(line)
        except (ValueError, IndexError, InvalidOperation):
            current = None
            continue
        if current is None or block.groupid < current.blocks[-1].groupid:
            current = TextReport(ReportContext(version=fio_version or None), closed=True)
            reports.append(current)
        current.blocks.append(block)
        current.devices.extend(device for device in devices if device not in current.devices)
    return [report for report in reports if any(block.directions for block in report.blocks)]
