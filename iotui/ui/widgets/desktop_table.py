"""The desktop benchmark table on Results: MiB/s and IOPS per test and direction, mean and p99 beside,
a bar per row scaled to the best row, and whether each row settled.

The table fits the width it is given, figures first: every MiB/s, IOPS, mean and p99 is shown
whole. What gives way, in this order (docs/app-at-80-columns.md): the bar
shrinks from 20 cells to 10; the steady column becomes a one-character mark with a legend under the
table; the bar shrinks further and goes below 4 cells; last, the labels abbreviate
(``SEQ1M Q8T1`` -> ``S1M Q8T1``, ``read`` -> ``r``, ``write`` -> ``w``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import JustifyMethod
from rich.table import Table
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.records.desktop_table import BAR_WIDTH, DesktopRow, bar, best_bw, desktop_rows
from iotui.core.records.record import RunRecord

# The cells between two columns (Rich's padding of one cell each side, no padding at the edges).
COLUMN_GAP = 2
BAR_SHRUNK_WIDTH = 10
BAR_MIN_WIDTH = 4
STEADY_MARKS = {"steady": "✓", "not steady": "✗", "too short": "?", "none": "·"}
STEADY_LEGEND = {"steady": "steady", "not steady": "not steady", "too short": "too short to judge", "none": "not judged"}


def steady_state(sentence: str | None) -> str:
    """The row's steady verdict as one of STEADY_MARKS' keys, from its sentence."""
    if not sentence:
        return "none"
    if sentence.startswith("not steady"):
        return "not steady"
    if sentence.startswith("steady"):
        return "steady"
    if "too short" in sentence:
        return "too short"
    return "none"


def steady_words(sentence: str | None) -> str:
    """The row's verdict in words: the sentence, but "too short to judge" alone (the seconds it had
    and the window it needed are on the Results screen's section list, and would push the bar out)."""
    return STEADY_LEGEND["too short"] if steady_state(sentence) == "too short" else sentence or ""


def abbreviated_test(label: str) -> str:
    """``SEQ1M Q8T1`` -> ``S1M Q8T1``, ``RND4K Q32T16`` -> ``R4K Q32T16``."""
    for long, short in (("SEQ", "S"), ("RND", "R")):
        if label.startswith(long):
            return short + label[len(long):]
    return label


@dataclass(frozen=True)
class DesktopLayout:
    """How the table is drawn at one width."""

    bar_width: int
    steady_words: bool
    abbreviated: bool


def _figure_cells(row: DesktopRow) -> tuple[str, str, str, str]:
    return (fmt.mib_per_s(row.bw_bytes), fmt.count(row.iops), fmt.latency_ns(row.lat_mean_ns),
            fmt.latency_ns(row.lat_p99_ns))


FIGURE_HEADERS = ("MiB/s", "IOPS", "mean", "p99")


def _widest(values: list[str]) -> int:
    return max((len(value) for value in values), default=0)


def table_width(rows: list[DesktopRow], layout: DesktopLayout) -> int:
    """The cells the table takes in ``layout``."""
    tests = [abbreviated_test(row.test) if layout.abbreviated else row.test for row in rows]
    directions = [row.direction[:1] if layout.abbreviated else row.direction for row in rows]
    widths = [_widest(["test", *tests]), _widest(directions)]
    figures = [_figure_cells(row) for row in rows]
    widths += [_widest([header, *(cells[index] for cells in figures)]) for index, header in enumerate(FIGURE_HEADERS)]
    if layout.bar_width:
        widths.append(layout.bar_width)
    widths.append(_widest([steady_words(row.steady) for row in rows]) if layout.steady_words else 1)
    return sum(widths) + COLUMN_GAP * (len(widths) - 1)


def choose_layout(rows: list[DesktopRow], width: int | None) -> DesktopLayout:
    """The first layout that fits ``width`` (None: the full one); the narrowest when none fits."""
    candidates = [
        DesktopLayout(BAR_WIDTH, True, False),
        DesktopLayout(BAR_SHRUNK_WIDTH, True, False),
    ]
    candidates += [DesktopLayout(bar_width, False, False) for bar_width in range(BAR_WIDTH, BAR_MIN_WIDTH - 1, -1)]
    candidates += [DesktopLayout(0, False, False), DesktopLayout(0, False, True)]
    if width is None:
        return candidates[0]
    for layout in candidates:
        if table_width(rows, layout) <= width:
            return layout
    return candidates[-1]


def desktop_table(record: RunRecord, width: int | None = None) -> Table:
    """The table laid out for ``width`` cells (None: the full table), with the marks' legend when shown."""
    rows = desktop_rows(record.sections)
    best = best_bw(rows)
    layout = choose_layout(rows, width)
    table = Table(box=None, pad_edge=False, expand=False)
    columns: list[tuple[str, JustifyMethod]] = [("test", "left"), ("", "left")]
    columns += [(header, "right") for header in FIGURE_HEADERS]
    if layout.bar_width:
        columns.append(("", "left"))
    columns.append(("", "left"))
    for header, justify in columns:
        table.add_column(header, justify=justify, no_wrap=True)
    previous_test = None
    marks_shown: list[str] = []
    for row in rows:
        test = abbreviated_test(row.test) if layout.abbreviated else row.test
        cells = [test if row.test != previous_test else "", row.direction[:1] if layout.abbreviated else row.direction]
        cells += _figure_cells(row)
        if layout.bar_width:
            colour = "cyan" if row.direction == "read" else "magenta"
            cells.append(f"[{colour}]{bar(row.bw_bytes, best, layout.bar_width)}[/]")
        if layout.steady_words:
            cells.append(f"[dim]{steady_words(row.steady)}[/]")
        else:
            state = steady_state(row.steady)
            if state not in marks_shown:
                marks_shown.append(state)
            cells.append(STEADY_MARKS[state])
        table.add_row(*cells)
        previous_test = row.test
    if layout.steady_words:
        return table
    table.caption = "  ".join(f"{STEADY_MARKS[state]} {STEADY_LEGEND[state]}" for state in STEADY_MARKS if state in marks_shown)
    table.caption_justify = "left"
    table.caption_style = "dim"
    return table


class DesktopTable(Static):
    """One record's desktop table (shown only for records whose sections are desktop tests), laid out
    anew for its width."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(desktop_table(record), id=id)
        self.record = record
        self._laid_out_for: int | None = None

    def on_resize(self) -> None:
        # Laid out after this refresh: a layout asked for within the resize itself keeps the old height.
        self.call_after_refresh(self._lay_out)

    def _lay_out(self) -> None:
        width = self.content_region.width
        if width and width != self._laid_out_for:
            self._laid_out_for = width
            self.content = desktop_table(self.record, width)


def desktop_compare_table(first: RunRecord, second: RunRecord, labels: tuple[str, str] = ("a", "b")) -> Table:
    """Two desktop runs side by side: MiB/s of each, the change, and each p99."""
    rows_a = {(row.test, row.direction): row for row in desktop_rows(first.sections)}
    rows_b = {(row.test, row.direction): row for row in desktop_rows(second.sections)}
    table = Table(box=None, pad_edge=False, expand=False, title="desktop table", title_justify="left")
    label_a, label_b = labels
    pair_columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("test", "left"), ("", "left"), (f"{label_a} MiB/s", "right"), (f"{label_b} MiB/s", "right"),
        ("change", "right"), (f"{label_a} p99", "right"), (f"{label_b} p99", "right"),
    )
    for header, justify in pair_columns:
        table.add_column(header, justify=justify, no_wrap=True)
    for key in list(rows_a) + [key for key in rows_b if key not in rows_a]:
        a, b = rows_a.get(key), rows_b.get(key)
        bw_a = a.bw_bytes if a else None
        bw_b = b.bw_bytes if b else None
        change = f"{100.0 * (bw_b - bw_a) / bw_a:+.1f}%" if bw_a and bw_b is not None else fmt.NO_VALUE
        table.add_row(
            key[0], key[1], fmt.mib_per_s(bw_a), fmt.mib_per_s(bw_b), change,
            fmt.latency_ns(a.lat_p99_ns if a else None), fmt.latency_ns(b.lat_p99_ns if b else None),
        )
    return table
