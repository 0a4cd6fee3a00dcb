"""Sweep plans, records, the runner and the analysis, on the studies' published tables."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest

from iotui.core.sweep.analysis import analyze, balanced, placings, rank_by_average_placing, sweet_spot, throughput_metric
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.plan import SweepEstimate, SweepPlanError, cartesian, check_space, plan_sweep
from iotui.core.sweep.record import (
    SweepRecord,
    SweepRecordError,
    find_resumable,
    load_sweep,
    save_sweep,
)
from iotui.core.sweep.runner import (
    PointFinished,
    PointStarted,
    SweepFinished,
    SweepPointError,
    SweepRunner,
    SweepStarted,
)
from iotui.core.sweep.values import SweepAxis, SweepValueError, numeric_value, parse_vary, value_order

# -- seed 000: OpenBSD 7.7, 4 KiB random I/O, iodepth 32 (IOPS, average latency in µs) --------------
OPENBSD_JOBS = ("1", "2", "4", "8", "18", "32")
OPENBSD_READ = ((121_318, 26.41), (207_333, 30.80), (334_219, 37.97), (439_728, 58.22), (439_661, 117.12), (415_603, 180.56))
OPENBSD_WRITE = ((68_223, 58.64), (122_246, 63.27), (212_610, 70.84), (323_439, 95.72), (366_830, 172.17), (361_404, 230.42))
NUMJOBS_AXIS = [SweepAxis("numjobs", OPENBSD_JOBS)]


def openbsd_points(direction: str) -> list[PointResult]:
    rows = []
    for jobs, (read_iops, read_lat_us), (write_iops, write_lat_us) in zip(OPENBSD_JOBS, OPENBSD_READ, OPENBSD_WRITE):
        figures = {}
        if direction in ("read", "both"):
            figures.update(read_iops=read_iops, read_lat_mean_ns=read_lat_us * 1000)
        if direction in ("write", "both"):
            figures.update(write_iops=write_iops, write_lat_mean_ns=write_lat_us * 1000)
        rows.append(PointResult({"numjobs": jobs}, **figures))
    return rows


def test_openbsd_read_table_sweet_spot_is_8_jobs():
    choice = sweet_spot(openbsd_points("read"), NUMJOBS_AXIS)
    assert choice.params == {"numjobs": "8"}
    assert "numjobs=8" in choice.why and "95%" in choice.why


def test_openbsd_read_table_balanced_is_8_jobs():
    choice = balanced(openbsd_points("read"), NUMJOBS_AXIS)
    assert choice.params == {"numjobs": "8"}
    assert "mean latency" in choice.why  # the table has no p99, so the mean is used and said


def test_openbsd_write_table_sweet_spot_is_18_but_balanced_is_8():
    # 8 jobs give 323k of the best 367k write IOPS (88%): the 95% rule needs 18 jobs,
    # while the trade-off with latency (95.7 µs against 172 µs) picks 8.
    points = openbsd_points("write")
    assert sweet_spot(points, NUMJOBS_AXIS).params == {"numjobs": "18"}
    assert balanced(points, NUMJOBS_AXIS).params == {"numjobs": "8"}


def test_openbsd_read_then_write_sweep_is_judged_per_section():
    # The numjobs-scaling preset runs random read, then random write, per point: two sections that
    # ran one after another, so each is analysed on its own and gives the study's own two answers
    # (never read + write, which would need 18 jobs: 8 reach 763k of 806k, 94.6%).
    reads, writes = openbsd_points("read"), openbsd_points("write")
    points = [
        PointResult(read.params, sections=2, by_section=(
            dataclasses.replace(read, section="randread"), dataclasses.replace(write, section="randwrite")))
        for read, write in zip(reads, writes)
    ]
    analysis = analyze(points, NUMJOBS_AXIS)
    assert [section.name for section in analysis.sections] == ["randread", "randwrite"]
    read, write = (section.analysis for section in analysis.sections)
    assert (read.sweet_spot.params, read.balanced.params) == ({"numjobs": "8"}, {"numjobs": "8"})
    assert (write.sweet_spot.params, write.balanced.params) == ({"numjobs": "18"}, {"numjobs": "8"})
    assert analysis.sweet_spot is None and analysis.balanced is None


def test_unresponsive_points_are_left_out_of_the_sweet_spot():
    # The study: with many jobs "the KDE desktop becomes almost unusable".
    points = [
        dataclasses.replace(p, responsiveness="unresponsive" if p.params["numjobs"] in ("18", "32") else "ok")
        for p in openbsd_points("both")
    ]
    spot = sweet_spot(points, NUMJOBS_AXIS)
    assert spot.params == {"numjobs": "8"}
    assert "numjobs=18" in spot.why and "not responsive" in spot.why
    assert balanced(points, NUMJOBS_AXIS).params == {"numjobs": "8"}


def test_all_points_used_when_none_stayed_responsive():
    points = [dataclasses.replace(p, responsiveness="unresponsive") for p in openbsd_points("read")]
    spot = sweet_spot(points, NUMJOBS_AXIS)
    assert spot.params == {"numjobs": "8"}
    assert "all points were used" in spot.why


def test_sweet_spot_takes_the_smallest_value_by_magnitude_not_by_text():
    axis = [SweepAxis("numjobs", ("16", "2", "4"))]
    points = [
        PointResult({"numjobs": "16"}, read_iops=1000),
        PointResult({"numjobs": "2"}, read_iops=960),
        PointResult({"numjobs": "4"}, read_iops=990),
    ]
    assert sweet_spot(points, axis).params == {"numjobs": "2"}


def test_failed_and_stopped_points_are_not_judged():
    points = openbsd_points("read")
    points[3] = dataclasses.replace(points[3], status="failed")
    points[4] = dataclasses.replace(points[4], status="stopped")
    # 8 and 18 are out: the best is 32 jobs (415.6k); 4 jobs (334k) are under 95% of it.
    assert sweet_spot(points, NUMJOBS_AXIS).params == {"numjobs": "32"}
    assert sweet_spot([dataclasses.replace(p, status="failed") for p in points], NUMJOBS_AXIS) is None


def test_balanced_uses_p99_when_every_point_has_it():
    axis = [SweepAxis("iodepth", ("1", "8", "64"))]
    points = [
        PointResult({"iodepth": "1"}, read_iops=10_000, read_lat_p99_ns=200_000, read_lat_mean_ns=100_000),
        PointResult({"iodepth": "8"}, read_iops=50_000, read_lat_p99_ns=400_000, read_lat_mean_ns=150_000),
        PointResult({"iodepth": "64"}, read_iops=55_000, read_lat_p99_ns=4_000_000, read_lat_mean_ns=1_100_000),
    ]
    choice = balanced(points, axis)
    assert choice.params == {"iodepth": "8"}
    assert "p99 latency" in choice.why


def test_block_size_sweeps_are_judged_by_bandwidth():
    # Seed 004 (SeaweedFS): random read 4k/128k/2m. IOPS would always pick 4k.
    axis = [SweepAxis("bs", ("4k", "128k", "2m"))]
    mib = 1 << 20
    points = [
        PointResult({"bs": "4k"}, read_iops=5_821, read_bw_bytes=22.7 * mib),
        PointResult({"bs": "128k"}, read_iops=3_063, read_bw_bytes=383 * mib),
        PointResult({"bs": "2m"}, read_iops=456, read_bw_bytes=913 * mib),
    ]
    assert throughput_metric(axis) == "bw_bytes"
    choice = sweet_spot(points, axis)
    assert choice.params == {"bs": "2m"}
    assert "bandwidth" in choice.why


# -- seed 003: NFS mount options, top 30 of the 256 MiB transfers (MB/s) ------------------------------
NFS_TOP30 = """
4 soft 3 73.20
4 hard 3 70.57
5 hard 4 70.30
5 soft 1 69.20
5 soft 2 68.83
5 hard 1 68.64
4 hard 4 67.57
6 soft 4 67.22
4 soft 4 66.95
5 soft 4 66.80
5 soft 3 66.66
4 soft 2 66.45
5 hard 2 66.38
7 hard 1 66.33
5 hard 3 66.18
7 hard 3 65.52
11 hard 4 65.31
7 hard 4 64.84
10 hard 2 64.61
10 soft 1 64.61
7 hard 2 64.27
7 soft 1 64.06
9 soft 3 63.71
6 soft 2 63.55
6 hard 4 63.47
7 soft 2 63.41
6 soft 3 63.26
6 hard 3 63.09
7 soft 4 63.02
10 hard 1 62.61
"""
NFS_AXES = [
    SweepAxis("iothreads", ("4", "5", "6", "7", "9", "10", "11")),
    SweepAxis("mount", ("hard", "soft")),
    SweepAxis("readahead", ("1", "2", "3", "4")),
]


def nfs_points() -> list[PointResult]:
    rows = []
    for line in NFS_TOP30.strip().splitlines():
        iothreads, mount, readahead, mb_per_s = line.split()
        rows.append(
            PointResult(
                {"iothreads": iothreads, "mount": mount, "readahead": readahead},
                write_iops=float(mb_per_s),  # the ranking only needs the order
                write_bw_bytes=float(mb_per_s) * 1e6,
            )
        )
    return rows


def test_placings_share_ties_like_the_study_table():
    placed = placings(nfs_points(), "iops")
    by_row = {(p.params["iothreads"], p.params["mount"], p.params["readahead"]): place for p, place in placed}
    assert by_row[("4", "soft", "3")] == 1
    assert by_row[("10", "hard", "2")] == by_row[("10", "soft", "1")] == 19.5  # both 64.61 MB/s
    assert by_row[("10", "hard", "1")] == 30
    assert sum(place for _, place in placed) == sum(range(1, 31))


def test_ranking_by_average_placing_on_the_nfs_table():
    ranking = rank_by_average_placing(nfs_points(), NFS_AXES)
    iothreads = {p.value: (p.placing_sum, p.points) for p in ranking.keys["iothreads"]}
    # Placings summed by hand from the table: 4 -> 1+2+7+9+12, 5 -> 3+4+5+6+10+11+13+15.
    assert iothreads["4"] == (31, 5)
    assert iothreads["5"] == (67, 8)
    assert iothreads["10"] == (69, 3)  # 19.5 + 19.5 + 30
    assert ranking.keys["iothreads"][0].value == "4"  # the study's full-table "best: 4"
    readahead = {p.value: p.placing_sum for p in ranking.keys["readahead"]}
    assert readahead == {"1": 95.5, "2": 120.5, "3": 123, "4": 126}
    # By plain sums readahead 1 would win (95.5 over 6 points); by average 4 does
    # (126 over 9 points = 14.0), as in the study's full table ("best: 4").
    assert ranking.keys["readahead"][0].value == "4"
    assert [p.value for p in ranking.keys["mount"]] == ["soft", "hard"]  # 230.5 vs 234.5
    assert ranking.best_combination == {"iothreads": "4", "mount": "soft", "readahead": "4"}
    assert ranking.best_combination_measured  # row 9: 4 soft 4
    assert ranking.fastest.params == {"iothreads": "4", "mount": "soft", "readahead": "3"}


def test_analyze_ranks_only_sweeps_over_several_keys():
    assert analyze(openbsd_points("read"), NUMJOBS_AXIS).ranking is None
    analysis = analyze(nfs_points(), NFS_AXES)
    assert analysis.ranking is not None
    assert analysis.ranking.to_json()["keys"]["iothreads"][0] == {
        "value": "4", "average_placing": 6.2, "placing_sum": 31.0, "points": 5,
    }


# -- values and plans -------------------------------------------------------------------------------


def test_parse_vary_and_its_refusals():
    assert parse_vary("numjobs=1,2, 4") == SweepAxis("numjobs", ("1", "2", "4"))
    for bad in ("numjobs", "numjobs=", "numjobs=1,,2", "numjobs=1,1", "=1,2", "tool=fio,iozone"):
        with pytest.raises(SweepValueError):
            parse_vary(bad)


def test_value_order_understands_fio_sizes():
    assert numeric_value("4k") == 4096 and numeric_value("2m") == 2 * 1024 * 1024
    assert value_order(["2m", "4k", "128k"]) == ["4k", "128k", "2m"]
    assert value_order(["sync", "libaio", "io_uring"]) == ["sync", "libaio", "io_uring"]


def test_cartesian_product_first_key_slowest():
    axes = [SweepAxis("numjobs", ("1", "2")), SweepAxis("bs", ("4k", "64k", "1m"))]
    params = cartesian(axes)
    assert len(params) == 6
    assert params[:3] == [{"numjobs": "1", "bs": "4k"}, {"numjobs": "1", "bs": "64k"}, {"numjobs": "1", "bs": "1m"}]


def fake_preset(name="quick", sweep=None, sections=("job",)):
    jobs = tuple(SimpleNamespace(name=section, options={}) for section in sections)
    return SimpleNamespace(name=name, title=name, options={}, sweep={"vary": sweep} if sweep else None, jobs=jobs)


def test_plan_uses_the_preset_sweep_table_when_no_vary_is_given():
    plan = plan_sweep(fake_preset(sweep={"numjobs": [1, 2, 4, 8, 16, 32]}))
    assert plan.axes == [SweepAxis("numjobs", ("1", "2", "4", "8", "16", "32"))]
    assert len(plan.params) == 6
    explicit = plan_sweep(fake_preset(sweep={"numjobs": [1, 2]}), vary=["iodepth=1,32"])
    assert explicit.keys == ["iodepth"]


def test_targets_become_one_more_key(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    plan = plan_sweep(fake_preset(), vary=["numjobs=1,2"], targets=f"{a},{b}")
    assert plan.keys == ["numjobs", "target"]
    assert len(plan.params) == 4
    with pytest.raises(SweepPlanError, match="either one target or a list of targets"):
        plan_sweep(fake_preset(), vary=["numjobs=1"], targets=str(a), target=str(b))
    with pytest.raises(SweepPlanError, match="varied twice"):
        plan_sweep(fake_preset(), vary=["numjobs=1", "numjobs=2"])
    with pytest.raises(SweepPlanError, match="Nothing to vary"):
        plan_sweep(fake_preset())


def test_the_core_names_the_entry_and_the_command_line_its_flag(tmp_path):
    from iotui.commands.sweep import worded

    with pytest.raises(SweepPlanError) as raised:
        plan_sweep(fake_preset(), vary=["numjobs"])
    error = raised.value
    assert (error.code, error.source, error.entry) == ("value", "vary", "numjobs")
    assert str(error) == "'numjobs' should look like KEY=V1,V2 (for example numjobs=1,2,4,8)."
    assert worded(error) == "--vary 'numjobs' should look like KEY=V1,V2 (for example numjobs=1,2,4,8)."
    with pytest.raises(SweepPlanError) as raised:
        plan_sweep(fake_preset(), vary=["numjobs=1"], targets=f"{tmp_path},", target=str(tmp_path))
    assert "--" not in str(raised.value)
    assert worded(raised.value) == "Give either --target or --targets, not both."
    with pytest.raises(SweepPlanError) as raised:
        plan_sweep(fake_preset(), vary=["numjobs=1"], targets=f"{tmp_path},")
    assert worded(raised.value).startswith(f"--targets '{tmp_path},': give the values separated by commas")
    with pytest.raises(SweepPlanError) as raised:
        plan_sweep(fake_preset("plain"))
    assert "--" not in str(raised.value)
    assert worded(raised.value) == (
        "Nothing to vary: give --vary KEY=V1,V2 (for example --vary numjobs=1,2,4,8); the preset plain has no [sweep] defaults."
    )


def test_sysbench_compare_adds_the_tool_key_only_when_sysbench_exists():
    preset = fake_preset("sysbench-compare", sweep={"nrfiles": [128, 1]}, sections=("sync-fsync100", "libaio-direct"))
    with_sysbench = plan_sweep(preset, sysbench_available=True)
    # sysbench runs one workload at a time, so each job section becomes a point.
    assert with_sysbench.keys == ["job", "nrfiles", "tool"] and len(with_sysbench.params) == 8
    without = plan_sweep(preset, sysbench_available=False)
    assert without.keys == ["nrfiles"] and "not installed" in without.notes[0]
    with pytest.raises(SweepPlanError, match="needs sysbench"):
        plan_sweep(preset, vary=["tool=fio,sysbench"], sysbench_available=False)


def test_check_space_refuses_with_a_sentence(tmp_path):
    estimate = SweepEstimate(10.0, {0: 10.0}, 2 << 30, ((str(tmp_path), 2 << 30, 1 << 30, {"numjobs": "32"}),))
    with pytest.raises(SweepPlanError, match=r"needs 2\.0GiB free .*numjobs=32.*only 1\.0GiB"):
        check_space(estimate)
    check_space(SweepEstimate(10.0, {0: 10.0}, 1 << 20, ((str(tmp_path), 1 << 20, 1 << 30, {}),)))
    with pytest.raises(SweepPlanError, match="does not exist"):
        check_space(SweepEstimate(1.0, {0: 1.0}, 1, ((str(tmp_path / "missing"), 1, None, {}),)))


# -- the sweep record -----------------------------------------------------------------------------


def new_sweep(base=None) -> SweepRecord:
    axes = [SweepAxis("numjobs", ("1", "2", "4"))]
    return SweepRecord.new("quick", "Quick", axes, cartesian(axes), base or {"preset": "quick", "sets": {"rate_iops": "100"}})


def test_sweep_record_round_trips(tmp_path):
    sweep = new_sweep()
    sweep.points[0].status = "completed"
    sweep.points[0].record = "run-a.toml"
    sweep.points[0].set_result(PointResult({"numjobs": "1"}, read_iops=100.0, read_lat_p99_ns=5e5, responsiveness="ok"))
    path = save_sweep(sweep, tmp_path)
    assert path.name.endswith(".sweep.toml") and path.parent == tmp_path
    loaded = load_sweep(path)
    assert [p.params for p in loaded.points] == [{"numjobs": v} for v in ("1", "2", "4")]
    assert loaded.points[0].status == "completed" and loaded.points[1].status == "pending"
    result = loaded.results()[0]
    assert result.read_iops == 100.0 and result.responsiveness == "ok"
    assert result.record == str(tmp_path / "run-a.toml")
    assert [p.index for p in loaded.pending()] == [1, 2]


def test_a_broken_sweep_record_is_refused_with_the_key(tmp_path):
    path = save_sweep(new_sweep(), tmp_path)
    path.write_text(path.read_text().replace('status = "pending"', 'status = "later"', 1))
    with pytest.raises(SweepRecordError, match="status"):
        load_sweep(path)


def test_find_resumable_matches_the_same_command(tmp_path):
    first = new_sweep()
    save_sweep(first, tmp_path)
    other = new_sweep(base={"preset": "quick", "sets": {"rate_iops": "200"}})
    save_sweep(other, tmp_path)
    found = find_resumable(tmp_path, new_sweep().signature())
    assert found is not None and found.id == first.id
    assert find_resumable(tmp_path, new_sweep(base={"preset": "other"}).signature()) is None


# -- the runner ---------------------------------------------------------------------------------------


class FakeSession:
    """Returns a record with IOPS = 100 x numjobs, or waits to be stopped."""

    def __init__(self, params, runs_dir: Path, block=False):
        self.params = params
        self.runs_dir = runs_dir
        self.block = block
        self.stopped = asyncio.Event()

    def request_stop(self, ended_by="user"):
        self.stopped.set()

    async def run(self):
        from iotui.core.records.record import RunRecord
        from iotui.core.records.files import save_record

        status = "completed"
        if self.block:
            await self.stopped.wait()
            status = "stopped"
        iops = 100.0 * int(self.params["numjobs"])
        record = RunRecord(
            run={
                "id": f"run{self.params['numjobs']}x" + "0" * 20, "preset": "quick", "status": status,
                "started": dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc), "duration_s": 1.0,
                "fio_version": "fio-3.33", "fio_argv": ["fio"], "fio_report": "",
            },
            host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 2, "mem_total_bytes": 1},
            target={"path": "/t", "filesystem": "ext4", "device": "vda", "mount_options": ""},
            summary={"read": {"iops": iops, "bw_bytes": iops * 4096, "io_bytes": 1, "total_ios": 1, "lat_p99_ns": 1e6}},
        )
        save_record(record, self.runs_dir, name=f"point-{self.params['numjobs']}.toml")
        return record


async def test_runner_runs_every_point_and_saves_after_each(tmp_path):
    events = []
    started_params = []

    async def start_point(point, emit):
        started_params.append(point.params["numjobs"])
        return FakeSession(point.params, tmp_path)

    sweep = new_sweep()
    runner = SweepRunner(sweep, start_point=start_point, runs_dir=tmp_path, on_event=events.append, estimates_s={0: 1, 1: 1, 2: 1})
    result = await runner.run()
    assert started_params == ["1", "2", "4"]
    assert result.status == "completed"
    assert [type(e).__name__ for e in events if not isinstance(e, (PointStarted, PointFinished))] == ["SweepStarted", "SweepFinished"]
    finished = [e for e in events if isinstance(e, PointFinished)]
    assert [(e.number, e.total) for e in finished] == [(1, 3), (2, 3), (3, 3)]
    assert finished[-1].time_left_s == 0
    saved = load_sweep(result.path)
    assert [p.status for p in saved.points] == ["completed"] * 3
    assert saved.points[2].record == "point-4.toml"
    analysis = events[-1].analysis
    assert analysis.sweet_spot.params == {"numjobs": "4"}


async def test_stop_keeps_the_partial_point_and_resume_skips_finished_ones(tmp_path):
    sweep = new_sweep()
    runner_box = {}

    async def start_point(point, emit):
        session = FakeSession(point.params, tmp_path, block=point.params["numjobs"] == "2")
        if session.block:
            asyncio.get_running_loop().call_later(0.05, runner_box["runner"].request_stop)
        return session

    runner = SweepRunner(sweep, start_point=start_point, runs_dir=tmp_path)
    runner_box["runner"] = runner
    stopped = await runner.run()
    assert stopped.status == "stopped"
    assert [p.status for p in stopped.points] == ["completed", "stopped", "pending"]
    assert stopped.points[1].record == "point-2.toml"  # the partial record is kept

    resumed_from = find_resumable(tmp_path, new_sweep().signature())
    ran = []

    async def start_again(point, emit):
        ran.append(point.params["numjobs"])
        return FakeSession(point.params, tmp_path)

    done = await SweepRunner(resumed_from, start_point=start_again, runs_dir=tmp_path).run()
    assert ran == ["2", "4"]
    assert done.status == "completed" and done.path == stopped.path


async def test_a_point_that_cannot_start_fails_and_the_sweep_goes_on(tmp_path):
    async def start_point(point, emit):
        if point.params["numjobs"] == "2":
            raise SweepPointError("numjobs=2 was refused.")
        return FakeSession(point.params, tmp_path)

    events = []
    result = await SweepRunner(new_sweep(), start_point=start_point, runs_dir=tmp_path, on_event=events.append).run()
    assert [p.status for p in result.points] == ["completed", "failed", "completed"]
    assert result.points[1].error == "numjobs=2 was refused."
    assert result.status == "failed"
    assert isinstance(events[0], SweepStarted) and isinstance(events[-1], SweepFinished)


def test_job_key_must_name_a_section():
    preset = fake_preset(sections=("randread", "randwrite"))
    assert plan_sweep(preset, vary=["job=randwrite", "numjobs=1,2"]).keys == ["job", "numjobs"]
    with pytest.raises(SweepPlanError, match="no job section 'seqread'.*randread, randwrite"):
        plan_sweep(preset, vary=["job=seqread"])


def test_points_of_the_shipped_numjobs_preset():
    from iotui.core.presets.files import find_preset
    from iotui.core.sweep.plan import estimate_sweep, preset_for_point

    preset = find_preset("numjobs-scaling")
    plan = plan_sweep(preset)
    assert plan.params == [{"numjobs": v} for v in ("1", "2", "4", "8", "16", "32")]
    point = preset_for_point(preset, {"numjobs": "8"})
    assert point.options["numjobs"] == "8" and [s.name for s in point.jobs] == ["randread", "randwrite"]
    only_reads = preset_for_point(preset, {"job": "randread", "numjobs": "8"})
    assert [s.name for s in only_reads.jobs] == ["randread"]
    estimate = estimate_sweep(plan, baseline_s=2)
    # each point: 2 sections x (30 s + 10 s ramp) + 2 s baseline + 1 s around fio
    assert estimate.point_duration_s[0] == 83 and estimate.duration_s == 6 * 83
    assert estimate.disk_bytes == 4 << 30  # all points share one 4 GiB file, one after another


def test_size_based_presets_have_no_time_estimate():
    from iotui.core.presets.files import find_preset
    from iotui.core.sweep.plan import describe_estimate, estimate_sweep

    plan = plan_sweep(find_preset("mount-options"), targets="/tmp,/var/tmp")
    estimate = estimate_sweep(plan)
    assert estimate.duration_s is None
    assert "time unknown" in describe_estimate(plan, estimate)


def test_the_shipped_openbsd_reference_records_give_the_same_answers():
    # The compare feature ships the study's tables as reference records; reading
    # them through PointResult.from_record must reproduce the table results above.
    from iotui.core.records.references import resolve_reference

    for name, expected_sweet, expected_balanced in (
        ("openbsd-numjobs-randread", "8", "8"),
        ("openbsd-numjobs-randwrite", "18", "8"),
    ):
        rows = resolve_reference(f"ref:{name}")
        points = [PointResult.from_record(row, {"numjobs": row.options["numjobs"]}) for row in rows]
        assert {p.status for p in points} == {"reference"}
        axis = [SweepAxis("numjobs", tuple(p.params["numjobs"] for p in points))]
        assert sweet_spot(points, axis).params == {"numjobs": expected_sweet}, name
        assert balanced(points, axis).params == {"numjobs": expected_balanced}, name


def test_a_sweep_across_mounts_ranks_the_mount_options_that_differ():
    # The NFS study by targets: one mount per option set; iotui reads each target's
    # mount options from its records and ranks them like the study's settings.
    points = []
    targets = []
    for point in nfs_points():
        mount, readahead = point.params["mount"], point.params["readahead"]
        target = f"/mnt/nfs-{mount}-{readahead}"
        targets.append(target)
        points.append(
            dataclasses.replace(
                point,
                params={"iothreads": point.params["iothreads"], "target": target},
                mount_options=f"rw,{mount},readahead={readahead},vers=3",
            )
        )
    axes = [NFS_AXES[0], SweepAxis("target", tuple(dict.fromkeys(targets)))]
    ranking = analyze(points, axes).ranking
    assert "mount:vers" not in ranking.keys  # the same on every mount: nothing to rank
    readahead = {p.value: p.placing_sum for p in ranking.keys["mount:readahead"]}
    assert readahead == {"1": 95.5, "2": 120.5, "3": 123, "4": 126}
    assert [p.value for p in ranking.keys["mount:soft"]] == ["on", "off"]  # soft mounts placed better
    assert ranking.best_combination["mount:readahead"] == "4" and ranking.best_combination["iothreads"] == "4"


def test_sluggish_points_are_used_when_none_stayed_responsive_and_unresponsive_ones_named():
    levels = {"1": "sluggish", "2": "unresponsive", "4": "sluggish", "8": "unresponsive", "18": "sluggish", "32": "sluggish"}
    points = [dataclasses.replace(p, responsiveness=levels[p.params["numjobs"]]) for p in openbsd_points("read")]
    spot = sweet_spot(points, NUMJOBS_AXIS)
    # 8 jobs (the best) are out: 18 jobs give 439,661 IOPS, and 4 jobs reach only 76% of it.
    assert spot.params == {"numjobs": "18"}
    assert "sluggish ones were used (left out as unresponsive: numjobs=2; numjobs=8)" in spot.why


async def test_stop_during_the_baseline_leaves_the_point_pending(tmp_path):
    class BaselineSession:
        """Like RunSession before fio starts: no runner yet, and request_stop alone would not stop it."""

        runner = None

        def request_stop(self, ended_by="user"):
            pass

        async def run(self):
            await asyncio.sleep(30)
            raise AssertionError("the point should have been cancelled")

    runner_box = {}

    async def start_point(point, emit):
        asyncio.get_running_loop().call_later(0.05, runner_box["runner"].request_stop)
        return BaselineSession()

    runner = SweepRunner(new_sweep(), start_point=start_point, runs_dir=tmp_path)
    runner_box["runner"] = runner
    result = await asyncio.wait_for(runner.run(), 5)
    assert result.status == "stopped"
    assert [p.status for p in result.points] == ["pending"] * 3
