"""The Sweep screen's table, findings and chart for a preset of two sections: each section on its own."""

from __future__ import annotations

from rich.console import Console
from textual.app import App, ComposeResult
from textual.containers import Vertical

from iotui.core.sweep.analysis import analyze
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.values import SweepAxis
from iotui.ui.widgets.sweep_chart import SweepChart
from iotui.ui.widgets.sweep_findings import SweepFindings
from iotui.ui.widgets.sweep_points import SweepPoints
from tests.ui.helpers import Bare

AXES = (SweepAxis("numjobs", ("1", "2")),)


def _point(numjobs: str, read_iops: float, write_iops: float) -> PointResult:
    parts = (
        PointResult({"numjobs": numjobs}, section="randread", read_iops=read_iops, read_lat_p99_ns=1_000_000.0),
        PointResult({"numjobs": numjobs}, section="randwrite", write_iops=write_iops, write_lat_p99_ns=5_000_000.0),
    )
    return PointResult({"numjobs": numjobs}, sections=2, by_section=parts)


# randread: 1000 then 3000 IOPS (sweet spot 2); randwrite: 700 then 710 IOPS (sweet spot 1).
POINTS = (_point("1", 1000.0, 700.0), _point("2", 3000.0, 710.0))


class Screenful(App):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield SweepFindings()
            yield SweepPoints()
            chart = SweepChart()
            chart.styles.height = 16
            yield chart


def _plain(renderable) -> str:
    console = Console(width=120, record=True)
    console.print(renderable)
    return console.export_text()


async def test_findings_table_and_chart_per_section() -> None:
    analysis = analyze(POINTS, AXES)
    async with Screenful().run_test(size=(120, 50)) as pilot:
        findings, table, chart = pilot.app.query_one(SweepFindings), pilot.app.query_one(SweepPoints), pilot.app.query_one(SweepChart)
        for widget in (table, chart):
            widget.axes = AXES
            widget.points = POINTS
        for widget in (findings, table, chart):
            widget.analysis = analysis
        await pilot.pause()
        shown = _plain(findings.content)
        read_part, write_part = shown.split("Section 2 of 2: randwrite")
        assert "Section 1 of 2: randread" in read_part
        assert "Sweet spot: numjobs=2." in read_part and "Sweet spot: numjobs=1." in write_part
        tables = _plain(table.content)
        read_table, write_table = tables.split("Section 2 of 2: randwrite")
        assert "3.0k" in read_table and "710" not in read_table
        assert "710" in write_table and "3.0k" not in write_table
        assert "1.7k" not in tables and "3.7k" not in tables  # no read + write total anywhere
        assert "randread:" in chart.render().plain  # the chart draws the first section, named


async def test_heatmap_has_one_grid_per_section() -> None:
    from iotui.ui.widgets.sweep_heatmap import SweepHeatmap

    axes = (SweepAxis("numjobs", ("1", "2")), SweepAxis("iodepth", ("1",)))
    points = tuple(
        PointResult({**p.params, "iodepth": "1"}, sections=2, by_section=tuple(
            PointResult({**part.params, "iodepth": "1"}, section=part.section, read_iops=part.read_iops,
                        write_iops=part.write_iops) for part in p.by_section))
        for p in POINTS
    )
    grid = SweepHeatmap()
    async with Bare(grid).run_test(size=(120, 30)) as pilot:
        grid.axes = axes
        grid.points = points
        grid.analysis = analyze(points, axes)
        await pilot.pause()
        shown = _plain(grid.content)
        read_part, write_part = shown.split("Section 2 of 2: randwrite")
        assert "Section 1 of 2: randread" in read_part and "3.0k" in read_part and "710" not in read_part
        assert "710" in write_part and "3.0k" not in write_part
        assert "3.7k" not in shown  # no read + write total


