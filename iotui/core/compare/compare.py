"""Records -> a side-by-side comparison with noise-aware verdicts.

The first record is the baseline ("a"); every other record gets a delta,
a delta % and a verdict per metric against it: "better", "worse" or
"same within noise". With per-interval samples in both runs the verdict
comes from Welch's t-test on the interval values after warm-up (see
:mod:`iotui.core.compare.stats`); without samples (imports, references) from a
fixed 5 % threshold on the summary values. ``docs/compare.md`` says why.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

from iotui.core.compare.comparison import (
    MIN_EFFECT_PCT,
    SIGNIFICANCE,
    THRESHOLD_PCT,
    Comparison,
    Metric,
    MetricRow,
    RowValue,
    Verdict,
)
from iotui.core.compare.samples import steady_samples
from iotui.core.compare.sections import compare_by_section, interference_notes, pause_notes
from iotui.core.compare.setup import SETUP_KEYS, setup_differences
from iotui.core.numbers import finite_number, number
from iotui.core.records.record import RunRecord
from iotui.core.records.schema import DIRECTIONS, RESPONSIVENESS_LEVELS
from iotui.core.compare.repeat import repeat_values
from iotui.core.compare.stats import welch_test

__all__ = [
    "MIN_EFFECT_PCT", "SETUP_KEYS", "THRESHOLD_PCT", "Comparison", "Metric", "MetricRow", "RowValue", "Verdict",
    "compare_records", "setup_differences",
]

BETTER = "better"
WORSE = "worse"
SAME = "same within noise"

MIN_SAMPLES = 5

METHOD_WELCH = "welch"
METHOD_THRESHOLD = "threshold"
# The same fixed threshold, for a figure that has no per-second values although both runs have samples
# enough (IOPS per busy core, fio's CPU): the runs are not too short, the figure is a whole-run one.
METHOD_WHOLE_RUN = "whole-run"
METHOD_LEVEL = "level"
METHOD_REPEATS = "repeats"


def _sample_key(key: str) -> Callable[[Mapping[str, object]], float | None]:
    def read(sample: Mapping[str, object]) -> float | None:
        return number(sample.get(key))

    return read


def _iops_per_fio_core(sample: Mapping[str, object]) -> float | None:
    cores = number(sample.get("fio_cpu_cores"))
    iops = [value for d in DIRECTIONS if (value := number(sample.get(f"{d}_iops"))) is not None]
    if cores is None or cores <= 0 or not iops:
        return None
    return sum(iops) / cores


def direction_metrics(direction: str) -> list[Metric]:
    return [
        Metric(direction, "iops", "IOPS", True, _sample_key(f"{direction}_iops")),
        Metric(direction, "bw_bytes", "bandwidth", True, _sample_key(f"{direction}_bw_bytes")),
        Metric(direction, "lat_mean_ns", "mean latency", False, _sample_key(f"{direction}_lat_mean_ns")),
        Metric(direction, "lat_p50_ns", "p50 latency", False, _sample_key(f"{direction}_lat_p50_ns")),
        Metric(direction, "lat_p99_ns", "p99 latency", False, _sample_key(f"{direction}_lat_p99_ns")),
        Metric(direction, "lat_p99_9_ns", "p99.9 latency", False, _sample_key(f"{direction}_lat_p99_9_ns")),
    ]


CPU_METRICS = [
    Metric("cpu", "user_pct", "CPU user", False, _sample_key("cpu_user_pct")),
    Metric("cpu", "system_pct", "CPU system", False, _sample_key("cpu_system_pct")),
    Metric("cpu", "fio_cpu_cores", "fio CPU (cores)", False, _sample_key("fio_cpu_cores")),
    Metric("cpu", "iops_per_fio_core", "IOPS per fio core", True, _iops_per_fio_core),
    Metric("cpu", "iops_per_busy_core", "IOPS per busy core", True, None),
    Metric("cpu", "ctx_switches_per_s", "context switches/s", False, _sample_key("ctx_switches_per_s")),
]
RESPONSIVENESS = Metric("pressure", "responsiveness", "worst responsiveness", False, None)


def run_labels(count: int) -> list[str]:
    """a, b, ..., z, then r27, r28 ..."""
    return [chr(ord("a") + i) if i < 26 else f"r{i + 1}" for i in range(count)]


def _series(record: RunRecord, metric: Metric) -> list[float]:
    if metric.sample_value is None:
        return []
    direction = metric.group if metric.group in DIRECTIONS else None
    values = [metric.sample_value(sample) for sample in steady_samples(record, direction)]
    return [v for v in values if v is not None and math.isfinite(v)]


# -- verdicts ---------------------------------------------------------------------


def _direction_word(difference: float, higher_is_better: bool) -> str:
    return BETTER if (difference > 0) == higher_is_better else WORSE


def _repeat_series(metric: Metric, runs: Sequence[RunRecord] | None) -> list[float] | None:
    if not runs or len(runs) < 2 or metric.group not in DIRECTIONS:
        return None
    return repeat_values(runs, metric.group, metric.key)


def welch_verdict(values_a: list[float], values_b: list[float], higher_is_better: bool, method: str) -> Verdict:
    """Better, worse or the same, by Welch's t-test of b against a (interval values, or whole repeated runs).

    A difference counts when it is significant (p below :data:`SIGNIFICANCE`) and at least
    :data:`MIN_EFFECT_PCT` of a's mean (b's where a's is 0).
    """
    result = welch_test(values_a, values_b)
    difference = result.mean_b - result.mean_a
    scale = abs(result.mean_a) or abs(result.mean_b)
    effect_pct = abs(difference) / scale * 100 if scale else 0.0
    if result.p_value < SIGNIFICANCE and effect_pct >= MIN_EFFECT_PCT:
        return Verdict(_direction_word(difference, higher_is_better), method, result.p_value)
    return Verdict(SAME, method, result.p_value)


def _verdict(
    metric: Metric, baseline: RunRecord, other: RunRecord, value_a: float, value_b: float,
    repeats: Mapping[str, Sequence[RunRecord]] | None = None,
) -> Verdict:
    repeats = repeats or {}
    runs_a = _repeat_series(metric, repeats.get(baseline.id))
    runs_b = _repeat_series(metric, repeats.get(other.id))
    same_group = baseline.run.get("repeat_group") == other.run.get("repeat_group")
    if runs_a and runs_b and not same_group:
        # Both sides were repeated: the spread between whole runs is the noise.
        return welch_verdict(runs_a, runs_b, metric.higher_is_better, METHOD_REPEATS)
    series_a, series_b = _series(baseline, metric), _series(other, metric)
    if len(series_a) >= MIN_SAMPLES and len(series_b) >= MIN_SAMPLES:
        return welch_verdict(series_a, series_b, metric.higher_is_better, METHOD_WELCH)
    method = METHOD_THRESHOLD
    if not series_a and not series_b and all(
        len(steady_samples(record, metric.group if metric.group in DIRECTIONS else None)) >= MIN_SAMPLES
        for record in (baseline, other)
    ):
        method = METHOD_WHOLE_RUN
    difference = value_b - value_a
    if value_a == 0:
        pct = 0.0 if value_b == 0 else math.inf
    else:
        pct = abs(difference) / abs(value_a) * 100
    if pct < THRESHOLD_PCT:
        return Verdict(SAME, method)
    return Verdict(_direction_word(difference, metric.higher_is_better), method)


def _figure(record: RunRecord, metric: Metric) -> float | None:
    """The metric's figure in a one-section run (its direction's, or its ``cpu`` table's); None where absent."""
    if metric.group in DIRECTIONS:
        figures = record.figures_of(metric.group)
        if figures is None:
            return None
        # known_bw_bytes: a published table that gave IOPS only has an unknown bandwidth, not a zero one
        return finite_number(figures.known_bw_bytes if metric.key == "bw_bytes" else figures.figure(metric.key))
    section = record.only_section
    table = section.get(metric.group) if section is not None else None
    return finite_number(table.get(metric.key)) if isinstance(table, Mapping) else None


def _numeric_row(
    metric: Metric, records: list[RunRecord], repeats: Mapping[str, Sequence[RunRecord]] | None = None
) -> MetricRow | None:
    values = [_figure(record, metric) for record in records]
    if all(v is None for v in values):
        return None
    baseline = values[0]
    deltas: list[float | None] = [None]
    pcts: list[float | None] = [None]
    verdicts: list[Verdict | None] = [None]
    for record, value in zip(records[1:], values[1:]):
        if baseline is None or value is None:
            deltas.append(None)
            pcts.append(None)
            verdicts.append(Verdict(None, None))
            continue
        deltas.append(value - baseline)
        pcts.append((value - baseline) / abs(baseline) * 100 if baseline else None)
        verdicts.append(_verdict(metric, records[0], record, baseline, value, repeats))
    return MetricRow(metric, tuple(values), tuple(deltas), tuple(pcts), tuple(verdicts))


def worst_responsiveness(record: RunRecord) -> str | None:
    """The worst level reached: the pressure summary's, else the samples' worst."""
    level = record.pressure.get("responsiveness")
    levels = [s.get("responsiveness") for s in record.samples]
    candidates = [x for x in [level, *levels] if x in RESPONSIVENESS_LEVELS]
    if not candidates:
        return None
    return max(candidates, key=RESPONSIVENESS_LEVELS.index)


def _responsiveness_row(records: list[RunRecord]) -> MetricRow | None:
    levels = [worst_responsiveness(record) for record in records]
    if all(level is None for level in levels):
        return None
    verdicts: list[Verdict | None] = [None]
    for level in levels[1:]:
        if levels[0] is None or level is None:
            verdicts.append(Verdict(None, None))
            continue
        rank_a, rank_b = RESPONSIVENESS_LEVELS.index(levels[0]), RESPONSIVENESS_LEVELS.index(level)
        word = SAME if rank_a == rank_b else (BETTER if rank_b < rank_a else WORSE)
        verdicts.append(Verdict(word, METHOD_LEVEL))
    empty = tuple([None] * len(records))
    return MetricRow(RESPONSIVENESS, tuple(levels), empty, empty, tuple(verdicts))


def compare_records(
    records: list[RunRecord], repeats: Mapping[str, Sequence[RunRecord]] | None = None
) -> Comparison:
    """Compare every record against the first, section by section. Needs at least one record.

    When every run has one section, those sections are compared whatever their
    names; otherwise sections are matched by name and options
    (:mod:`iotui.core.compare.sections`). Paused runs are named in ``notes``.
    ``repeats`` maps a record's id to the runs of its ``--repeat`` group
    (itself included); where both one-section runs have two or more, the
    verdict uses the spread between those runs.
    """
    if not records:
        raise ValueError("compare_records needs at least one record")
    if all(len(record.sections) <= 1 for record in records):
        comparison = _compare_flat(records, repeats)
    else:
        comparison = compare_by_section(records, _compare_flat)
    comparison.notes = pause_notes(comparison.labels, records) + interference_notes(comparison.labels, records) + comparison.notes
    return comparison


def _compare_flat(records: list[RunRecord], repeats: Mapping[str, Sequence[RunRecord]] | None = None) -> Comparison:
    """Every record's one section against the first's (``repeats``: see :func:`compare_records`)."""
    rows: list[MetricRow] = []
    for direction in DIRECTIONS:
        if not any(record.figures_of(direction) is not None for record in records):
            continue
        for metric in direction_metrics(direction):
            row = _numeric_row(metric, records, repeats)
            if row is not None:
                rows.append(row)
    for metric in CPU_METRICS:
        row = _numeric_row(metric, records)
        if row is not None:
            rows.append(row)
    responsiveness = _responsiveness_row(records)
    if responsiveness is not None:
        rows.append(responsiveness)
    return Comparison(run_labels(len(records)), list(records), rows, setup_differences(records))
