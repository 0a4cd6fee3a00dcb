"""What the compare screen shows, worked out from the core's comparison. Pure (no Textual).

:func:`iotui.core.compare.compare.compare_records` judges every metric of every run
against the first ("a"); this module turns that into text cells: one value
per run, then for each later run the delta and "delta % verdict". It also
finds the previous run of the same preset on the same target (Results' ``c``)
and names the files an export writes.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from iotui.core import format as fmt
from iotui.core.compare.compare import SAME, Comparison, MetricRow
from iotui.core.compare.render import format_value
from iotui.core.records.record import RunRecord

GROUP_TITLES = {"read": "read", "write": "write", "trim": "trim", "cpu": "CPU", "pressure": "responsiveness"}


# Verdicts as the table shows them: whole words; LEGEND says what the short one means.
VERDICT_WORDS = {SAME: "same"}
LEGEND = "↑ higher is better · ↓ lower is better · same: same within noise"


@dataclass(frozen=True)
class CompareRow:
    """One metric across the runs, as text; ``versus`` cells are for runs b, c, ... against a."""

    group: str  # "read", "write", "trim", "CPU", "responsiveness"
    label: str  # "IOPS ↑", "p99 latency ms ↓": the unit the values are in and which way is better
    values: tuple[str, ...]
    deltas: tuple[str, ...]
    changes: tuple[str, ...]  # "+50.0% better", "-0.4% same", "worse"
    verdicts: tuple[str | None, ...]


def row_unit(key: str, values: Sequence[object]) -> tuple[str, Callable[[float | None], str]]:
    """The unit a metric's row is shown in (one for all its runs) and how a value becomes text in it."""
    numbers = [value for value in values if isinstance(value, (int, float)) and not isinstance(value, bool)]
    if key.endswith("_ns"):
        unit, divisor = fmt.latency_unit(numbers)
        return unit, lambda value: fmt.in_unit(value, divisor)
    if key == "bw_bytes":
        unit, divisor = fmt.bytes_rate_unit(numbers)
        return unit, lambda value: fmt.in_unit(value, divisor)
    if key.endswith("_pct"):
        return "%", lambda value: fmt.NO_VALUE if value is None else f"{float(value):.1f}"
    return "", lambda value: format_value(key, value)


def row_label(label: str, unit: str, higher_is_better: bool, key: str = "") -> str:
    """``p99 latency ms ↓``: the metric, the unit of its values, the better direction."""
    arrow = "" if key == "responsiveness" else (" ↑" if higher_is_better else " ↓")
    return f"{label} {unit}{arrow}" if unit else f"{label}{arrow}"


def signed(key: str, delta: float | None, shown: Callable[[float | None], str] | None = None) -> str:
    """A delta in the metric's unit with its sign: ``+12.0k``, ``-1.20``."""
    if delta is None:
        return fmt.NO_VALUE
    sign = "+" if delta > 0 else "-" if delta < 0 else "±"
    return sign + (shown or (lambda value: format_value(key, value)))(abs(delta))


def change_text(delta_pct: float | None, verdict: str | None) -> str:
    """``+50.0% better``: the relative change and the verdict, in words so it reads without colour."""
    if verdict is None:
        return fmt.NO_VALUE
    word = VERDICT_WORDS.get(verdict, verdict)
    if delta_pct is None:
        return word
    return f"{delta_pct:+.1f}% {word}"


def _row(metric_row: MetricRow) -> CompareRow:
    metric = metric_row.metric
    key = metric.key
    later = range(1, len(metric_row.values))
    verdicts = tuple(v.verdict if v is not None else None for v in metric_row.verdicts[1:])
    unit, shown = row_unit(key, metric_row.values)
    return CompareRow(
        group=GROUP_TITLES.get(metric.group, metric.group),
        label=row_label(metric.label, unit, metric.higher_is_better, key),
        values=tuple(shown(value) if not isinstance(value, str) else value for value in metric_row.values),
        deltas=tuple(signed(key, metric_row.deltas[i], shown) for i in later),
        changes=tuple(change_text(metric_row.delta_pcts[i], verdicts[i - 1]) for i in later),
        verdicts=verdicts,
    )


def compare_rows(comparison: Comparison) -> list[CompareRow]:
    """Every metric the core compared, in its order (directions, CPU, responsiveness)."""
    return [_row(row) for row in comparison.rows]


def run_title(record: RunRecord) -> str:
    """``quick 2026-11-21 12:01`` (UTC) for a run, the table's title for a reference row."""
    title = str(record.run.get("title") or record.preset)
    if record.status == "reference":
        return title
    started = record.started
    when = started.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M") if started else "?"
    return f"{title} {when}"


def run_lines(comparison: Comparison) -> list[tuple[str, str]]:
    """(label, what the run is) for the list above the table."""
    lines = []
    for label, record in zip(comparison.labels, comparison.records):
        target = record.target
        where = ", ".join(str(part) for part in (target.get("path"), target.get("filesystem")) if part)
        samples = f"{len(record.samples)} samples" if record.samples else "no samples"
        lines.append((label, f"{run_title(record)} · {record.status} · {samples}" + (f" · {where}" if where else "")))
    return lines


_BREAK_AFTER = re.compile(r"(?<=[-_.+,/:= ])")


def wrap_at_separators(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, broken only after ``- _ . + , / : =`` or a space;
    a piece with no such place is longer than ``width`` rather than cut."""
    lines: list[str] = []
    line = ""
    for piece in _BREAK_AFTER.split(text):
        if line and len(line) + len(piece) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    if line or not lines:
        lines.append(line.rstrip())
    return lines


def find_previous(
    current: RunRecord, entries: list[tuple[Path, RunRecord | None, str | None]]
) -> RunRecord | None:
    """The newest run of the same preset on the same target that started before ``current``.

    The same target is the same path on the same machines: a run on other hosts (``--hosts``)
    measured their disks, so it is only ever the previous run of a run on those same hosts.
    """
    started = current.started
    machines = _host_names(current)
    candidates = [
        record
        for path, record, _ in entries
        if record is not None
        and record.id != current.id
        and record.preset == current.preset
        and record.target.get("path") == current.target.get("path")
        and _host_names(record) == machines
        and record.started is not None
        and (started is None or record.started <= started)
    ]
    candidates.sort(key=lambda record: record.started or dt.datetime.min.replace(tzinfo=dt.timezone.utc))
    return candidates[-1] if candidates else None


def _host_names(record: RunRecord) -> frozenset[str]:
    """The hosts a run ran on (none for a run on this machine)."""
    return frozenset(str(host.get("name")) for host in record.hosts)


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _short_id(record: RunRecord) -> str:
    return _UNSAFE.sub("-", record.id)[:16].strip("-") or "run"


def comparison_file_name(records: list[RunRecord]) -> str:
    """``compare-<id>-<id>.md``: the same runs always export to the same file."""
    return "compare-" + "-".join(_short_id(record)[:8] for record in records[:6]) + ".md"


def record_export_name(record: RunRecord, saved_path: Path | None) -> str:
    """The record's own file name with ``.md``, or ``<id>-<preset>.md`` for an unsaved one."""
    path = saved_path or record.path
    if path is not None:
        return Path(path).name.removesuffix(".toml") + ".md"
    return f"{_short_id(record)[:8]}-{_UNSAFE.sub('-', record.preset)}.md"
