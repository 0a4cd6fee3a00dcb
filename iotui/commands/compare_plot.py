"""``iotui compare --plot``: IOPS and p99 over time overlaid, and bars of the summaries.

Every chart is its own plotext figure object, built and turned into text in
one go; plotext's module-level figure is never touched, so one chart cannot
leak series or settings into the next (or into the app's plots).
"""

from __future__ import annotations

import math
import re
import shutil
import sys
from typing import Callable

from plotext._figure import _figure_class as Figure

from iotui.core import format as fmt
from iotui.core.compare.compare import Comparison
from iotui.core.compare.samples import time_series
from iotui.core.records.schema import DIRECTIONS

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _new_figure(title: str, width: int, height: int) -> Figure:
    figure = Figure()
    figure.plotsize(width, height)
    figure.theme("clear")
    figure.title(title)
    return figure


def _value_ticks(figure: Figure, top: float, formatter: Callable[[float | None], str]) -> None:
    """Five ticks from 0 to ``top`` on the value axis, labelled as iotui writes the figure (``40.7k``, ``1.20ms``)."""
    if top <= 0:
        return
    ticks = [top * step / 4 for step in range(5)]
    figure.ylim(0, top * 1.05)
    figure.yticks(ticks, [formatter(tick) for tick in ticks])


def _seconds_ticks(figure: Figure, last_s: float) -> None:
    """Five ticks on the time axis, labelled in seconds (``0 s``, ``15 s``)."""
    if last_s <= 0:
        return
    step_s = max(1, math.ceil(last_s / 4))
    ticks = list(range(0, math.ceil(last_s) + 1, step_s))
    figure.xlim(0, max(last_s, ticks[-1]))
    figure.xticks(ticks, [f"{tick} s" for tick in ticks])


def _finish(figure: Figure, colour: bool) -> str:
    text = figure.build()
    return text if colour else _ANSI.sub("", text)


def _over_time(comparison: Comparison, key_suffix: str, title: str, formatter: Callable[[float | None], str],
               width: int, height: int, colour: bool) -> str | None:
    figure = _new_figure(title, width, height)
    top = last_s = 0.0
    for label, record in zip(comparison.labels, comparison.records):
        for direction, points in time_series(record, key_suffix).items():
            figure.plot([t for t, _ in points], [v for _, v in points], label=f"{label} {direction}")
            top = max([top, *(v for _, v in points)])
            last_s = max([last_s, *(t for t, _ in points)])
    if not last_s:
        return None
    _value_ticks(figure, top, formatter)
    _seconds_ticks(figure, last_s)
    figure.xlabel("seconds since the run started")
    return _finish(figure, colour)


def _bars(comparison: Comparison, key: str, title: str, formatter: Callable[[float | None], str], width: int,
          height: int, colour: bool) -> str | None:
    names: list[str] = []
    values: list[float] = []
    for label, record in zip(comparison.labels, comparison.records):
        for direction in DIRECTIONS:
            figures = record.figures_of(direction)
            value = figures.figure(key) if figures is not None else None
            if value is not None:
                names.append(f"{label} {direction}")
                values.append(value)
    if not values:
        return None
    figure = _new_figure(title, width, height)
    figure.bar(names, values)
    _value_ticks(figure, max(values), formatter)
    return _finish(figure, colour)


def render_plots(comparison: Comparison, width: int | None = None, colour: bool | None = None) -> str:
    """All charts as text, one after another, and a note for what could not be drawn."""
    width = width or min(shutil.get_terminal_size((100, 30)).columns, 120)
    colour = sys.stdout.isatty() if colour is None else colour
    charts = [
        _over_time(comparison, "iops", "IOPS over time", fmt.iops, width, 18, colour),
        _over_time(comparison, "lat_p99_ns", "p99 completion latency over time", fmt.latency_ns, width, 18, colour),
        _bars(comparison, "iops", "IOPS (summary)", fmt.iops, width, 14, colour),
        _bars(comparison, "lat_p99_ns", "p99 completion latency (summary)", fmt.latency_ns, width, 14, colour),
    ]
    out = [chart for chart in charts if chart]
    if charts[0] is None:
        out.insert(0, "No interval samples to draw over time (imports and references have none).")
    return "\n\n".join(out) + "\n"
