"""A run's sections, one row each (in the spirit of KDiskMark's table); a row picks the detail shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from textual.message import Message
from textual.widgets import DataTable

from iotui.core import format as fmt
from iotui.core.numbers import number
from iotui.core.records.direction_figures import DirectionFigures, section_figures
from iotui.core.records.record import RunRecord

COLUMNS = ("section", "bs", "QD × jobs", "read IOPS", "write IOPS", "bandwidth", "mean", "p99")


def _per_direction(figures: Sequence[DirectionFigures], figure: Callable[[DirectionFigures], float | None],
                   formatter: Callable[[float | None], str]) -> str:
    """One value per direction that ran, read first: ``1.2ms / 3.4ms`` for a mixed section."""
    values = [formatter(figure(direction)) for direction in figures]
    return " / ".join(values) if values else fmt.NO_VALUE


def _iops_of(figures: Sequence[DirectionFigures], direction: str) -> float | None:
    return next((found.iops for found in figures if found.direction == direction), None)


def _read_iops(figures: Sequence[DirectionFigures]) -> str:
    """Read IOPS; a ``mixed`` section (fio's unified_rw_reporting) says so instead of passing for a read."""
    mixed = _iops_of(figures, "mixed")
    if mixed is not None and _iops_of(figures, "read") is None:
        return f"mixed {fmt.iops(mixed)}"
    return fmt.iops(_iops_of(figures, "read"))


def section_row(section: Mapping[str, object]) -> tuple[str, ...]:
    found = section.get("options")
    options: Mapping[str, object] = found if isinstance(found, Mapping) else {}
    figures = section_figures(section)
    name = str(section.get("name", "?"))
    paused_s = number(section.get("paused_s"))
    if paused_s:
        name += f" ({fmt.paused(paused_s)})"
    hosts = number(section.get("hosts"))
    if hosts and hosts > 1:
        # An aggregate: bs and QD x jobs are what ran on each of these hosts.
        name += f" on {hosts:.0f} hosts"
    return (
        name,
        str(options.get("bs", fmt.NO_VALUE)),
        f"{options.get('iodepth', '1')} × {options.get('numjobs', '1')}",
        _read_iops(figures),
        fmt.iops(_iops_of(figures, "write")),
        _per_direction(figures, lambda direction: direction.bw_bytes, fmt.bytes_per_s),
        _per_direction(figures, lambda direction: direction.lat_mean_ns, fmt.latency_ns),
        _per_direction(figures, lambda direction: direction.lat_p99_ns, fmt.latency_ns),
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
