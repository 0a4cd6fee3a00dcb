"""One chart of a comparison: a figure over time (runs overlaid) or the summaries as bars.

The plot owns its plotext figure (``self.plt``) and redraws everything in
``replot()``; plotext's module-level figure is never touched.
"""

from __future__ import annotations

from typing import Callable

from textual.reactive import reactive
from textual_plotext import PlotextPlot

from iotui.core import format as fmt
from iotui.core.compare.compare import Comparison
from iotui.core.compare.samples import time_series
from iotui.core.records.record import RunRecord
from iotui.core.records.schema import DIRECTIONS

# One colour per run (a, b, c ...), one marker per run too, so the runs part without colour (NO_COLOR);
# a run's write line takes the next colour over.
RUN_COLORS = ("cyan", "magenta", "yellow", "green", "red", "blue", "white")
RUN_MARKERS = ("braille", "dot", "x", "+", "o", "*")
FORMATTERS: dict[str, Callable[[float | None], str]] = {"iops": fmt.iops, "lat_p99_ns": fmt.latency_ns}


def _ticks(top: float, formatter: Callable[[float | None], str]) -> tuple[list[float], list[str]]:
    ticks = [top * step / 4 for step in range(5)]
    return ticks, [formatter(tick) for tick in ticks]


class ComparisonPlot(PlotextPlot):
    """``kind`` "time": ``<direction>_<key>`` of every run over seconds; "bars": the summaries' ``key``."""

    comparison: reactive[Comparison | None] = reactive(None, always_update=True)

    def __init__(self, kind: str, key: str, title: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.kind = kind
        self.key = key
        self.title = title

    def on_mount(self) -> None:
        super().on_mount()
        self.replot()

    def watch_comparison(self, _comparison: Comparison | None) -> None:
        if self.is_mounted:
            self.replot()

    def replot(self) -> None:
        """Clear the figure and draw the comparison's runs again."""
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        formatter = FORMATTERS.get(self.key, fmt.iops)
        drawn = self._draw_over_time(formatter) if self.kind == "time" else self._draw_bars(formatter)
        plt.title(self.title if drawn else f"{self.title}: no {'interval samples' if self.kind == 'time' else 'figures'} to draw")
        self.refresh()

    def _draw_over_time(self, formatter: Callable[[float | None], str]) -> bool:
        comparison = self.comparison
        if comparison is None:
            return False
        plt = self.plt
        top = 0.0
        for run_index, (label, record) in enumerate(zip(comparison.labels, comparison.records)):
            for direction, points in time_series(record, self.key).items():
                xs = [t for t, _ in points]
                ys = [value for _, value in points]
                top = max(top, max(ys, default=0.0))
                color = RUN_COLORS[(run_index + DIRECTIONS.index(direction) * 3) % len(RUN_COLORS)]
                plt.plot(xs, ys, label=f"{label} {direction}", color=color,
                         marker=RUN_MARKERS[run_index % len(RUN_MARKERS)])
        if top <= 0:
            return False
        ticks, labels = _ticks(top, formatter)
        plt.ylim(0, top * 1.05)
        plt.yticks(ticks, labels)
        plt.xlabel("seconds")
        return True

    def _draw_bars(self, formatter: Callable[[float | None], str]) -> bool:
        comparison = self.comparison
        if comparison is None:
            return False

        def figure(record: RunRecord, direction: str) -> float | None:
            figures = record.figures_of(direction)
            return figures.figure(self.key) if figures is not None else None

        directions = [d for d in DIRECTIONS if any(figure(r, d) is not None for r in comparison.records)]
        if not directions:
            return False
        values = [[figure(record, d) or 0.0 for d in directions] for record in comparison.records]
        top = max((value for row in values for value in row), default=0.0)
        if top <= 0:
            return False
        plt = self.plt
        colors = [RUN_COLORS[i % len(RUN_COLORS)] for i in range(len(values))]
        # plotext's multiple_bar takes labels= and one colour per series; textual-plotext's hints say otherwise.
        plt.multiple_bar(directions, values, labels=list(comparison.labels), color=colors)  # type: ignore[call-arg, arg-type]
        ticks, labels = _ticks(top, formatter)
        plt.ylim(0, top * 1.05)
        plt.yticks(ticks, labels)
        return True
