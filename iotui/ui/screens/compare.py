"""Compare: the previous run of the same preset on the same target beside this one.

A plain side-by-side with deltas for now; the noise-aware comparison will
replace :func:`iotui.ui.comparison.comparison_rows` and keep this screen.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header

from iotui.core.record import RunRecord
from iotui.ui.comparison import comparison_rows
from iotui.ui.widgets.comparison_table import ComparisonTable


def _title(record: RunRecord, word: str) -> str:
    started = record.started
    return f"{word} {started.strftime('%m-%d %H:%M') if started else '?'}"


class CompareScreen(Screen):
    """Two records side by side."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("q", "app.quit", "Quit")]

    def __init__(self, previous: RunRecord, current: RunRecord) -> None:
        super().__init__()
        self.previous = previous
        self.current = current
        self.sub_title = f"compare: {current.preset} on {current.target.get('path')}"

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        with VerticalScroll(id="compare"):
            yield ComparisonTable(
                comparison_rows(self.previous, self.current),
                _title(self.previous, "previous"),
                _title(self.current, "this run"),
                id="comparison",
            )
        yield Footer()
