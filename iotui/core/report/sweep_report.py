"""The report of a sweep: each point's figures, the curves against the varied value (the sweet spot
and the points left out marked), the analysis, the host and target facts, and every warning."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from iotui.core import format as fmt
from iotui.core.report.chart_data import sweep_charts
from iotui.core.report.collector import ChartCollector
from iotui.core.report.html_page import Cell, esc, facts, figure_cell, table, warnings_html
from iotui.core.report.run_report import record_warnings
from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record
from iotui.core.records.schema import RecordError
from iotui.core.sweep.analysis import SweepAnalysis
from iotui.core.numbers import number
from iotui.core.sweep.output import analysis_lines, columns_for, point_json
from iotui.core.sweep.points import PointResult, left_out_reason, usable_points
from iotui.core.sweep.record import SweepRecord


def _describe(params: dict[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in params.items())


def points_table(keys: list[str], points: Sequence[PointResult], errors: Sequence[str], analysis: SweepAnalysis, path: str) -> str:
    """One row per point; each figure's ``data-path`` is its place in ``iotui show --json`` of the sweep."""
    shown = [column for column in columns_for(keys) if any(getattr(point, column[1]) is not None for point in points)]
    usable = usable_points(points)
    sweet = analysis.sweet_spot.params if analysis.sweet_spot else None
    balanced = analysis.balanced.params if analysis.balanced else None
    rows = []
    for index, (point, error) in enumerate(zip(points, errors)):
        doc = point_json(point, error)
        cells = [Cell(point.params.get(key, "")) for key in keys]
        for _, attribute, formatter in shown:
            value = number(doc.get(attribute))
            cells.append(Cell(fmt.NO_VALUE) if value is None else figure_cell(formatter(value), value, f"{path}.{index}.{attribute}"))
        marks = [label for label, params in (("sweet spot", sweet), ("balanced", balanced)) if params == point.params]
        if point not in usable:
            marks.append(f"left out: {left_out_reason(point)}")
        cells += [Cell(point.responsiveness or fmt.NO_VALUE), Cell(point.status), Cell("; ".join(marks))]
        rows.append(cells)
    headers = [*keys, *(header for header, _, _ in shown), "responsive", "status", "analysis"]
    return table(headers, rows, kind="points")


def _analysis_html(analysis: SweepAnalysis) -> str:
    lines = analysis_lines(analysis, "", "  ")
    return "<ul>" + "".join(f"<li>{esc(line)}</li>" for line in lines) + "</ul>" if lines else ""


def point_records(sweep: SweepRecord) -> tuple[list[tuple[str, RunRecord]], list[tuple[str, str]]]:
    """Each point's run record that can be read, and a warning for each that cannot."""
    found: list[tuple[str, RunRecord]] = []
    problems: list[tuple[str, str]] = []
    for point in sweep.points:
        path = sweep.record_path(point)
        if path is None:
            continue
        try:
            found.append((_describe(point.params), load_record(Path(path))))
        except RecordError as error:
            problems.append((f"{_describe(point.params)}: ", f"record-unreadable: {error}"))
    return found, problems


def sweep_body(sweep: SweepRecord, analysis: SweepAnalysis, charts: ChartCollector) -> str:
    keys = sweep.keys
    errors = [point.error for point in sweep.points]
    out = [f"<h1>Sweep of {esc(sweep.preset)}: {esc(_describe({axis.key: ','.join(axis.values) for axis in sweep.axes}))}</h1>",
           f'<p class="note">{esc(sweep.title)} · {esc(sweep.status)} · created {esc(sweep.created.isoformat())}'
           f" · {esc(sweep.path or '')}</p>"]
    parts: list[tuple[str, list[PointResult], SweepAnalysis, str]]
    if analysis.sections:
        parts = [(section.name, section.points, section.analysis, f"sections.{number}.points")
                 for number, section in enumerate(analysis.sections)]
    else:
        parts = [("", sweep.results(), analysis, "points")]
    for part_index, (name, points, part, path) in enumerate(parts):
        out.append(f'<section data-sweep-part="{part_index}">')
        if name:
            out.append(f"<h2>Section {part_index + 1} of {len(parts)}: {esc(name)}</h2>")
        out.append(points_table(keys, points, errors, part, path))
        out += [charts.add(spec) for spec in sweep_charts(points, sweep.axes, part, f"sweep-{part_index}")]
        out.append(_analysis_html(part))
        out.append("</section>")
    if analysis.sections:
        out += [f'<p class="note">{esc(note)}</p>' for note in analysis.notes]
    records, problems = point_records(sweep)
    if records:
        first = records[0][1]
        out.append(facts("Host", list(first.host.items()), "host"))
        out.append(facts("Target", list(first.target.items()), "target"))
    warnings: list[tuple[str, str]] = list(problems)
    warnings += [(f"{_describe(point.params)}: ", f"point-{point.status}: {point.error}") for point in sweep.points if point.error]
    for described, record in records:
        warnings += record_warnings(record, f"{described}: ")
    out.append("<h2>Warnings</h2>" + warnings_html(warnings))
    return "".join(out)

