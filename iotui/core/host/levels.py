"""Responsiveness levels: once a second, the probes and PSI -> OK / Sluggish / Unresponsive.

`ResponsivenessMonitor` applies the threshold table with hysteresis, so the level
neither flickers nor lingers.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from iotui.core.host.counters import HostSample
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
