"""Records -> tables like the studies' (markdown, CSV, JSON).

One row per run and direction (a ``randrw`` run gives a read row and a
write row); a record with a ``[[jobs]]`` table (several job sections: a
block-size table preset, a reference table) gives one row per job. Columns:
the settings that differ between the rows, BW (MiB/s), IOPS, average
latency (µs) and p99 (µs); notes carry cache warnings and reference notes.
Markdown is formatted like the studies; CSV and JSON keep the plain numbers.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from iotui.core import format as fmt
from iotui.core.records.direction_figures import DirectionFigures, section_figures
from iotui.core.records.record import RunRecord

FORMATS = ("markdown", "csv", "json")
# Options that name files or jobs rather than describe the workload.
_NOT_SETTINGS = {"name", "filename", "directory", "filename_format", "output", "output-format"}
_METRIC_COLUMNS = (
    ("bw_mib_s", "BW (MiB/s)"),
    ("iops", "IOPS"),
    ("lat_mean_us", "Avg latency (µs)"),
    ("lat_p99_us", "p99 (µs)"),
)


@dataclass
class ExportTable:
    """Rows of plain values and the columns to show, in order."""

    columns: list[tuple[str, str]]  # (key, header)
    rows: list[dict[str, Any]]


def _metrics(figures: DirectionFigures) -> dict[str, float | None]:
    def scaled(value: float | None, divisor: float) -> float | None:
        return None if value is None else round(value / divisor, 3)

    bw_mib_s = scaled(figures.known_bw_bytes, 1 << 20)
    if not bw_mib_s and figures.iops:
        bw_mib_s = None  # a published table gave IOPS only: zero bandwidth is "unknown", not a figure
    return {
        "bw_mib_s": bw_mib_s,
        "iops": scaled(figures.iops, 1),
        "lat_mean_us": scaled(figures.lat_mean_ns, 1000),
        "lat_p99_us": scaled(figures.lat_p99_ns, 1000),
    }


def _record_settings(record: RunRecord) -> dict[str, str]:
    settings = {k: v for k, v in record.options.items() if k not in _NOT_SETTINGS and "." not in k}
    for key in ("hostname", "system", "kernel"):
        value = record.host.get(key)
        if value and value != "unknown":
            settings[key] = str(value)
    return settings


def _cache_note(record: RunRecord) -> str:
    codes = sorted({w["code"] for w in record.warnings if w.get("code", "").startswith("cache")})
    return "suspect: page cache" if codes else ""


def _rows_for(record: RunRecord) -> list[dict[str, Any]]:
    """One row per section and direction: nothing is summed across sections."""
    name = str(record.run.get("title") or record.preset)
    base_settings = _record_settings(record)
    multi = record.is_multi_section
    rows: list[dict[str, Any]] = []
    for section in record.sections:
        settings = dict(base_settings)
        if multi:
            settings.update({key: str(value) for key, value in (section.get("options") or {}).items()})
        for figures in section_figures(section):
            rows.append(
                {
                    "run": str(section.get("name", name)) if multi else name,
                    "settings": settings,
                    "direction": figures.direction,
                    **_metrics(figures),
                    "notes": str(section.get("notes", "")) if multi else _cache_note(record),
                }
            )
    return rows


def export_table(records: list[RunRecord]) -> ExportTable:
    """The rows of every record and the columns that tell them apart."""
    raw_rows = [row for record in records for row in _rows_for(record)]
    setting_names: list[str] = []
    for row in raw_rows:
        for key in row["settings"]:
            if key not in setting_names:
                setting_names.append(key)
    differing = [
        key for key in setting_names if len({row["settings"].get(key) for row in raw_rows}) > 1
    ]
    columns: list[tuple[str, str]] = []
    if len({row["run"] for row in raw_rows}) > 1 or not differing:
        columns.append(("run", "run"))
    columns += [(f"setting:{key}", key) for key in differing]
    directions = {row["direction"] for row in raw_rows}
    if len(directions) > 1 or "mixed" in directions:  # mixed (unified_rw_reporting) is never left to pass as a read
        columns.append(("direction", "direction"))
    columns += list(_METRIC_COLUMNS)
    if any(row["notes"] for row in raw_rows):
        columns.append(("notes", "Notes"))
    rows = []
    for row in raw_rows:
        flat = {key: value for key, value in row.items() if key != "settings"}
        for key in differing:
            flat[f"setting:{key}"] = row["settings"].get(key)
        rows.append(flat)
    return ExportTable(columns, rows)


def _md_cell(key: str, value: Any) -> str:
    if value is None or value == "":
        return fmt.NO_VALUE if key in dict(_METRIC_COLUMNS) else ""
    if key == "bw_mib_s":
        return fmt.mib_per_s(value * (1 << 20))
    if key == "iops":
        return fmt.count(value)
    if key in ("lat_mean_us", "lat_p99_us"):
        return fmt.microseconds(value * 1000)
    return str(value).replace("|", "\\|")


def to_markdown(table: ExportTable) -> str:
    headers = [header for _, header in table.columns]
    numeric = {key for key, _ in _METRIC_COLUMNS}
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("--:" if key in numeric else "---" for key, _ in table.columns) + "|",
    ]
    for row in table.rows:
        lines.append("| " + " | ".join(_md_cell(key, row.get(key)) for key, _ in table.columns) + " |")
    return "\n".join(lines) + "\n"


def _plain_key(key: str) -> str:
    return key.split(":", 1)[1] if key.startswith("setting:") else key


def to_csv(table: ExportTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([_plain_key(key) for key, _ in table.columns])
    for row in table.rows:
        writer.writerow(["" if row.get(key) is None else row.get(key) for key, _ in table.columns])
    return buffer.getvalue()


def to_json(table: ExportTable) -> str:
    rows = [{_plain_key(key): row.get(key) for key, _ in table.columns} for row in table.rows]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def export_records(records: list[RunRecord], output_format: str) -> str:
    """The records as a markdown, CSV or JSON table."""
    if output_format not in FORMATS:
        raise ValueError(f"unknown export format {output_format!r}; use one of {', '.join(FORMATS)}")
    table = export_table(records)
    text = {"markdown": to_markdown, "csv": to_csv, "json": to_json}[output_format](table)
    if output_format == "markdown":
        text = desktop_tables_markdown(records) + text
    return text


def desktop_tables_markdown(records: list[RunRecord]) -> str:
    """The desktop table first, for desktop-table runs: one run's own, or two runs side by side."""
    from iotui.core.records.desktop_table import desktop_compare_markdown, desktop_markdown, is_desktop_table

    desktop = [record for record in records if is_desktop_table(record)]
    if len(desktop) == 2:
        return desktop_compare_markdown(desktop[0], desktop[1]) + "\n"
    return "".join(desktop_markdown(record) + "\n" for record in desktop)
