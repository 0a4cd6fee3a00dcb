"""History: saved runs newest first; type to filter, enter to open, bad files listed with their error."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Key
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

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
    ]
    AUTO_FOCUS = "#history-filter"

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self.sub_title = f"saved runs in {services.runs_dir}"

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
        self._show_detail()
        if not entries:
            self.query_one("#history-detail", Static).update(
                Text(f"No saved runs in {self.services.runs_dir} yet.", style="italic")
            )

    @on(Input.Changed, "#history-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(HistoryTable).show(event.value)
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
