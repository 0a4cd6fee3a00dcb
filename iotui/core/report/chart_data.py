"""The report's charts as data, taken from the records: per-second figures per section, a sweep's
curves, a comparison's bars. Units are the chart's own (IOPS, MiB/s, µs), named in its y label."""

from __future__ import annotations

import statistics
from typing import Mapping, Sequence

from iotui.core.numbers import finite_number
from iotui.core.report.chart_spec import Bar, ChartSpec, LevelSpan, Series
from iotui.core.compare.compare import MIN_SAMPLES, THRESHOLD_PCT, Comparison
from iotui.core.compare.samples import steady_samples
from iotui.core.records.direction_figures import section_directions
from iotui.core.records.record import RunRecord
from iotui.core.records.schema import DIRECTIONS
from iotui.core.sweep.analysis import SweepAnalysis
from iotui.core.sweep.points import PointResult, usable_points
from iotui.core.sweep.values import SweepAxis

MIB = float(1 << 20)
# (key suffix of a sample or section figure, title, y label, divisor from the record's unit)
PER_SECOND = (
    ("iops", "IOPS", "IOPS", 1.0),
    ("bw_bytes", "Bandwidth", "MiB/s", MIB),
    ("lat_p99_ns", "p99 completion latency", "µs", 1000.0),
)
SWEEP_CURVES = (
    ("iops", "IOPS", "IOPS", 1.0),
    ("lat_p99_ns", "p99 completion latency", "µs", 1000.0),
)
COMPARED = (("iops", "IOPS", "IOPS", 1.0), ("lat_p99_ns", "p99 completion latency", "µs", 1000.0))


def charted_samples(record: RunRecord, index: int) -> list[Mapping[str, object]]:
    """A section's samples that a chart draws: every interval with a time, pauses left out (as in every figure)."""
    return [s for s in record.section_samples(index) if finite_number(s.get("t_s")) is not None and not s.get("paused")]


def level_spans(samples: Sequence[Mapping[str, object]]) -> tuple[LevelSpan, ...]:
    """Each stretch of seconds at one responsiveness level, from the samples that carry one."""
    spans: list[LevelSpan] = []
    for sample in samples:
        level = sample.get("responsiveness")
        end_s = finite_number(sample.get("t_s"))
        if not isinstance(level, str) or end_s is None:
            continue
        start_s = end_s - (finite_number(sample.get("dt_s")) or 1.0)
        if spans and spans[-1].level == level and abs(spans[-1].end_s - start_s) < 1e-6:
            spans[-1] = LevelSpan(spans[-1].start_s, end_s, level)
        else:
            spans.append(LevelSpan(start_s, end_s, level))
    return tuple(spans)


def section_charts(record: RunRecord, index: int, prefix: str) -> list[ChartSpec]:
    """IOPS, bandwidth and p99 per second of one section, each direction a line, levels beneath."""
    samples = charted_samples(record, index)
    section = record.sections[index] if index < len(record.sections) else {}
    directions = section_directions(section) or list(DIRECTIONS)
    levels = level_spans(samples)
    charts = []
    for key, title, unit, divisor in PER_SECOND:
        series = []
        for direction in directions:
            points = [(t_s, value / divisor) for s in samples
                      if (value := finite_number(s.get(f"{direction}_{key}"))) is not None
                      and (t_s := finite_number(s.get("t_s"))) is not None]
            if points:
                series.append(Series(direction, direction, tuple(t for t, _ in points), tuple(v for _, v in points)))
        if series:
            name = str(section.get("name", "")) or f"section {index + 1}"
            charts.append(ChartSpec(f"{prefix}-{key}", f"{title} per second: {name}", "seconds since the run started", unit,
                                    tuple(series), levels=levels))
    return charts


def _combinations(points: Sequence[PointResult], axes: Sequence[SweepAxis]) -> list[dict[str, str]]:
    """The values of every key but the first, each combination once, in the sweep's order."""
    seen: list[dict[str, str]] = []
    for point in points:
        rest = {axis.key: point.params.get(axis.key, "") for axis in axes[1:]}
        if rest not in seen:
            seen.append(rest)
    return seen


def sweep_charts(points: Sequence[PointResult], axes: Sequence[SweepAxis], analysis: SweepAnalysis, prefix: str) -> list[ChartSpec]:
    """IOPS and p99 against the first varied key's values, per direction (and per combination of the
    other keys), with the sweet spot and the points left out of the analysis marked."""
    if not axes:
        return []
    first = axes[0]
    values = list(first.values)
    usable = usable_points(points)
    left_out = [point for point in points if point not in usable]
    combinations = _combinations(points, axes)
    sweet = analysis.sweet_spot.params if analysis.sweet_spot else None
    charts = []
    for key, title, unit, divisor in SWEEP_CURVES:
        series: list[Series] = []
        marks: dict[str, list[tuple[float, float]]] = {"sweet-spot": [], "left-out": []}
        for direction in DIRECTIONS:
            for number, rest in enumerate(combinations):
                line = [
                    (float(values.index(point.params[first.key])), value / divisor)
                    for point in points
                    if point.params.get(first.key) in values and all(point.params.get(k) == v for k, v in rest.items())
                    and point in usable and (value := finite_number(getattr(point, f"{direction}_{key}", None))) is not None
                ]
                if not line:
                    continue
                suffix = ", ".join(f"{k}={v}" for k, v in rest.items())
                series.append(Series(f"{direction}-{number}", f"{direction} {suffix}".strip(),
                                     tuple(x for x, _ in line), tuple(y for _, y in line)))
            for point in points:
                value = finite_number(getattr(point, f"{direction}_{key}", None))
                if point.params.get(first.key) not in values or value is None:
                    continue
                x = float(values.index(point.params[first.key]))
                if sweet is not None and point.params == sweet:
                    marks["sweet-spot"].append((x, value / divisor))
        for point in left_out:
            if point.params.get(first.key) in values:
                marks["left-out"].append((float(values.index(point.params[first.key])), 0.0))
        labels = {"sweet-spot": "sweet spot", "left-out": "left out (at 0)"}
        for mark, found in marks.items():
            if found:
                series.append(Series(mark, labels[mark], tuple(x for x, _ in found), tuple(y for _, y in found), "points"))
        if any(s.style == "line" for s in series):
            charts.append(ChartSpec(f"{prefix}-{key}", f"{title} by {first.key}", first.key, unit, tuple(series),
                                    x_categories=tuple(values)))
    return charts


def noise_band(comparison: Comparison, direction: str, key: str, divisor: float) -> tuple[tuple[float, float], str] | None:
    """The baseline's noise: one standard deviation of its steady per-second figures either side of
    their mean, or the fixed threshold either side of its figure when it has too few samples."""
    row = comparison.row(direction, key)
    value = finite_number(row.values[0]) if row is not None else None
    if row is None or value is None:
        return None
    baseline = comparison.records[0]
    values: list[float] = []
    if row.metric.sample_value is not None:
        values = [v for s in steady_samples(baseline, direction) if (v := row.metric.sample_value(s)) is not None]
    if len(values) >= MIN_SAMPLES:
        mean, spread = statistics.fmean(values), statistics.stdev(values)
        return ((mean - spread) / divisor, (mean + spread) / divisor), f"a's noise (±1 sd of {len(values)} s)"
    return (value * (1 - THRESHOLD_PCT / 100) / divisor, value * (1 + THRESHOLD_PCT / 100) / divisor), f"a ±{THRESHOLD_PCT:g}%"


def comparison_charts(comparison: Comparison, prefix: str) -> list[ChartSpec]:
    """Per direction, bars of each run's IOPS and p99 with the baseline's noise band and the verdicts."""
    charts = []
    for direction in DIRECTIONS:
        for key, title, unit, divisor in COMPARED:
            row = comparison.row(direction, key)
            if row is None:
                continue
            bars = []
            for index, (label, value) in enumerate(zip(comparison.labels, row.values)):
                number = finite_number(value)
                if number is None:
                    continue
                verdict = row.verdicts[index]
                bars.append(Bar(label, label, number / divisor, verdict.verdict or "" if verdict else ""))
            if len(bars) < 2:
                continue
            band = noise_band(comparison, direction, key, divisor)
            charts.append(ChartSpec(
                f"{prefix}-{direction}-{key}", f"{direction} {title}", "run", unit, bars=tuple(bars),
                band=band[0] if band else None, band_label=band[1] if band else "",
            ))
    return charts
