"""The report of an ``iotui remedy`` run: its one table (each remedy, fio's IOPS and bandwidth and
their change from as-is, each felt figure's p99 and ×-rest, the level), the verdict with the command
that makes the remedy last, the host and target facts, and every warning.

Each figure's cell carries its value and its place in ``iotui show --json`` of the remedy record
(``rows.N.iops``, ``rows.N.felt.start-up.p99_ms``), as the other reports do.
"""

from __future__ import annotations

from iotui.core import format as fmt
from iotui.core.numbers import number
from iotui.core.records.files import load_record
from iotui.core.remedy.table import FELT, device_of_sweep, remedy_rows, rows_as_dicts, sweep_verdict
from iotui.core.remedy.words import change_words, remedy_words, verdict_sentence
from iotui.core.report.html_page import Cell, esc, facts, figure_cell, table, warnings_html
from iotui.core.report.run_report import record_warnings
from iotui.core.report.sweep_report import point_records
from iotui.core.sweep.record import SweepRecord


def _figure(doc: dict[str, object], key: str, path: str, words: str) -> Cell:
    value = number(doc.get(key))
    return Cell(fmt.NO_VALUE) if value is None else figure_cell(words, value, path)


def remedy_table(sweep: SweepRecord) -> tuple[str, str]:
    """The table's HTML and the verdict's sentence."""
    rows = remedy_rows(sweep, load_record)
    docs = rows_as_dicts(rows)
    headers = ["remedy", "IOPS", "IOPS change", "BW", "BW change"]
    for _, _, name in FELT:
        headers += [f"{name} p99", f"{name} ×rest"]
    headers += ["level", "status"]
    lines = []
    for index, (row, doc) in enumerate(zip(rows, docs)):
        at = f"rows.{index}"
        cells = [Cell(remedy_words(row.remedy)),
                 _figure(doc, "iops", f"{at}.iops", fmt.iops(row.iops)),
                 _figure(doc, "iops_change_pct", f"{at}.iops_change_pct", change_words(row.iops_change_pct).strip(" ()")),
                 _figure(doc, "bw_bytes", f"{at}.bw_bytes", fmt.bytes_per_s(row.bw_bytes)),
                 _figure(doc, "bw_change_pct", f"{at}.bw_change_pct", change_words(row.bw_change_pct).strip(" ()"))]
        felt_docs = doc.get("felt")
        felt_doc = felt_docs if isinstance(felt_docs, dict) else {}
        for _, _, name in FELT:
            felt = row.felt.get(name)
            figures = felt_doc.get(name, {})
            if felt is None:
                cells += [Cell(fmt.NO_VALUE), Cell(fmt.NO_VALUE)]
                continue
            cells.append(_figure(figures, "p99_ms", f"{at}.felt.{name}.p99_ms", fmt.latency_ns(felt.p99_ms * 1e6)))
            rest = f"×{felt.times_rest:.1f}" if felt.times_rest is not None else fmt.NO_VALUE
            cells.append(_figure(figures, "times_rest", f"{at}.felt.{name}.times_rest", rest))
        level = row.level or fmt.NO_VALUE
        cells += [Cell(level), Cell(row.status)]
        lines.append(cells)
    return table(headers, lines, kind="remedies"), verdict_sentence(sweep_verdict(sweep, rows))


def remedy_body(sweep: SweepRecord) -> str:
    """The page's body for a remedy record."""
    values = ", ".join(remedy_words(value) for axis in sweep.axes for value in axis.values)
    device = device_of_sweep(sweep)
    table_html, sentence = remedy_table(sweep)
    out = [f"<h1>Remedies for {esc(sweep.preset)}: {esc(values)}</h1>",
           f'<p class="note">{esc(sweep.title)} · {esc(sweep.status)} · created {esc(sweep.created.isoformat())}'
           f"{' · scheduler device ' + esc(device) if device else ''} · {esc(sweep.path or '')}</p>",
           table_html,
           f'<p data-verdict>{esc(sentence)}</p>']
    records, problems = point_records(sweep)
    if records:
        first = records[0][1]
        out.append(facts("Host", list(first.host.items()), "host"))
        out.append(facts("Target", list(first.target.items()), "target"))
    warnings: list[tuple[str, str]] = list(problems)
    warnings += [(f"{point.params.get('remedy', '?')}: ", f"point-{point.status}: {point.error}")
                 for point in sweep.points if point.error]
    for described, record in records:
        warnings += record_warnings(record, f"{described}: ")
    out.append("<h2>Warnings</h2>" + warnings_html(warnings))
    return "".join(out)
