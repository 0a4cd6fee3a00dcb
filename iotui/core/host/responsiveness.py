"""Responsiveness while a run goes on: the probes, the level rules and the advice.

The pieces live in their own modules (`wakeup_probe`, `levels`, `advice`); this
module gathers their public names for callers that import them from one place.
"""

from __future__ import annotations

from iotui.core.host.advice import likely_cause
from iotui.core.host.levels import (
    FALL_AFTER_SAMPLES,
    FALL_BELOW_FRACTION,
    RISE_AFTER_SAMPLES,
    THRESHOLDS,
    Assessment,
    Level,
    ResponsivenessMonitor,
    Threshold,
)
from iotui.core.host.wakeup_probe import (
    PROBE_INTERVAL_MS,
    PROBE_REPORT_EVERY_S,
    ProbeStats,
    WakeupProbe,
    collect_baseline,
    lateness_stats,
)

__all__ = [
    "FALL_AFTER_SAMPLES", "FALL_BELOW_FRACTION", "PROBE_INTERVAL_MS", "PROBE_REPORT_EVERY_S",
    "RISE_AFTER_SAMPLES", "THRESHOLDS", "Assessment", "Level", "ProbeStats", "ResponsivenessMonitor",
    "Threshold", "WakeupProbe", "collect_baseline", "lateness_stats", "likely_cause",
]
