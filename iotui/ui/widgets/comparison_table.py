"""Two runs side by side with the change between them."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from iotui.ui.comparison import ComparisonRow


def delta_text(row: ComparisonRow) -> Text:
    """``+12.3% better`` / ``-4.0% worse``: in words, so it reads without colour."""
    if row.delta_pct is None:
        return Text("-")
    text = f"{row.delta_pct:+.1f}%"
    if row.improved is None:
        return Text(text)
    return Text(f"{text} {'better' if row.improved else 'worse'}", style="bold" if not row.improved else "")


def comparison_table(rows: list[ComparisonRow], previous_title: str, current_title: str) -> Table:
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column("")
    table.add_column(previous_title, justify="right")
    table.add_column(current_title, justify="right")
    table.add_column("change", justify="right")
    for row in rows:
        table.add_row(row.label, row.previous, row.current, delta_text(row))
    return table


class ComparisonTable(Static):
    """Shows comparison rows."""

    def __init__(self, rows: list[ComparisonRow], previous_title: str, current_title: str, *, id: str | None = None) -> None:
        super().__init__(comparison_table(rows, previous_title, current_title), id=id)
