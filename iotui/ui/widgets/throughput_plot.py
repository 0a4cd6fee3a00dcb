"""A plotext chart of IOPS per direction over the last two minutes (tall terminals only).

The plot owns its plotext figure (``self.plt``) and redraws everything in
``replot()``; it never touches plotext's module-level state.
"""

from __future__ import annotations

from textual.reactive import reactive
from textual_plotext import PlotextPlot

from iotui.core import format as fmt
from iotui.ui.live import LiveSeries

_DIRECTION_COLORS = {"read": "cyan", "write": "magenta", "trim": "yellow"}


class ThroughputPlot(PlotextPlot):
    """IOPS of each direction against seconds before now."""

    revision: reactive[int] = reactive(0)

    def __init__(self, live: LiveSeries, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.live = live

    def on_mount(self) -> None:
        super().on_mount()
        self.replot()

    def watch_revision(self, _revision: int) -> None:
        if self.display and self.is_mounted:
            self.replot()

    def replot(self) -> None:
        """Clear the figure and draw every direction's IOPS from the rings."""
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("IOPS, last 2 minutes")
        plt.xlabel("seconds ago")
        top = max((self.live.ring(f"{d}_iops").max() or 0.0 for d in self.live.directions), default=0.0)
        if top > 0:
            ticks = [top * step / 4 for step in range(5)]
            plt.ylim(0, top * 1.05)
            plt.yticks(ticks, [fmt.iops(tick) for tick in ticks])
        for direction in self.live.directions:
            values = self.live.ring(f"{direction}_iops").values()
            points = [(index - len(values) + 1, value) for index, value in enumerate(values) if value is not None]
            if points:
                xs, ys = zip(*points)
                plt.plot(list(xs), list(ys), label=direction, color=_DIRECTION_COLORS.get(direction, "white"))
        self.refresh()
