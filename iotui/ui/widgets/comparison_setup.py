"""Which runs are compared, and what differs in their set-up (so apples meet apples)."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.events import Resize
from textual.reactive import reactive
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.compare.compare import Comparison
from iotui.ui.comparison import run_lines, wrap_at_separators
from iotui.ui.widgets.comparison_table import available_width, natural_width


def runs_table(comparison: Comparison) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for label, text in run_lines(comparison):
        table.add_row(label, text)
    return table


def setup_table(comparison: Comparison, width: int | None = None, console: Console | None = None) -> Table | Text:
    """One row per set-up key whose values differ (fio version, kernel, filesystem, options...).

    Side by side when every value fits ``width`` whole; else one key after another with each
    distinct value on its own line and the runs that have it (``b, c``), long values wrapped
    after a ``-``, ``.``, ``,`` or ``/`` so that no word (a kernel name) is broken."""
    if not comparison.setup:
        return Text("Same set-up: fio version, host, kernel, filesystem, mount options, device and fio options all match.",
                    style="dim")
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="bold", show_edge=False)
    table.add_column("", no_wrap=True, style="dim")
    for label in comparison.labels:
        table.add_column(label, no_wrap=True)
    for key, values in comparison.setup:
        table.add_row(key, *(setup_value(key, value) for value in values))
    if width is None or console is None or natural_width(table, console) <= width:
        return table
    return stacked_setup(comparison, width)


def stacked_setup(comparison: Comparison, width: int) -> Text:
    """Each differing key, then its distinct values with the runs that have them."""
    text = Text()
    for key, values in comparison.setup:
        text.append(f"{key}\n", style="dim")
        groups: dict[str, list[str]] = {}
        for label, value in zip(comparison.labels, values):
            groups.setdefault(setup_value(key, value), []).append(label)
        runs_width = max(len(", ".join(labels)) for labels in groups.values())
        for shown, labels in groups.items():
            lines = wrap_at_separators(shown, max(10, width - runs_width - 4))
            text.append(f"  {', '.join(labels):<{runs_width}}", style="bold")
            text.append("  " + f"\n  {'':<{runs_width}}  ".join(lines) + "\n")
    text.rstrip()
    return text


def setup_value(key: str, value: str | None) -> str:
    """A set-up value as shown: sizes in binary units, a missing one as a dash."""
    if value is None:
        return fmt.NO_VALUE
    # ASCII digits only, and no more than a 64-bit count holds: '²' is a digit to isdigit() and
    # not to int(), and int() refuses thousands of digits; such a value is shown as written.
    if key.endswith("_bytes") and value.isascii() and value.isdigit() and len(value) <= 20:
        return fmt.size_bytes(int(value))
    return value


class ComparisonSetup(Static):
    """The runs (a, b, ...) and their set-up differences."""

    comparison: reactive[Comparison | None] = reactive(None, always_update=True)

    def watch_comparison(self, comparison: Comparison | None) -> None:
        self._draw()

    def on_resize(self, event: Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        comparison = self.comparison
        if comparison is None:
            self.update("")
            return
        parts: list[RenderableType] = [runs_table(comparison), Text("")]
        if comparison.setup:
            parts.append(Text("Set-up differences (check them before trusting a delta):", style="bold"))
        parts.append(setup_table(comparison, available_width(self), self.app.console))
        self.update(Group(*parts))
