"""Responsiveness levels: what other programs experience while a run goes on.

Once a second, three kinds of evidence are judged:

- the wake-up probe (CPU): how late a 10 ms sleep wakes up;
- the I/O probe (disk queue, writeback): how long a small read, and a small write +
  fdatasync, take for a program that is not fio;
- the start-up probe: how long a program whose files are not cached takes to start
  (S's measure, Algodev-github/S `comm_startup_lat`);
- PSI memory `full`: every task stalled on memory (fio does not cause it by design).

The probes are judged by how much worse they get than their own baseline, measured
before fio starts, so a disk whose idle fsync already takes 20 ms is judged by the
change. Only these felt signals raise a level. PSI cpu and io stay on screen and in the
record as context and never raise one, alone or "agreeing" with a probe: fio's own
threads waiting for their own I/O make `io full` high whenever fio keeps the disk busy,
whatever others feel (a 4 KiB save beside a QD32 x 16 random write took 19 ms at p99
while io full read 63%). `ResponsivenessMonitor` applies the table with hysteresis, so
the level neither flickers nor lingers, and keeps the cause.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

if TYPE_CHECKING:
    # Only named in signatures: judging levels needs none of the probes' or counters' machinery
    # (asyncio, psutil), which commands that only print a saved run's levels would pay for.
    from iotui.core.host.counters import HostSample
    from iotui.core.host.io_probe import IoProbeStats
    from iotui.core.host.wakeup_probe import ProbeStats


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

# The causes a record names (`[pressure] cause`, `[[samples]] responsiveness_cause`):
# only felt evidence. Records written before io PSI stopped raising a level may name
# `psi_io_full` (LEGACY_CAUSES): they are read and shown, never produced.
CAUSES = ("wakeup", "io_probe_read", "io_probe_write", "app_start", "psi_memory_full")
IO_CAUSES = ("io_probe_read", "io_probe_write", "app_start")
LEGACY_CAUSES = {"psi_io_full": ("io full", "%", "every running task was stalled on I/O {value} of the time")}

# The per-second figure each cause is read from (the `[[samples]]` key).
CAUSE_FIGURES = {
    "wakeup": "probe_p99_ms",
    "io_probe_read": "io_probe_p99_ms",
    "io_probe_write": "io_probe_write_p99_ms",
    "app_start": "app_start_ms",
    "psi_memory_full": "psi_memory_full_pct",
}


@dataclass(frozen=True)
class Threshold:
    """One rule: `cause`'s figure past `limit` means `level`.

    A probe (`relative`) is judged by how far its p99 rose above its own baseline;
    a PSI share by its value. `signal` is the per-second figure's key.
    """

    level: Level
    cause: str
    limit: float
    relative: bool
    label: str  # shown in the chip, e.g. "io write p99"
    unit: str  # "ms" or "%"
    meaning: str  # completed by the value: "a small write + fdatasync took {value}"

    @property
    def signal(self) -> str:
        return CAUSE_FIGURES[self.cause]


# The budgets every rule below is drawn from.
FRAME_MS = 16.0
# One frame at 60 Hz is 16.7 ms: work that delays a frame longer drops it (web.dev,
# "Measure performance with the RAIL model": produce each frame in under 16 ms).
RESPONSE_MS = 100.0
# 100 ms: the limit for a response to a user's action to feel immediate (Card, Moran
# and Newell, 1983; Nielsen, "Response Times: The 3 Important Limits", 1993; RAIL:
# "process user input events within 50 ms" so the answer shows within 100 ms).
FROZEN_MS = 1000.0
# 1 s: the limit for the user's flow of thought to stay uninterrupted (Nielsen, 1993):
# past it, the desktop has frozen.
ATTENTION_MS = 10000.0
# 10 s: the limit for keeping the user's attention on the task (Nielsen, 1993): past it,
# users turn to other things, or take the program for hung.

# THE thresholds, in one table.
THRESHOLDS: tuple[Threshold, ...] = (
    # A wake-up later than one frame more than at rest drops frames of typing echo,
    # scrolling and animation: the CPU is no longer handed over in time.
    Threshold(Level.SLUGGISH, "wakeup", FRAME_MS, True, "wake-up p99", "ms",
              "1% of 10 ms sleeps woke {value} or more late"),
    # A small read or save that takes 100 ms more than at rest answers a user's
    # action late (opening a file, an editor saving).
    Threshold(Level.SLUGGISH, "io_probe_read", RESPONSE_MS, True, "io read p99", "ms",
              "a small read by another program took {value}"),
    Threshold(Level.SLUGGISH, "io_probe_write", RESPONSE_MS, True, "io write p99", "ms",
              "a small write + fdatasync by another program took {value}"),
    # A program start (its files not cached) a second slower than at rest: starting a
    # program is a wait the user expects, so 100 ms more goes unnoticed (S measured 0.13 s
    # at rest), but past 1 s more the flow of thought breaks. S's gnome-terminal under ten
    # readers: 2.27 s with `none`, 0.149 s with `bfq` (S issue #8): this rule tells them apart.
    Threshold(Level.SLUGGISH, "app_start", FROZEN_MS, True, "start-up", "ms",
              "a program took {value} to start"),
    # Android lmkd's critical level: memory `full` 70 ms out of 1 s
    # (psi_full_thresholds), i.e. 7% of a second with every task stalled on memory.
    Threshold(Level.SLUGGISH, "psi_memory_full", 7.0, False, "memory full", "%",
              "every running task was stalled on memory {value} of the time"),
    # A wake-up 100 ms later than at rest: input is not answered in time.
    Threshold(Level.UNRESPONSIVE, "wakeup", RESPONSE_MS, True, "wake-up p99", "ms",
              "1% of 10 ms sleeps woke {value} or more late"),
    # A small read or save a second slower than at rest: the desktop froze.
    Threshold(Level.UNRESPONSIVE, "io_probe_read", FROZEN_MS, True, "io read p99", "ms",
              "a small read by another program took {value}"),
    Threshold(Level.UNRESPONSIVE, "io_probe_write", FROZEN_MS, True, "io write p99", "ms",
              "a small write + fdatasync by another program took {value}"),
    # A program start 10 s slower than at rest: the user has given up waiting.
    Threshold(Level.UNRESPONSIVE, "app_start", ATTENTION_MS, True, "start-up", "ms",
              "a program took {value} to start"),
    # GNOME low-memory-monitor's CRITICAL trigger: memory `full` 100 ms out of 1 s.
    Threshold(Level.UNRESPONSIVE, "psi_memory_full", 10.0, False, "memory full", "%",
              "every running task was stalled on memory {value} of the time"),
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
class Crossing:
    """A rule met: the figure, and the threshold it went past (baseline + limit)."""

    threshold: Threshold
    value: float
    threshold_value: float

    @property
    def ratio(self) -> float:
        base = self.threshold_value - self.threshold.limit
        return (self.value - base) / self.threshold.limit

    @property
    def text(self) -> str:
        """`io write p99 312 ms > 110 ms`."""
        unit = self.threshold.unit
        return (
            f"{self.threshold.label} {format_value(self.value, unit)} "
            f"> {format_value(self.threshold_value, unit)}"
        )


@dataclass(frozen=True)
class Assessment:
    """The level after one update, what drove it, and a sentence for the user."""

    level: Level
    signal: str | None  # chip text, e.g. "io write p99 312 ms > 110 ms"; None when OK
    sentence: str
    signal_key: str | None = None  # the per-second figure behind `signal`
    changed: bool = False  # the level differs from the previous update's
    cause: str | None = None  # one of CAUSES; None when OK
    cause_value: float | None = None
    cause_unit: str | None = None
    threshold_value: float | None = None
    easing: bool = False  # no rule of this level is met now; the level is on its way down


# Figures whose maximum over the run goes into `[pressure]` as "<name>_max".
SUMMARY_SIGNALS = (
    "probe_p99_ms", "io_probe_p99_ms", "io_probe_write_p99_ms", "app_start_ms",
    "psi_cpu_some_pct", "psi_cpu_full_pct",
    "psi_io_some_pct", "psi_io_full_pct",
    "psi_memory_some_pct", "psi_memory_full_pct",
)


def format_value(value: float, unit: str) -> str:
    """Whole numbers from 20 up, one decimal below (16.4 ms never reads as 16 ms)."""
    text = f"{value:.0f}" if value >= 20 else f"{value:.1f}"
    return f"{text}%" if unit == "%" else f"{text} {unit}"


def is_met(threshold: Threshold, value: float, limit: float) -> bool:
    """A probe must go past baseline + limit; a PSI share reach its limit."""
    return value > limit if threshold.relative else value >= limit


def crossings(values: Mapping[str, float | None], limit_of: Callable[[Threshold], float]) -> list[Crossing]:
    """Every rule `values` meets, each against `limit_of(threshold)` (baseline + limit for a probe)."""
    met = []
    for threshold in THRESHOLDS:
        value = values.get(threshold.signal)
        if value is None:
            continue  # absent, not zero: a missing signal neither raises nor holds a level
        limit = limit_of(threshold)
        if is_met(threshold, float(value), limit):
            met.append(Crossing(threshold, float(value), limit))
    return met


def signal_values(host: HostSample | None, probe: ProbeStats | None, io: IoProbeStats | None) -> dict[str, float | None]:
    """This second's figures by `[[samples]]` key; absent ones are None, never 0."""
    values: dict[str, float | None] = {
        "probe_p99_ms": probe.p99_ms if probe is not None else None,
        "io_probe_p99_ms": io.read_p99_ms if io is not None else None,
        "io_probe_write_p99_ms": io.write_p99_ms if io is not None else None,
        # A warm start (eviction not confirmed) is kept in the record, never judged.
        "app_start_ms": io.start_ms if io is not None and not io.start_warm else None,
    }
    for name in SUMMARY_SIGNALS:
        if name not in values:
            values[name] = getattr(host, name, None) if host is not None else None
    return values


class ResponsivenessMonitor:
    """Fed once per second; decides OK / Sluggish / Unresponsive with hysteresis.

    Rising: Sluggish once any Sluggish rule is met in 3 consecutive samples (not
    necessarily the same rule); Unresponsive as soon as one Unresponsive rule is met.
    Falling: one level down after 5 consecutive samples in which every rule of the
    current level reads below half its limit; the count restarts at each change.
    `baseline` (wake-up) and `io_baseline` (I/O probe) are what "at rest" is here.
    """

    def __init__(self, baseline: ProbeStats | None = None, io_baseline: IoProbeStats | None = None) -> None:
        self.baseline = baseline
        self.io_baseline = io_baseline
        self.level = Level.OK
        self.worst_level = Level.OK
        self._met_streak = {Level.SLUGGISH: 0, Level.UNRESPONSIVE: 0}
        self._calm_streak = 0
        self._maxima: dict[str, float] = {}
        self._holding: Crossing | None = None  # what raised (or last held) the level
        self._worst_seconds: dict[str, int] = {}  # cause -> seconds it held the worst level
        self._worst_peak: dict[str, Crossing] = {}  # cause -> its highest crossing meanwhile

    def baseline_of(self, cause: str) -> float:
        """The cause's figure at rest (0 where none was measured)."""
        if cause == "wakeup":
            value = self.baseline.p99_ms if self.baseline is not None else None
        elif cause == "io_probe_read":
            value = getattr(self.io_baseline, "read_p99_ms", None)
        elif cause == "io_probe_write":
            value = getattr(self.io_baseline, "write_p99_ms", None)
        elif cause == "app_start":
            value = getattr(self.io_baseline, "start_ms", None)
        else:
            value = None
        return float(value) if value is not None else 0.0

    def threshold_value(self, threshold: Threshold) -> float:
        """The figure past which `threshold` is met: baseline + limit for a probe."""
        return threshold.limit + (self.baseline_of(threshold.cause) if threshold.relative else 0.0)

    def _crossings(self, values: dict[str, float | None]) -> list[Crossing]:
        return crossings(values, self.threshold_value)

    def update(self, host: HostSample | None, probe: ProbeStats | None, io: IoProbeStats | None = None) -> Assessment:
        """Take one second's host sample and probe figures; return the level now."""
        values = signal_values(host, probe, io)
        self._track_maxima(values)
        met = self._crossings(values)
        for level in self._met_streak:
            # A rule of this level or a higher one keeps the streak going.
            hit = any(c.threshold.level.rank >= level.rank for c in met)
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
                (value := values[t.signal]) is None
                or value - (self.threshold_value(t) - t.limit) < t.limit * FALL_BELOW_FRACTION
                for t in THRESHOLDS
                if t.level is self.level
            )
            self._calm_streak = self._calm_streak + 1 if calm else 0
            if self._calm_streak >= FALL_AFTER_SAMPLES:
                self.level = _LEVEL_ORDER[self.level.rank - 1]

        changed = self.level is not previous
        if changed:
            self._calm_streak = 0
        # What holds the level: the strongest rule of this level (or above) met now; else
        # the one that raised it, while the level eases off.
        at_level = [c for c in met if c.threshold.level.rank >= self.level.rank]
        strongest = max(at_level, key=lambda c: c.ratio, default=None)
        if self.level is Level.OK:
            self._holding = None
        elif strongest is not None:
            self._holding = strongest
        if self.level.rank > self.worst_level.rank:
            self.worst_level = self.level
            self._worst_seconds.clear()
            self._worst_peak.clear()
        if self.level is self.worst_level and self.level is not Level.OK and self._holding is not None:
            # The cause of the worst level is the signal that held it for the most seconds
            # (one stray spike of another signal does not take the name); its value is
            # that signal's peak while it did.
            cause = self._holding.threshold.cause
            self._worst_seconds[cause] = self._worst_seconds.get(cause, 0) + 1
            peak = self._worst_peak.get(cause)
            if peak is None or self._holding.value > peak.value:
                self._worst_peak[cause] = self._holding
        return self._assess(changed, easing=strongest is None)

    def _assess(self, changed: bool, easing: bool) -> Assessment:
        if self.level is Level.OK:
            return Assessment(Level.OK, None, "The machine is responding normally.", None, changed)
        holding = self._holding
        if holding is None:
            return Assessment(
                self.level, None,
                f"The machine was {self.level.value} a moment ago; no figure is available now.",
                None, changed, easing=True,
            )
        threshold = holding.threshold
        meaning = threshold.meaning.format(value=format_value(holding.value, threshold.unit))
        limit_words = format_value(holding.threshold_value, threshold.unit)
        at_rest_value = holding.threshold_value - threshold.limit
        if threshold.relative and at_rest_value > 0:
            at_rest = format_value(at_rest_value, threshold.unit)
            limit_words += f" ({at_rest} at rest + {format_value(threshold.limit, threshold.unit)})"
        prefix = "The machine is sluggish" if self.level is Level.SLUGGISH else "The machine is not responding"
        signal = holding.text
        if easing:
            prefix += " (easing off)"
            signal = f"easing off · {threshold.label} was {format_value(holding.value, threshold.unit)}"
        return Assessment(
            self.level, signal, f"{prefix}: {meaning}, over the limit of {limit_words}.",
            threshold.signal, changed, threshold.cause, holding.value, threshold.unit,
            holding.threshold_value, easing,
        )

    def _track_maxima(self, values: dict[str, float | None]) -> None:
        for name in SUMMARY_SIGNALS:
            value = values.get(name)
            if value is not None and value > self._maxima.get(name, -math.inf):
                self._maxima[name] = value

    def summary(self) -> dict[str, str | float]:
        """`[pressure]` for the record: worst level, its cause, each figure's maximum.

        Figures never seen (no PSI, no probe) are left out: absent, not zero.
        """
        result: dict[str, str | float] = {"responsiveness": self.worst_level.value}
        if self.worst_level is not Level.OK and self._worst_seconds:
            cause = max(self._worst_seconds, key=lambda name: (self._worst_seconds[name], self._worst_peak[name].ratio))
            peak = self._worst_peak[cause]
            result["cause"] = cause
            result["cause_value"] = round(peak.value, 3)
            result["cause_unit"] = peak.threshold.unit
            result["cause_threshold"] = round(peak.threshold_value, 3)
        for name in SUMMARY_SIGNALS:
            if name in self._maxima:
                result[f"{name}_max"] = self._maxima[name]
        if self.baseline is not None:
            result["probe_baseline_p99_ms"] = self.baseline.p99_ms
        for key, attribute in (("io_probe_baseline_p99_ms", "read_p99_ms"),
                               ("io_probe_write_baseline_p99_ms", "write_p99_ms"),
                               ("app_start_baseline_ms", "start_ms")):
            value = getattr(self.io_baseline, attribute, None)
            if value is not None:
                result[key] = value
        return result
