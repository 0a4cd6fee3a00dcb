"""The runs side by side, per direction: each run's value, then per later run the delta and the verdict."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from iotui.core.runs.compare import BETTER, Comparison, WORSE
from iotui.ui.comparison import CompareRow, compare_rows

_VERDICT_STYLES = {BETTER: "green", WORSE: "bold red"}


def change_cell(text: str, verdict: str | None) -> Text:
    """``+50.0% better``, coloured by the verdict (the words carry it without colour)."""
    return Text(text, style=_VERDICT_STYLES.get(verdict or "", "dim" if verdict else ""))


def comparison_table(comparison: Comparison) -> Table:
    """Group titles as rows of their own; one value column per run, then Δ and "vs a" per later run."""
    labels = comparison.labels
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="bold", show_edge=False)
    table.add_column("", no_wrap=True)
    for label in labels:
        table.add_column(label, justify="right", no_wrap=True)
    for label in labels[1:]:
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
            cells += [delta, change_cell(change, verdict)]
        table.add_row(*cells)
    if not rows:
        table.add_row(Text("These runs have no figures to compare.", style="italic"))
    return table


class ComparisonTable(Static):
    """Redrawn whenever the screen's comparison changes (a reference added, a run dropped)."""

    comparison: reactive[Comparison | None] = reactive(None, always_update=True)

    def watch_comparison(self, comparison: Comparison | None) -> None:
        self.update(comparison_table(comparison) if comparison is not None else "")
