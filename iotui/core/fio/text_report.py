"""fio's normal human-readable report -> the runs in it, one record per fio run.

What people paste into wikis and blogs (fio 3.x and 2.x layouts)::

    test: (groupid=0, jobs=1): err= 0: pid=77069: Wed Apr 15 14:33:28 2026
      read: IOPS=5821, BW=22.7MiB/s (23.8MB/s)(10.0GiB/450279msec)
        clat (usec): min=14, max=53330, avg=171.40, stdev=94.52
        clat percentiles (usec):
         |  1.00th=[   58],  5.00th=[   62], ...
      cpu          : usr=0.35%, sys=3.73%, ctx=2642999, majf=1, minf=16
         issued rwts: total=2621440,0,0,0 short=0,0,0,0 dropped=0,0,0,0

    Run status group 0 (all jobs):
       READ: bw=22.7MiB/s (23.8MB/s), 22.7MiB/s-22.7MiB/s (...), io=10.0GiB (10.7GB), run=450279-450279msec

fio prints every job block of a run, then one "Run status group" line per
group and direction: a job block after those lines starts the next run. Each
reporting group (``groupid``) becomes a section
(:mod:`iotui.core.records.text_sections`). ``fio --client`` prints each server's
report, then an "All clients" block: one run, each server a ``[[hosts]]``
entry and "All clients" the run's own sections. A ``$ fio ...`` command line
and the ``name: (g=0): rw=..., bs=...`` header before a block give its options.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation

from iotui.core.fio.printed import bytes_of, count_of

TEXT_DIRECTIONS = ("read", "write", "trim", "mixed")
ALL_CLIENTS = "All clients"

_JOB_HEADER = re.compile(r"^(?P<name>\S.*?): \(groupid=(?P<group>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)(?P<rest>.*)$")
_OPTIONS_HEADER = re.compile(r"^(?P<name>\S.*?): \(g=\d+\): (?P<options>rw=.*)$")
_RATE = r"[\d.]+(?:[kKMGTP]i?)?(?:B|bit)?(?:/s)?"
_DIRECTION_V3 = re.compile(
    rf"^\s+(?P<dir>read|write|trim|mixed)\s*:\s*IOPS=(?P<iops>[\d.]+[kKMG]?), "
    rf"BW=(?P<bw>{_RATE})(?P<rest>.*)$"
)
_DIRECTION_V2 = re.compile(
    r"^\s+(?P<dir>read|write|trim|mixed)\s*:\s*io=(?P<io>[\d.]+[KMGTP]?i?(?:B|bit)), "
    r"bw=(?P<bw>[\d.]+[KMGTP]?i?(?:B|bit))/s, iops=\s*(?P<iops>[\d.]+[kKMG]?)\s*, runt=\s*(?P<runt>\d+)msec"
)
_IO_RUNTIME = re.compile(r"\((?P<io>[\d.]+[KMGTP]?i?B)/(?P<runt>\d+)msec\)")
_GROUP_V3 = re.compile(
    rf"^\s*(?P<dir>READ|WRITE|TRIM|MIXED): bw=(?P<bw>{_RATE}) \(.*?io=(?P<io>[\d.]+[KMGTP]?i?B) "
    r"\(.*run=\s*(?P<min>\d+)-\s*(?P<max>\d+)msec"
)
_GROUP_V2 = re.compile(
    r"^\s*(?P<dir>READ|WRITE|TRIM|MIXED): io=(?P<io>[\d.]+[KMGTP]?i?B), aggrb=(?P<bw>[\d.]+[KMGTP]?i?(?:B|bit))/s,"
    r".*mint=\s*(?P<min>\d+)msec, maxt=\s*(?P<max>\d+)msec"
)
_CLAT = re.compile(
    # fio 2.0 printed a space before each comma ("min=22 , max=1805.8K, avg=300904.66")
    r"^\s+clat \((?P<unit>nsec|usec|msec)\):\s*min=\s*(?P<min>[\d.]+[kKMG]?)\s*,"
    r"\s*max=\s*(?P<max>[\d.]+[kKMG]?)\s*,\s*avg=\s*(?P<avg>[\d.]+)\s*,"
)
_CLAT_PERCENTILES = re.compile(r"^\s+clat percentiles \((?P<unit>nsec|usec|msec)\):")
_PERCENTILE = re.compile(r"(\d+\.\d+)th=\[\s*(\d+(?:\.\d+)?[kKMG]?)\]")
_CPU = re.compile(r"^\s+cpu\s*:\s*usr=(?P<usr>[\d.]+)%, sys=(?P<sys>[\d.]+)%, ctx=(?P<ctx>\d+)")
_ISSUED = re.compile(r"^\s+issued\s*\w*\s*:\s*total=(?P<total>\S+)")
_VERSION = re.compile(r"^(?:<[^>]*>\s*)?(fio-\d\S*)\s*$")
# "$ fio ...", "root@host[/mnt]# fio ...", "C:\\data>fio ...": a shell prompt, then fio's command line.
_COMMAND = re.compile(r"^\s*(?:\S*[$#>]\s*)?(?:sudo\s+)?(?:\S*[/\\])?fio(?:\.exe)?\s+(?P<args>-.*)$")
_CLIENT_HOST = re.compile(r"^hostname=(?P<host>[^,]+), be=\d")
_RUN_STATUS = re.compile(r"^\s*Run status group")
_DISK = re.compile(r"^\s+(?P<device>[^\s:]+): ios=\d+/\d+")
# fio --client prefixes a host's early lines with "<hostname> ".
_CLIENT_PREFIX = re.compile(r"^<[^>]*> ")

_TIME_UNIT_NS = {"nsec": 1, "usec": 1000, "msec": 1_000_000}
_PERCENTILE_NAMES = {"50.00": "p50", "90.00": "p90", "99.00": "p99", "99.90": "p99_9"}
# fio accepts these long names for the same options; records use the short ones.
_OPTION_ALIASES = {"readwrite": "rw", "blocksize": "bs"}


def _as_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _block_size_bytes(text: str) -> int | None:
    """"4096B-4096B" (3.x) or "4K-4K" (2.x) -> 4096; a range ("4096B-65536B") has no single size."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?[KMGT]?i?B?)-(\d+(?:\.\d+)?[KMGT]?i?B?)", text)
    if not match:
        return None
    try:
        low, high = (bytes_of(part if part.endswith("B") else part + "B", legacy=True) for part in match.groups())
    except InvalidOperation:
        return None
    return int(low) if low == high else None


def _header_options(text: str) -> tuple[dict[str, str], dict[str, int | None]]:
    """``rw=randread, bs=(R) 4096B-4096B, (W) ..., ioengine=psync, iodepth=1`` (3.x) or
    ``rw=randread, bs=4K-4K/4K-4K/4K-4K, ...`` (2.x): the options and each direction's fixed block size."""
    options: dict[str, str] = {}
    block_bytes: dict[str, int | None] = {}
    sizes = [re.search(rf"\({letter}\) (\S+?)(?:,|$)", text) for letter in "RWT"]
    if not any(sizes):
        legacy = re.search(r"bs=(\S+?)(?:,|$)", text)
        parts = legacy.group(1).split("/") if legacy else []
        sizes_text = parts if len(parts) in (2, 3) else parts[:1] * 3
    else:
        sizes_text = [match.group(1) if match else "" for match in sizes]
    for direction, size in zip(("read", "write", "trim"), sizes_text):
        if size:
            block_bytes[direction] = _block_size_bytes(size)
    if sizes_text and sizes_text[0]:
        options["bs"] = sizes_text[0].split("-")[0]
    for key in ("rw", "ioengine", "iodepth"):
        found = re.search(rf"(?:^|, ){key}=([^,\s]+)", text)
        if found:
            options[key] = found.group(1)
    return options, block_bytes


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


@dataclass
class DirectionText:
    """One direction of one job block: fio's printed texts and what the block says exactly."""

    iops_text: str
    bw_text: str
    legacy: bool
    io_text: str | None = None
    runtime_ms: int | None = None
    lat: dict[str, int | float] = field(default_factory=dict)


@dataclass
class GroupLine:
    """One direction of a "Run status group" line: the group's printed bandwidth, I/O and runtimes."""

    bw_text: str
    io_text: str
    run_min_ms: int
    run_max_ms: int
    legacy: bool


class Block:
    """The lines of one job block, read as they come."""

    def __init__(
        self,
        name: str,
        groupid: int,
        *,
        jobs: int = 1,
        error: int = 0,
        started: dt.datetime | None = None,
        options: dict[str, str] | None = None,
        block_bytes: dict[str, int | None] | None = None,
    ) -> None:
        self.name = name
        self.jobs = jobs
        self.groupid = groupid
        self.error = error
        self.started = started
        self.options = options or {}
        self.block_bytes = block_bytes or {}
        self.directions: dict[str, DirectionText] = {}
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
            lat = self.directions[self.current].lat
            lat["lat_min_ns"] = _as_number(count_of(clat.group("min")) * factor)
            lat["lat_max_ns"] = _as_number(count_of(clat.group("max")) * factor)
            lat["lat_mean_ns"] = float(Decimal(clat.group("avg")) * factor)
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
                    value_ns = count_of(value) * self.percentile_unit_ns
                    self.directions[self.current].lat[f"lat_{name}_ns"] = int(value_ns)
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
        if v3:
            figures = DirectionText(v3.group("iops"), v3.group("bw"), legacy=False)
            io_runtime = _IO_RUNTIME.search(v3.group("rest"))
            if io_runtime:
                figures.io_text, figures.runtime_ms = io_runtime.group("io"), int(io_runtime.group("runt"))
        elif v2:
            figures = DirectionText(v2.group("iops"), v2.group("bw"), True, v2.group("io"), int(v2.group("runt")))
        else:
            return False
        count_of(figures.iops_text)
        bytes_of(figures.bw_text, legacy=figures.legacy)
        self.current = v3.group("dir") if v3 else v2.group("dir")  # type: ignore[union-attr]
        self.directions[self.current] = figures
        self.percentile_unit_ns = None
        return True

    def total_ios(self, direction: str) -> int | None:
        """fio's exact I/O count for the direction ("issued"); mixed is all of them."""
        if not self.issued:
            return None
        if direction == "mixed":
            return sum(self.issued)
        index = ("read", "write", "trim").index(direction)
        return self.issued[index] if index < len(self.issued) else None


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


@dataclass
class ReportContext:
    """What fio printed before a run's job blocks, as read so far: the job headers, the command line,
    the version, the ``fio --client`` hosts."""

    headers: dict[str, tuple[dict[str, str], dict[str, int | None]]] = field(default_factory=dict)
    """Each job's header line: its options and each direction's fixed block size."""
    client_hosts: list[str] = field(default_factory=list)
    command_options: dict[str, str] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)
    version: str | None = None
    hosts_used: bool = False
    """The client hosts already went to a report: the next host line starts another ``fio --client`` run."""


@dataclass
class TextReport:
    """One fio run's printed report: its job blocks and its "Run status group" lines."""

    context: ReportContext
    blocks: list[Block] = field(default_factory=list)
    group_lines: dict[int, dict[str, GroupLine]] = field(default_factory=dict)
    closed: bool = False
    hosts: list[tuple[str, TextReport]] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)


def _group_line(line: str) -> tuple[str, GroupLine] | None:
    v3 = _GROUP_V3.match(line)
    match = v3 or _GROUP_V2.match(line)
    if not match:
        return None
    group = GroupLine(match.group("bw"), match.group("io"), int(match.group("min")), int(match.group("max")), not v3)
    bytes_of(group.bw_text, legacy=group.legacy)
    return match.group("dir").lower(), group


def read_reports(text: str) -> list[TextReport]:
    """Every fio run printed in the text, in order (none: not a fio report)."""
    reports: list[TextReport] = []
    context = ReportContext()
    current: TextReport | None = None
    block: Block | None = None
    group: int | None = None

    for raw_line in text.splitlines():
        line = _CLIENT_PREFIX.sub("", raw_line.rstrip("\r"), count=1)
        header = _JOB_HEADER.match(line)
        if header:
            if current is None or current.closed:
                current = TextReport(replace(context))
                reports.append(current)
                context.hosts_used = bool(context.client_hosts)
            options, block_bytes = context.headers.get(header.group("name").strip(), ({}, {}))
            sizes = {tuple(sorted(b.items())) for _, b in context.headers.values()}
            if not block_bytes and len(sizes) == 1:  # "All clients": the block size all its jobs ran with
                block_bytes = dict(sizes.pop())
            block = Block(
                header.group("name").strip(),
                int(header.group("group")),
                jobs=int(header.group("jobs")),
                error=int(header.group("err")),
                started=_parse_time(header.group("rest")),
                options=options,
                block_bytes=block_bytes,
            )
            current.blocks.append(block)
            group = None
            continue
        options_header = _OPTIONS_HEADER.match(line)
        command = None if options_header else _COMMAND.match(line)
        client_host = _CLIENT_HOST.match(line)
        version = _VERSION.match(line.strip())
        if options_header or (command and not line.startswith((" ", "\t"))) or client_host or version:
            block = None
            # fio prints a run's headers and version before its job blocks: after blocks, they start the next run
            if current is not None and (current.closed or command or client_host or current.blocks):
                current.closed, current = True, None
            if options_header:
                context.headers[options_header.group("name").strip()] = _header_options(
                    options_header.group("options")
                )
            elif command:
                context.command_options, context.argv = _command_options(command.group("args"))
                context.headers, context.client_hosts = {}, []
            elif client_host:
                if context.hosts_used:  # a new fio --client run
                    context.hosts_used = False
                    context.headers, context.client_hosts = {}, []
                context.client_hosts = [*context.client_hosts, client_host.group("host").strip()]
            else:
                assert version is not None
                context.version = version.group(1)
            continue
        if _RUN_STATUS.match(line):
            block = None
            if current is not None:
                current.closed = True
                found = re.search(r"group (\d+)", line)
                group = int(found.group(1)) if found else None
            continue
        disk = _DISK.match(line) if current is not None and current.closed else None
        if disk and current is not None and disk.group("device") not in current.devices:
            current.devices.append(disk.group("device"))  # "Disk stats (read/write):" after the group lines
            continue
        if group is not None and current is not None:
            try:
                parsed = _group_line(line)
            except InvalidOperation:
                parsed = None
            if parsed:
                current.group_lines.setdefault(group, {})[parsed[0]] = parsed[1]
                continue
        if block is not None:
            try:
                block.take(line)
            except (InvalidOperation, ValueError, OverflowError):
                continue
    return _fold_clients([r for r in reports if r.blocks])


def _fold_clients(reports: list[TextReport]) -> list[TextReport]:
    """``fio --client``: the servers' reports before an "All clients" block are that run's hosts."""
    folded: list[TextReport] = []
    pending: list[TextReport] = []
    for report in reports:
        hosts = report.context.client_hosts
        if report.blocks[0].name == ALL_CLIENTS and pending:
            names = hosts if len(hosts) == len(pending) else [f"client {n + 1}" for n in range(len(pending))]
            report.hosts = list(zip(names, pending))
            folded.append(report)
            pending = []
        elif hosts:
            pending.append(report)
        else:
            folded.extend(pending)
            pending = []
            folded.append(report)
    if pending and len(pending) == 1 and pending[0].context.client_hosts:
        only = pending[0]  # one server: no "All clients"; that server's report is the run
        only.hosts = [(only.context.client_hosts[0], only)]
    folded.extend(pending)
    return folded
