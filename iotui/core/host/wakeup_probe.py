"""The wake-up latency probe: how late a tiny child's 10 ms sleeps wake up.

An interactive program (a shell, an editor, a compositor) waits in the same way,
so late wake-ups are what a user feels as lag when the CPUs are busy.
"""

from __future__ import annotations

import asyncio
import math
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, TypedDict

from iotui.core.host.probe_child import ReportReader, end_probe_child


class ChildOptions(TypedDict, total=False):
    """The extra ``subprocess.Popen`` options a launcher asks for (a remote child's ssh)."""

    start_new_session: bool
    preexec_fn: Callable[[], object]


# Turns the child's python arguments (after the interpreter) into the command that runs them,
# its extra Popen options and what is written first to its stdin: the default is this
# interpreter; a remote host's is ssh, its program on stdin (iotui.core.remote.host_probes).
ChildLauncher = Callable[[list[str]], tuple[list[str], ChildOptions, bytes]]


def start_child(launcher: ChildLauncher | None, python_args: list[str]) -> subprocess.Popen[bytes]:
    """A probe child with `python_args`, its stdin and stdout pipes; raises OSError if it cannot start."""
    argv, options, payload = ([sys.executable, *python_args], ChildOptions(), b"") if launcher is None else launcher(python_args)
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True, **options
    )
    if payload:
        assert process.stdin is not None
        try:
            process.stdin.write(payload)
            process.stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it ended at once: its reader finds the end
    return process


PROBE_INTERVAL_MS = 10.0
PROBE_REPORT_EVERY_S = 1.0

# The child's whole program. Self-contained (standard library only, run with -I -S) so it
# starts in tens of milliseconds and does not depend on how iotui was installed.
# Each report line is the lateness of every wake-up of the last second, in microseconds.
_PROBE_CHILD_SOURCE = r"""
import os, signal, sys, threading, time

interval_s = float(sys.argv[1])
report_every_s = float(sys.argv[2])
parent_pid = int(sys.argv[3])

# Ctrl-C in the terminal belongs to the parent; the child ends when its pipe closes.
signal.signal(signal.SIGINT, signal.SIG_IGN)

def exit_on_eof():
    # stdin is the parent's pipe: EOF means the parent closed it or died.
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)

threading.Thread(target=exit_on_eof, daemon=True).start()

lateness_us = []
next_report = time.monotonic() + report_every_s
while True:
    before = time.monotonic()
    time.sleep(interval_s)
    after = time.monotonic()
    lateness_us.append(max(0, round((after - before - interval_s) * 1e6)))
    if after >= next_report:
        # Belt and braces beside the pipe: a re-parented child is an orphan.
        if os.getppid() != parent_pid:
            os._exit(0)
        try:
            sys.stdout.write(" ".join(map(str, lateness_us)) + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            os._exit(0)
        lateness_us.clear()
        next_report += report_every_s
        if next_report <= after:
            # The child itself was stalled for over a period: restart the schedule.
            next_report = after + report_every_s
"""


@dataclass(frozen=True)
class ProbeStats:
    """How late 10 ms sleeps woke up over one report period (normally one second)."""

    p50_ms: float
    p99_ms: float
    max_ms: float
    # Wake-ups measured; 0 when the figures are a lower bound for a probe that stopped
    # reporting (it is stuck in a wake-up that is later than that).
    samples: int = 0


def lateness_stats(lateness_ms: Sequence[float]) -> ProbeStats | None:
    """p50/p99/max of wake-up lateness by nearest rank; `None` for no samples."""
    if not lateness_ms:
        return None
    ordered = sorted(lateness_ms)

    def nearest_rank(percent: float) -> float:
        rank = max(1, math.ceil(percent / 100.0 * len(ordered)))
        return ordered[rank - 1]

    return ProbeStats(
        p50_ms=nearest_rank(50.0),
        p99_ms=nearest_rank(99.0),
        max_ms=ordered[-1],
        samples=len(ordered),
    )


class WakeupProbe:
    """Runs the wake-up latency child and keeps its latest per-second figures.

    Non-blocking to use from an event loop: a daemon thread drains the child's pipe
    (so the child never blocks on a full pipe) and `read_latest()` only takes a lock.
    The child dies with its parent: it exits when its stdin pipe reaches EOF, which
    the kernel delivers when iotui exits for any reason, SIGKILL included.
    """

    def __init__(
        self,
        interval_ms: float = PROBE_INTERVAL_MS,
        report_every_s: float = PROBE_REPORT_EVERY_S,
        keep_reports: int = 60,
        launcher: ChildLauncher | None = None,
    ) -> None:
        self.interval_ms = interval_ms
        self.launcher = launcher
        self.report_every_s = report_every_s
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: ReportReader | None = None
        # The event loop that reads the child's reports; None: a thread of the probe's own.
        self.loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._latest: ProbeStats | None = None
        self._latest_at_s: float | None = None
        self._reports_received = 0
        # Raw lateness of the last reports, for `baseline()`.
        self._recent_lateness_ms: deque[list[float]] = deque(maxlen=keep_reports)

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        """Whether the child is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def reports_received(self) -> int:
        """How many per-second reports arrived since `start()`."""
        with self._lock:
            return self._reports_received

    def start(self) -> None:
        """Start the child (a no-op when it already runs). Raises OSError if it cannot start."""
        if self.running:
            return
        self.stop()
        with self._lock:
            self._latest = None
            self._latest_at_s = None
            self._reports_received = 0
            self._recent_lateness_ms.clear()
        self._process = start_child(self.launcher, [
            "-I", "-S", "-c", _PROBE_CHILD_SOURCE,
            str(self.interval_ms / 1000.0), str(self.report_every_s), str(os.getpid()),
        ])
        self._reader = ReportReader(self._process, self._take_report, "iotui-wakeup-probe", self.loop)

    def _take_report(self, raw_line: bytes) -> None:
        try:
            lateness_ms = [int(field) / 1000.0 for field in raw_line.split()]
        except ValueError:
            return
        stats = lateness_stats(lateness_ms)
        if stats is None:
            return
        with self._lock:
            self._latest = stats
            self._latest_at_s = time.monotonic()
            self._reports_received += 1
            self._recent_lateness_ms.append(lateness_ms)

    def detach_reader(self) -> None:
        """Stop the event loop's watch of the child's pipe (on the loop's thread, before :meth:`stop`)."""
        if self._reader is not None:
            self._reader.detach()

    def read_latest(self, now_s: float | None = None) -> ProbeStats | None:
        """The most recent second's figures, without blocking.

        `None` before the first report and after `stop()`. When a running child has
        gone silent for over two report periods, it is stuck in a wake-up that is at
        least that late, so a lower bound is returned rather than stale good news.
        """
        if self._process is None:
            return None
        now_s = time.monotonic() if now_s is None else now_s
        with self._lock:
            latest, latest_at_s = self._latest, self._latest_at_s
        if latest is None or latest_at_s is None:
            return None
        silent_s = now_s - latest_at_s
        if silent_s <= 2 * self.report_every_s or not self.running:
            return latest if self.running else None
        overdue_ms = (silent_s - self.report_every_s) * 1000.0
        return ProbeStats(p50_ms=overdue_ms, p99_ms=overdue_ms, max_ms=overdue_ms, samples=0)

    def baseline(self, last_reports: int = 3) -> ProbeStats | None:
        """Figures pooled over the last `last_reports` reports: call it before fio starts."""
        with self._lock:
            recent = list(self._recent_lateness_ms)[-last_reports:] if last_reports > 0 else []
        return lateness_stats([value for report in recent for value in report])

    def stop(self, timeout_s: float = 1.0) -> None:
        """End the child and wait for it; safe to call more than once."""
        process, self._process = self._process, None
        if process is None:
            return
        end_probe_child(process, timeout_s)
        if self._reader is not None:
            self._reader.join(timeout_s)
            self._reader = None

    def __enter__(self) -> WakeupProbe:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


async def collect_baseline(probe: WakeupProbe, seconds: int = 3) -> ProbeStats | None:
    """Start `probe` if needed, wait for `seconds` reports, return their pooled figures.

    The session calls this before fio starts, so the record can say how late wake-ups
    were on this machine at rest (a busy VM host is late even without fio).
    """
    probe.start()
    wanted = probe.reports_received + seconds
    # Generous deadline: a loaded machine starts the child late; never wait forever.
    deadline_s = time.monotonic() + seconds * probe.report_every_s + 3.0
    while probe.reports_received < wanted and time.monotonic() < deadline_s and probe.running:
        await asyncio.sleep(0.05)
    received = min(seconds, probe.reports_received)
    return probe.baseline(last_reports=received) if received else None

