"""The live figures, laid out by hand each second, read exactly as Rich's table drew them."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from iotui.core import format as fmt
from iotui.core.fio.intervals import DirectionInterval, IntervalSample
from iotui.ui.widgets.figures_panel import figures_table


def _direction(iops: float, bw_bytes: float, mean_ns: float | None, p99_ns: int | None) -> DirectionInterval:
    percentiles = {} if p99_ns is None else {"p99": p99_ns}
    return DirectionInterval(int(iops), iops, bw_bytes, mean_ns, None, None, percentiles)


def _rich_table(interval: IntervalSample) -> Table:
    """The table as it was drawn with Rich (box-less, two spaces after each column)."""
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, expand=False, header_style="dim")
    table.add_column("")
    for name in ("IOPS", "bandwidth", "lat mean", "lat p99"):
        table.add_column(name, justify="right")
    for direction, figures in interval.directions.items():
        values = (fmt.iops(figures.iops), fmt.bytes_per_s(figures.bw_bytes), fmt.latency_ns(figures.lat_mean_ns),
                  fmt.latency_ns(figures.lat_percentiles_ns.get("p99")))
        table.add_row(Text(direction, style="bold"), *(Text(v, style="bold") for v in values[:2]), *values[2:])
    return table


def _lines(renderable: object) -> list[str]:
    console = Console(width=80, record=True, color_system=None, force_terminal=False)
    with console.capture() as capture:
        console.print(renderable)
    return [line.rstrip() for line in capture.get().splitlines()]


@pytest.mark.parametrize(
    "directions",
    [
        {"read": _direction(2000.0, 8_192_000.0, 480_000.0, 1_200_000)},
        {"read": _direction(123_456.0, 505_000_000.0, 61_000.0, 250_000),
         "write": _direction(52_900.5, 216_000_000.0, 1_450_000.0, 9_800_000)},
        {"trim": _direction(0.4, 1500.0, None, None)},
        {"read": _direction(9.0, 36_864.0, 2_000_000_000.0, 4_000_000_000),
         "write": _direction(1_000_000.0, 4_096_000_000.0, 900.0, 2_000)},
    ],
)
def test_the_lines_read_as_the_rich_table(directions) -> None:
    interval = IntervalSample(10.0, 1.0, directions)
    drawn = figures_table(interval, big=False)
    assert isinstance(drawn, Text)
    assert _lines(drawn) == _lines(_rich_table(interval))


def test_the_first_two_figures_are_bold_and_the_header_dim() -> None:
    interval = IntervalSample(10.0, 1.0, {"read": _direction(2000.0, 8_192_000.0, 480_000.0, 1_200_000)})
    drawn = figures_table(interval, big=False)
    assert isinstance(drawn, Text)
    line_two = drawn.plain.splitlines()[1]
    bold = [drawn.plain[span.start:span.end].strip() for span in drawn.spans if "bold" in str(span.style)]
    assert bold == ["read", fmt.iops(2000.0), fmt.bytes_per_s(8_192_000.0)]
    assert str(drawn.spans[0].style) == "dim" and fmt.latency_ns(480_000.0) in line_two


def test_the_clock_wraps_at_its_separators_and_nothing_is_lost() -> None:
    from rich.style import Style

    from iotui.ui.widgets.figures_panel import clock_text, text_segments, wrap_at_separators

    clock = clock_text(80.0, 210.0, "paused")
    clock.append(" · steady after 8 s", style="italic")
    parts = clock.plain.split(" · ")
    for width in (200, 60, 45, 30, 20, 5):
        lines = wrap_at_separators(clock, width)
        # Every line fits unless it is one part longer than the width; the parts are all there, in order.
        assert all(len(line.plain) <= width or line.plain in parts for line in lines)
        assert " · ".join(line.plain for line in lines) == clock.plain
        for line in lines:
            segments = text_segments(line, Style())
            assert "".join(segment.text for segment in segments) == line.plain
    paused = [segment for line in wrap_at_separators(clock, 20) for segment in text_segments(line, Style())
              if segment.text == "PAUSED (p resumes)"]
    assert paused and paused[0].style.bold
