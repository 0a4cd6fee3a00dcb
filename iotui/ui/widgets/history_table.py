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
from iotui.core.runs.history_index import IndexedRun
from iotui.core.runs.record import RunRecord
from iotui.core.runs.record_files import load_record
from iotui.core.runs.record_schema import RecordError

# Units and the better direction in the headers: ↑ higher is better, ↓ lower is better.
COLUMNS = ("started (UTC)", "preset", "target", "read IOPS↑", "write IOPS↑", "p99 ↓", "status")
NUMERIC_COLUMNS = (3, 4, 5)
# Sized so that the table fits 80 columns: one space between columns, dates with their year.
PRESET_WIDTH = 10
TARGET_WIDTH = 9
# Whole words that fit the status column (the filter still finds "completed").
STATUS_WORDS = {"completed": "done", "reference": "ref."}
MAX_SECTIONS_SHOWN = 3
# The signal behind a responsiveness verdict, in the chip's words.
CAUSE_WORDS = {
    "io_probe_read": "io read", "io_probe_write": "io write", "wakeup": "wake-up",
    "psi_memory_full": "memory", "psi_io_full": "io full",
}


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
            self._error = str(error)
            return None

    @property
    def error(self) -> str | None:
        return self._error

    def date(self) -> str:
        started = self.run.started
        return started.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M") if started else "?"

    def cells(self) -> tuple[str, ...]:
        """The row as shown."""
        run = self.run
        if run.error:
            return ("?", _shorten(self.path.stem, PRESET_WIDTH), "", "", "", "", "bad file")
        status = STATUS_WORDS.get(run.status, run.status)
        if run.paused_s:
            status += f", paused {run.paused_s:.0f} s"
        if run.responsiveness:
            level, _, cause = run.responsiveness.partition(" ")
            status += f", {level}" + (f" ({CAUSE_WORDS.get(cause, cause)})" if cause else "")
        return (
            self.date(),
            _shorten(run.preset, PRESET_WIDTH),
            _shorten(run.target, TARGET_WIDTH, keep_end=True),
            _per_section(run.read_iops, fmt.iops),
            _per_section(run.write_iops, fmt.iops),
            _per_section(run.p99_ns, fmt.latency_ns),
            status,
        )


def _per_section(values: tuple[float | None, ...], formatter: Callable[[float | None], str]) -> str:
    """One value per section, ``19.2k|6.3k|547``; nothing summed across sections."""
    cells = [formatter(value) for value in values]
    if not cells or all(cell == fmt.NO_VALUE for cell in cells):
        return fmt.NO_VALUE
    shown = "|".join(cells[:MAX_SECTIONS_SHOWN])
    return shown + (f"|…{len(cells)}" if len(cells) > MAX_SECTIONS_SHOWN else "")


def _shorten(text: str, width: int, *, keep_end: bool = False) -> str:
    if len(text) <= width:
        return text
    return "…" + text[-(width - 1):] if keep_end else text[: width - 1] + "…"


class HistoryTable(DataTable):
    """The runs shown, newest first; ``set_entries`` replaces them."""

    def __init__(self, *, id: str | None = None) -> None:
        # No padding around cells; each cell starts with one space instead (80 columns hold every column).
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, cell_padding=0)
        self.shown: list[HistoryEntry] = []

    def on_mount(self) -> None:
        self.add_columns(*(f" {column}" for column in COLUMNS))

    @property
    def entries(self) -> list[HistoryEntry]:
        return self.shown

    def set_entries(self, entries: list[HistoryEntry]) -> None:
        """Show these entries (already filtered and ordered by the index)."""
        current = self.current_entry()
        cursor_path = current.path if current is not None else None
        self.shown = list(entries)
        self.clear()
        for index, entry in enumerate(self.shown):
            cells = entry.cells()
            # Text cells: a plain string would be parsed as markup, row after row.
            self.add_row(
                *(Text(f" {cell}", justify="right" if column in NUMERIC_COLUMNS else "left") for column, cell in enumerate(cells)),
                key=str(index),
            )
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
