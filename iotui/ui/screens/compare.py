"""Compare: runs (and published references) side by side, judged against the first.

Opened from History (the marked runs) or from Results (the previous run of the
same preset on the same target). ``r`` adds a reference row, ``d`` drops the
last run, ``e`` copies the markdown table and writes it to a file.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static

from iotui.core.compare.compare import Comparison, compare_records
from iotui.core.compare.answers import never_settled, repeat_groups
from iotui.core.records.desktop_table import is_desktop_table
from iotui.ui.widgets.desktop_table import desktop_compare_table
from iotui.core.compare.render import comparison_markdown, method_note
from iotui.core.records.record import RunRecord
from iotui.ui.comparison import comparison_file_name, run_title
from iotui.ui.report_key import write_report_in_background
from iotui.ui.services import ServiceError, Services
from iotui.ui.widgets.comparison_plot import ComparisonPlot
from iotui.ui.widgets.comparison_setup import ComparisonSetup
from iotui.ui.widgets.comparison_table import ComparisonTable
from iotui.ui.widgets.reference_picker import ReferencePicker
from iotui.ui.widgets.key_bar import KeyBar
from iotui.ui.widgets.title_bar import TitleBar
from iotui.ui.styles import SCREENS_CSS


class CompareScreen(Screen):
    """Holds the records; the widgets get the comparison through ``data_bind``."""

    CSS_PATH = SCREENS_CSS

    BINDINGS = [
        Binding("e", "export", "Export"),
        Binding("x", "report", "HTML"),
        Binding("r", "pick_reference", "Reference"),
        Binding("d", "drop_last", "Drop last"),
        Binding("g", "toggle_plots", "Plots"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    AUTO_FOCUS = "#compare"

    comparison: var[Comparison | None] = var(None, always_update=True)

    def __init__(self, records: list[RunRecord], services: Services) -> None:
        super().__init__()
        self.records = list(records)
        self.services = services

    @property
    def previous(self) -> RunRecord:
        """The baseline (run a)."""
        return self.records[0]

    @property
    def current(self) -> RunRecord:
        """The last run compared."""
        return self.records[-1]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="compare"):
            yield ComparisonSetup(id="compare-setup").data_bind(comparison=CompareScreen.comparison)
            yield Static(id="compare-desktop")
            yield ComparisonTable(id="comparison").data_bind(comparison=CompareScreen.comparison)
            yield Static(id="compare-method")
            with Grid(id="compare-plots"):
                for kind, key, title in (
                    ("time", "iops", "IOPS over time"),
                    ("time", "lat_p99_ns", "p99 latency over time"),
                    ("bars", "iops", "IOPS (summary)"),
                    ("bars", "lat_p99_ns", "p99 latency (summary)"),
                ):
                    yield ComparisonPlot(kind, key, title, classes="compare-plot").data_bind(
                        comparison=CompareScreen.comparison
                    )
        picker = ReferencePicker(id="reference-picker")
        picker.border_title = "add a reference (enter adds, esc closes)"
        yield picker
        yield KeyBar()

    def on_mount(self) -> None:
        self._recompare()

    def _recompare(self) -> None:
        comparison = compare_records(self.records, self._repeats())
        self.comparison = comparison
        notes = [method_note(comparison), *never_settled(comparison.records, comparison.labels)]
        self.query_one("#compare-method", Static).update("\n".join(note for note in notes if note))
        desktop = [(label, record) for label, record in zip(comparison.labels, self.records) if is_desktop_table(record)]
        panel = self.query_one("#compare-desktop", Static)
        panel.display = len(desktop) >= 2
        if len(desktop) >= 2:
            (label_a, first), (label_b, second) = desktop[:2]
            panel.update(desktop_compare_table(first, second, (label_a, label_b)))
        count = len(self.records)
        self.sub_title = f"compare {count} run{'s' if count != 1 else ''}, a is the baseline"

    def _repeats(self) -> dict:
        """The --repeat groups of the compared runs, from the runs directory (none when it cannot be read)."""
        if not any(record.run.get("repeat_group") for record in self.records):
            return {}
        try:
            entries = self.services.list_records()
        except ServiceError:
            return {}
        return repeat_groups(self.records, [record for _, record, _ in entries if record is not None])

    # -- keys -----------------------------------------------------------------
    def action_export(self) -> None:
        """Copy the markdown table and write it next to the runs."""
        if self.comparison is None:
            return
        text = comparison_markdown(self.comparison)
        self.app.copy_to_clipboard(text)
        try:
            path = self.services.write_export(comparison_file_name(self.records), text)
        except ServiceError as error:
            self.notify(f"Copied the table to the clipboard, but {error}", severity="error", markup=False)
            return
        self.notify(f"Wrote the markdown table to {path} and copied it to the clipboard.", title="Exported",
                    markup=False)

    def action_report(self) -> None:
        """Write ``iotui report``'s page of these runs and their comparison beside the first record."""
        if self.comparison is None:
            return
        records, comparison = list(self.records), self.comparison
        write_report_in_background(self, lambda: self.services.write_report(records, comparison))

    def action_pick_reference(self) -> None:
        picker = self.query_one(ReferencePicker)
        if not picker.records:
            try:
                rows, errors = self.services.reference_rows()
            except Exception as error:  # noqa: BLE001 - UI boundary: broken shipped files are a sentence
                rows, errors = [], [f"The reference records could not be read: {error}"]
            for sentence in errors:
                self.notify(sentence, title="A reference was skipped", severity="warning", markup=False)
            if not rows:
                self.notify("There are no reference records to add.", severity="warning")
                return
            picker.set_records(rows)
        picker.display = True
        picker.focus()

    @on(ReferencePicker.Picked)
    def _reference_picked(self, event: ReferencePicker.Picked) -> None:
        self._close_picker()
        if any(record.id == event.record.id for record in self.records):
            self.notify("That reference is already in the comparison.", severity="warning")
            return
        self.records.append(event.record)
        self._recompare()

    def action_drop_last(self) -> None:
        if len(self.records) <= 1:
            self.notify("Only one run is left; escape goes back.", severity="warning")
            return
        dropped = self.records.pop()
        self._recompare()
        self.notify(f"Dropped {run_title(dropped)}.", markup=False)

    def action_toggle_plots(self) -> None:
        """Jump to the plots, or back to the top when already scrolled down."""
        scroll = self.query_one("#compare", VerticalScroll)
        if scroll.scroll_y > 0:
            scroll.scroll_home(animate=False)
        else:
            scroll.scroll_to_widget(self.query_one("#compare-plots"), animate=False, top=True)

    def _close_picker(self) -> None:
        picker = self.query_one(ReferencePicker)
        picker.display = False
        self.query_one("#compare").focus()

    def action_back(self) -> None:
        if self.query_one(ReferencePicker).display:
            self._close_picker()
            return
        self.app.pop_screen()
