"""How ``iotui sweep`` shows a sweep: a table like the studies' tables, Markdown, or JSON.

Kept apart from the command so the shapes are easy to test and reuse (a
screen can export the same Markdown).
"""

from __future__ import annotations

from typing import Callable

from iotui.core import format as fmt
from iotui.core.host.verdict import CAUSE_LABELS
from iotui.core.sweep.analysis import SweepAnalysis
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.record import SweepRecord
from iotui.core.table import Cell, Step, fit_table, labelled_path, wrap
from iotui.core.table import Column as TableColumn

def _latency_ms(value_ms: float | None) -> str:
    """A felt figure (the probes report milliseconds) in the latency formatter's units."""
    return fmt.latency_ns(value_ms * 1e6 if value_ms is not None else None)


# (header, value from a point, formatter) for the figures; varied keys come first.
Column = tuple[str, str, Callable[[float | None], str]]
_COLUMNS: tuple[Column, ...] = (
    ("read IOPS", "read_iops", fmt.iops),
    ("read MiB/s", "read_bw_bytes", fmt.mib_per_s),
    ("read p99", "read_lat_p99_ns", fmt.latency_ns),
    ("write IOPS", "write_iops", fmt.iops),
    ("write MiB/s", "write_bw_bytes", fmt.mib_per_s),
    ("write p99", "write_lat_p99_ns", fmt.latency_ns),
    ("IOPS/fio core", "iops_per_fio_core", fmt.iops),
    ("IOPS/busy core", "iops_per_busy_core", fmt.iops),
    # The felt figures a level is judged by (each probe's worst second over the point's run or
    # section), so a reader sees why a point was left out: a small read, a small save, a wake-up.
    ("io read p99", "io_read_p99_ms", _latency_ms),
    ("io write p99", "io_write_p99_ms", _latency_ms),
    ("wake-up p99", "wakeup_p99_ms", _latency_ms),
)


def responsive_cell(point: PointResult) -> str:
    """``ok``, ``sluggish (io write p99)``: the level and the felt figure that decided it."""
    level = point.felt_responsiveness
    if level is None:
        return fmt.NO_VALUE
    if level != point.responsiveness:  # an older record's level from io PSI alone: context, not felt
        return f"ok (was {point.responsiveness} by {CAUSE_LABELS.get(str(point.responsiveness_cause), 'context')})"
    if level != "ok" and point.responsiveness_cause:
        return f"{level} ({CAUSE_LABELS.get(point.responsiveness_cause, point.responsiveness_cause)})"
    return level


# Columns a study is about, shown when its key is swept: sysbench against fio is explained by
# context switches and interrupts; an engine comparison by user and system CPU per engine.
_STUDY_COLUMNS: dict[str, tuple[Column, ...]] = {
    "tool": (("ctx/s", "ctx_switches_per_s", fmt.rate), ("irq/s", "interrupts_per_s", fmt.rate)),
    "ioengine": (("usr", "cpu_user_pct", fmt.percent), ("sys", "cpu_system_pct", fmt.percent)),
}


def columns_for(keys: list[str]) -> list[Column]:
    """The figure columns of a sweep over ``keys``: per direction, then the study's own."""
    columns = list(_COLUMNS)
    for key in keys:
        columns += [column for column in _STUDY_COLUMNS.get(key, ()) if column not in columns]
    return columns


def point_json(point: PointResult, error: str = "") -> dict[str, object]:
    """One entry of the JSON ``points`` array."""
    return {
        "params": dict(point.params),
        "record": point.record,
        "status": point.status,
        "read_iops": point.read_iops,
        "write_iops": point.write_iops,
        "read_bw_bytes": point.read_bw_bytes,
        "write_bw_bytes": point.write_bw_bytes,
        "read_lat_p99_ns": point.read_lat_p99_ns,
        "write_lat_p99_ns": point.write_lat_p99_ns,
        "responsiveness": point.responsiveness,
        "responsiveness_detail": point.responsiveness_detail,
        "responsiveness_cause": point.responsiveness_cause,
        "wakeup_p99_ms": point.wakeup_p99_ms,
        "io_read_p99_ms": point.io_read_p99_ms,
        "io_write_p99_ms": point.io_write_p99_ms,
        "iops_per_fio_core": point.iops_per_fio_core,
        "iops_per_busy_core": point.iops_per_busy_core,
        "cpu_user_pct": point.cpu_user_pct,
        "cpu_system_pct": point.cpu_system_pct,
        "ctx_switches_per_s": point.ctx_switches_per_s,
        "interrupts_per_s": point.interrupts_per_s,
        "error": error or None,
    }


def _analysis_json(analysis: SweepAnalysis) -> dict[str, object]:
    """The analysis's keys of the JSON document (a one-section sweep's, or one section's)."""
    doc: dict[str, object] = {
        "sweet_spot": analysis.sweet_spot.to_json() if analysis.sweet_spot else None,
        "balanced": analysis.balanced.to_json() if analysis.balanced else None,
        "comparison": analysis.comparison,
        "notes": list(analysis.notes),
    }
    if analysis.ranking is not None:
        doc["ranking"] = analysis.ranking.to_json()
    if analysis.slo is not None:
        doc["slo"] = analysis.slo.to_json()
    return doc


def sweep_json(sweep: SweepRecord, analysis: SweepAnalysis) -> dict[str, object]:
    """The ``--format json`` document: points, sweet_spot, balanced, and ranking for several keys.

    A preset of several sections adds ``sections``: each section's name, metric, points and analysis,
    with the same keys as a one-section sweep's; the top-level analysis keys then hold no pick.
    """
    results = sweep.results()
    errors = [state.error for state in sweep.points]
    doc: dict[str, object] = {
        "sweep": {
            "path": str(sweep.path) if sweep.path else None,
            "preset": sweep.preset,
            "status": sweep.status,
            "keys": sweep.keys,
            "metric": f"total_{analysis.metric}",
        },
        "points": [point_json(result, error) for result, error in zip(results, errors)],
    }
    doc.update(_analysis_json(analysis))
    if analysis.sections:
        doc["sections"] = [
            {
                "name": section.name,
                "metric": f"total_{section.analysis.metric}",
                "points": [point_json(result, error) for result, error in zip(section.points, errors)],
                **_analysis_json(section.analysis),
            }
            for section in analysis.sections
        ]
    return doc


def _rows(keys: list[str], results: list[PointResult]) -> tuple[list[str], list[list[str]]]:
    shown = [column for column in columns_for(keys) if any(getattr(r, column[1]) is not None for r in results)]
    headers = [*keys, *(header for header, _, _ in shown), "responsive", "status"]
    rows = []
    for result in results:
        cells = [result.params.get(key, "") for key in keys]
        cells += [formatter(getattr(result, attribute)) for _, attribute, formatter in shown]
        cells += [responsive_cell(result), result.status]
        rows.append(cells)
    return headers, rows


def _parts(sweep: SweepRecord, analysis: SweepAnalysis) -> list[tuple[str | None, list[PointResult], SweepAnalysis]]:
    """What to show: the one table and analysis, or one per section with its heading."""
    if not analysis.sections:
        return [(None, sweep.results(), analysis)]
    count = len(analysis.sections)
    return [
        (f"Section {number} of {count}: {section.name}", section.points, section.analysis)
        for number, section in enumerate(analysis.sections, start=1)
    ]


def analysis_lines(analysis: SweepAnalysis, bullet: str, sub_bullet: str) -> list[str]:
    """The analysis as sentences (best under the SLO, sweet spot, ranking, notes), each after ``bullet``."""
    lines = []
    if analysis.slo is not None:
        lines.append(f"{bullet}Best under {analysis.slo.slo.text}: {analysis.slo.why}")
    for label, choice in (("Sweet spot", analysis.sweet_spot), ("Balanced", analysis.balanced)):
        if choice is not None:
            params = ", ".join(f"{key}={value}" for key, value in choice.params.items())
            lines.append(f"{bullet}{label}: {params}. {choice.why}")
    if analysis.comparison:
        lines.append(f"{bullet}{analysis.comparison}")
    ranking = analysis.ranking
    if ranking is not None:
        lines.append(f"{bullet}Ranking by average placing (1 = fastest by {ranking.metric.replace('_', ' ')}):")
        for key, placings in ranking.keys.items():
            ranked = ", ".join(f"{p.value} ({p.average_placing:.1f})" for p in placings)
            lines.append(f"{sub_bullet}{key}: {ranked}")
        combination = ", ".join(f"{key}={value}" for key, value in ranking.best_combination.items())
        measured = "measured in this sweep" if ranking.best_combination_measured else "not measured in this sweep"
        lines.append(f"{bullet}Best combination: {combination} ({measured}).")
        if ranking.fastest is not None:
            fastest = ", ".join(f"{key}={value}" for key, value in ranking.fastest.params.items())
            lines.append(f"{bullet}Fastest single point: {fastest}.")
    lines.extend(f"{bullet}{note}" for note in analysis.notes)
    return lines


# The order a sweep's table narrows in, to fit the terminal (README "Tables that fit the terminal"):
# the cost per core, then bandwidth (IOPS at the point's block size say the same), then the
# responsive column keeps its level without the figure that decided it, then the felt figures, then a
# study's own columns. The keys, IOPS, p99, the level and the status always stay.
_NARROWING: tuple[tuple[str, str], ...] = (
    ("drop", "IOPS/busy core"), ("drop", "IOPS/fio core"), ("drop", "write MiB/s"), ("drop", "read MiB/s"),
    ("shorten", "responsive"), ("drop", "wake-up p99"), ("drop", "io write p99"), ("drop", "io read p99"),
    ("drop", "irq/s"), ("drop", "ctx/s"), ("drop", "sys"), ("drop", "usr"),
)


def table_lines(keys: list[str], results: list[PointResult], width: int | None) -> list[str]:
    """The points' table, keys and the last two columns to the left, figures to the right, fitted to
    ``width`` (None: every column in full)."""
    headers, rows = _rows(keys, results)
    columns = [
        TableColumn(header, "left" if i < len(keys) or i >= len(headers) - 2 else "right")
        for i, header in enumerate(headers)
    ]
    responsive = len(headers) - 2
    cells: list[list[Cell]] = [list(row) for row in rows]
    for row, result in zip(cells, results):
        row[responsive] = (str(row[responsive]), str(result.felt_responsiveness or fmt.NO_VALUE))
    steps = [
        Step("drop" if kind == "drop" else "shorten", headers.index(header, len(keys)))
        for kind, header in _NARROWING if header in headers[len(keys):]
    ]
    return fit_table(columns, cells, width, steps)


def sweep_text(sweep: SweepRecord, analysis: SweepAnalysis, width: int | None = None) -> str:
    """Aligned columns fitted to ``width``, then the analysis sentences (per section for a preset of
    several), broken between words."""
    out: list[str] = []
    for heading, results, part in _parts(sweep, analysis):
        if heading is not None:
            out += [*wrap(heading, width), ""]
        out += table_lines(sweep.keys, results, width) + [""]
        for line in analysis_lines(part, "", "  "):
            indent = "  " if line.startswith("  ") else ""
            out += wrap(line.strip(), width, indent + "  ", indent)
        if heading is not None:
            out.append("")
    if analysis.sections:
        for note in analysis.notes:
            out += wrap(note, width, "  ", "")
    if sweep.path is not None:
        out += labelled_path("Sweep record:", sweep.path, width)
    return "\n".join(out)


def sweep_markdown(sweep: SweepRecord, analysis: SweepAnalysis) -> str:
    """A Markdown table (as in the studies' write-ups) and the analysis as a list (per section for several)."""
    key_count = len(sweep.keys)
    out = [f"## Sweep of {sweep.preset}", ""]
    for heading, results, part in _parts(sweep, analysis):
        headers, rows = _rows(sweep.keys, results)
        align = ["---" if i < key_count or i >= len(headers) - 2 else "---:" for i in range(len(headers))]
        if heading is not None:
            out += [f"### {heading}", ""]
        out += [
            "| " + " | ".join(headers) + " |",
            "|" + "|".join(align) + "|",
            *("| " + " | ".join(row) + " |" for row in rows),
            "",
        ]
        out += analysis_lines(part, "- ", "  - ")
        if heading is not None:
            out.append("")
    if analysis.sections:
        out += [f"- {note}" for note in analysis.notes]
    if sweep.path is not None:
        out += ["", f"Sweep record: `{sweep.path}`"]
    return "\n".join(out)
