"""History: saved runs newest first; type to filter, enter to open, bad files listed with their error.

The list comes from the history index (core/records/history_index.py), brought
up to date from the TOML records in a thread when the screen opens: warm, that
is one directory scan; cold, every record is parsed once and the progress is
shown. Each keystroke in the filter is one query of the index.

Tab marks runs (the first marked is the baseline, "a"); ctrl+o compares the
marked runs. ctrl+n writes a note and ctrl+t tags into the run's record;
delete removes a run and f8 prunes runs by age and preset, each after asking.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Key
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from iotui.core.compare.compare import run_labels
from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record
from iotui.core.records.schema import RecordError
from iotui.ui.screens.compare import CompareScreen
from iotui.ui.screens.confirm import ConfirmScreen
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.screens.text_prompt import TextPromptScreen
from iotui.ui.services import ServiceError, Services
from iotui.ui.widgets.history_table import LEGEND, HistoryEntry, HistoryTable, filter_words
from iotui.ui.widgets.key_bar import KeyBar
from iotui.ui.widgets.title_bar import TitleBar
from iotui.ui.styles import SCREENS_CSS

if TYPE_CHECKING:
    from iotui.core.records.history_index import SyncResult

# Rows put in the table at once; the filter narrows the rest (the count says how many match).
SHOWN_LIMIT = 100


class HistoryScreen(Screen):
    """Typing always goes to the filter; the arrows move through the runs."""

    CSS_PATH = SCREENS_CSS

    BINDINGS = [
        Binding("enter", "open", "Open", priority=True),
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("escape", "app.pop_screen", "Back"),
        Binding("ctrl+r", "reload", "Reload", show=False),
        # Letters go to the filter, so the other keys are ones that type nothing (fzf marks with tab).
        Binding("tab", "mark", "Mark"),
        Binding("ctrl+o", "compare", "Compare"),
        Binding("ctrl+n", "note", "Note"),
        Binding("ctrl+t", "tags", "Tags"),
        Binding("delete", "delete", "Delete", priority=True),
        Binding("f8", "prune", "Prune"),
    ]
    AUTO_FOCUS = "#history-filter"

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self.sub_title = f"saved runs in {services.runs_dir}"
        self.marked: list[Path] = []
        self._mark_started: dict[Path, float] = {}
        self.indexed = False
        """Whether the list comes from the index (as it was, or brought up to date)."""
        self.synced = False
        """Whether the index has been brought up to date with the records since the screen opened."""
        self.matched = 0
        self.total = 0
        self.shown_count = 0
        """How many times the screen has been shown (the app keeps it between opens)."""
        self.refreshes = 0
        """How many times the list was read from the index (the bench waits for it)."""

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Input(placeholder="type to filter (preset, target, host, status, date, note, tag...)", id="history-filter", compact=True)
        yield HistoryTable(id="history")
        yield Static(id="history-empty")
        yield Static(Text(LEGEND), id="history-legend")
        yield Static(id="history-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        # What the index already holds is listed at once; the sync follows in a thread and
        # refreshes the list only when a record was added, changed or removed.
        if self.services.history_index_exists():
            self.indexed = True
            self._refresh()
            self._reload_after_paint()
        else:
            self.action_reload()  # nothing to list before the index is built: start at once

    def _reload_after_paint(self) -> None:
        """The sync's directory scan competes with painting for the interpreter: start it once
        the listed rows are on the screen."""
        self.synced = False
        self.call_after_refresh(self.action_reload)

    def on_screen_resume(self) -> None:
        """Opened again (the app keeps this screen) or back from Results or Compare: list what the
        index holds now, then bring it up to date in a thread as on the first open."""
        self.shown_count += 1
        if self.shown_count == 1:
            return  # the first time, on_mount lists
        if self.services.history_index_exists():
            self.indexed = True
            self._refresh()
        self._reload_after_paint()

    # -- the index ----------------------------------------------------------------------
    def action_reload(self) -> None:
        """Bring the index up to date in a thread (the screen paints first), then list."""
        self.synced = False
        if not self.indexed:
            self.query_one("#history-detail", Static).update(Text("Reading the history index...", style="italic"))
        self.run_worker(self._sync, thread=True, exclusive=True, group="history-index", exit_on_error=False)

    def _sync(self) -> None:
        began = time.monotonic()

        def progress(done: int, to_parse: int) -> None:
            self.app.call_from_thread(self._show_progress, done, to_parse, time.monotonic() - began)

        try:
            result = self.services.sync_history(progress)
        except ServiceError as error:
            self.app.call_from_thread(self._synced, None, str(error))
            return
        self.app.call_from_thread(self._synced, result, None)

    def _show_progress(self, done: int, to_parse: int, seconds: float) -> None:
        self.query_one("#history-detail", Static).update(
            Text(f"Indexing the runs directory: {done:,} of {to_parse:,} records ({seconds:.1f} s)...", style="italic")
        )

    def _synced(self, result: SyncResult | None, error: str | None) -> None:
        listed = self.indexed
        self.indexed = self.synced = True
        if error:
            self.notify(error, severity="error", markup=False)
        elif result is not None and result.cold:
            self.notify(f"Indexed {result.total:,} records in {result.seconds:.1f} s.", timeout=4)
        self.total = getattr(result, "total", 0) or 0
        if not listed or error or bool(getattr(result, "parsed", 0)) or bool(getattr(result, "removed", 0)):
            self._refresh()
        else:
            self._show_detail()

    def _refresh(self) -> None:
        """List what the filter matches, from the index."""
        self.refreshes += 1
        text = self.query_one("#history-filter", Input).value
        try:
            runs, self.matched = self.services.query_history(filter_words(text), SHOWN_LIMIT)
            if not self.synced:
                self.total = self.matched if not text.strip() else max(self.total, self.matched)
        except ServiceError as error:
            runs, self.matched = [], 0
            self.notify(str(error), severity="error", markup=False)
        self.query_one(HistoryTable).set_entries([HistoryEntry(run) for run in runs])
        self._show_marks()
        self._show_detail()

    def _resync(self) -> None:
        """After a change made here: the index follows the files at once (one scan, a few parses)."""
        try:
            result = self.services.sync_history()
            self.total = result.total
        except ServiceError as error:
            self.notify(str(error), severity="error", markup=False)
        self._refresh()

    @on(Input.Changed, "#history-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self.indexed:
            self._refresh()

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
        if not self.indexed:
            return
        table = self.query_one(HistoryTable)
        entry = table.current_entry()
        detail = self.query_one("#history-detail", Static)
        empty = self.query_one("#history-empty", Static)
        filter_text = self.query_one("#history-filter", Input).value.strip()
        nothing = self.total == 0 or self.matched == 0
        table.display = not nothing
        empty.display = nothing
        text = Text()
        if self.total == 0:
            empty.update(Text(f"No saved runs in {self.services.runs_dir} yet; a finished run appears here.", style="italic"))
            detail.update("")
            return
        if self.matched == 0:
            empty.update(Text(f"0 of {self.total:,} runs: no run matches {filter_text!r}. "
                              "Backspace widens the filter; escape goes back.", style="italic"))
            detail.update("")
            return
        if entry is not None and entry.error:
            text.append(f"✖ {entry.error}", style="bold")
        elif entry is not None:
            run = entry.run
            text.append(run.title or run.preset, style="bold")
            more = entry.detail()
            if more:
                text.append(f"  {more}")
            if run.tags:
                text.append("  " + " ".join(f"#{tag}" for tag in run.tags), style="italic")
            if run.notes:
                text.append(f"\n{run.notes}")
            text.append(f"\n{entry.path}", style="dim")
        if self.matched > len(table.shown):
            text.append(f"\n{len(table.shown):,} of {self.matched:,} runs shown (newest); type to narrow.", style="italic")
        detail.update(text)

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
            self._show_detail()
            return
        self.app.push_screen(ResultsScreen(entry.record, entry.path, self.services))

    # -- notes, tags, delete, prune -------------------------------------------------------
    def _current_run(self) -> HistoryEntry | None:
        entry = self.query_one(HistoryTable).current_entry()
        if entry is None:
            return None
        if entry.error:
            self.notify("This file is not a readable record; delete it or fix it by hand.", severity="warning")
            return None
        return entry

    def action_note(self) -> None:
        entry = self._current_run()
        if entry is None:
            return

        def save(text: str | None) -> None:
            if text is not None:
                self._annotate(entry.path, notes=text)

        self.app.push_screen(TextPromptScreen("Note on this run (kept in its record; empty removes it):", entry.run.notes), save)

    def action_tags(self) -> None:
        entry = self._current_run()
        if entry is None:
            return

        def save(text: str | None) -> None:
            if text is not None:
                self._annotate(entry.path, tags=text)

        self.app.push_screen(
            TextPromptScreen("Tags of this run, separated by spaces (kept in its record):", " ".join(entry.run.tags),
                             placeholder="nvme before-firmware"),
            save,
        )

    def _annotate(self, path: Path, **change: str) -> None:
        try:
            self.services.annotate_run(path, **change)
        except ServiceError as error:
            self.notify(str(error), title="Not saved", severity="error", markup=False)
            return
        self._resync()

    def action_delete(self) -> None:
        entry = self.query_one(HistoryTable).current_entry()
        if entry is None:
            return
        what = entry.path.name if entry.error else f"{entry.date()}  {entry.run.title or entry.run.preset}  on {entry.run.where()}"

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete([entry.path])

        self.app.push_screen(
            ConfirmScreen("Delete this run?", what, "Its record and fio's report are removed; this cannot be undone."),
            answered,
        )

    def action_prune(self) -> None:
        def chosen(text: str | None) -> None:
            if text:
                self._ask_prune(text)

        self.app.push_screen(
            TextPromptScreen("Prune: delete the runs older than an age and/or of one preset.", "",
                             placeholder="30d   or   quick   or   30d quick  (ages: s m h d w)"),
            chosen,
        )

    def _ask_prune(self, text: str) -> None:
        from iotui.core.records.edit import parse_age

        older_than_s: float | None = None
        preset: str | None = None
        for word in text.split():
            try:
                older_than_s = parse_age(word)
            except ValueError:
                preset = word
        conditions = {"older_than_s": older_than_s, "preset": preset}
        try:
            runs, matched = self.services.query_history("", None, **conditions)
        except ServiceError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        described = " and ".join(
            part for part in (f"older than {text.split()[0]}" if older_than_s is not None else "",
                              f"of preset {preset}" if preset else "") if part
        )
        if not runs:
            self.notify(f"No saved run is {described}; nothing to delete.", severity="warning", markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                # The index chose them; each is read again from its own record before it is deleted.
                self._delete([run.path for run in self.services.still_matching(runs, **conditions)])

        self.app.push_screen(
            ConfirmScreen(f"Delete {matched:,} run{'s' if matched != 1 else ''} {described}?",
                          "Their records and fio's reports are removed; this cannot be undone."),
            answered,
        )

    def _delete(self, paths: list[Path]) -> None:
        deleted = self.services.delete_runs(paths)
        self.marked = [path for path in self.marked if path not in paths]
        removed = sum(1 for path in paths if path in deleted.removed)
        if deleted.failed:
            path, why = deleted.failed[0]
            self.notify(f"Could not delete {path} ({why}); {removed} of {len(paths)} runs deleted.",
                        severity="error", markup=False)
        else:
            self.notify(f"Deleted {removed} run{'s' if removed != 1 else ''}.", timeout=4)
        self._resync()

    # -- marking runs to compare ------------------------------------------------------
    def _marked_records(self) -> list[RunRecord]:
        """The marked runs, oldest first (the baseline is what came before)."""
        records = []
        for path in self.marked:
            try:
                records.append(load_record(path))
            except RecordError:
                continue
        return sorted(records, key=lambda record: record.started.timestamp() if record.started else 0.0)

    def _show_marks(self) -> None:
        """Put each marked run's comparison label before its date: ``a 2026-11-21 12:03``."""
        labels = {path: label for path, label in zip(self._marked_order(self.marked), run_labels(len(self.marked)))}
        self.query_one(HistoryTable).show_marks(labels)

    def _marked_order(self, paths: list[Path]) -> list[Path]:
        """Marked paths oldest first, from their rows' start times (no record is parsed)."""
        return sorted(paths, key=lambda path: self._mark_started.get(path, 0.0))

    def action_mark(self) -> None:
        entry = self.query_one(HistoryTable).current_entry()
        if entry is None:
            return
        if entry.error:
            self.notify("A record that does not load cannot be compared.", severity="warning")
            return
        if entry.path in self.marked:
            self.marked.remove(entry.path)
        else:
            self.marked.append(entry.path)
            self._mark_started[entry.path] = entry.run.started.timestamp() if entry.run.started else 0.0
        self._show_marks()
        self.action_cursor(1)

    def action_compare(self) -> None:
        records = self._marked_records()
        if not records:
            self.notify("Mark runs with tab (the oldest marked is the baseline), then press ctrl+o.",
                        severity="warning")
            return
        self.app.push_screen(CompareScreen(records, self.services))
