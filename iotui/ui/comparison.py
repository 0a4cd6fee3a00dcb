"""A first, plain comparison of two runs: the previous run and this one, with deltas.

Pure (no Textual). The full comparison (noise-aware verdicts) belongs to
``iotui/core/compare.py``; when it lands, :func:`comparison_rows` is the one
function to replace and the compare screen stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from iotui import format as fmt
from iotui.core.record import RunRecord

# (summary key, label, formatter, True when higher is better)
_DIRECTION_ROWS: tuple[tuple[str, str, Callable[[float | None], str], bool], ...] = (
    ("iops", "IOPS", fmt.iops, True),
    ("bw_bytes", "bandwidth", fmt.bytes_per_s, True),
    ("lat_mean_ns", "lat mean", fmt.latency_ns, False),
    ("lat_p50_ns", "lat p50", fmt.latency_ns, False),
    ("lat_p99_ns", "lat p99", fmt.latency_ns, False),
    ("lat_p99_9_ns", "lat p99.9", fmt.latency_ns, False),
)
_CPU_ROWS: tuple[tuple[str, str, Callable[[float | None], str], bool], ...] = (
    ("user_pct", "CPU usr", fmt.percent, False),
    ("system_pct", "CPU sys", fmt.percent, False),
    ("iops_per_fio_core", "IOPS/fio core", fmt.iops, True),
    ("ctx_switches_per_s", "ctx/s", fmt.rate, False),
)


@dataclass(frozen=True)
class ComparisonRow:
    """One figure of both runs; ``improved`` is None when there is no delta to judge."""

    label: str
    previous: str
    current: str
    delta_pct: float | None
    improved: bool | None


def _delta(previous: float | None, current: float | None, higher_is_better: bool) -> tuple[float | None, bool | None]:
    if previous is None or current is None or previous == 0:
        return None, None
    delta_pct = (current - previous) / previous * 100.0
    if delta_pct == 0:
        return 0.0, None
    return delta_pct, (delta_pct > 0) == higher_is_better


def _number(table: dict, key: str) -> float | None:
    value = table.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def comparison_rows(previous: RunRecord, current: RunRecord) -> list[ComparisonRow]:
    """Per-direction figures, then CPU figures, for directions either run did."""
    rows: list[ComparisonRow] = []
    directions = [d for d in ("read", "write", "trim") if d in previous.summary or d in current.summary]
    for direction in directions:
        before = previous.summary.get(direction, {})
        after = current.summary.get(direction, {})
        for key, label, formatter, higher_is_better in _DIRECTION_ROWS:
            old, new = _number(before, key), _number(after, key)
            delta_pct, improved = _delta(old, new, higher_is_better)
            rows.append(ComparisonRow(f"{direction} {label}", formatter(old), formatter(new), delta_pct, improved))
    before_cpu = previous.summary.get("cpu", {})
    after_cpu = current.summary.get("cpu", {})
    for key, label, formatter, higher_is_better in _CPU_ROWS:
        old, new = _number(before_cpu, key), _number(after_cpu, key)
        if old is None and new is None:
            continue
        delta_pct, improved = _delta(old, new, higher_is_better)
        rows.append(ComparisonRow(label, formatter(old), formatter(new), delta_pct, improved))
    return rows


def find_previous(
    current: RunRecord, entries: list[tuple[Path, RunRecord | None, str | None]]
) -> RunRecord | None:
    """The newest run of the same preset on the same target that started before ``current``."""
    started = current.started
    candidates = [
        record
        for path, record, _ in entries
        if record is not None
        and record.id != current.id
        and record.preset == current.preset
        and record.target.get("path") == current.target.get("path")
        and record.started is not None
        and (started is None or record.started <= started)
    ]
    candidates.sort(key=lambda record: record.started)
    return candidates[-1] if candidates else None
