"""Saved runs in a table, newest first, narrowed by the words typed in the filter.

A record that does not load is still a row (status "bad file"), and its
error sentence is what opening it shows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rich.text import Text
from textual.widgets import DataTable

from iotui.core import format as fmt
from iotui.core.runs.record import RunRecord, section_directions, section_metric

COLUMNS = ("date (UTC)", "preset", "target", "read", "write", "p99", "status")
NUMERIC_COLUMNS = (3, 4, 5)
PRESET_WIDTH = 12
TARGET_WIDTH = 14


@dataclass(frozen=True)
class HistoryEntry:
    """One file of the runs directory: its record, or why it did not load."""

    path: Path
    record: RunRecord | None
    error: str | None

    @property
    def sort_key(self) -> float:
        """Start time (or the file's own time for a bad file), for newest-first order."""
        if self.record is not None and self.record.started is not None:
            return self.record.started.timestamp()
        try:
            return self.path.stat().st_mtime
        except OSError:
            return 0.0

    def cells(self) -> tuple[str, ...]:
        """The row as shown."""
        if self.record is None:
            return ("?", _shorten(self.path.stem, PRESET_WIDTH), "", "", "", "", "bad file")
        record = self.record
        started = record.started
        date = started.astimezone(dt.timezone.utc).strftime("%y-%m-%d %H:%M") if started else "?"
        status = record.status + (f", {fmt.paused(record.paused_s)}" if record.paused_s else "")
        return (
            date,
            _shorten(record.preset, PRESET_WIDTH),
            _shorten(str(record.target.get("path", "")), TARGET_WIDTH, keep_end=True),
            _per_section(record, lambda s: fmt.iops(section_metric(s, "read", "iops"))),
            _per_section(record, lambda s: fmt.iops(section_metric(s, "write", "iops"))),
            _per_section(record, lambda s: fmt.latency_ns(_worst_p99(s))),
            status,
        )

    def search_text(self) -> str:
        """Everything the filter matches against, lower case."""
        parts = [self.path.name, self.error or ""]
        if self.record is not None:
            parts += [self.record.preset, str(self.record.target.get("path", "")), self.record.status,
                      str(self.record.target.get("filesystem", "")), str(self.record.target.get("device", ""))]
        parts += list(self.cells())
        return " ".join(parts).lower()


MAX_SECTIONS_SHOWN = 3


def _worst_p99(section: dict) -> float | None:
    """The higher p99 of a section's directions (they ran at the same time)."""
    values = [section_metric(section, d, "lat_p99_ns") for d in section_directions(section)]
    return max((v for v in values if v is not None), default=None)


def _per_section(record: RunRecord, cell: Callable[[dict], str]) -> str:
    """One value per section, ``19.2k|6.3k|547``; nothing summed across sections."""
    values = [cell(section) for section in record.sections]
    if not values:
        return fmt.NO_VALUE
    if all(value == fmt.NO_VALUE for value in values):
        return fmt.NO_VALUE
    shown = "|".join(values[:MAX_SECTIONS_SHOWN])
    return shown + (f"|…{len(values)}" if len(values) > MAX_SECTIONS_SHOWN else "")


def _shorten(text: str, width: int, *, keep_end: bool = False) -> str:
    if len(text) <= width:
        return text
    return "…" + text[-(width - 1):] if keep_end else text[: width - 1] + "…"


def matches(entry: HistoryEntry, filter_text: str) -> bool:
    """Every word of the filter appears somewhere in the entry."""
    haystack = entry.search_text()
    return all(word in haystack for word in filter_text.lower().split())


class HistoryTable(DataTable):
    """The runs, newest first; ``show(filter_text)`` narrows them."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.entries: list[HistoryEntry] = []
        self.shown: list[HistoryEntry] = []

    def on_mount(self) -> None:
        self.add_columns(*COLUMNS)

    def set_entries(self, entries: list[HistoryEntry], filter_text: str = "") -> None:
        """Replace the runs and show those the filter matches."""
        self.entries = sorted(entries, key=lambda entry: entry.sort_key, reverse=True)
        self.show(filter_text)

    def show(self, filter_text: str) -> None:
        """Show only the entries matching ``filter_text``."""
        self.shown = [entry for entry in self.entries if matches(entry, filter_text)]
        self.clear()
        for index, entry in enumerate(self.shown):
            cells = entry.cells()
            self.add_row(
                *(Text(cell, justify="right") if column in NUMERIC_COLUMNS else cell for column, cell in enumerate(cells)),
                key=str(index),
            )

    def current_entry(self) -> HistoryEntry | None:
        """The entry under the cursor."""
        if not self.shown or self.cursor_row is None or not 0 <= self.cursor_row < len(self.shown):
            return None
        return self.shown[self.cursor_row]
