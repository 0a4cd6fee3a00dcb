"""Which of a record's interval samples a comparison uses (warm-up and partial intervals left out),
and a record's samples as time series for plots."""

from __future__ import annotations

from typing import Mapping, Sequence

from iotui.core.interference import disturbed
from iotui.core.numbers import number
from iotui.core.records.record import RunRecord
from iotui.core.records.schema import DIRECTIONS

# Warm-up: intervals that start before max(WARMUP_S, WARMUP_FRACTION x run) are dropped.
WARMUP_S = 2.0
WARMUP_FRACTION = 0.10
# Intervals shorter than this fraction of the median interval are partial (the last one).
PARTIAL_INTERVAL_FRACTION = 0.5


def _active_window(samples: Sequence[Mapping[str, object]], direction: str) -> list[Mapping[str, object]]:
    """The stretch in which ``direction`` did I/O: from its first busy interval to its last.

    A preset with several job sections (a read section, then a write section)
    leaves each direction idle for part of the run; those idle intervals are
    not the direction's noise. Idle intervals *inside* the stretch (a stall)
    are kept. When the direction stopped before the run ended, its last
    interval was only partly busy and is dropped.
    """
    key = f"{direction}_iops"
    busy = [i for i, s in enumerate(samples) if (number(s.get(key)) or 0.0) > 0]
    if not busy:
        return []
    last = busy[-1] if busy[-1] == len(samples) - 1 else busy[-1] - 1
    return list(samples[busy[0]: last + 1])


def _seconds(sample: Mapping[str, object]) -> tuple[float, float]:
    """A timed sample's ``t_s`` and ``dt_s`` (steady_samples keeps only samples that have both)."""
    return number(sample.get("t_s")) or 0.0, number(sample.get("dt_s")) or 0.0


def steady_samples(record: RunRecord, direction: str | None = None) -> list[Mapping[str, object]]:
    """The record's interval samples without warm-up, partial intervals and seconds another program's I/O shared.

    With a direction, only the stretch in which that direction did I/O, and
    the warm-up counts from the start of that stretch.
    """
    samples: list[Mapping[str, object]] = [
        s for s in record.samples
        if number(s.get("t_s")) is not None and number(s.get("dt_s")) is not None and not s.get("paused")
        and not disturbed(s)
    ]
    if direction is not None:
        samples = _active_window(samples, direction)
    if not samples:
        return []
    first_t_s, first_dt_s = _seconds(samples[0])
    start_s = first_t_s - first_dt_s
    length_s = _seconds(samples[-1])[0] - start_s
    warmup_s = max(WARMUP_S, WARMUP_FRACTION * length_s)
    durations = sorted(_seconds(s)[1] for s in samples)
    median_dt = durations[len(durations) // 2]
    return [
        s
        for s in samples
        if _seconds(s)[0] - _seconds(s)[1] - start_s >= warmup_s - 1e-9
        and _seconds(s)[1] >= PARTIAL_INTERVAL_FRACTION * median_dt
    ]


def time_series(record: RunRecord, key_suffix: str) -> dict[str, list[tuple[float, float]]]:
    """Per direction, (t_s, value) of ``<direction>_<key_suffix>`` over the samples."""
    series: dict[str, list[tuple[float, float]]] = {}
    for direction in DIRECTIONS:
        key = f"{direction}_{key_suffix}"
        points = [
            (t_s, value)
            for s in record.samples
            if (value := number(s.get(key))) is not None and (t_s := number(s.get("t_s"))) is not None
        ]
        if points:
            series[direction] = points
    return series
