"""The big live figures: per direction IOPS, bandwidth, mean and p99 latency, and the clock."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.content import Content
from textual.reactive import reactive
from textual.renderables.digits import Digits
from textual.widget import Widget

from iotui.core import format as fmt
from iotui.core.fio.intervals import IntervalSample

PHASE_WORDS = {
    "starting": "starting: measuring the machine at rest before fio starts",
    "running": "running",
    "paused": "PAUSED (p resumes)",
    "stopping": "stopping: waiting for fio's final report",
    "finished": "finished",
}


# From this terminal height up, the figures are drawn three lines tall.
BIG_FIGURES_MIN_HEIGHT = 36
_NUMBER_AND_UNIT = re.compile(r"^([-+]?[\d.,]+)(.*)$")


def big_value(text: str) -> Table | Text:
    """A formatted figure with its number three lines tall and its unit on the baseline."""
    match = _NUMBER_AND_UNIT.match(text)
    if match is None:
        return Text("\n\n" + text)
    number, unit = match.groups()
    grid = Table.grid(padding=0)
    grid.add_row(Digits(number, "bold"), Text("\n\n" + unit))
    return grid


FIGURE_HEADERS = ("IOPS", "bandwidth", "lat mean", "lat p99")
# Two spaces after every column, as the table was drawn before (Rich's padding (0, 2, 0, 0)).
COLUMN_GAP = "  "


def _figure_values(figures: Any) -> tuple[str, str, str, str]:
    return (
        fmt.iops(figures.iops),
        fmt.bytes_per_s(figures.bw_bytes),
        fmt.latency_ns(figures.lat_mean_ns),
        fmt.latency_ns(figures.lat_percentiles_ns.get("p99")),
    )


def figures_lines(interval: IntervalSample) -> Text:
    """The figures as aligned lines of text: the one-line-per-direction table, laid out by hand.

    Drawn every second during a run: a Rich table measures and renders every cell
    through its layout engine, several times the cost of these few padded strings.
    """
    rows = [(direction, _figure_values(figures)) for direction, figures in interval.directions.items()]
    name_width = max(len(direction) for direction, _values in rows)
    widths = [max(len(header), *(len(values[i]) for _d, values in rows)) for i, header in enumerate(FIGURE_HEADERS)]
    text = Text()
    header = " " * name_width + COLUMN_GAP + "".join(
        header.rjust(width) + COLUMN_GAP for header, width in zip(FIGURE_HEADERS, widths)
    )
    text.append(header, style="dim")
    for direction, values in rows:
        text.append("\n")
        text.append(direction.ljust(name_width), style="bold")
        text.append(COLUMN_GAP)
        for index, (value, width) in enumerate(zip(values, widths)):
            text.append(value.rjust(width), style="bold" if index < 2 else "")
            text.append(COLUMN_GAP)
    return text


def figures_table(interval: IntervalSample | None, big: bool = False) -> Table | Text:
    """One row per direction that did I/O in the latest interval (``big``: 3-line digits)."""
    if interval is None or not interval.directions:
        return Text("waiting for fio's first status report…", style="italic")
    if not big:
        return figures_lines(interval)
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, expand=False, header_style="dim")
    table.add_column("")
    for name in FIGURE_HEADERS:
        table.add_column(name, justify="right")
    for direction, figures in interval.directions.items():
        table.add_row(Text("\n" + direction, style="bold"), *(big_value(value) for value in _figure_values(figures)))
    return table


def clock_text(elapsed_s: float | None, estimated_s: float | None, phase: str) -> Text:
    """``elapsed 12s · remaining 8s · running``."""
    parts = [f"elapsed {fmt.duration_s(elapsed_s) if elapsed_s is not None else '-'}"]
    if estimated_s is not None and elapsed_s is not None:
        parts.append(f"remaining {fmt.duration_s(max(0.0, estimated_s - elapsed_s))}")
    elif estimated_s is not None:
        parts.append(f"about {fmt.duration_s(estimated_s)}")
    text = Text(" · ".join(parts) + " · ")
    text.append(PHASE_WORDS.get(phase, phase), style="bold" if phase in ("paused", "stopping") else "")
    return text


class FiguresPanel(Widget):
    """Figures of the latest interval; updated once per status interval."""

    interval: reactive[IntervalSample | None] = reactive(None, always_update=True)
    elapsed_s: reactive[float | None] = reactive(None)
    estimated_s: reactive[float | None] = reactive(None)
    phase: reactive[str] = reactive("starting", layout=True)
    steady: reactive[str] = reactive("")
    """The current section's steady-state judgement ("steady after 8 s"); empty when none."""

    def watch_phase(self, phase: str) -> None:
        self.set_class(phase == "paused", "-paused")

    def watch_interval(self, old: IntervalSample | None, new: IntervalSample | None) -> None:
        # The height follows the directions shown; re-laying out the screen every second
        # would cost a full redraw, so only when they change.
        old_directions = list(old.directions) if old is not None else []
        new_directions = list(new.directions) if new is not None else []
        if old_directions != new_directions:
            self.refresh(layout=True)

    def render(self) -> Group | Content:
        big = self.app.size.height >= BIG_FIGURES_MIN_HEIGHT
        clock = clock_text(self.elapsed_s, self.estimated_s, self.phase)
        if self.steady:
            clock.append(f" · {self.steady}", style="italic")
        figures = figures_table(self.interval, big)
        if isinstance(figures, Text):
            # One Content for the whole panel, drawn by Textual itself each second (a Rich
            # Text or group goes through Rich's console on every frame).
            return Content.from_rich_text(Text("\n").join([clock, figures]))
        return Group(clock, figures)
