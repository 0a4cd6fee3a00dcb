"""The report of run records: each run's tables, per-second charts, facts and warnings; several runs
also get their comparison (the table, and bars with the baseline's noise band)."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.report.chart_data import comparison_charts, level_spans, charted_samples, section_charts
from iotui.core.report.collector import ChartCollector
from iotui.core.report.html_page import Cell, esc, facts, figure_cell, table, warnings_html
from iotui.core.compare.compare import Comparison, MetricRow
from iotui.core.records.desktop_table import desktop_rows
from iotui.core.records.findings import cliff_sentence, steady_sentence
from iotui.core.numbers import is_number
from iotui.core.records.direction_figures import section_directions
from iotui.core.records.record import RunRecord

# (key in a direction's table, header, formatter)
SECTION_COLUMNS = (
    ("iops", "IOPS", fmt.iops),
    ("bw_bytes", "MiB/s", fmt.mib_per_s),
    ("lat_mean_ns", "mean", fmt.latency_ns),
    ("lat_p50_ns", "p50", fmt.latency_ns),
    ("lat_p99_ns", "p99", fmt.latency_ns),
    ("lat_p99_9_ns", "p99.9", fmt.latency_ns),
    ("lat_max_ns", "max", fmt.latency_ns),
)
DESKTOP_COLUMNS = (("bw_bytes", "MiB/s", fmt.mib_per_s), ("iops", "IOPS", fmt.count),
                   ("lat_mean_ns", "mean", fmt.latency_ns), ("lat_p99_ns", "p99", fmt.latency_ns))


def record_title(record: RunRecord) -> str:
    return str(record.run.get("title") or record.preset or record.id)


def _figure(doc_section: Mapping[str, object], index: int, direction: str, key: str,
            formatter: Callable[[float | None], str]) -> Cell:
    table = doc_section.get(direction)
    value = table.get(key) if isinstance(table, Mapping) else None
    if not is_number(value):
        return Cell(fmt.NO_VALUE)
    # the value as the record's JSON holds it (an int stays an int in data-value)
    return figure_cell(formatter(value), value, f"sections.{index}.{direction}.{key}")


def _doc_sections(doc: Mapping[str, object]) -> list[dict[str, object]]:
    """The sections of a record's JSON document (``RunRecord.to_json_dict``), in fio's order."""
    sections = doc.get("sections")
    return [section for section in sections if isinstance(section, dict)] if isinstance(sections, list) else []


def sections_table(doc: Mapping[str, object]) -> str:
    """One row per section and direction, each figure that section's own (fio's reporting group)."""
    rows = []
    for index, section in enumerate(_doc_sections(doc)):
        for direction in section_directions(section):
            rows.append([Cell(fmt.section_heading(section)), Cell(direction),
                         *(_figure(section, index, direction, key, formatter) for key, _, formatter in SECTION_COLUMNS)])
    headers = ["section", "direction", *(header for _, header, _ in SECTION_COLUMNS)]
    return table(headers, rows, kind="sections")


def desktop_table(doc: Mapping[str, object]) -> str:
    """The desktop benchmark table, for runs whose sections are desktop tests (empty otherwise)."""
    sections = _doc_sections(doc)
    index_of = {str(section.get("name")): index for index, section in enumerate(sections)}
    rows = []
    for row in desktop_rows(sections):
        index = index_of[row.section]
        section = sections[index]
        cells = [Cell(row.test), Cell(row.direction),
                 *(_figure(section, index, row.direction, key, formatter) for key, _, formatter in DESKTOP_COLUMNS)]
        cells.append(Cell(", ".join(filter(None, (steady_sentence(section.get("steady")), cliff_sentence(section.get("cliff")))))))
        rows.append(cells)
    if not rows:
        return ""
    return "<h3>Desktop table</h3>" + table(["test", "direction", *(h for _, h, _ in DESKTOP_COLUMNS), "steady state"], rows, kind="desktop")


def levels_caption(record: RunRecord, index: int) -> str:
    """The responsiveness levels under a section's charts, in words (escaped HTML)."""
    spans = level_spans(charted_samples(record, index))
    if not spans:
        return "Responsiveness: no samples carry a level."
    if all(span.level == "ok" for span in spans):
        return 'Responsiveness: <span class="level-ok">ok</span> throughout.'
    parts = [f'<span class="level-{esc(span.level)}">{esc(span.level)}</span> {span.start_s:g}–{span.end_s:g} s' for span in spans]
    return "Responsiveness: " + ", ".join(parts) + "."


def record_warnings(record: RunRecord, where: str = "") -> list[tuple[str, str]]:
    found = []
    for warning in record.warnings:
        section = warning.get("section")
        place = where + (f"section {int(section) + 1}: " if isinstance(section, int) else "")
        found.append((place, f"{warning.get('code', '')}: {warning.get('message', '')}"))
    return found


def run_part(record: RunRecord, number: int, charts: ChartCollector, *, label: str = "") -> str:
    """One run's part of the page; ``data-record`` is its place among the report's records."""
    doc = record.to_json_dict()
    run = doc.get("run", {})
    heading = f"{label}: " if label else ""
    out = [f'<section data-record="{number}">',
           f"<h2>{esc(heading)}{esc(record_title(record))}</h2>",
           f'<p class="note">{esc(record.preset)} · {esc(run.get("status", ""))} · started {esc(run.get("started", ""))}'
           f" · {esc(record.path or '')}</p>"]
    out.append(desktop_table(doc))
    out.append("<h3>Sections</h3>" + sections_table(doc))
    for index in range(len(record.sections)):
        for spec in section_charts(record, index, f"r{number}-s{index}"):
            out.append(charts.add(spec, levels_caption(record, index)))
    out.append(facts("Host", list(record.host.items()), "host"))
    out.append(facts("Target", list(record.target.items()), "target"))
    out.append("<h3>Warnings</h3>" + warnings_html(record_warnings(record)))
    out.append("</section>")
    return "".join(out)


def _metric_cells(row: MetricRow, labels: Sequence[str], path: str) -> list[Cell]:
    key = row.metric.key
    formatter = (fmt.latency_ns if key.startswith("lat_") else fmt.mib_per_s if key == "bw_bytes" else fmt.iops if key.startswith("iops")
                 else fmt.percent if key.endswith("_pct") else fmt.rate)
    unit = " (MiB/s)" if key == "bw_bytes" else ""  # the cells hold bare MiB/s figures
    cells = [Cell(row.metric.group), Cell(row.metric.label + unit)]
    for label, value in zip(labels, row.values):
        if value is None:
            cells.append(Cell(fmt.NO_VALUE))
            continue
        text = value if isinstance(value, str) else formatter(value)
        cells.append(figure_cell(str(text), value, f"{path}.{row.metric.group}.{row.metric.key}.{label}"))
    for index in range(1, len(labels)):
        pct = row.delta_pcts[index]
        verdict = row.verdicts[index]
        cells.append(Cell(f"{pct:+.1f}%" if isinstance(pct, float) else fmt.NO_VALUE))
        cells.append(Cell(verdict.verdict or "" if verdict else ""))
    return cells


def comparison_table(comparison: Comparison, path: str) -> str:
    labels = comparison.labels
    headers = ["group", "metric", *labels]
    for label in labels[1:]:
        headers += [f"{label} vs a", f"{label} verdict"]
    return table(headers, [_metric_cells(row, labels, path) for row in comparison.rows], kind="comparison")


def comparison_part(comparison: Comparison, charts: ChartCollector) -> str:
    runs = [[Cell(label), Cell(record_title(record)), Cell(str(record.path or ""))] for label, record in zip(comparison.labels, comparison.records)]
    out = ['<section data-comparison><h2>Comparison</h2>', table(["run", "title", "record"], runs, kind="runs")]
    if comparison.rows:
        out.append(comparison_table(comparison, "metrics"))
        out += [charts.add(spec) for spec in comparison_charts(comparison, "cmp")]
    for number, (name, part) in enumerate(comparison.sections):
        out.append(f"<h3>Section {esc(name)}</h3>" + comparison_table(part, f"sections.{number}.metrics"))
        out += [charts.add(spec) for spec in comparison_charts(part, f"cmp-s{number}")]
    if comparison.setup:
        setup = [[Cell(key), *(Cell(str(value) if value is not None else fmt.NO_VALUE) for value in values)] for key, values in comparison.setup]
        out.append("<h3>Set-up differences</h3>" + table(["key", *comparison.labels], setup, kind="setup"))
    out += [f'<p class="note">{esc(note)}</p>' for note in comparison.notes]
    out.append("</section>")
    return "".join(out)


def runs_body(records: Sequence[RunRecord], comparison: Comparison | None, charts: ChartCollector) -> str:
    """The page's body for one run, or several with their comparison first."""
    out = []
    if comparison is not None:
        out.append(f"<h1>Comparison of {len(records)} runs</h1>")
        out.append(comparison_part(comparison, charts))
        labels = comparison.labels
    else:
        out.append(f"<h1>Run report: {esc(records[0].preset)}</h1>" if len(records) == 1 else "<h1>Runs</h1>")
        labels = [""] * len(records)
    out += [run_part(record, number, charts, label=label) for number, (record, label) in enumerate(zip(records, labels))]
    return "".join(out)
