"""Saved runs in a table, newest first, as the history index lists them.

A record that does not load is still a row (status "bad file"), and its
error sentence is what opening it shows. Rows come from the index (no TOML
is parsed to list them); an entry's full record is loaded when it is opened
or compared.
"""

from __future__ import annotations

import datetime as dt
from functools import cached_property
from pathlib import Path
from typing import Callable

from rich.text import Text
from textual.widgets import DataTable

from iotui.core import format as fmt
from iotui.core.records.history_index import IndexedRun
from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record
from iotui.core.records.schema import RecordError
from iotui.core.terminal_text import terminal_safe

# Two-line headers with the unit and the better direction (↑ higher is better, ↓ lower is better).
# Widths are chosen so the whole table fits 80 columns with its scrollbar: a cell never cuts a
# date, a status word or a number (a value that does not fit shows "…", the detail line has all).
COLUMNS = (
    ("  started", "  (UTC)"), (" preset", ""), (" target", ""), ("   read", " IOPS ↑"), ("  write", " IOPS ↑"),
    ("    p99", "   ms ↓"), (" status", ""),
)
NUMERIC_COLUMNS = (3, 4, 5)
PRESET_WIDTH = 12
TARGET_WIDTH = 11
NUMBER_WIDTH = 7
# Whole words, each at most 8 letters; the filter takes the word shown as well (filter_words).
STATUS_WORDS = {"completed": "done"}
# Marks after the status word; LEGEND spells them out under the table.
PAUSED_MARK = "‖"
LEVEL_MARKS = {"sluggish": "~", "unresponsive": "!"}
MIXED_MARK = "m"
# One line at 80 columns (it wrapped when each arrow was spelled out).
LEGEND = "↑/↓ higher/lower is better  ‖ paused  ~ sluggish  ! unresponsive  m mixed"
# The signal behind a responsiveness verdict, in the chip's words.
CAUSE_WORDS = {
    "io_probe_read": "io read", "io_probe_write": "io write", "wakeup": "wake-up", "app_start": "start-up",
    "psi_memory_full": "memory", "psi_io_full": "io full",
}


def filter_words(text: str) -> str:
    """The filter as the index reads it: a status word as the table shows it ("done") becomes the
    record's ("completed"), so the filter matches what the table shows."""
    record_words = {shown: status for status, shown in STATUS_WORDS.items()}
    return " ".join(record_words.get(word.lower(), word) for word in text.split())


class HistoryEntry:
    """One file of the runs directory: its index row; its record, loaded when asked for."""

    def __init__(self, run: IndexedRun) -> None:
        self.run = run
        self.path: Path = run.path
        self._error = run.error

    @cached_property
    def record(self) -> RunRecord | None:
        """The full record (parsed now), or None when it does not load."""
        if self.run.error:
            return None
        try:
            return load_record(self.path)
        except RecordError as error:
            self._error = terminal_safe(str(error))
            return None

    @property
    def error(self) -> str | None:
        return self._error

    def date(self) -> str:
        started = self.run.started
        return started.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M") if started else "?"

    def cells(self) -> tuple[str, ...]:
        """The row as shown (without the mark before the date)."""
        run = self.run
        if run.error:
            return (self.date(), _shorten(terminal_safe(self.path.stem), PRESET_WIDTH), "", "", "", "", "bad file")
        status = STATUS_WORDS.get(run.status, run.status)
        marks = (PAUSED_MARK if run.paused_s else "") + LEVEL_MARKS.get(run.responsiveness.partition(" ")[0], "")
        return (
            self.date(),
            _shorten(run.preset, PRESET_WIDTH),
            _shorten(run.where(), TARGET_WIDTH) if run.hosts else _shorten_path(run.target, TARGET_WIDTH),
            _fit(_read_or_mixed(run)),
            _per_section(run.write_iops, fmt.iops),
            _per_section(run.p99_ns, _milliseconds),
            f"{status} {marks}" if marks else status,
        )

    def detail(self) -> str:
        """What the row leaves out: pauses, the responsiveness verdict, every section's figures."""
        run = self.run
        parts = []
        if run.hosts:
            parts.append(f"{run.target} on {run.where()}")
        if run.paused_s:
            parts.append(fmt.paused(run.paused_s))
        if run.responsiveness:
            level, _, cause = run.responsiveness.partition(" ")
            parts.append(level + (f" ({CAUSE_WORDS.get(cause, cause)})" if cause else ""))
        sections = max(len(run.read_iops), len(run.write_iops), len(run.mixed_iops), len(run.p99_ns))
        if sections > 1:
            for index in range(sections):
                figures = [
                    f"{label} {fmt.iops(values[index]) if index < len(values) else fmt.NO_VALUE}"
                    for label, values in (("read", run.read_iops), ("write", run.write_iops), ("mixed", run.mixed_iops))
                    if index < len(values) and values[index] is not None
                ]
                if index < len(run.p99_ns) and run.p99_ns[index] is not None:
                    figures.append(f"p99 {fmt.latency_ns(run.p99_ns[index])}")
                parts.append(f"section {index + 1}: " + ", ".join(figures or [fmt.NO_VALUE]))
        return " · ".join(parts)


def _milliseconds(value_ns: float | None) -> str:
    return fmt.in_unit(value_ns, 1e6)


def _read_or_mixed(run: IndexedRun) -> list[str]:
    """The read column's cells: a section's read IOPS, or its mixed IOPS marked ``m`` (fio's
    unified_rw_reporting: reads and writes as one direction, never shown as a read)."""
    count = max(len(run.read_iops), len(run.mixed_iops))
    cells = []
    for index in range(count):
        read = run.read_iops[index] if index < len(run.read_iops) else None
        mixed = run.mixed_iops[index] if index < len(run.mixed_iops) else None
        cells.append(fmt.iops(read) if read is not None or mixed is None else MIXED_MARK + fmt.iops(mixed))
    return cells


def _per_section(values: tuple[float | None, ...], formatter: Callable[[float | None], str]) -> str:
    """One value per section, ``19.2k|6.3k``; nothing summed across sections."""
    return _fit([formatter(value) for value in values])


def _fit(cells: list[str]) -> str:
    """Whole values only: those that do not fit are left to the detail line ("…")."""
    if not cells or all(cell == fmt.NO_VALUE for cell in cells):
        return fmt.NO_VALUE
    shown = "|".join(cells)
    if len(shown) <= NUMBER_WIDTH:
        return shown
    kept: list[str] = []
    for cell in cells:
        if len("|".join([*kept, cell])) + 2 > NUMBER_WIDTH:
            break
        kept.append(cell)
    return "|".join(kept) + ("|…" if kept else "…")


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _shorten_path(path: str, width: int) -> str:
    """The path's last components that fit (``…/fit-target``); the end of the last one if it alone does not."""
    if len(path) <= width:
        return path
    tail = ""
    for part in reversed(path.rstrip("/").split("/")):
        candidate = f"{part}/{tail}" if tail else part
        if len(candidate) + 2 > width:
            break
        tail = candidate
    return "…/" + tail if tail else "…" + path[-(width - 1):]


class HistoryTable(DataTable):
    """The runs shown, newest first; ``set_entries`` replaces them."""

    def __init__(self, *, id: str | None = None) -> None:
        # No padding around cells; each cell starts with one space instead (80 columns hold every column).
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, cell_padding=0, header_height=2)
        self.marks: dict[Path, str] = {}
        """Comparison labels of the marked runs (``a``, ``b``...), shown before their dates."""
        self.shown: list[HistoryEntry] = []

    def on_mount(self) -> None:
        self.add_columns(*(Text(f"{top}\n{bottom}") for top, bottom in COLUMNS))

    @property
    def entries(self) -> list[HistoryEntry]:
        return self.shown

    def set_entries(self, entries: list[HistoryEntry]) -> None:
        """Show these entries (already filtered and ordered by the index)."""
        if [entry.run for entry in entries] == [entry.run for entry in self.shown] and self.row_count == len(entries):
            return  # the same rows (History opened again, nothing changed): keep them and the cursor
        current = self.current_entry()
        cursor_path = current.path if current is not None else None
        self.shown = list(entries)
        self.clear()
        for index, entry in enumerate(self.shown):
            self.add_row(*self.row_cells(entry), key=str(index))
        if cursor_path is not None:
            for index, entry in enumerate(self.shown):
                if entry.path == cursor_path:
                    self.move_cursor(row=index)
                    break

    def current_entry(self) -> HistoryEntry | None:
        """The entry under the cursor."""
        if not self.shown or self.cursor_row is None or not 0 <= self.cursor_row < len(self.shown):
            return None
        return self.shown[self.cursor_row]

    def row_cells(self, entry: HistoryEntry) -> list[Text]:
        """Text cells (a plain string would be parsed as markup, row after row), fixed widths."""
        cells = entry.cells()
        mark = self.marks.get(entry.path)
        date = Text(f"{mark or '':<2}{cells[0]}", style="bold" if mark else "")
        return [date] + [
            Text(f" {cell}", justify="right" if column in NUMERIC_COLUMNS else "left")
            for column, cell in enumerate(cells) if column > 0
        ]

    def show_marks(self, marks: dict[Path, str]) -> None:
        """Redraw only the date cells whose mark changed."""
        changed = {path for path in set(marks) | set(self.marks) if marks.get(path) != self.marks.get(path)}
        self.marks = dict(marks)
        if not self.ordered_columns or not changed:
            return
        date_column = self.ordered_columns[0].key
        for index, entry in enumerate(self.shown):
            if entry.path in changed:
                self.update_cell(str(index), date_column, self.row_cells(entry)[0])
