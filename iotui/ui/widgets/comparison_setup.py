"""Which runs are compared, and what differs in their set-up (so apples meet apples)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.runs.compare import Comparison
from iotui.ui.comparison import run_lines


def runs_table(comparison: Comparison) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for label, text in run_lines(comparison):
        table.add_row(label, text)
    return table


def setup_table(comparison: Comparison) -> Table | Text:
    """One row per set-up key whose values differ (fio version, kernel, filesystem, options...)."""
    if not comparison.setup:
        return Text("Same set-up: fio version, host, kernel, filesystem, mount options, device and fio options all match.",
                    style="dim")
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="bold", show_edge=False)
    table.add_column("", no_wrap=True, style="dim")
    for label in comparison.labels:
        table.add_column(label, overflow="fold")
    for key, values in comparison.setup:
        table.add_row(key, *(setup_value(key, value) for value in values))
    return table


def setup_value(key: str, value: str | None) -> str:
    """A set-up value as shown: sizes in binary units, a missing one as a dash."""
    if value is None:
        return fmt.NO_VALUE
    if key.endswith("_bytes") and value.isdigit():
        return fmt.size_bytes(int(value))
    return value


class ComparisonSetup(Static):
    """The runs (a, b, ...) and their set-up differences."""

    comparison: reactive[Comparison | None] = reactive(None, always_update=True)

    def watch_comparison(self, comparison: Comparison | None) -> None:
        if comparison is None:
            self.update("")
            return
        parts: list[RenderableType] = [runs_table(comparison), Text("")]
        if comparison.setup:
            parts.append(Text("Set-up differences (check them before trusting a delta):", style="bold"))
        parts.append(setup_table(comparison))
        self.update(Group(*parts))
