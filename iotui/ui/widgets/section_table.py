"""A run's sections, one row each (in the spirit of KDiskMark's table); a row picks the detail shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from textual.message import Message
from textual.widgets import DataTable

from iotui.core import format as fmt
from iotui.core.numbers import number
from iotui.core.records.direction_figures import DirectionFigures, section_figures
from iotui.core.records.desktop_table import test_label
from iotui.core.records.record import RunRecord

COLUMNS = ("section", "bs", "QD × jobs", "read IOPS", "write IOPS", "bandwidth", "mean", "p99")
# Narrower headers for a narrow table (the figures under them are the same).
SHORT_HEADERS = ("section", "bs", "QD×jobs", "rd IOPS", "wr IOPS", "bw", "mean", "p99")
# The columns a desktop test's name already says (seq1m-q8t1-read: bs 1m, QD 8, 1 job).
NAMED_BY_DESKTOP_NAME = (1, 2)


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


def table_columns(rows: Sequence[tuple[str, ...]], width: int | None, cell_padding: int = 1) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The headers and the indices of the cells shown at ``width``: all with full headers where they fit,
    then shorter headers, then (desktop test names only) without bs and QD x jobs, which the name says."""
    every = tuple(range(len(COLUMNS)))
    layouts: list[tuple[tuple[str, ...], tuple[int, ...]]] = [(COLUMNS, every), (SHORT_HEADERS, every)]
    if rows and all(test_label(row[0]) is not None for row in rows):
        kept = tuple(index for index in every if index not in NAMED_BY_DESKTOP_NAME)
        layouts.append((SHORT_HEADERS, kept))
    if width is None:
        return COLUMNS, every
    for headers, indices in layouts:
        used = sum(
            max([len(headers[index])] + [len(row[index]) for row in rows]) + 2 * cell_padding for index in indices
        )
        if used <= width:
            break
    return tuple(headers[index] for index in indices), indices


class SectionTable(DataTable):
    """One row per section in fio's order; highlighting a row posts :class:`SectionTable.SectionSelected`."""

    @dataclass
    class SectionSelected(Message):
        index: int

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.record = record
        self._selected: int | None = None

    def on_mount(self) -> None:
        self._rows = [section_row(section) for section in self.record.sections]
        self._show(table_columns(self._rows, None))

    def _show(self, layout: tuple[tuple[str, ...], tuple[int, ...]]) -> None:
        self._layout = layout
        headers, indices = layout
        cursor_row = self.cursor_row
        self.clear(columns=True)
        self.add_columns(*headers)
        for row in self._rows:
            self.add_row(*(row[index] for index in indices))
        if self._rows:
            self.move_cursor(row=min(cursor_row, len(self._rows) - 1))

    def on_resize(self) -> None:
        # Every figure whole: at a narrow width the headers shorten, then what the names say goes.
        layout = table_columns(self._rows, self.scrollable_content_region.width, self.cell_padding)
        if layout != self._layout:
            self.call_after_refresh(self._show, layout)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        # A new layout (the columns narrowed) puts the cursor back on its row: not a new choice.
        if event.cursor_row == self._selected:
            return
        self._selected = event.cursor_row
        self.post_message(self.SectionSelected(event.cursor_row))
