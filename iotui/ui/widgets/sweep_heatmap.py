"""A sweep over two keys as a grid: rows the first key's values, columns the second's, cells throughput.

Each cell is coloured by its share of the best point (darker is slower) and
carries the number, so it reads without colour; the sweet spot and the
balanced point carry their marks.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from iotui.core.sweep.analysis import SweepAnalysis, throughput_metric
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.sections import split_sections
from iotui.core.sweep.values import SweepAxis, value_order
from iotui.ui.widgets.sweep_points import BALANCED_MARK, SWEET_SPOT_MARK, throughput_text

# From the slowest fifth to the fastest.
HEAT_STYLES = ("on #3b0f0f", "on #5a2d0c", "on #6b5b0b", "on #2f5d1c", "on #14703a")


def heat_style(value: float, best: float) -> str:
    if best <= 0 or value <= 0:
        return ""
    level = min(len(HEAT_STYLES) - 1, int(value / best * len(HEAT_STYLES) - 1e-9))
    return HEAT_STYLES[max(0, level)] + " bold"


def heatmap(points: tuple[PointResult, ...], axes: tuple[SweepAxis, ...], analysis: SweepAnalysis | None) -> Group:
    rows_axis, columns_axis = axes[0], axes[1]
    metric = analysis.metric if analysis is not None else throughput_metric(axes)
    by_values = {(p.params.get(rows_axis.key), p.params.get(columns_axis.key)): p for p in points}
    best = max((p.throughput(metric) for p in points), default=0.0)
    table = Table(box=None, padding=(0, 1), header_style="bold", show_edge=False)
    table.add_column(f"{rows_axis.key} \\ {columns_axis.key}", style="bold", no_wrap=True)
    columns = value_order(columns_axis.values)
    for value in columns:
        table.add_column(value, justify="right", no_wrap=True)
    for row_value in value_order(rows_axis.values):
        cells: list[Text | str] = [row_value]
        for column_value in columns:
            point = by_values.get((row_value, column_value))
            if point is None or point.status in ("pending", "running"):
                cells.append(Text("·" if point is None or point.status == "pending" else "…", style="dim"))
                continue
            if point.status == "failed":
                cells.append(Text("failed", style="bold red"))
                continue
            mark = ""
            if analysis is not None and analysis.sweet_spot is not None and analysis.sweet_spot.params == point.params:
                mark += SWEET_SPOT_MARK
            if analysis is not None and analysis.balanced is not None and analysis.balanced.params == point.params:
                mark += BALANCED_MARK
            text = throughput_text(point, metric)
            cells.append(Text(f"{mark}{text}", style=heat_style(point.throughput(metric), best)))
        table.add_row(*cells)
    name = "bandwidth" if metric == "bw_bytes" else "IOPS"
    legend = Text(f"{name} per point (brighter green = closer to the best); {SWEET_SPOT_MARK} sweet spot, "
                  f"{BALANCED_MARK} balanced", style="dim")
    return Group(table, legend)


class SweepHeatmap(Static):
    """For a sweep over two keys (the first two when there are more)."""

    points: reactive[tuple[PointResult, ...]] = reactive((), always_update=True)
    axes: reactive[tuple[SweepAxis, ...]] = reactive(())
    analysis: reactive[SweepAnalysis | None] = reactive(None)

    def watch_points(self) -> None:
        self._redraw()

    def watch_analysis(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if len(self.axes) < 2:
            self.update("")
            return
        split = split_sections(self.points)
        if not split:
            self.update(heatmap(self.points, self.axes, self.analysis))
            return
        # A preset of several sections: one grid per section, each with its own picks.
        found = self.analysis.sections if self.analysis is not None else []
        parts: list[Text | Group] = []
        for index, (name, points) in enumerate(split):
            mine = found[index].analysis if index < len(found) else None
            parts += [Text(f"Section {index + 1} of {len(split)}: {name}", style="bold"),
                      heatmap(tuple(points), self.axes, mine)]
        self.update(Group(*parts))
