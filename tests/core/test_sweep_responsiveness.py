"""Sweeps and responsiveness: points left out say which signal, and where responsiveness breaks."""

from __future__ import annotations

import dataclasses

from iotui.core.records.record import RunRecord
from iotui.core.sweep.analysis import analyze, sweet_spot
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.record import SweepPointState
from iotui.core.sweep.responsiveness import responsiveness_break
from iotui.core.sweep.values import SweepAxis
from tests.core.test_sweep import NUMJOBS_AXIS, openbsd_points

FROZE = "unresponsive · wake-up p99 140 ms > 104 ms"


def study_points() -> list[PointResult]:
    # The numjobs study (1..32 jobs at QD32) whose desktop froze with many jobs.
    levels = {"18": ("unresponsive", FROZE), "32": ("unresponsive", FROZE)}
    return [
        dataclasses.replace(p, responsiveness=levels.get(p.params["numjobs"], ("ok", None))[0],
                            responsiveness_detail=levels.get(p.params["numjobs"], ("ok", None))[1])
        for p in openbsd_points("both")
    ]


def test_a_left_out_point_names_the_signal_that_crossed() -> None:
    spot = sweet_spot(study_points(), NUMJOBS_AXIS)
    assert spot.params == {"numjobs": "8"}
    assert f"left out as not responsive: numjobs=18 ({FROZE}); numjobs=32 ({FROZE})" in spot.why


def test_the_study_shows_where_responsiveness_breaks() -> None:
    analysis = analyze(study_points(), NUMJOBS_AXIS)
    assert f"Responsiveness breaks at numjobs=18: {FROZE}; numjobs=8 stayed ok." in analysis.notes
    # In the sweep's order of values, not the order points arrived in.
    assert responsiveness_break(list(reversed(study_points())), NUMJOBS_AXIS) == (
        f"Responsiveness breaks at numjobs=18: {FROZE}; numjobs=8 stayed ok."
    )


def test_no_break_when_every_point_stayed_ok_or_several_keys_vary() -> None:
    ok = [dataclasses.replace(p, responsiveness="ok") for p in openbsd_points("both")]
    assert responsiveness_break(ok, NUMJOBS_AXIS) is None
    two = [SweepAxis("numjobs", ("1", "2")), SweepAxis("iodepth", ("1", "32"))]
    assert responsiveness_break(study_points(), two) is None


def test_the_detail_comes_from_the_record_and_survives_the_sweep_record() -> None:
    record = RunRecord(
        run={"id": "x", "preset": "p", "status": "completed"}, host={}, target={},
        summary={"read": {"iops": 100.0, "bw_bytes": 409600, "io_bytes": 1, "total_ios": 1},
                 "pressure": {"responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 312.0,
                              "cause_unit": "ms", "cause_threshold": 110.0}},
    )
    result = PointResult.from_record(record, {"numjobs": "4"})
    assert result.responsiveness_detail == "sluggish · io write p99 312 ms > 110 ms"
    point = SweepPointState(0, {"numjobs": "4"})
    point.set_result(result)
    assert point.point_result().responsiveness_detail == "sluggish · io write p99 312 ms > 110 ms"
