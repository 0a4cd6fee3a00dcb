"""The I/O probe: how long a small read, and a small write + fdatasync, take for other programs.

An editor saving a file or an application opening one does exactly this; when fio
floods the disk queue or the page cache's writeback, these are what stall. The
probe runs in its own child process (so a slow fsync never delays the wake-up
probe or the app), a few times a second, in a private directory on each probed
filesystem: the target's, and the one holding the user's home when that is
another one. Each per-second report gives the worst filesystem's p99 for reads
and for writes, and the probe's own I/O per second, so its disturbance shows.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from iotui.core.host.io_probe_child import IO_PROBE_CHILD_SOURCE
from iotui.core.host.probe_child import ReportReader, end_probe_child
from iotui.core.host.wakeup_probe import ChildLauncher, start_child

IO_PROBE_INTERVAL_S = 0.25  # each of read and write, on each filesystem: 4 a second
IO_PROBE_REPORT_EVERY_S = 1.0
IO_PROBE_BLOCK_BYTES = 4096
IO_PROBE_FILE_BYTES = 1 << 20  # reads land on one of its 256 blocks at random
PROBE_DIR_PREFIX = ".iotui-probe-"
# The only names the probe ever creates inside its own directory.
READ_FILE_NAME = "read.probe"
WRITE_FILE_NAME = "write.probe"
# The start-up probe: a program (cat) that reads 16 private files of 256 KiB (4 MiB), dropped
# from the page cache before each start. A program's start waits on synchronous reads one after
# another, about one per library it maps and more for the big ones; the file count sets how
# many, and 16 agreed best with a real program start timed beside it (bench/bench_startup.py,
# docs/responsiveness.md). One start every START_INTERVAL_S at most (back to back when a start
# takes longer): 2 MiB/s read.
START_INTERVAL_S = 2.0
START_FILE_BYTES = 256 * 1024
START_FILE_COUNT = 16
START_FILE_NAMES = tuple(f"start-{index}.probe" for index in range(START_FILE_COUNT))


@dataclass(frozen=True)
class IoProbeStats:
    """One report period's I/O probe figures, the worst probed filesystem's.

    A p99 is `None` when no operation of that kind completed or was in flight.
    An operation still in flight counts with its age so far: a lower bound.
    """

    read_p99_ms: float | None
    write_p99_ms: float | None
    read_iops: float
    write_iops: float
    read_place: str | None = None  # "target" or "home": which filesystem gave read_p99_ms
    write_place: str | None = None
    # The start-up probe: the last start's time, or the age of one still starting (the worst
    # place's); warm when its files' eviction could not be confirmed (then never judged).
    start_ms: float | None = None
    start_warm: bool = False
    start_place: str | None = None


def p99(values_ms: Sequence[float]) -> float | None:
    """The 99th percentile by nearest rank; `None` for no values."""
    if not values_ms:
        return None
    ordered = sorted(values_ms)
    return ordered[max(1, math.ceil(0.99 * len(ordered))) - 1]


def _worst(candidates: list[tuple[float, str]]) -> tuple[float | None, str | None]:
    if not candidates:
        return None, None
    value, place = max(candidates)
    return value, place


def _start_figure(row: dict) -> tuple[float, bool] | None:
    """One place's start-up figure: the slowest start this period (else the last one), or the
    age of one still starting when that is longer; with whether it was warm."""
    done = [(int(us) / 1000.0, bool(warm)) for us, warm in row.get("start") or []]
    figure = max(done) if done else None
    if figure is None and row.get("start_last"):
        us, warm = row["start_last"]
        figure = (int(us) / 1000.0, bool(warm))
    inflight = row.get("start_inflight")
    if inflight:
        age_ms = int(inflight[0]) / 1000.0
        if figure is None or age_ms > figure[0]:
            figure = (age_ms, bool(inflight[1]))
    return figure


def _worst_start(candidates: list[tuple[float, bool, str]]) -> tuple[float | None, bool, str | None]:
    """The slowest cold start of all places; a warm one only where no place has a cold one."""
    if not candidates:
        return None, False, None
    cold = [c for c in candidates if not c[1]]
    value, warm, place = max(cold or candidates)
    return value, warm, place


def stats_from_report(report: dict, labels: dict[str, str], period_s: float) -> IoProbeStats | None:
    """Per-place latencies of one report -> the worst place's p99 and the probe's IOPS."""
    places = report.get("places")
    if not isinstance(places, list):
        return None
    reads: list[tuple[float, str]] = []
    writes: list[tuple[float, str]] = []
    start_figures: list[tuple[float, bool, str]] = []
    read_count = write_count = 0
    for row in places:
        label = labels.get(str(row.get("place")), "target")
        start = _start_figure(row)
        if start is not None:
            start_figures.append((*start, label))
        for kind, into in (("read", reads), ("write", writes)):
            done_ms = [int(v) / 1000.0 for v in row.get(f"{kind}_us", [])]
            inflight_ms = int(row.get(f"{kind}_inflight_us", 0)) / 1000.0
            if kind == "read":
                read_count += len(done_ms)
            else:
                write_count += len(done_ms)
            worst = p99(done_ms)
            if inflight_ms > 0 and (worst is None or inflight_ms > worst):
                worst = inflight_ms
            if worst is not None:
                into.append((worst, label))
    read_p99, read_place = _worst(reads)
    write_p99, write_place = _worst(writes)
    start_ms, start_warm, start_place = _worst_start(start_figures)
    period_s = period_s if period_s > 0 else 1.0
    return IoProbeStats(
        read_p99_ms=read_p99,
        write_p99_ms=write_p99,
        read_iops=read_count / period_s,
        write_iops=write_count / period_s,
        read_place=read_place,
        write_place=write_place,
        start_ms=start_ms,
        start_warm=start_warm,
        start_place=start_place,
    )


def probe_places(target: Path, home: Path | None) -> list[tuple[str, Path]]:
    """Where to probe: the target's directory, plus home when it is on another filesystem."""
    places = [("target", target)] if target.is_dir() else []  # a raw device has no filesystem
    if home is not None and home.is_dir():
        try:
            if not places or os.stat(home).st_dev != os.stat(target).st_dev:
                places.append(("home", home))
        except OSError:
            pass
    return places


class IoProbe:
    """Runs the I/O probe child and keeps its latest per-second figures.

    Like the wake-up probe: a daemon thread drains the child's pipe, `read_latest()`
    only takes a lock, and the child ends (removing its files) when its stdin reaches
    EOF, which happens when iotui exits for any reason. `stop()` removes them too.
    """

    def __init__(
        self,
        target: Path,
        home: Path | None = None,
        probe_home: bool = True,
        interval_s: float = IO_PROBE_INTERVAL_S,
        report_every_s: float = IO_PROBE_REPORT_EVERY_S,
        start_interval_s: float = START_INTERVAL_S,
        keep_reports: int = 60,
        launcher: ChildLauncher | None = None,
    ) -> None:
        # With a launcher (a remote host), `target` is the directory there in which the
        # launcher makes the probe's private directory: nothing is made here.
        self.launcher = launcher
        self.target = Path(target)
        # home None: $HOME; probe_home False: the target's filesystem only.
        self.home = (Path(home) if home is not None else _default_home()) if probe_home else None
        self.interval_s = interval_s
        self.report_every_s = report_every_s
        self.start_interval_s = start_interval_s  # 0: no start-up probe
        self.error: str | None = None  # a sentence when the probe could not run
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: ReportReader | None = None
        # The event loop that reads the child's reports; None: a thread of the probe's own.
        self.loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._labels: dict[str, str] = {}
        self._directories: list[Path] = []
        self._latest: IoProbeStats | None = None
        self._latest_at_s: float | None = None
        self._reports_received = 0
        # Per report: reads, writes (ms) and the cold starts completed in it (ms).
        self._recent: deque[tuple[list[float], list[float], list[float]]] = deque(maxlen=keep_reports)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def directories(self) -> list[Path]:
        """The private directories made for this run (removed by `stop()`)."""
        return list(self._directories)

    @property
    def reports_received(self) -> int:
        with self._lock:
            return self._reports_received

    def start(self) -> None:
        """Make the private directories and start the child; a failure leaves `error` set."""
        if self.running:
            return
        self.stop()
        self.error = None
        with self._lock:
            self._latest, self._latest_at_s, self._reports_received = None, None, 0
            self._recent.clear()
        # A remote child's place is made there; its reports' places are all "target" here.
        places = [] if self.launcher is not None else probe_places(self.target, self.home)
        for label, parent in places:
            try:
                directory = Path(tempfile.mkdtemp(prefix=PROBE_DIR_PREFIX, dir=parent))
            except OSError as error:
                if label == "target":
                    self.error = f"The I/O probe cannot write in {parent} ({error.strerror})."
                continue
            self._directories.append(directory)
            self._labels[str(directory)] = label
        directories = [str(self.target)] if self.launcher is not None else list(map(str, self._directories))
        if not directories:
            return
        try:
            self._process = start_child(self.launcher, [
                "-I", "-S", "-c", IO_PROBE_CHILD_SOURCE,
                str(self.interval_s), str(self.report_every_s), str(os.getpid()),
                str(IO_PROBE_BLOCK_BYTES), str(IO_PROBE_FILE_BYTES), READ_FILE_NAME, WRITE_FILE_NAME,
                str(self.start_interval_s), str(START_FILE_BYTES), str(START_FILE_COUNT),
                *directories,
            ])
        except OSError as error:
            self.error = f"The I/O probe could not start ({error.strerror})."
            self._remove_directories()
            return
        self._reader = ReportReader(self._process, self._take_report, "iotui-io-probe", self.loop)

    def _take_report(self, raw_line: bytes) -> None:
        try:
            report = json.loads(raw_line)
        except ValueError:
            return
        if not isinstance(report, dict):
            return
        if "error" in report:
            self.error = f"The I/O probe stopped: {report['error']}."
            return
        stats = stats_from_report(report, self._labels, self.report_every_s)
        if stats is None:
            return
        reads, writes, cold_starts = [], [], []
        for row in report["places"]:
            reads += [int(v) / 1000.0 for v in row.get("read_us", [])]
            writes += [int(v) / 1000.0 for v in row.get("write_us", [])]
            cold_starts += [int(us) / 1000.0 for us, warm in row.get("start") or [] if not warm]
        with self._lock:
            self._latest = stats
            self._latest_at_s = time.monotonic()
            self._reports_received += 1
            self._recent.append((reads, writes, cold_starts))

    def detach_reader(self) -> None:
        """Stop the event loop's watch of the child's pipe (on the loop's thread, before :meth:`stop`)."""
        if self._reader is not None:
            self._reader.detach()

    def read_latest(self, now_s: float | None = None) -> IoProbeStats | None:
        """The latest second's figures; `None` before the first, when stale or stopped."""
        if self._process is None:
            return None
        now_s = time.monotonic() if now_s is None else now_s
        with self._lock:
            latest, latest_at_s = self._latest, self._latest_at_s
        if latest is None or latest_at_s is None or not self.running:
            return None
        if now_s - latest_at_s > 3 * self.report_every_s:
            return None
        return latest

    def baseline(self, last_reports: int = 3) -> IoProbeStats | None:
        """Read and write p99 pooled over the last reports, and the slowest cold start of
        every report so far (starts are seconds apart): call it before fio starts."""
        with self._lock:
            everything = list(self._recent)
        recent = everything[-last_reports:] if last_reports > 0 else []
        if not recent:
            return None
        reads = [value for report in recent for value in report[0]]
        writes = [value for report in recent for value in report[1]]
        starts = [value for report in everything for value in report[2]]
        period_s = len(recent) * self.report_every_s
        return IoProbeStats(p99(reads), p99(writes), len(reads) / period_s, len(writes) / period_s,
                            start_ms=max(starts) if starts else None)

    def stop(self, timeout_s: float = 2.0) -> None:
        """End the child, wait for it and remove the probe's files; safe to call again."""
        process, self._process = self._process, None
        if process is not None:
            end_probe_child(process, timeout_s)
            if self._reader is not None:
                self._reader.join(timeout_s)
                self._reader = None
        self._remove_directories()

    def _remove_directories(self) -> None:
        # Only the names the probe creates, then the (then empty) directory: nothing else.
        for directory in self._directories:
            for name in (READ_FILE_NAME, WRITE_FILE_NAME, *START_FILE_NAMES):
                try:
                    (directory / name).unlink()
                except FileNotFoundError:
                    pass
                except OSError:
                    pass
            try:
                directory.rmdir()
            except OSError:
                pass
        self._directories = []
        self._labels = {}

    def __enter__(self) -> IoProbe:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _default_home() -> Path | None:
    home = os.environ.get("HOME")
    return Path(home) if home and Path(home).is_dir() else None
