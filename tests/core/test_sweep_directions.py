"""Sweeps show p99 per direction, never contradict their table, name what they leave out, and compare kinds."""

from __future__ import annotations

from iotui.core.sweep.analysis import analyze
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.output import sweep_json, sweep_text
from iotui.core.sweep.record import SweepRecord
from iotui.core.sweep.values import SweepAxis


def _sweep(key: str, points: list[PointResult]) -> SweepRecord:
    sweep = SweepRecord.new("p", "t", [SweepAxis(key, tuple(p.params[key] for p in points))],
                            [p.params for p in points], {})
    for state, point in zip(sweep.points, points):
        state.status = point.status
        state.set_result(point)
    return sweep


def test_p99_is_per_direction_in_the_sentence_and_the_table() -> None:
    points = [
        PointResult({"iodepth": "1"}, read_iops=8_000, write_iops=3_000, read_lat_p99_ns=118_000, write_lat_p99_ns=3_230_000),
        PointResult({"iodepth": "4"}, read_iops=9_000, write_iops=3_500, read_lat_p99_ns=400_000, write_lat_p99_ns=9_000_000),
    ]
    sweep = _sweep("iodepth", points)
    analysis = analyze(sweep.results(), sweep.axes)
    assert "read 118µs, write 3.23ms" in analysis.balanced.why
    assert "1.05ms" not in analysis.balanced.why  # no IOPS-weighted blend of the two
    text = sweep_text(sweep, analysis)
    header = text.splitlines()[0]
    assert "read p99" in header and "write p99" in header
    assert "118µs" in text and "3.23ms" in text
    assert points[0].latency_ns("p99") == 3_230_000  # one direction's figure: the higher


def test_the_best_named_is_the_tables_best_or_the_left_out_are_named() -> None:
    points = [
        PointResult({"iodepth": "1"}, read_iops=11_000, responsiveness="ok"),
        PointResult({"iodepth": "4"}, read_iops=26_300, responsiveness="unresponsive"),
        PointResult({"iodepth": "8"}, read_iops=0, status="failed"),
    ]
    sweep = _sweep("iodepth", points)
    analysis = analyze(sweep.results(), sweep.axes)
    why = analysis.sweet_spot.why
    assert "among the points considered" in why and "iodepth=4" in why and "not responsive" in why
    assert any("iodepth=8 (failed)" in note for note in analysis.notes)


def test_a_point_with_several_sections_is_named_not_judged() -> None:
    points = [PointResult({"bs": "4k"}, read_iops=100), PointResult({"bs": "8k"}, read_iops=0, sections=3)]
    analysis = analyze(points, [SweepAxis("bs", ("4k", "8k"))])
    assert any("bs=8k (it ran 3 sections" in note for note in analysis.notes)


def test_a_sweep_over_engines_is_a_comparison_with_cpu_columns() -> None:
    points = [
        PointResult({"ioengine": "libaio"}, read_iops=380_000, read_lat_p99_ns=90_000, cpu_user_pct=5.0,
                    cpu_system_pct=40.0, iops_per_fio_core=150_000),
        PointResult({"ioengine": "io_uring"}, read_iops=420_000, read_lat_p99_ns=80_000, cpu_user_pct=4.0,
                    cpu_system_pct=30.0, iops_per_fio_core=200_000),
    ]
    sweep = _sweep("ioengine", points)
    analysis = analyze(sweep.results(), sweep.axes)
    assert analysis.sweet_spot is None and analysis.balanced is None
    assert analysis.comparison.index("ioengine=io_uring") < analysis.comparison.index("ioengine=libaio")
    text = sweep_text(sweep, analysis)
    header = text.splitlines()[0].split()
    assert {"usr", "sys", "IOPS/fio"} <= set(header)
    assert "30.0%" in text and "200k" in text and "Sweet spot" not in text
    assert sweep_json(sweep, analysis)["comparison"] == analysis.comparison


def test_sysbench_against_fio_shows_context_switches_and_interrupts() -> None:
    points = [
        PointResult({"tool": "fio"}, read_iops=20_000, ctx_switches_per_s=40_000, interrupts_per_s=21_000),
        PointResult({"tool": "sysbench"}, read_iops=18_000, ctx_switches_per_s=95_000, interrupts_per_s=22_000),
    ]
    sweep = _sweep("tool", points)
    analysis = analyze(sweep.results(), sweep.axes)
    text = sweep_text(sweep, analysis)
    assert "ctx/s" in text.splitlines()[0] and "irq/s" in text.splitlines()[0]
    assert "95.0k" in text and "22.0k" in text
    assert analysis.sweet_spot is None and "tool=fio" in analysis.comparison
