"""A plotext chart of IOPS per direction over up to the last two minutes (tall terminals only).

The plot owns its plotext figure (``self.plt``) and redraws everything in
``replot()``; it never touches plotext's module-level state.
"""

from __future__ import annotations

from textual.reactive import reactive
from textual_plotext import PlotextPlot

from iotui.core import format as fmt
from iotui.ui.live import LiveSeries, span_text

PLOT_SPAN_S = 120
"""The chart's time axis at most: the last two minutes, one point per second."""

_DIRECTION_COLORS = {"read": "cyan", "write": "magenta", "trim": "yellow"}


class ThroughputPlot(PlotextPlot):
    """IOPS of each direction against seconds before now."""

    revision: reactive[int] = reactive(0, repaint=False)  # replot() repaints, and only when shown

    def __init__(self, live: LiveSeries, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.live = live

    def on_mount(self) -> None:
        super().on_mount()
        self.replot()

    def on_show(self) -> None:
        # Hidden on short terminals, it skips the revisions that came meanwhile: catch up when shown.
        self.replot()

    def watch_revision(self, _revision: int) -> None:
        if self.display and self.is_mounted:
            self.replot()

    def replot(self) -> None:
        """Clear the figure and draw every direction's IOPS from the rings."""
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        series = {direction: self.live.ring(f"{direction}_iops").last(PLOT_SPAN_S) for direction in self.live.directions}
        span = max((len(values) for values in series.values()), default=0)
        # The title says what the axis spans: a 5 s old run is not "the last 2 minutes".
        plt.title(f"IOPS, {span_text(span)}" if span else "IOPS: waiting for fio's first report")
        plt.xlabel("seconds ago")
        top = max((v for values in series.values() for v in values if v is not None), default=0.0)
        if top > 0:
            ticks = [top * step / 4 for step in range(5)]
            plt.ylim(0, top * 1.05)
            plt.yticks(ticks, [fmt.iops(tick) for tick in ticks])
        for direction, values in series.items():
            points = [(index - len(values) + 1, value) for index, value in enumerate(values) if value is not None]
            if points:
                xs, ys = zip(*points)
                plt.plot(list(xs), list(ys), label=direction, color=_DIRECTION_COLORS.get(direction, "white"))
        self.refresh()
