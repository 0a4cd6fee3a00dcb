"""History: saved runs newest first; type to filter, enter to open, bad files listed with their error.

Tab marks runs (the first marked is the baseline, "a"); ctrl+o compares the marked runs.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Key
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from iotui.core.runs.compare import run_labels
from iotui.core.runs.record import RunRecord
from iotui.ui.screens.compare import CompareScreen
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.services import ServiceError, Services
from iotui.ui.widgets.history_table import HistoryEntry, HistoryTable


class HistoryScreen(Screen):
    """Typing always goes to the filter; the arrows move through the runs."""

    BINDINGS = [
        Binding("enter", "open", "Open", priority=True),
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("escape", "app.pop_screen", "Back"),
        Binding("ctrl+r", "reload", "Reload"),
        # Letters go to the filter, so marking and comparing use keys that type nothing (fzf marks with tab).
        Binding("tab", "mark", "Mark"),
        Binding("ctrl+o", "compare", "Compare marked"),
    ]
    AUTO_FOCUS = "#history-filter"

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self.sub_title = f"saved runs in {services.runs_dir}"
        self.marked: list[Path] = []

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        yield Input(placeholder="type to filter (preset, target, status, date...)", id="history-filter", compact=True)
        yield HistoryTable(id="history")
        yield Static(id="history-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        try:
            entries = [HistoryEntry(path, record, error) for path, record, error in self.services.list_records()]
        except ServiceError as error:
            entries = []
            self.notify(str(error), severity="error")
        table = self.query_one(HistoryTable)
        table.set_entries(entries, self.query_one("#history-filter", Input).value)
        loaded = {entry.path for entry in entries if entry.record is not None}
        self.marked = [path for path in self.marked if path in loaded]
        self._show_marks()
        self._show_detail()
        if not entries:
            self.query_one("#history-detail", Static).update(
                Text(f"No saved runs in {self.services.runs_dir} yet.", style="italic")
            )

    @on(Input.Changed, "#history-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(HistoryTable).show(event.value)
        self._show_marks()
        self._show_detail()

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        self._show_detail()

    def on_key(self, event: Key) -> None:
        # Letters typed while the table has focus still go to the filter.
        filter_input = self.query_one("#history-filter", Input)
        if event.is_printable and event.character and self.focused is not filter_input:
            filter_input.focus()
            filter_input.insert_text_at_cursor(event.character)
            event.stop()

    def _show_detail(self) -> None:
        entry = self.query_one(HistoryTable).current_entry()
        detail = self.query_one("#history-detail", Static)
        if entry is None:
            detail.update("")
        elif entry.error:
            detail.update(Text(f"✖ {entry.error}", style="bold"))
        else:
            detail.update(Text(str(entry.path), style="dim"))

    def action_cursor(self, step: int) -> None:
        table = self.query_one(HistoryTable)
        if step < 0:
            table.action_cursor_up()
        else:
            table.action_cursor_down()

    def action_open(self) -> None:
        entry = self.query_one(HistoryTable).current_entry()
        if entry is None:
            return
        if entry.record is None:
            self.notify(entry.error or "This record cannot be read.", title="Cannot open", severity="error", markup=False)
            return
        self.app.push_screen(ResultsScreen(entry.record, entry.path, self.services))

    # -- marking runs to compare ------------------------------------------------------
    def _marked_records(self) -> list[RunRecord]:
        """The marked runs, oldest first (the baseline is what came before)."""
        by_path = {entry.path: entry.record for entry in self.query_one(HistoryTable).entries if entry.record}
        records = [by_path[path] for path in self.marked if path in by_path]
        return sorted(records, key=lambda record: record.started.timestamp() if record.started else 0.0)

    def _show_marks(self) -> None:
        """Prefix each marked run's date with its comparison label: ``[a] 26-11-21 12:03``."""
        table = self.query_one(HistoryTable)
        if not table.ordered_columns:
            return
        date_column = table.ordered_columns[0].key
        records = self._marked_records()
        labels = {record.path: label for record, label in zip(records, run_labels(len(records)))}
        for index, entry in enumerate(table.shown):
            date = entry.cells()[0]
            label = labels.get(entry.path)
            cell = Text(f"[{label}] {date}", style="bold") if label else Text(date)
            table.update_cell(str(index), date_column, cell, update_width=True)

    def action_mark(self) -> None:
        entry = self.query_one(HistoryTable).current_entry()
        if entry is None:
            return
        if entry.record is None:
            self.notify("A record that does not load cannot be compared.", severity="warning")
            return
        if entry.path in self.marked:
            self.marked.remove(entry.path)
        else:
            self.marked.append(entry.path)
        self._show_marks()
        self.action_cursor(1)

    def action_compare(self) -> None:
        records = self._marked_records()
        if not records:
            self.notify("Mark runs with tab (the oldest marked is the baseline), then press ctrl+o.",
                        severity="warning")
            return
        self.app.push_screen(CompareScreen(records, self.services))
