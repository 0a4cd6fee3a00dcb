"""Sweeps and responsiveness: points left out say which signal, and where responsiveness breaks."""

from __future__ import annotations

import dataclasses

from iotui.core.records.record import RunRecord
from iotui.core.sweep.analysis import analyze, sweet_spot
from iotui.core.sweep.output import sweep_json, sweep_text
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.record import SweepPointState, SweepRecord, load_sweep, save_sweep
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


def _write_section(numjobs: str, write_ms: float, wake_ms: float, pressure: dict) -> dict:
    return {"name": "randwrite", "groupid": 1,
            "write": {"iops": {"1": 500.0, "4": 520.0, "16": 530.0}[numjobs], "bw_bytes": 1.0, "lat_p99_ns": 1e6},
            "pressure": {**pressure, "io_probe_write_p99_ms_max": write_ms, "probe_p99_ms_max": wake_ms,
                         "io_probe_p99_ms_max": 3.0}}


def _numjobs_study(tmp_path) -> SweepRecord:
    """The 16-core numjobs study: numjobs=16 recorded sluggish by io full (an older record) with a 19 ms save."""
    read = {"name": "randread", "groupid": 0, "read": {"iops": 900.0, "bw_bytes": 1.0, "lat_p99_ns": 1e6},
            "pressure": {"responsiveness": "ok", "probe_p99_ms_max": 1.2, "io_probe_p99_ms_max": 2.5}}
    by_io_full = {"responsiveness": "sluggish", "cause": "psi_io_full", "cause_value": 76.0, "cause_unit": "%",
                  "cause_threshold": 30.0}
    felt = {"responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 312.0, "cause_unit": "ms",
            "cause_threshold": 110.0}
    writes = {"1": _write_section("1", 8.0, 1.1, {"responsiveness": "ok"}),
              "4": _write_section("4", 312.0, 1.5, felt),
              "16": _write_section("16", 18.8, 1.4, by_io_full)}
    axes = [SweepAxis("numjobs", ("1", "4", "16"))]
    sweep = SweepRecord.new("numjobs-scaling", "numjobs", axes, [{"numjobs": v} for v in writes], {})
    for state in sweep.points:
        record = RunRecord(run={"id": state.params["numjobs"], "status": "completed", "preset": "n"}, host={},
                           target={}, sections=[dict(read), writes[state.params["numjobs"]]])
        state.status = "completed"
        state.set_result(PointResult.from_record(record, state.params))
    return load_sweep(save_sweep(sweep, tmp_path))


def test_the_study_table_shows_the_felt_figures_per_point_and_direction(tmp_path) -> None:
    sweep = _numjobs_study(tmp_path)
    analysis = analyze(sweep.results(), sweep.axes)
    text = sweep_text(sweep, analysis)
    read_part, write_part = text.split("Section 2 of 2: randwrite")
    header = next(line for line in write_part.splitlines() if line.startswith("numjobs"))
    assert header.index("io read p99") < header.index("io write p99") < header.index("wake-up p99")
    rows = {line.split()[0]: line for line in write_part.splitlines() if line[:1].isdigit()}
    assert " 312ms " in rows["4"] and "sluggish (io write p99)" in rows["4"]
    assert " 18.8ms " in rows["16"] and "ok (was sluggish by io full)" in rows["16"]
    assert "wake-up p99" in read_part and "1.20ms" in read_part
    doc = sweep_json(sweep, analysis)
    write_points = doc["sections"][1]["points"]
    assert [p["io_write_p99_ms"] for p in write_points] == [8.0, 312.0, 18.8]
    assert [p["responsiveness_cause"] for p in write_points] == [None, "io_probe_write", "psi_io_full"]


def test_the_sweet_spot_leaves_out_only_points_judged_by_felt_evidence(tmp_path) -> None:
    sweep = _numjobs_study(tmp_path)
    write = analyze(sweep.results(), sweep.axes).sections[1].analysis
    assert write.sweet_spot is not None and write.sweet_spot.params == {"numjobs": "16"}
    assert "left out as not responsive: numjobs=4 (sluggish · io write p99 312 ms > 110 ms)" in write.sweet_spot.why
    assert "numjobs=16 (" not in write.sweet_spot.why


def test_a_multi_host_point_is_judged_by_its_least_responsive_host() -> None:
    # `iotui sweep --hosts` showed '-' under "responsive" for every point: the hosts' levels are in
    # each host's entry, and this machine (the record's own pressure) is not probed then.
    def host(name: str, pressure: dict) -> dict:
        return {"name": name, "exit_status": 0, "pressure": pressure}

    record = RunRecord(
        run={"id": "x", "preset": "p", "status": "completed"}, host={}, target={},
        summary={"read": {"iops": 100.0, "bw_bytes": 409600, "io_bytes": 1, "total_ios": 1}},
        hosts=[host("h1", {"responsiveness": "ok", "io_probe_write_p99_ms_max": 7.6}),
               host("h2", {"responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 312.0,
                           "cause_unit": "ms", "cause_threshold": 110.0, "io_probe_write_p99_ms_max": 312.0}),
               host("h3", {"responsiveness": "ok"})],
    )
    result = PointResult.from_record(record, {"numjobs": "4"})
    assert result.responsiveness == "sluggish"
    assert result.responsiveness_detail == "sluggish · io write p99 312 ms > 110 ms"
    assert result.io_write_p99_ms == 312.0
    calm = RunRecord(run={"id": "y", "preset": "p", "status": "completed"}, host={}, target={},
                     summary={"read": {"iops": 100.0}}, hosts=[host("h1", {"responsiveness": "ok"})])
    assert PointResult.from_record(calm, {"numjobs": "1"}).responsiveness == "ok"
