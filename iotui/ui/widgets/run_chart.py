"""IOPS per direction over the whole of a finished run, from the record's one-second samples.

The live sparklines show the last minute or so; the record keeps every second of
the run, and this chart draws all of it. The plot owns its plotext figure
(``self.plt``) and draws once; it never touches plotext's module-level state.
"""

from __future__ import annotations

import math

from textual_plotext import PlotextPlot

from iotui.core import format as fmt
from iotui.core.compare.samples import time_series
from iotui.core.records.record import RunRecord

_DIRECTION_COLORS = {"read": "cyan", "write": "magenta", "trim": "yellow"}


class RunChart(PlotextPlot):
    """IOPS of each direction against seconds since the run started."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.series = time_series(record, "iops")

    def on_mount(self) -> None:
        super().on_mount()
        plt = self.plt
        last_s = max((t for points in self.series.values() for t, _ in points), default=0.0)
        plt.title(f"IOPS over the whole run ({fmt.duration_s(last_s)}, one point per second)")
        plt.xlabel("seconds since fio started")
        top = max((v for points in self.series.values() for _, v in points), default=0.0)
        if top > 0:
            ticks = [top * step / 4 for step in range(5)]
            plt.ylim(0, top * 1.05)
            plt.yticks(ticks, [fmt.iops(tick) for tick in ticks])
        if last_s > 0:
            step_s = max(1, math.ceil(last_s / 5))
            seconds = [float(second) for second in range(0, math.ceil(last_s) + 1, step_s)]
            plt.xlim(0, max(last_s, seconds[-1]))
            plt.xticks(seconds, [f"{second:.0f} s" for second in seconds])
        for direction, points in self.series.items():
            plt.plot([t for t, _ in points], [v for _, v in points], label=direction,
                     color=_DIRECTION_COLORS.get(direction, "white"))
        self.refresh()
