"""Is the machine still responsive while fio runs? A wake-up probe plus PSI -> a level.

Two kinds of evidence, both cheap:

- a wake-up latency probe: a tiny child process that sleeps 10 ms in a loop and
  measures how late each wake-up is. An interactive program (a shell, an editor, a
  compositor) waits in the same way, so late wake-ups are what a user feels as lag;
- pressure stall information from the host sample (cpu/io/memory, some/full).

`ResponsivenessMonitor` turns them, once per second, into OK / Sluggish /
Unresponsive with hysteresis, so the level neither flickers nor lingers.
"""

from __future__ import annotations

import asyncio
import enum
import math
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from iotui.core.host.counters import HostSample

# ---------------------------------------------------------------------------
# The wake-up probe.

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
    ) -> None:
        self.interval_ms = interval_ms
        self.report_every_s = report_every_s
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
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
        self._process = subprocess.Popen(
            [
                sys.executable, "-I", "-S", "-c", _PROBE_CHILD_SOURCE,
                str(self.interval_ms / 1000.0), str(self.report_every_s), str(os.getpid()),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        self._reader = threading.Thread(
            target=self._read_reports, args=(self._process,), name="iotui-wakeup-probe", daemon=True
        )
        self._reader.start()

    def _read_reports(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for raw_line in process.stdout:
            try:
                lateness_ms = [int(field) / 1000.0 for field in raw_line.split()]
            except ValueError:
                continue
            stats = lateness_stats(lateness_ms)
            if stats is None:
                continue
            with self._lock:
                self._latest = stats
                self._latest_at_s = time.monotonic()
                self._reports_received += 1
                self._recent_lateness_ms.append(lateness_ms)

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
        try:
            if process.stdin is not None:
                process.stdin.close()  # EOF: the child exits by itself
        except OSError:
            pass
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        if self._reader is not None:
            self._reader.join(timeout=timeout_s)
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


# ---------------------------------------------------------------------------
# Levels and the rules that set them.


class Level(str, enum.Enum):
    """How responsive the machine is; the values are what records store."""

    OK = "ok"
    SLUGGISH = "sluggish"
    UNRESPONSIVE = "unresponsive"

    @property
    def rank(self) -> int:
        """0 for OK, 1 for Sluggish, 2 for Unresponsive."""
        return _LEVEL_ORDER.index(self)


_LEVEL_ORDER = (Level.OK, Level.SLUGGISH, Level.UNRESPONSIVE)


@dataclass(frozen=True)
class Threshold:
    """One rule: `signal` at or above (`inclusive`) / above `limit` means `level`."""

    level: Level
    signal: str  # a HostSample field or "probe_p99_ms" / "probe_max_ms"
    limit: float
    inclusive: bool
    label: str  # short name shown in the chip, e.g. "io some"
    unit: str  # "%" or " ms"
    meaning: str  # what the figure says, completed by the value: "... {value} of the time"


# THE thresholds, in one table. PSI figures are % of one second (the monitor is fed
# once per second), so "70 ms out of 1 s" in the sources below is 7%.
THRESHOLDS: tuple[Threshold, ...] = (
    # Android lmkd's "medium" level and GNOME low-memory-monitor's "medium" trigger are
    # memory `some` 100 ms per 1 s window; the same 10% share of a second spent waiting
    # is used for cpu: no monitor we know publishes a cpu level, and 10% is where a
    # second of waiting starts to show in interactive use.
    Threshold(Level.SLUGGISH, "psi_cpu_some_pct", 10.0, True, "cpu some", "%",
              "tasks waited for a CPU {value} of the time"),
    # Same 100 ms-per-second partial-stall level (lmkd / low-memory-monitor "medium"),
    # applied to I/O.
    Threshold(Level.SLUGGISH, "psi_io_some_pct", 10.0, True, "io some", "%",
              "tasks waited on I/O {value} of the time"),
    # Android lmkd (psi_thresholds[LOW] = {PSI_SOME, 70}) and GNOME low-memory-monitor
    # (LOW trigger: some 70 ms out of 1 s): the first sign of memory pressure.
    Threshold(Level.SLUGGISH, "psi_memory_some_pct", 7.0, True, "memory some", "%",
              "tasks waited for memory {value} of the time"),
    # One frame at 60 Hz is 16.7 ms: a wake-up later than that drops a frame of typing
    # echo, scrolling or animation.
    Threshold(Level.SLUGGISH, "probe_p99_ms", 16.0, False, "probe p99", " ms",
              "1% of 10 ms sleeps woke {value} or more late"),
    # GNOME low-memory-monitor's CRITICAL trigger: memory `full` 100 ms out of 1 s
    # (Android lmkd uses full 70 ms for its critical level).
    Threshold(Level.UNRESPONSIVE, "psi_memory_full_pct", 10.0, True, "memory full", "%",
              "every running task was stalled on memory {value} of the time"),
    # systemd-oomd acts at 60% memory pressure held for 30 s (DefaultMemoryPressureLimit,
    # DefaultMemoryPressureDurationSec); half that share in a single second of a complete
    # I/O stall already freezes anything that touches the disk.
    Threshold(Level.UNRESPONSIVE, "psi_io_full_pct", 30.0, True, "io full", "%",
              "every running task was stalled on I/O {value} of the time"),
    # Three 60 Hz frames (~50 ms): the budget the RAIL model gives to handling one input.
    Threshold(Level.UNRESPONSIVE, "probe_p99_ms", 50.0, False, "probe p99", " ms",
              "1% of 10 ms sleeps woke {value} or more late"),
    # 100 ms is the classic limit for a response to still feel instant (Card, Moran and
    # Newell; Nielsen); a single wake-up that late is a visible freeze.
    Threshold(Level.UNRESPONSIVE, "probe_max_ms", 100.0, False, "probe max", " ms",
              "a 10 ms sleep woke {value} late"),
)

# Consecutive one-second samples with a rule met before the level rises. Sluggish must
# be sustained so one busy second is not news; a single second frozen past an
# Unresponsive limit is already what the user suffered, so it counts at once.
RISE_AFTER_SAMPLES = {Level.SLUGGISH: 3, Level.UNRESPONSIVE: 1}
# Consecutive samples with every rule of the current level below this fraction of its
# limit before the level drops by one. One level per window, so Unresponsive returns
# to OK after two calm windows, through Sluggish.
FALL_AFTER_SAMPLES = 5
FALL_BELOW_FRACTION = 0.5


@dataclass(frozen=True)
class Assessment:
    """The level after one update, what drove it, and a sentence for the user."""

    level: Level
    signal: str | None  # short, e.g. "io some 34%"; None when nothing stands out
    sentence: str
    signal_key: str | None = None  # the Threshold.signal behind `signal`, for likely_cause
    changed: bool = False  # the level differs from the previous update's


# Figures whose maximum over the run goes into `[summary.pressure]` as "<name>_max".
_SUMMARY_SIGNALS = (
    "probe_p99_ms",
    "psi_cpu_some_pct", "psi_cpu_full_pct",
    "psi_io_some_pct", "psi_io_full_pct",
    "psi_memory_some_pct", "psi_memory_full_pct",
)


def _format_value(value: float, unit: str) -> str:
    # Whole numbers from 20 up; one decimal below, so 16.4 ms never reads as the 16 ms limit.
    text = f"{value:.0f}" if value >= 20 else f"{value:.1f}"
    return f"{text}{unit}"


def _is_met(threshold: Threshold, value: float | None) -> bool:
    if value is None:
        return False  # absent, not zero: a missing signal neither raises nor holds a level
    return value >= threshold.limit if threshold.inclusive else value > threshold.limit


def _signal_values(host: HostSample | None, probe: ProbeStats | None) -> dict[str, float | None]:
    values: dict[str, float | None] = {
        "probe_p99_ms": probe.p99_ms if probe is not None else None,
        "probe_max_ms": probe.max_ms if probe is not None else None,
    }
    # Host figures the rules read plus those only the summary keeps (cpu full has no rule).
    for name in [t.signal for t in THRESHOLDS] + list(_SUMMARY_SIGNALS):
        if name not in values:
            values[name] = getattr(host, name, None) if host is not None else None
    return values


class ResponsivenessMonitor:
    """Fed once per second; decides OK / Sluggish / Unresponsive with hysteresis.

    Rising: Sluggish once any Sluggish rule is met in 3 consecutive samples (not
    necessarily the same rule); Unresponsive as soon as one Unresponsive rule is met.
    Falling: one level down after 5 consecutive samples in which every rule of the
    current level reads below half its limit; the count restarts at each change.
    """

    def __init__(self, baseline: ProbeStats | None = None) -> None:
        self.baseline = baseline
        self.level = Level.OK
        self.worst_level = Level.OK
        self._met_streak = {Level.SLUGGISH: 0, Level.UNRESPONSIVE: 0}
        self._calm_streak = 0
        self._maxima: dict[str, float] = {}

    def update(self, host: HostSample | None, probe: ProbeStats | None) -> Assessment:
        """Take one second's host sample and probe figures; return the level now."""
        values = _signal_values(host, probe)
        self._track_maxima(values)

        met = [t for t in THRESHOLDS if _is_met(t, values[t.signal])]
        for level in self._met_streak:
            # A rule of this level or a higher one keeps the streak going.
            hit = any(t.level.rank >= level.rank for t in met)
            self._met_streak[level] = self._met_streak[level] + 1 if hit else 0

        previous = self.level
        risen_to = max(
            (level for level, streak in self._met_streak.items() if streak >= RISE_AFTER_SAMPLES[level]),
            key=lambda level: level.rank,
            default=Level.OK,
        )
        if risen_to.rank > self.level.rank:
            self.level = risen_to
        elif self.level is not Level.OK:
            calm = all(
                (value := values[t.signal]) is None or value < t.limit * FALL_BELOW_FRACTION
                for t in THRESHOLDS
                if t.level is self.level
            )
            self._calm_streak = self._calm_streak + 1 if calm else 0
            if self._calm_streak >= FALL_AFTER_SAMPLES:
                self.level = _LEVEL_ORDER[self.level.rank - 1]

        changed = self.level is not previous
        if changed:
            self._calm_streak = 0
        if self.level.rank > self.worst_level.rank:
            self.worst_level = self.level
        return self._assess(values, changed)

    def _assess(self, values: dict[str, float | None], changed: bool) -> Assessment:
        if self.level is Level.OK:
            return Assessment(Level.OK, None, "The machine is responding normally.", None, changed)
        # The rule of the current level whose figure is furthest past (or closest to) its
        # limit is what holds the level up, even while it calms down.
        candidates = [
            (value / t.limit, t, value)
            for t in THRESHOLDS
            if t.level is self.level and (value := values[t.signal]) is not None
        ]
        if not candidates:
            # Every signal vanished (the probe stopped, say): keep the level, say why.
            return Assessment(
                self.level, None,
                f"The machine was {self.level.value} a moment ago; no figure is available now.",
                None, changed,
            )
        _, threshold, value = max(candidates, key=lambda candidate: candidate[0])
        shown = _format_value(value, threshold.unit)
        meaning = threshold.meaning.format(value=shown)
        prefix = "The machine is sluggish" if self.level is Level.SLUGGISH else "The machine is not responding"
        if not _is_met(threshold, value):
            prefix += " (easing off)"
        return Assessment(
            self.level, f"{threshold.label} {shown}", f"{prefix}: {meaning}.", threshold.signal, changed
        )

    def _track_maxima(self, values: dict[str, float | None]) -> None:
        for name in _SUMMARY_SIGNALS:
            value = values.get(name)
            if value is not None and value > self._maxima.get(name, -math.inf):
                self._maxima[name] = value

    def summary(self) -> dict[str, str | float]:
        """`[summary.pressure]` for the record: worst level and each figure's maximum.

        Figures never seen (no PSI, no probe) are left out: absent, not zero.
        """
        result: dict[str, str | float] = {"responsiveness": self.worst_level.value}
        for name in _SUMMARY_SIGNALS:
            if name in self._maxima:
                result[f"{name}_max"] = self._maxima[name]
        if self.baseline is not None:
            result["probe_baseline_p99_ms"] = self.baseline.p99_ms
        return result


def likely_cause(numjobs: int | None, cpu_count: int, assessment: Assessment) -> str:
    """A sentence naming the likely cause of a bad level and what to try; "" when OK."""
    if assessment.level is Level.OK:
        return ""
    key = assessment.signal_key or ""
    too_many_jobs = numjobs is not None and cpu_count > 0 and numjobs > cpu_count
    if key.startswith("psi_memory"):
        return (
            "Memory is short: fio's buffers (numjobs x iodepth x block size) and other "
            "programs leave too little RAM; try fewer jobs or a lower iodepth."
        )
    if too_many_jobs:
        return f"numjobs ({numjobs}) is above the core count ({cpu_count}): try fewer jobs."
    if key.startswith("psi_io"):
        return (
            "The disk is saturated and everything else waits behind fio's queue: "
            "try a lower iodepth or fewer jobs, or limit the rate (rate_iops)."
        )
    if key.startswith("psi_cpu"):
        return (
            "The CPUs are saturated: try fewer jobs, or a larger block size so each "
            "I/O costs less CPU per byte."
        )
    if key.startswith("probe"):
        return (
            "Wake-ups run late: the CPUs are busy with fio or another program, or a "
            "virtual machine's host is taking its time; try fewer jobs."
        )
    return ""
