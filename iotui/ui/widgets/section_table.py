"""A run's sections, one row each (in the spirit of KDiskMark's table); a row picks the detail shown.

The table fits the width it is given, figures first (docs/app-at-80-columns.md): every IOPS,
bandwidth, mean and p99 is shown whole. What gives way, in this order: the headers shorten; a
section that did more than one direction (a read/write mix) takes one line per direction, under a
``dir`` column, instead of two values in a cell; for desktop tests, the bs and QD x jobs columns go
(the name says both); last, the section names are cut to the width left, ending in ``…`` (the
whole name titles the section's detail below the table).
"""

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
# One line per direction: the direction gets a column and the IOPS one column for it.
DIRECTION_HEADERS = ("section", "bs", "QD×jobs", "dir", "IOPS", "bw", "mean", "p99")
# The columns a desktop test's name already says (seq1m-q8t1-read: bs 1m, QD 8, 1 job).
NAMED_BY_DESKTOP_NAME = (1, 2)
# The fewest cells a cut section name keeps (its last one the ``…``).
NAME_MIN_WIDTH = 8
CUT_MARK = "…"


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


def _section_name(section: Mapping[str, object]) -> str:
    name = str(section.get("name", "?"))
    paused_s = number(section.get("paused_s"))
    if paused_s:
        name += f" ({fmt.paused(paused_s)})"
    hosts = number(section.get("hosts"))
    if hosts and hosts > 1:
        # An aggregate: bs and QD x jobs are what ran on each of these hosts.
        name += f" on {hosts:.0f} hosts"
    return name


def _options(section: Mapping[str, object]) -> Mapping[str, object]:
    found = section.get("options")
    return found if isinstance(found, Mapping) else {}


def _queue(options: Mapping[str, object]) -> str:
    return f"{options.get('iodepth', '1')} × {options.get('numjobs', '1')}"


def section_row(section: Mapping[str, object]) -> tuple[str, ...]:
    """The section's one line: two values in a cell where it did two directions."""
    options = _options(section)
    figures = section_figures(section)
    return (
        _section_name(section),
        str(options.get("bs", fmt.NO_VALUE)),
        _queue(options),
        _read_iops(figures),
        fmt.iops(_iops_of(figures, "write")),
        _per_direction(figures, lambda direction: direction.bw_bytes, fmt.bytes_per_s),
        _per_direction(figures, lambda direction: direction.lat_mean_ns, fmt.latency_ns),
        _per_direction(figures, lambda direction: direction.lat_p99_ns, fmt.latency_ns),
    )


def direction_lines(section: Mapping[str, object]) -> list[tuple[str, ...]]:
    """The section as one line per direction it did (DIRECTION_HEADERS' cells); the name, bs and
    QD x jobs on its first line only, as the desktop table names a test once."""
    options = _options(section)
    first = (_section_name(section), str(options.get("bs", fmt.NO_VALUE)), _queue(options))
    figures = section_figures(section)
    if not figures:
        return [(*first, fmt.NO_VALUE, fmt.NO_VALUE, fmt.NO_VALUE, fmt.NO_VALUE, fmt.NO_VALUE)]
    return [
        (*(first if index == 0 else ("", "", "")), direction.direction, fmt.iops(direction.iops),
         fmt.bytes_per_s(direction.bw_bytes), fmt.latency_ns(direction.lat_mean_ns),
         fmt.latency_ns(direction.lat_p99_ns))
        for index, direction in enumerate(figures)
    ]


@dataclass(frozen=True)
class SectionLayout:
    """How the table is drawn at one width: its headers, the cells shown (indices into a line),
    whether a section takes one line per direction, and the width names are cut to (None: whole)."""

    headers: tuple[str, ...]
    indices: tuple[int, ...]
    per_direction: bool = False
    name_width: int | None = None


def cut_name(name: str, width: int | None) -> str:
    """``name`` in at most ``width`` cells, its last one ``…`` where it had to be cut."""
    if width is None or len(name) <= width:
        return name
    return name[: width - 1] + CUT_MARK


def table_lines(sections: Sequence[Mapping[str, object]], per_direction: bool) -> list[tuple[int, tuple[str, ...]]]:
    """Every line of the table with the index of the section it belongs to."""
    if per_direction:
        return [(index, line) for index, section in enumerate(sections) for line in direction_lines(section)]
    return [(index, section_row(section)) for index, section in enumerate(sections)]


def _used(layout: SectionLayout, lines: Sequence[tuple[str, ...]], cell_padding: int) -> int:
    widths = [max([len(layout.headers[index])] + [len(line[index]) for line in lines]) for index in layout.indices]
    if layout.name_width is not None:
        widths[0] = min(widths[0], max(layout.name_width, len(layout.headers[0])))
    return sum(widths) + 2 * cell_padding * len(widths)


def choose_layout(sections: Sequence[Mapping[str, object]], width: int | None, cell_padding: int = 1) -> SectionLayout:
    """The first layout that fits ``width`` (None: the full one); the narrowest when none fits."""
    every = tuple(range(len(COLUMNS)))
    full = SectionLayout(COLUMNS, every)
    if width is None:
        return full
    rows = table_lines(sections, False)
    candidates = [full, SectionLayout(SHORT_HEADERS, every)]
    if any(len(section_figures(section)) > 1 for section in sections):
        candidates.append(SectionLayout(DIRECTION_HEADERS, every, per_direction=True))
    if rows and all(test_label(row[0]) is not None for _, row in rows):
        kept = tuple(index for index in every if index not in NAMED_BY_DESKTOP_NAME)
        last = candidates[-1]
        candidates.append(SectionLayout(last.headers, kept, last.per_direction))
    for layout in candidates:
        if _used(layout, [line for _, line in table_lines(sections, layout.per_direction)], cell_padding) <= width:
            return layout
    # Nothing fits: the names take what the figures leave, down to NAME_MIN_WIDTH.
    last = candidates[-1]
    lines = [line for _, line in table_lines(sections, last.per_direction)]
    others = _used(SectionLayout(last.headers, last.indices[1:], last.per_direction), lines, cell_padding)
    name_width = max(NAME_MIN_WIDTH, width - others - 2 * cell_padding)
    return SectionLayout(last.headers, last.indices, last.per_direction, name_width)


class SectionTable(DataTable):
    """One row per section in fio's order (one line per direction where the width asks for it);
    highlighting a line posts :class:`SectionTable.SectionSelected` with its section's index."""

    @dataclass
    class SectionSelected(Message):
        index: int

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.record = record
        self._selected: int | None = None
        self._line_sections: list[int] = []

    def on_mount(self) -> None:
        self._show(choose_layout(self.record.sections, None))

    def _show(self, layout: SectionLayout) -> None:
        self._layout = layout
        selected = self._line_sections[self.cursor_row] if 0 <= self.cursor_row < len(self._line_sections) else 0
        self.clear(columns=True)
        self.add_columns(*(layout.headers[index] for index in layout.indices))
        lines = table_lines(self.record.sections, layout.per_direction)
        self._line_sections = [section for section, _ in lines]
        for _, line in lines:
            cells = [line[index] for index in layout.indices]
            cells[0] = cut_name(cells[0], layout.name_width)
            self.add_row(*cells)
        if lines:
            # The cursor stays on its section: the first line of it in the new layout.
            self.move_cursor(row=self._line_sections.index(selected) if selected in self._line_sections else 0)

    def on_resize(self) -> None:
        # Every figure whole: at a narrow width decoration gives way (the module's docstring says in which order).
        layout = choose_layout(self.record.sections, self.scrollable_content_region.width, self.cell_padding)
        if layout != self._layout:
            self.call_after_refresh(self._show, layout)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if not 0 <= event.cursor_row < len(self._line_sections):
            return
        section = self._line_sections[event.cursor_row]
        # Another line of the same section, or a new layout putting the cursor back: not a new choice.
        if section == self._selected:
            return
        self._selected = section
        self.post_message(self.SectionSelected(section))
