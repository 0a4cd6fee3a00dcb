"""The big live figures: per direction IOPS, bandwidth, mean and p99 latency, and the clock."""

from __future__ import annotations

import asyncio
import re
from functools import lru_cache

from rich.cells import cell_len
from rich.console import Console, Group
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.renderables.digits import Digits
from textual.strip import Strip
from textual.widget import Widget

from iotui.core import format as fmt
from iotui.core.fio.intervals import DirectionInterval, IntervalSample

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


def _figure_values(figures: DirectionInterval) -> tuple[str, str, str, str]:
    return (
        fmt.iops(figures.iops),
        fmt.bytes_per_s(figures.bw_bytes),
        fmt.latency_ns(figures.lat_mean_ns),
        fmt.latency_ns(figures.lat_percentiles_ns.get("p99")),
    )


# A direction and its four formatted figures.
FigureRow = tuple[str, tuple[str, str, str, str]]

# One direction's figures each at the widest its format gives ("100.0M", "10.0GiB/s", "10.00µs",
# "100.0ms"): the room the figures need whatever the run does, kept from the chip beside them.
WIDEST_ROW: FigureRow = ("write", ("100.0M", "10.0GiB/s", "100.0ms", "100.0ms"))


def _figure_rows(interval: IntervalSample) -> list[FigureRow]:
    return [(direction, _figure_values(figures)) for direction, figures in interval.directions.items()]


def figures_lines(interval: IntervalSample) -> Text:
    """The figures as aligned lines of text: the one-line-per-direction table, laid out by hand.

    Drawn every second during a run: a Rich table measures and renders every cell
    through its layout engine, several times the cost of these few padded strings.
    """
    return _figure_rows_text(_figure_rows(interval))


def _figure_rows_text(rows: list[FigureRow]) -> Text:
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
    return _big_table(_figure_rows(interval))


def _big_table(rows: list[FigureRow]) -> Table:
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, expand=False, header_style="dim")
    table.add_column("")
    for name in FIGURE_HEADERS:
        table.add_column(name, justify="right")
    for direction, values in rows:
        table.add_row(Text("\n" + direction, style="bold"), *(big_value(value) for value in values))
    return table


def widest_figures_columns(console: Console, big: bool) -> int:
    """The columns the figures take at their widest (``big``: with 3-line digits)."""
    if not big:
        return max(cell_len(line) for line in _figure_rows_text([WIDEST_ROW]).plain.splitlines())
    return Measurement.get(console, console.options, _big_table([WIDEST_ROW])).maximum


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

    # Set every second: each of these repaints only the lines it changed (see _repaint_changed).
    interval: reactive[IntervalSample | None] = reactive(None, always_update=True, repaint=False)
    elapsed_s: reactive[float | None] = reactive(None, repaint=False)
    estimated_s: reactive[float | None] = reactive(None, repaint=False)
    phase: reactive[str] = reactive("starting", layout=True)
    steady: reactive[str] = reactive("", repaint=False)
    """The current section's steady-state judgement ("steady after 8 s"); empty when none."""
    section: reactive[str] = reactive("", repaint=False)
    """Which section runs, of how many, and its time left ("3/8 SEQ1M Q1T1 read · 4 s left"); empty for one."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines_key: tuple | None = None
        self._lines: list[Text] = []
        # How many lines the panel had when last laid out: more lay it out again.
        self._laid_out_lines: int | None = None
        # (width, lines): the most lines needed at that width since the run began. The panel
        # keeps that height while the run goes on: a section of one direction after one of
        # two, or a clock that no longer wraps, leaves a blank line instead of moving every
        # panel below it up (a new layout and a redraw of the whole screen each time).
        self._tallest = (0, 0)
        # What each line showed when last drawn, to repaint only the lines that changed.
        self._drawn: dict[int, Text] = {}
        self._repaint_pending = False
        self._styles_for: str | None = None
        self._base_style = Style()

    def watch_phase(self, phase: str) -> None:
        self.set_class(phase == "paused", "-paused")

    def watch_interval(self, old: IntervalSample | None, new: IntervalSample | None) -> None:
        if new is None and old is not None:
            # A new run (a sweep's next point): the panel may shrink back to its first lines.
            self._tallest = (0, 0)
            self.refresh(layout=True)
        elif self._big():
            # The tall digits' height follows the directions shown.
            old_directions = list(old.directions) if old is not None else []
            new_directions = list(new.directions) if new is not None else []
            if old_directions != new_directions:
                self.refresh(layout=True)
        self._repaint_changed()

    def watch_elapsed_s(self) -> None:
        self._repaint_changed()

    def watch_estimated_s(self) -> None:
        self._repaint_changed()

    def watch_steady(self) -> None:
        self._repaint_changed()

    def watch_section(self) -> None:
        self._repaint_changed()

    def _repaint_changed(self) -> None:
        """Repaint the lines whose text changed, once for the values set together.

        A new interval sets the figures, the clock and the steady judgement one after
        the other; the lines are worked out once all three are set. The header and a
        figure that kept its value are not drawn again; only when the lines need more
        height than the panel has (the clock wraps, a second direction) is it laid out
        again, which redraws the whole screen.
        """
        if self._repaint_pending or not self.is_mounted:
            return
        self._repaint_pending = True
        # asyncio's call_soon, not a Textual message to the panel: runs once the values
        # being set together are all set, before the next frame.
        asyncio.get_running_loop().call_soon(self._repaint_changed_lines)

    def _repaint_changed_lines(self) -> None:
        self._repaint_pending = False
        if not self.is_mounted:
            return
        if self._big():
            self.refresh()
            return
        width = self.size.width
        lines = self._small_lines(width)
        if self._laid_out_lines is not None and self._small_height(width) > self._laid_out_lines:
            self.refresh(layout=True)  # repaints the whole panel as well
            return
        # A line past the text (the panel kept a taller height) is blanked once.
        changed = [
            Region(0, y, width, 1)
            for y in range(max(len(lines), self._laid_out_lines or 0))
            if (self._drawn.get(y) != lines[y] if y < len(lines) else y in self._drawn)
        ]
        if changed:
            self.refresh(*changed)

    def notify_style_update(self) -> None:
        # The panel's or an ancestor's styles changed (theme, the paused class): look them up again.
        self._styles_for = None
        super().notify_style_update()

    def _panel_style(self) -> Style:
        """The panel's own style, looked up once per style change (``rich_style`` walks every ancestor)."""
        if self._styles_for != self.app.theme:
            self._base_style = self.rich_style
            self._styles_for = self.app.theme
        return self._base_style

    def _big(self) -> bool:
        return self.app.size.height >= BIG_FIGURES_MIN_HEIGHT

    def widest_columns(self) -> int:
        """The columns the panel needs for its figures at their widest, as drawn now (small or big).

        Asked on a resize only: worked out each time rather than kept."""
        return widest_figures_columns(self.app.console, self._big()) + self.styles.gutter.width

    def _clock(self) -> Text:
        clock = clock_text(self.elapsed_s, self.estimated_s, self.phase)
        if self.steady:
            clock.append(f" · {self.steady}", style="italic")
        return clock

    def _small_lines(self, width: int) -> list[Text]:
        """The section, the clock (each wrapped at its " · ") and the figures' lines, for ``width`` columns."""
        key = (self.interval, self.elapsed_s, self.estimated_s, self.phase, self.steady, self.section, width)
        if key != self._lines_key:
            figures = figures_table(self.interval, big=False)
            assert isinstance(figures, Text)
            section = wrap_at_separators(Text(self.section, style="bold"), width) if self.section else []
            self._lines = section + wrap_at_separators(self._clock(), width) + list(figures.split("\n", allow_blank=True))
            self._lines_key = key
        return self._lines

    def _small_height(self, width: int) -> int:
        """The panel's height at ``width``: its lines now, or more if it needed more since the run began."""
        tallest_width, tallest = self._tallest
        if tallest_width != width:
            tallest = 0  # another width wraps the clock anew
        self._tallest = (width, max(len(self._small_lines(width)), tallest))
        return self._tallest[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._big():
            return super().get_content_height(container, viewport, width)
        self._laid_out_lines = self._small_height(width)
        return self._laid_out_lines

    def render_line(self, y: int) -> Strip:
        # Drawn every second: the lines are laid out here from their spans (Textual's line
        # API), not through a Content's wrap and render of the whole panel each frame.
        if self._big():
            return super().render_line(y)
        width = self.size.width
        lines = self._small_lines(width)
        base = self._panel_style()
        if y >= len(lines):
            self._drawn.pop(y, None)
            return Strip.blank(width, base)
        self._drawn[y] = lines[y]
        return Strip(text_segments(lines[y], base)).crop_extend(0, width, base)

    def render(self) -> Group | Text:
        # The tall terminal's 3-line digits (Rich's grid); the small figures use render_line.
        section = [Text(self.section, style="bold")] if self.section else []
        return Group(*section, self._clock(), figures_table(self.interval, big=True))


_SEPARATOR = " · "


def wrap_at_separators(text: Text, width: int) -> list[Text]:
    """``text`` cut into lines of at most ``width`` cells at its " · " (a part longer than
    the width keeps a line of its own and is cropped when drawn)."""
    plain = text.plain
    if width <= 0 or cell_len(plain) <= width:
        return [text]
    cuts: list[int] = []
    line_start = 0
    last_break: int | None = None
    position = plain.find(_SEPARATOR)
    while position >= 0:
        after = position + len(_SEPARATOR)
        if cell_len(plain[line_start:position]) > width and last_break is not None and last_break > line_start:
            cuts.append(last_break)
            line_start = last_break
        last_break = after
        position = plain.find(_SEPARATOR, after)
    if cell_len(plain[line_start:]) > width and last_break is not None and last_break > line_start:
        cuts.append(last_break)
    if not cuts:
        return [text]
    lines = list(text.divide(cuts))
    for line in lines[:-1]:
        line.rstrip()  # each line but the last ends with the separator: it goes
        if line.plain.endswith("·"):
            line.right_crop(1)
            line.rstrip()
    return lines


@lru_cache(maxsize=64)
def _parsed(style: str) -> Style:
    return Style.parse(style)


def text_segments(line: Text, base: Style) -> list[Segment]:
    """One line of Text as segments on ``base`` (its spans do not overlap: built by append)."""
    plain = line.plain
    line_style = base + (_parsed(line.style) if isinstance(line.style, str) else line.style)
    segments: list[Segment] = []
    position = 0
    for span in sorted(line.spans, key=lambda span: span.start):
        if span.start > position:
            segments.append(Segment(plain[position : span.start], line_style))
        style = _parsed(span.style) if isinstance(span.style, str) else span.style
        segments.append(Segment(plain[span.start : span.end], line_style + style))
        position = max(position, span.end)
    if position < len(plain):
        segments.append(Segment(plain[position:], line_style))
    return segments
