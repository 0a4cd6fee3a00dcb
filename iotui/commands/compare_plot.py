"""``iotui compare --plot``: IOPS and p99 over time overlaid, and bars of the summaries.

Every chart is its own plotext figure object, built and turned into text in
one go; plotext's module-level figure is never touched, so one chart cannot
leak series or settings into the next (or into the app's plots).
"""

from __future__ import annotations

import re
import shutil
import sys

from plotext._figure import _figure_class as Figure

from iotui.core.runs.compare import Comparison, time_series
from iotui.core.runs.record import DIRECTIONS

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _new_figure(title: str, width: int, height: int) -> Figure:
    figure = Figure()
    figure.plotsize(width, height)
    figure.theme("clear")
    figure.title(title)
    return figure


def _finish(figure: Figure, colour: bool) -> str:
    text = figure.build()
    return text if colour else _ANSI.sub("", text)


def _over_time(comparison: Comparison, key_suffix: str, title: str, scale: float, unit: str,
               width: int, height: int, colour: bool) -> str | None:
    figure = _new_figure(title, width, height)
    drawn = False
    for label, record in zip(comparison.labels, comparison.records):
        for direction, points in time_series(record, key_suffix).items():
            figure.plot([t for t, _ in points], [v / scale for _, v in points], label=f"{label} {direction}")
            drawn = True
    if not drawn:
        return None
    figure.xlabel("seconds")
    figure.ylabel(unit)
    return _finish(figure, colour)


def _bars(comparison: Comparison, key: str, title: str, scale: float, width: int, height: int,
          colour: bool) -> str | None:
    names: list[str] = []
    values: list[float] = []
    for label, record in zip(comparison.labels, comparison.records):
        for direction in DIRECTIONS:
            value = record.summary.get(direction, {}).get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                names.append(f"{label} {direction}")
                values.append(float(value) / scale)
    if not values:
        return None
    figure = _new_figure(title, width, height)
    figure.bar(names, values)
    return _finish(figure, colour)


def render_plots(comparison: Comparison, width: int | None = None, colour: bool | None = None) -> str:
    """All charts as text, one after another, and a note for what could not be drawn."""
    width = width or min(shutil.get_terminal_size((100, 30)).columns, 120)
    colour = sys.stdout.isatty() if colour is None else colour
    charts = [
        _over_time(comparison, "iops", "IOPS over time", 1.0, "IOPS", width, 18, colour),
        _over_time(comparison, "lat_p99_ns", "p99 completion latency over time", 1000.0, "µs", width, 18, colour),
        _bars(comparison, "iops", "IOPS (summary)", 1.0, width, 14, colour),
        _bars(comparison, "lat_p99_ns", "p99 completion latency (summary, µs)", 1000.0, width, 14, colour),
    ]
    out = [chart for chart in charts if chart]
    if charts[0] is None:
        out.insert(0, "No interval samples to draw over time (imports and references have none).")
    return "\n\n".join(out) + "\n"
