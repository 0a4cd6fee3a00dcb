"""Which of a record's interval samples a comparison uses (warm-up and partial intervals left out),
and a record's samples as time series for plots."""

from __future__ import annotations

from typing import Any

from iotui.core.records.record import RunRecord
from iotui.core.records.schema import DIRECTIONS

# Warm-up: intervals that start before max(WARMUP_S, WARMUP_FRACTION x run) are dropped.
WARMUP_S = 2.0
WARMUP_FRACTION = 0.10
# Intervals shorter than this fraction of the median interval are partial (the last one).
PARTIAL_INTERVAL_FRACTION = 0.5


def _active_window(samples: list[dict[str, Any]], direction: str) -> list[dict[str, Any]]:
    """The stretch in which ``direction`` did I/O: from its first busy interval to its last.

    A preset with several job sections (a read section, then a write section)
    leaves each direction idle for part of the run; those idle intervals are
    not the direction's noise. Idle intervals *inside* the stretch (a stall)
    are kept. When the direction stopped before the run ended, its last
    interval was only partly busy and is dropped.
    """
    key = f"{direction}_iops"
    busy = [i for i, s in enumerate(samples) if isinstance(s.get(key), (int, float)) and s[key] > 0]
    if not busy:
        return []
    last = busy[-1] if busy[-1] == len(samples) - 1 else busy[-1] - 1
    return samples[busy[0]: last + 1]


def steady_samples(record: RunRecord, direction: str | None = None) -> list[dict[str, Any]]:
    """The record's interval samples without warm-up and without partial intervals.

    With a direction, only the stretch in which that direction did I/O, and
    the warm-up counts from the start of that stretch.
    """
    samples = [
        s for s in record.samples
        if isinstance(s.get("t_s"), (int, float)) and isinstance(s.get("dt_s"), (int, float)) and not s.get("paused")
    ]
    if direction is not None:
        samples = _active_window(samples, direction)
    if not samples:
        return []
    start_s = float(samples[0]["t_s"]) - float(samples[0]["dt_s"])
    length_s = float(samples[-1]["t_s"]) - start_s
    warmup_s = max(WARMUP_S, WARMUP_FRACTION * length_s)
    durations = sorted(float(s["dt_s"]) for s in samples)
    median_dt = durations[len(durations) // 2]
    return [
        s
        for s in samples
        if float(s["t_s"]) - float(s["dt_s"]) - start_s >= warmup_s - 1e-9
        and float(s["dt_s"]) >= PARTIAL_INTERVAL_FRACTION * median_dt
    ]



def time_series(record: RunRecord, key_suffix: str) -> dict[str, list[tuple[float, float]]]:
    """Per direction, (t_s, value) of ``<direction>_<key_suffix>`` over the samples."""
    series: dict[str, list[tuple[float, float]]] = {}
    for direction in DIRECTIONS:
        key = f"{direction}_{key_suffix}"
        points = [
            (float(s["t_s"]), float(s[key]))
            for s in record.samples
            if isinstance(s.get(key), (int, float)) and isinstance(s.get("t_s"), (int, float))
        ]
        if points:
            series[direction] = points
    return series
