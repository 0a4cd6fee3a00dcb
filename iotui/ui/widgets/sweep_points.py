"""The sweep's points in a table: values, status, throughput, p99 per direction, responsiveness; the picks marked."""

from __future__ import annotations

from typing import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.sweep.analysis import SweepAnalysis, throughput_metric
from iotui.core.sweep.output import responsive_cell
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.sections import split_sections
from iotui.core.sweep.values import SweepAxis

SWEET_SPOT_MARK = "★"
BALANCED_MARK = "◆"
_STATUS_STYLES = {"running": "bold", "failed": "bold red", "stopped": "yellow", "pending": "dim"}


def throughput_text(point: PointResult, metric: str) -> str:
    """Read + write IOPS (or bandwidth when the block size varies)."""
    value = point.throughput(metric)
    if not value:
        return fmt.NO_VALUE
    return fmt.bytes_per_s(value) if metric == "bw_bytes" else fmt.iops(value)


def marks(params: dict[str, str], analysis: SweepAnalysis | None) -> str:
    """``★ sweet spot``, ``◆ balanced`` or both, for the point with these values."""
    if analysis is None:
        return ""
    words = []
    if analysis.sweet_spot is not None and analysis.sweet_spot.params == params:
        words.append(f"{SWEET_SPOT_MARK} sweet spot")
    if analysis.balanced is not None and analysis.balanced.params == params:
        words.append(f"{BALANCED_MARK} balanced")
    return ", ".join(words)


def points_table(points: Sequence[PointResult], axes: Sequence[SweepAxis], analysis: SweepAnalysis | None) -> Table:
    metric = analysis.metric if analysis is not None else throughput_metric(axes)
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="bold", show_edge=False)
    table.add_column("#", justify="right", style="dim")
    for axis in axes:
        table.add_column(axis.key, no_wrap=True, max_width=24, overflow="ellipsis")
    table.add_column("status")
    table.add_column("bandwidth" if metric == "bw_bytes" else "IOPS", justify="right")
    table.add_column("read p99", justify="right")
    table.add_column("write p99", justify="right")
    table.add_column("responsive")
    table.add_column("")
    for number, point in enumerate(points, start=1):
        mark = marks(point.params, analysis)
        table.add_row(
            str(number),
            *(point.params.get(axis.key, "") for axis in axes),
            Text(point.status, style=_STATUS_STYLES.get(point.status, "")),
            throughput_text(point, metric),
            fmt.latency_ns(point.read_lat_p99_ns),
            fmt.latency_ns(point.write_lat_p99_ns),
            responsive_cell(point),
            Text(mark, style="bold"),
        )
    return table


def sections_table(points: Sequence[PointResult], axes: Sequence[SweepAxis], analysis: SweepAnalysis | None) -> RenderableType:
    """One table per section for a preset of several (each with its own marks); else the one table."""
    split = split_sections(points)
    if not split:
        return points_table(points, axes, analysis)
    found = analysis.sections if analysis is not None else []
    parts: list[RenderableType] = []
    for index, (name, section) in enumerate(split):
        mine = found[index].analysis if index < len(found) else None
        parts += [Text(f"Section {index + 1} of {len(split)}: {name}", style="bold"), points_table(section, axes, mine)]
    return Group(*parts)


class SweepPoints(Static):
    """Redrawn when a point starts or ends, and when the analysis arrives."""

    points: reactive[tuple[PointResult, ...]] = reactive((), always_update=True)
    axes: reactive[tuple[SweepAxis, ...]] = reactive(())
    analysis: reactive[SweepAnalysis | None] = reactive(None)

    def watch_points(self) -> None:
        self._redraw()

    def watch_analysis(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if not self.axes:
            self.update("")
            return
        self.update(sections_table(self.points, self.axes, self.analysis))
