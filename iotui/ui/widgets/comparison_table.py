"""The runs side by side, per direction: each run's value, then per later run the delta and the verdict.

At 80 columns the table drops the absolute delta columns first (the delta % and the verdict
stay); a table still wider than the screen (many runs) keeps its natural width and the compare
screen scrolls sideways (left/right). No verdict, number or word is ever cut.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual.events import Resize
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from iotui.core.compare.compare import BETTER, WORSE, Comparison
from iotui.ui.comparison import LEGEND, CompareRow, compare_rows

_VERDICT_STYLES = {BETTER: "green", WORSE: "bold red"}


def change_cell(text: str, verdict: str | None) -> Text:
    """``+50.0% better``, coloured by the verdict (the words carry it without colour)."""
    return Text(text, style=_VERDICT_STYLES.get(verdict or "", "dim" if verdict else ""))


def comparison_table(comparison: Comparison, *, deltas: bool = True) -> Table:
    """Group titles as rows of their own; one value column per run, then (Δ and) "vs a" per later run."""
    labels = comparison.labels
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="bold", show_edge=False)
    table.add_column("", no_wrap=True)
    for label in labels:
        table.add_column(label, justify="right", no_wrap=True)
    for label in labels[1:]:
        if deltas:
            table.add_column(f"Δ {label}" if len(labels) > 2 else "Δ", justify="right", no_wrap=True)
        table.add_column(f"{label} vs {labels[0]}", justify="left", no_wrap=True)
    group = None
    rows: list[CompareRow] = compare_rows(comparison)
    for row in rows:
        if row.group != group:
            group = row.group
            table.add_row(Text(group, style="bold underline"))
        cells: list[Text | str] = [f" {row.label}", *row.values]
        for delta, change, verdict in zip(row.deltas, row.changes, row.verdicts):
            cells += [delta, change_cell(change, verdict)] if deltas else [change_cell(change, verdict)]
        table.add_row(*cells)
    if not rows:
        table.add_row(Text("These runs have no figures to compare.", style="italic"))
    return table


def natural_width(table: Table, console: Console) -> int:
    """The columns a table needs without squeezing a cell."""
    return Measurement.get(console, console.options.update(width=10_000), table).maximum


def fitting_table(comparison: Comparison, width: int, console: Console) -> tuple[Table, int]:
    """The fullest table that fits ``width`` (deltas dropped first), and the width it needs."""
    table = comparison_table(comparison)
    needed = natural_width(table, console)
    if needed > width and len(comparison.labels) > 1:
        table = comparison_table(comparison, deltas=False)
        needed = natural_width(table, console)
    return table, needed


def available_width(widget: Widget) -> int:
    """The columns the widget's container shows (the screen's width before the first layout)."""
    parent = widget.parent
    width = parent.scrollable_content_region.width if isinstance(parent, Widget) else 0  # less its scrollbar
    return width or widget.app.size.width


class ComparisonTable(Static):
    """Redrawn whenever the screen's comparison changes (a reference added, a run dropped) or the width does."""

    comparison: reactive[Comparison | None] = reactive(None, always_update=True)
    deltas_shown: bool = True
    """Whether the absolute delta columns fit beside the verdicts."""

    def watch_comparison(self, comparison: Comparison | None) -> None:
        self._draw()

    def on_resize(self, event: Resize) -> None:
        self._draw()

    def _available(self) -> int:
        return available_width(self)

    def _draw(self) -> None:
        if self.comparison is None:
            self.update("")
            return
        available = self._available()
        table, needed = fitting_table(self.comparison, available, self.app.console)
        self.deltas_shown = any(column.header.startswith("Δ") for column in table.columns if isinstance(column.header, str))
        # Wider than the screen: keep every cell whole and let the screen scroll sideways.
        self.styles.width = max(needed, available) if needed > available else "auto"
        self.update(Group(table, Text(LEGEND, style="dim")))
