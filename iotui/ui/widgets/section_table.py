"""A run's sections, one row each (in the spirit of KDiskMark's table); a row picks the detail shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.widgets import DataTable

from iotui.core import format as fmt
from iotui.core.records.record import RunRecord, section_directions, section_metric

COLUMNS = ("section", "bs", "QD × jobs", "read IOPS", "write IOPS", "bandwidth", "mean", "p99")


def _per_direction(section: dict[str, Any], key: str, formatter: Any) -> str:
    """One value per direction that ran, read first: ``1.2ms / 3.4ms`` for a mixed section."""
    values = [formatter(section_metric(section, d, key)) for d in section_directions(section)]
    return " / ".join(values) if values else fmt.NO_VALUE


def _read_iops(section: dict[str, Any]) -> str:
    """Read IOPS; a ``mixed`` section (fio's unified_rw_reporting) says so instead of passing for a read."""
    mixed = section_metric(section, "mixed", "iops")
    if mixed is not None and section_metric(section, "read", "iops") is None:
        return f"mixed {fmt.iops(mixed)}"
    return fmt.iops(section_metric(section, "read", "iops"))


def section_row(section: dict[str, Any]) -> tuple[str, ...]:
    options = section.get("options") or {}
    name = str(section.get("name", "?"))
    if section.get("paused_s"):
        name += f" ({fmt.paused(section.get('paused_s'))})"
    return (
        name,
        str(options.get("bs", fmt.NO_VALUE)),
        f"{options.get('iodepth', '1')} × {options.get('numjobs', '1')}",
        _read_iops(section),
        fmt.iops(section_metric(section, "write", "iops")),
        _per_direction(section, "bw_bytes", fmt.bytes_per_s),
        _per_direction(section, "lat_mean_ns", fmt.latency_ns),
        _per_direction(section, "lat_p99_ns", fmt.latency_ns),
    )


class SectionTable(DataTable):
    """One row per section in fio's order; highlighting a row posts :class:`SectionTable.SectionSelected`."""

    @dataclass
    class SectionSelected(Message):
        index: int

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.record = record

    def on_mount(self) -> None:
        self.add_columns(*COLUMNS)
        for section in self.record.sections:
            self.add_row(*section_row(section))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.SectionSelected(event.cursor_row))
