"""Throughput and p99 latency against the varied key, one mark per finished point.

The plot owns its plotext figure (``self.plt``) and redraws everything in
``replot()``; it never touches plotext's module-level state. The sweet spot and
the balanced point (and the best point under a latency target, when the sweep
has one) are marked with vertical lines once the sweep is done.
"""

from __future__ import annotations

from typing import Callable

from textual.reactive import reactive
from textual_plotext import PlotextPlot

from iotui.core import format as fmt
from iotui.core.sweep.analysis import Choice, SweepAnalysis, throughput_metric
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.sections import split_sections
from iotui.core.sweep.slo import SloChoice
from iotui.core.sweep.values import SweepAxis, value_order


def _ticks(top: float, formatter: Callable[[float | None], str]) -> tuple[list[float], list[str]]:
    ticks = [top * step / 4 for step in range(5)]
    return ticks, [formatter(tick) for tick in ticks]


class SweepChart(PlotextPlot):
    """For a sweep over one key: total IOPS (left axis) and p99 (right axis) per value."""

    points: reactive[tuple[PointResult, ...]] = reactive((), always_update=True)
    axes: reactive[tuple[SweepAxis, ...]] = reactive(())
    analysis: reactive[SweepAnalysis | None] = reactive(None)

    def on_mount(self) -> None:
        super().on_mount()
        self.replot()

    def watch_points(self) -> None:
        if self.is_mounted:
            self.replot()

    def watch_analysis(self) -> None:
        if self.is_mounted:
            self.replot()

    def _first_section(self) -> tuple[tuple[PointResult, ...], SweepAnalysis | None, str | None]:
        """The points and analysis to draw: a preset of several sections shows its first section's."""
        split = split_sections(self.points)
        if not split:
            return self.points, self.analysis, None
        name, points = split[0]
        found = self.analysis.sections if self.analysis is not None else []
        return tuple(points), (found[0].analysis if found else None), name

    def replot(self) -> None:
        """Clear the figure and draw every finished point again."""
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if not self.axes:
            self.refresh()
            return
        axis = self.axes[0]
        points, analysis, section = self._first_section()
        metric = analysis.metric if analysis is not None else throughput_metric(self.axes)
        name = "bandwidth" if metric == "bw_bytes" else "IOPS"
        order = value_order(axis.values)
        position = {value: index + 1 for index, value in enumerate(order)}
        plt.xticks(list(position.values()), order)
        plt.xlim(0.5, len(order) + 0.5)
        plt.xlabel(axis.key)
        done = sorted(
            (p for p in points if p.throughput(metric) > 0 and p.params.get(axis.key) in position),
            key=lambda p: position[p.params[axis.key]],
        )
        if not done:
            plt.title(f"{name} and p99 against {axis.key}: waiting for the first point")
            self.refresh()
            return
        xs = [position[p.params[axis.key]] for p in done]
        throughput = [p.throughput(metric) for p in done]
        formatter = fmt.bytes_per_s if metric == "bw_bytes" else fmt.iops
        # Points, not lines: a line between numjobs=1 and 2 would draw values nobody measured (a staircase
        # of blocks). No legend (plotext puts it over the top-left point): the title names each marker.
        plt.scatter(xs, throughput, color="cyan", marker="●")
        top = max(throughput)
        ticks, labels = _ticks(top, formatter)
        plt.ylim(0, top * 1.1)
        plt.yticks(ticks, labels)
        # One p99 line per direction: a read p99 and a write p99 are never blended into one.
        lines = {
            direction: [(x, getattr(p, f"{direction}_lat_p99_ns")) for x, p in zip(xs, done)
                        if getattr(p, f"{direction}_lat_p99_ns") is not None]
            for direction in ("read", "write")
        }
        values = [v for points in lines.values() for _, v in points]
        if values:
            lat_top = max(values) or 1.0
            for direction, color, marker in (("read", "magenta", "dot"), ("write", "yellow", "x")):
                if lines[direction]:
                    plt.scatter([x for x, _ in lines[direction]], [v for _, v in lines[direction]], color=color,
                                marker=marker, yside="right")
            ticks, labels = _ticks(lat_top, fmt.latency_ns)
            # textual-plotext's hints give yside as a number; plotext takes "right" (as plot() above).
            # More headroom than the IOPS axis: the best IOPS and the worst p99 (both at the top of their
            # scales) would otherwise share a cell when one point holds both, and one mark would hide the other.
            plt.ylim(0, lat_top * 1.35, yside="right")  # type: ignore[arg-type]
            plt.yticks(ticks, labels, yside="right")  # type: ignore[arg-type]
        if analysis is not None:
            picks: list[tuple[Choice | SloChoice | None, str, str, float]] = [
                (analysis.sweet_spot, "★ sweet spot", "green", 0.18), (analysis.balanced, "◆ balanced", "yellow", 0.06)
            ]
            if analysis.slo is not None and analysis.slo.params is not None:
                picks.append((analysis.slo, f"✓ {analysis.slo.slo.text}", "blue", 0.30))
            for choice, word, color, height in picks:
                params = choice.params if choice is not None else None
                value = params.get(axis.key) if params is not None else None
                if value in position:
                    plt.vline(position[value], color=color)
                    plt.text(word, position[value], top * height, color=color, alignment="left")
        title = f"{name} ● (left), read p99 • and write p99 x (right) by {axis.key}"
        if section:
            title = f"{section}: {title} (the first section; the table shows each)"
        plt.title(title)
        self.refresh()
