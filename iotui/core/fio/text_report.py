"""fio's normal human-readable report -> run records, one per job block.

What people paste into wikis and blogs (fio 3.x and 2.x layouts)::

    test: (groupid=0, jobs=1): err= 0: pid=77069: Wed Apr 15 14:33:28 2026
      read: IOPS=5821, BW=22.7MiB/s (23.8MB/s)(10.0GiB/450279msec)
        clat (usec): min=14, max=53330, avg=171.40, stdev=94.52
        clat percentiles (usec):
         |  1.00th=[   58],  5.00th=[   62], ...
      cpu          : usr=0.35%, sys=3.73%, ctx=2642999, majf=1, minf=16
         issued rwts: total=2621440,0,0,0 short=0,0,0,0 dropped=0,0,0,0

Per direction: IOPS, bandwidth, completion latency min/max/mean and the
percentiles, all converted to base units (ns, bytes). The printed IOPS and
bandwidth are rounded to 3-4 digits; where the block also prints the exact
I/O count ("issued"), the runtime and a fixed block size, the exact figures
are computed the way fio computes them (``total_ios / runtime``), and kept
only if they agree with the printed ones. A ``$ fio ...`` command line and
the ``name: (g=0): rw=..., bs=...`` header before a block give its options.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from decimal import Decimal, InvalidOperation
from typing import Any

from iotui.core.fio.normalize import MAX_INT, clean_text
from iotui.core.runs.record import RunRecord

UNKNOWN = "unknown"
# Printed IOPS/bandwidth have 3-4 significant digits; an exact figure that
# differs by more than this is not the same quantity and is not used.
AGREEMENT = 0.06

_NUM = r"(\d+(?:\.\d+)?)([kKMG]?)"
_JOB_HEADER = re.compile(r"^(?P<name>\S.*?): \(groupid=(?P<group>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)(?P<rest>.*)$")
_OPTIONS_HEADER = re.compile(r"^(?P<name>\S.*?): \(g=\d+\): (?P<options>rw=.*)$")
_DIRECTION_V3 = re.compile(
    r"^\s+(?P<dir>read|write|trim)\s*:\s*IOPS=(?P<iops>[\d.]+[kKMG]?), "
    r"BW=(?P<bw>[\d.]+)(?P<bw_unit>[KMGT]i?B|B)/s(?P<rest>.*)$"
)
_DIRECTION_V2 = re.compile(
    r"^\s+(?P<dir>read|write|trim)\s*:\s*io=(?P<io>[\d.]+)(?P<io_unit>[KMGT]?i?B), "
    r"bw=(?P<bw>[\d.]+)(?P<bw_unit>[KMGT]?i?B)/s, iops=(?P<iops>[\d.]+[kKMG]?), runt=\s*(?P<runt>\d+)msec"
)
_IO_RUNTIME = re.compile(r"\((?P<io>[\d.]+)(?P<io_unit>[KMGTP]?i?B)/(?P<runt>\d+)msec\)")
_CLAT = re.compile(
    r"^\s+clat \((?P<unit>nsec|usec|msec)\):\s*min=\s*(?P<min>[\d.]+[kKMG]?),"
    r"\s*max=\s*(?P<max>[\d.]+[kKMG]?),\s*avg=\s*(?P<avg>[\d.]+),"
)
_CLAT_PERCENTILES = re.compile(r"^\s+clat percentiles \((?P<unit>nsec|usec|msec)\):")
_PERCENTILE = re.compile(r"(\d+\.\d+)th=\[\s*(\d+(?:\.\d+)?[kKMG]?)\]")
_CPU = re.compile(r"^\s+cpu\s*:\s*usr=(?P<usr>[\d.]+)%, sys=(?P<sys>[\d.]+)%, ctx=(?P<ctx>\d+)")
_ISSUED = re.compile(r"^\s+issued\s*\w*\s*:\s*total=(?P<total>\S+)")
_VERSION = re.compile(r"^(?:<[^>]*>\s*)?(fio-\d\S*)\s*$")
_COMMAND = re.compile(r"^\s*(?:[$#>]\s*)?(?:sudo\s+)?(?:\S*/)?fio\s+(?P<args>-.*)$")
_RUN_STATUS = re.compile(r"^\s*Run status group")
# fio --client prefixes every line of a host's report with "<hostname> ".
_CLIENT_PREFIX = re.compile(r"^<[^>]*> ")

_TIME_UNIT_NS = {"nsec": 1, "usec": 1000, "msec": 1_000_000}
_SUFFIX = {"": 1, "k": 1000, "K": 1000, "M": 1_000_000, "G": 1_000_000_000}
_BYTE_UNITS = {
    "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50,
    "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4, "PB": 1000**5, "kB": 1000,
}
# fio 2.x printed binary sizes with decimal-looking names ("KB/s" meant KiB/s).
_V2_BYTE_UNITS = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
_PERCENTILE_NAMES = {"50.00": "p50", "90.00": "p90", "99.00": "p99", "99.90": "p99_9"}


def _scaled(text: str) -> Decimal:
    """"114751k" -> 114751000; fio abbreviates large counts with k/M/G (x1000)."""
    match = re.fullmatch(_NUM, text.strip())
    if not match:
        raise InvalidOperation(text)
    return Decimal(match.group(1)) * _SUFFIX[match.group(2)]


def _as_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _bytes(value: str, unit: str, units: dict[str, int]) -> Decimal:
    return Decimal(value) * units.get(unit, 1)


def _block_size_bytes(text: str) -> int | None:
    """"4096B-4096B" -> 4096; a range ("4096B-65536B") has no single size."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]i?B|B)-(\d+(?:\.\d+)?)([KMGT]i?B|B)", text)
    if not match:
        return None
    low = _bytes(match.group(1), match.group(2), _BYTE_UNITS)
    high = _bytes(match.group(3), match.group(4), _BYTE_UNITS)
    return int(low) if low == high else None


def _header_options(text: str) -> tuple[dict[str, str], dict[str, int | None]]:
    """``rw=randread, bs=(R) 4096B-4096B, (W) ..., ioengine=psync, iodepth=1``.

    Returns the options and each direction's fixed block size in bytes.
    """
    options: dict[str, str] = {}
    block_bytes: dict[str, int | None] = {}
    for letter, direction in (("R", "read"), ("W", "write"), ("T", "trim")):
        match = re.search(rf"\({letter}\) (\S+?)(?:,|$)", text)
        if match:
            block_bytes[direction] = _block_size_bytes(match.group(1))
            if direction == "read":
                options["bs"] = match.group(1).split("-")[0]
    for key in ("rw", "ioengine", "iodepth"):
        found = re.search(rf"(?:^|, ){key}=([^,\s]+)", text)
        if found:
            options[key] = found.group(1)
    return options, block_bytes


# fio accepts these long names for the same options; records use the short ones.
_OPTION_ALIASES = {"readwrite": "rw", "blocksize": "bs"}


def _command_options(args: str) -> tuple[dict[str, str], list[str]]:
    try:
        argv = shlex.split(args)
    except ValueError:
        argv = args.split()
    options: dict[str, str] = {}
    for token in argv:
        if token.startswith("-") and "=" in token:
            key, _, value = token.lstrip("-").partition("=")
            options[_OPTION_ALIASES.get(key, key)] = value
        elif token.startswith("--") and len(token) > 2:
            options[token[2:]] = "1"
    return options, ["fio", *argv]


class _Block:
    """The lines of one job block, read as they come."""

    def __init__(self, header: re.Match, block_bytes: dict[str, int | None]) -> None:
        self.name = header.group("name").strip()
        self.jobs = int(header.group("jobs"))
        self.groupid = int(header.group("group"))
        self.error = int(header.group("err"))
        self.started = _parse_time(header.group("rest"))
        self.block_bytes = block_bytes
        self.directions: dict[str, dict[str, Any]] = {}
        self.runtime_ms: dict[str, int] = {}
        self.current: str | None = None
        self.percentile_unit_ns: int | None = None
        self.cpu: dict[str, float] = {}
        self.issued: list[int] = []

    def take(self, line: str) -> None:
        if self._direction(line):
            return
        clat = _CLAT.match(line)
        if clat and self.current:
            factor = _TIME_UNIT_NS[clat.group("unit")]
            table = self.directions[self.current]
            table["lat_min_ns"] = _as_number(_scaled(clat.group("min")) * factor)
            table["lat_max_ns"] = _as_number(_scaled(clat.group("max")) * factor)
            table["lat_mean_ns"] = float(Decimal(clat.group("avg")) * factor)
            self.percentile_unit_ns = None
            return
        percentiles = _CLAT_PERCENTILES.match(line)
        if percentiles and self.current:
            self.percentile_unit_ns = _TIME_UNIT_NS[percentiles.group("unit")]
            return
        if self.percentile_unit_ns and self.current and line.lstrip().startswith("|"):
            for percentile, value in _PERCENTILE.findall(line):
                name = _PERCENTILE_NAMES.get(f"{float(percentile):.2f}")
                if name:
                    value_ns = _scaled(value) * self.percentile_unit_ns
                    self.directions[self.current][f"lat_{name}_ns"] = int(value_ns)
            return
        self.percentile_unit_ns = None
        cpu = _CPU.match(line)
        if cpu:
            self.cpu = {"usr": float(cpu.group("usr")), "sys": float(cpu.group("sys"))}
            return
        issued = _ISSUED.match(line)
        if issued:
            self.issued = [int(n) for n in re.findall(r"\d+", issued.group("total").split("short")[0])]

    def _direction(self, line: str) -> bool:
        v3 = _DIRECTION_V3.match(line)
        v2 = None if v3 else _DIRECTION_V2.match(line)
        if not (v3 or v2):
            return False
        match = v3 or v2
        assert match is not None
        direction = match.group("dir")
        table: dict[str, Any] = {}
        if v3:
            table["iops"] = _scaled(v3.group("iops"))
            table["bw_bytes"] = _bytes(v3.group("bw"), v3.group("bw_unit"), _BYTE_UNITS)
            io_runtime = _IO_RUNTIME.search(v3.group("rest"))
            if io_runtime:
                table["io_bytes"] = _bytes(io_runtime.group("io"), io_runtime.group("io_unit"), _BYTE_UNITS)
                self.runtime_ms[direction] = int(io_runtime.group("runt"))
        else:
            assert v2 is not None
            table["iops"] = _scaled(v2.group("iops"))
            table["bw_bytes"] = _bytes(v2.group("bw"), v2.group("bw_unit"), _V2_BYTE_UNITS)
            table["io_bytes"] = _bytes(v2.group("io"), v2.group("io_unit"), _V2_BYTE_UNITS)
            self.runtime_ms[direction] = int(v2.group("runt"))
        self.directions[direction] = table
        self.current = direction
        self.percentile_unit_ns = None
        return True

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per direction, exact figures where the block allows, printed ones otherwise."""
        order = ("read", "write", "trim")
        summary: dict[str, dict[str, Any]] = {}
        for direction, table in self.directions.items():
            index = order.index(direction)
            total_ios = self.issued[index] if index < len(self.issued) else None
            runtime_ms = self.runtime_ms.get(direction)
            table = dict(table)
            printed_iops = table.pop("iops")
            printed_bw = table.pop("bw_bytes")
            printed_io = table.pop("io_bytes", None)
            iops, bw_bytes, io_bytes = float(printed_iops), float(printed_bw), printed_io
            block_bytes = self.block_bytes.get(direction)
            if total_ios and runtime_ms:
                exact_iops = total_ios * 1000 / runtime_ms
                if _agrees(exact_iops, printed_iops):
                    iops = exact_iops
                if block_bytes:
                    exact_io = total_ios * block_bytes
                    if printed_io is None or _agrees(exact_io, printed_io):
                        io_bytes = Decimal(exact_io)
                        exact_bw = exact_io * 1000 / runtime_ms
                        if _agrees(exact_bw, printed_bw):
                            bw_bytes = exact_bw
            summary[direction] = {
                "iops": iops,
                "bw_bytes": bw_bytes,
                "io_bytes": int(io_bytes) if io_bytes is not None else 0,
                "total_ios": total_ios or 0,
                **table,
            }
        return {d: summary[d] for d in order if d in summary}


def _agrees(exact: float, printed: Decimal) -> bool:
    if printed == 0:
        return exact == 0
    return abs(exact - float(printed)) <= AGREEMENT * float(printed)


def _parse_time(rest: str) -> dt.datetime | None:
    match = re.search(r"(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})", rest)
    if not match:
        return None
    try:
        return dt.datetime.strptime(" ".join(match.group(1).split()), "%a %b %d %H:%M:%S %Y").replace(
            tzinfo=dt.timezone.utc
        )
    except ValueError:
        return None


def _record(block: _Block, context: dict[str, Any]) -> RunRecord | None:
    summary = block.summary()
    if not summary:
        return None
    for table in summary.values():
        for value in table.values():
            if value > MAX_INT:
                return None
    options = dict(context["headers"].get(block.name, ({}, {}))[0])
    options.update(context.get("command_options", {}))
    options = {clean_text(k): clean_text(v) for k, v in options.items()}
    if block.cpu:
        fio_cores = (block.cpu["usr"] + block.cpu["sys"]) / 100.0 * block.jobs
        if fio_cores > 0:
            total_iops = sum(table["iops"] for table in summary.values())
            summary["cpu"] = {"fio_cpu_cores": fio_cores, "iops_per_fio_core": total_iops / fio_cores}
    duration_s = max(block.runtime_ms.values(), default=0) / 1000
    record = RunRecord(
        run={
            "id": "",
            "preset": "import",
            "title": clean_text(block.name)[:200],
            "status": "imported",
            "started": block.started or dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc),
            "duration_s": round(float(duration_s), 3),
            "tool_version": context.get("version", UNKNOWN),
            "argv": context.get("argv", []),
            "report": "",
        },
        host={
            "hostname": UNKNOWN,
            "system": UNKNOWN,
            "kernel": UNKNOWN,
            "cpu_model": UNKNOWN,
        },
        target={
            "path": options.get("filename") or options.get("directory") or UNKNOWN,
            "filesystem": UNKNOWN,
            "device": UNKNOWN,
            "mount_options": UNKNOWN,
        },
        options=options,
        summary=summary,
    )
    for section in record.sections:  # the job block is fio's reporting group: its section, by its name
        section.update(name=clean_text(block.name)[:200], jobs=[clean_text(block.name)[:200]], groupid=block.groupid)
    if block.error:
        record.add_warning("fio-message", f"fio reported err={block.error} for job {block.name}.")
    return record


def parse_normal_output(text: str) -> list[RunRecord]:
    """One record per job block found in the text (none: not a fio report)."""
    records: list[RunRecord] = []
    context: dict[str, Any] = {"headers": {}}
    block: _Block | None = None

    def close() -> None:
        nonlocal block
        if block is not None:
            record = _record(block, context)
            if record is not None:
                records.append(record)
        block = None

    for line in text.splitlines():
        line = _CLIENT_PREFIX.sub("", line.rstrip("\r"), count=1)
        header = _JOB_HEADER.match(line)
        if header:
            close()
            _, block_bytes = context["headers"].get(header.group("name").strip(), ({}, {}))
            block = _Block(header, block_bytes)
            continue
        options_header = _OPTIONS_HEADER.match(line)
        if options_header:
            close()
            context["headers"][options_header.group("name").strip()] = _header_options(
                options_header.group("options")
            )
            continue
        command = _COMMAND.match(line)
        if command and not line.startswith((" ", "\t")):
            close()
            context["command_options"], context["argv"] = _command_options(command.group("args"))
            context["headers"] = {}
            continue
        version = _VERSION.match(line.strip())
        if version:
            context["version"] = version.group(1)
            continue
        if _RUN_STATUS.match(line):
            close()
            continue
        if block is not None:
            try:
                block.take(line)
            except (InvalidOperation, ValueError, OverflowError):
                continue
    close()
    return records
