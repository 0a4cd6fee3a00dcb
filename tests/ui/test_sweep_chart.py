"""The sweep chart marks each finished point and draws nothing between them."""

from __future__ import annotations

from iotui.core.sweep.analysis import PointResult
from iotui.core.sweep.values import SweepAxis
from iotui.ui.widgets.sweep_chart import SweepChart
from tests.ui.helpers import Bare

BLOCKS = set("▀▄▌▐▖▗▘▝▚▞▙▛▜▟█")


async def test_a_two_point_sweep_is_two_marks_not_a_staircase() -> None:
    chart = SweepChart()
    chart.styles.height = 20
    points = (
        PointResult(params={"numjobs": "1"}, read_iops=1000.0, read_lat_p99_ns=2_000_000.0),
        PointResult(params={"numjobs": "2"}, read_iops=2000.0, read_lat_p99_ns=3_000_000.0),
    )
    async with Bare(chart).run_test(size=(80, 24)) as pilot:
        chart.axes = (SweepAxis("numjobs", ("1", "2")),)
        chart.points = points
        await pilot.pause()
        lines = chart.render().plain.splitlines()
        canvas = [line[line.index("┤") + 1:] if "┤" in line else line for line in lines[1:-3]]
        drawn = "".join(canvas)
        assert drawn.count("●") == 2  # one IOPS mark per point
        assert drawn.count("•") == 2  # one read p99 mark per point
        assert not BLOCKS & set(drawn), "a line was drawn between the points"
        assert any("2.0k" in line for line in lines) and any("1.0k" in line for line in lines)
