"""sysbench fileio: the report parser on real output, the fio -> sysbench translation, a live run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from iotui.core.host.counters import HostSampler
from iotui.core.records.files import load_record
from iotui.core.runs.events import RunFinished
from iotui.core.runs.plan import RunPlan
from iotui.core.sysbench.session import WORK_DIR_PREFIX, SysbenchSession
from iotui.core.sysbench.workload import (
    SysbenchError,
    fio_seconds,
    latency_warnings,
    parse_sysbench_output,
    summary_from_report,
    sysbench_workload,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sysbench"
MIB = 1 << 20

requires_sysbench = pytest.mark.skipif(
    shutil.which("sysbench") is None,
    reason="sysbench is not installed (sudo apt-get install sysbench; bash .ci/run installs it)",
)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_parses_a_mixed_report_with_fsyncs():
    report = parse_sysbench_output(fixture("rndrw-sync-fsync100-4files.txt"))
    assert report.version == "1.0.20" and report.threads == 1 and report.block_size_bytes == 16384
    assert (report.reads_per_s, report.writes_per_s, report.fsyncs_per_s) == (33344.34, 22229.89, 2224.29)
    assert (report.read_mib_per_s, report.written_mib_per_s) == (521.01, 347.34)
    assert report.total_time_s == 2.0007 and report.total_events == 115786
    assert (report.lat_min_ms, report.lat_avg_ms, report.lat_max_ms) == (0.0, 0.02, 4.27)
    assert report.lat_percentile == 95 and report.lat_percentile_ms == 0.01


def test_summary_keys_map_only_what_sysbench_reports():
    report = parse_sysbench_output(fixture("rndrw-sync-fsync100-4files.txt"))
    summary = summary_from_report(report)
    read, write = summary["read"], summary["write"]
    assert read["iops"] == 33344.34 and write["iops"] == 22229.89
    assert read["bw_bytes"] == pytest.approx(521.01 * MIB)
    assert read["total_ios"] == round(33344.34 * 2.0007)
    assert read["io_bytes"] == read["total_ios"] * 16384
    assert read["lat_mean_ns"] == pytest.approx(20_000) and read["lat_max_ns"] == pytest.approx(4_270_000)
    assert read["lat_p95_ns"] == pytest.approx(10_000)
    for missing in ("lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99_9_ns"):
        assert missing not in read  # sysbench has no such figure; none is invented
    assert summary["sysbench"]["fsyncs_per_s"] == 2224.29
    warnings = latency_warnings(report)
    assert any("reads, writes, fsyncs together" in w for w in warnings)


def test_read_only_report_has_no_write_table():
    report = parse_sysbench_output(fixture("rndrd-sync-4files.txt"))
    summary = summary_from_report(report)
    assert "write" not in summary and summary["read"]["iops"] == 265599.37
    assert summary["read"]["lat_mean_ns"] == 0.0
    assert any("below 5 µs" in w for w in latency_warnings(report))


def test_parses_the_articles_sysbench_1_0_9_report():
    # Seed 001: (34.12 + 22.75) MiB/s * 1024 / 16 KiB ~ 3554 IOPS, the article's own figure.
    report = parse_sysbench_output(fixture("sysbench-1.0.9-article.txt"))
    summary = summary_from_report(report, block_size_bytes=16384)
    assert summary["read"]["iops"] + summary["write"]["iops"] == pytest.approx(3639.6)
    from_bandwidth = (summary["read"]["bw_bytes"] + summary["write"]["bw_bytes"]) / 16384
    assert from_bandwidth == pytest.approx(3639.7, rel=0.01)
    assert summary["sysbench"]["fsyncs_per_s"] == 4658.67
    assert summary["read"]["lat_p95_ns"] == pytest.approx(350_000)


@pytest.mark.parametrize("name", ["rndrw-async-direct.txt", "rndwr-2threads.txt", "seqrd-1file.txt"])
def test_every_captured_report_parses(name):
    report = parse_sysbench_output(fixture(name))
    assert report.total_events > 0 and report.total_time_s > 0


def test_a_failed_run_quotes_sysbench():
    with pytest.raises(SysbenchError, match="FATAL: Cannot open file 'test_file.0'"):
        parse_sysbench_output(fixture("error-not-prepared.txt"))
    with pytest.raises(SysbenchError, match="sysbench 1.0"):
        parse_sysbench_output("Operations performed:  2183 Read, 1455 Write\n")


def test_the_study_workload_translates_to_sysbench_options():
    # seed 001: 16 KiB, reads:writes 1.5 (60/40), fsync every 100 requests, 128 files.
    workload = sysbench_workload(
        {"rw": "randrw", "rwmixread": "60", "bs": "16k", "size": "1G", "nrfiles": "128", "fsync": "100",
         "ioengine": "psync", "runtime": "1m", "time_based": "1", "ramp_time": "2"}
    )
    assert workload.options == {
        "file-test-mode": "rndrw", "file-num": "128", "file-block-size": "16384", "file-total-size": str(1 << 30),
        "file-rw-ratio": "1.5", "file-io-mode": "sync", "file-fsync-freq": "100", "file-fsync-end": "off",
        "threads": "1", "time": "60", "events": "0",
    }
    assert workload.not_translated == ("ramp_time",)
    aio = sysbench_workload({"rw": "randrw", "bs": "16k", "size": "64M", "ioengine": "libaio", "iodepth": "32", "direct": "1"})
    assert aio.options["file-io-mode"] == "async" and aio.options["file-async-backlog"] == "32"
    assert aio.options["file-extra-flags"] == "direct" and aio.options["file-fsync-freq"] == "0"
    assert aio.options["file-rw-ratio"] == "1"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"rw": "rw", "size": "1M"}, "no equivalent of rw=rw"),
        ({"rw": "randread", "size": "1M", "ioengine": "io_uring"}, "ioengine=io_uring"),
        ({"rw": "randread"}, "total file size"),
        ({"rw": "randrw", "size": "1M", "bs": "4k,64k"}, "one block size"),
        ({"read.rw": "randread", "write.rw": "randwrite", "size": "1M"}, "several job sections"),
    ],
)
def test_untranslatable_workloads_are_refused(options, message):
    with pytest.raises(SysbenchError, match=message):
        sysbench_workload(options)


def test_fio_time_values():
    assert fio_seconds("30") == 30 and fio_seconds("2m") == 120 and fio_seconds("500ms") == 0.5
    assert fio_seconds("soon") is None


def make_plan(target: Path, options: dict[str, str]) -> RunPlan:
    return RunPlan(
        preset_name="sysbench-compare",
        title="sysbench-style random read/write",
        argv=["fio"],
        options=options,
        target_path=target,
        test_file=target / ".unused",
        target={"path": str(target), "filesystem": "ext4", "device": "unknown", "mount_options": ""},
    )


@pytest.mark.fio
@requires_sysbench
async def test_live_sysbench_run_makes_a_record_and_cleans_up(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    runs = tmp_path / "runs"
    options = {"rw": "randrw", "rwmixread": "60", "bs": "16k", "size": "8M", "nrfiles": "4", "fsync": "100", "runtime": "2"}
    events = []
    session = SysbenchSession(
        make_plan(target, options), sysbench_binary=shutil.which("sysbench"), runs_dir=runs,
        on_event=events.append, sampler=HostSampler([]),
    )
    record = await session.run()
    assert record.status == "completed", record.warnings
    assert record.run["source"] == "sysbench" and record.run["tool_version"].startswith("sysbench 1.")
    assert "--file-num=4" in record.run["argv"]
    assert record.summary["read"]["iops"] > 0 and record.summary["write"]["iops"] > 0
    ratio = record.summary["read"]["iops"] / record.summary["write"]["iops"]
    assert ratio == pytest.approx(1.5, rel=0.1)
    assert record.summary["cpu"]["ctx_switches_per_s"] > 0  # the study's explanation is recorded
    assert any(w["code"] == "sysbench-latency" for w in record.warnings)
    assert list(target.iterdir()) == []  # iotui's hidden directory and sysbench's files are gone
    saved = load_record(record.path)
    assert saved.summary["read"]["iops"] == record.summary["read"]["iops"]
    assert isinstance(events[-1], RunFinished)


@pytest.mark.fio
@requires_sysbench
async def test_a_run_shorter_than_the_host_interval_still_has_its_cpu_figures(tmp_path):
    """A 1 s run with no host sample while it ran (the interval longer than the run, as a busy machine's
    late first sample is) gets one reading over the whole run as it ends."""
    target = tmp_path / "target"
    target.mkdir()
    options = {"rw": "randrw", "rwmixread": "60", "bs": "16k", "size": "8M", "nrfiles": "4", "fsync": "100", "runtime": "1"}
    session = SysbenchSession(make_plan(target, options), sysbench_binary=shutil.which("sysbench"), runs_dir=None,
                              sampler=HostSampler([]), host_interval_s=30.0)
    record = await session.run()
    assert record.status == "completed", record.warnings
    assert record.summary["cpu"]["ctx_switches_per_s"] > 0
    assert len(record.samples) == 1


@pytest.mark.fio
@requires_sysbench
async def test_live_sysbench_failure_still_removes_its_directory(tmp_path):
    # direct I/O with a block size that is not a multiple of the sector size fails in sysbench.
    options = {"rw": "randread", "bs": "1000", "size": "1M", "runtime": "1", "direct": "1"}
    session = SysbenchSession(make_plan(tmp_path, options), sysbench_binary=shutil.which("sysbench"), runs_dir=None)
    record = await session.run()
    assert record.status == "failed"
    assert any(w["code"] == "failed" and "sysbench" in w["message"] for w in record.warnings)
    assert not any(path.name.startswith(WORK_DIR_PREFIX) for path in tmp_path.iterdir())


@pytest.mark.fio
@requires_sysbench
async def test_a_stopped_sysbench_run_keeps_who_stopped_it_and_cannot_pause(tmp_path):
    import asyncio

    options = {"rw": "randread", "bs": "4k", "size": "4M", "runtime": "30"}
    session = SysbenchSession(make_plan(tmp_path, options), sysbench_binary=shutil.which("sysbench"), runs_dir=None)
    running = asyncio.ensure_future(session.run())
    while session._run_started_monotonic is None and not running.done():
        await asyncio.sleep(0.05)
    assert session.pause() is False and session.resume() is False
    session.request_stop("signal:SIGTERM")
    record = await asyncio.wait_for(running, 15)
    assert record.status == "stopped"
    assert record.run["ended_by"] == "signal:SIGTERM"
    assert not any(path.name.startswith(WORK_DIR_PREFIX) for path in tmp_path.iterdir())


def test_fsync_counts_match_sysbench_semantics_in_real_reports():
    # Every N requests (reads and writes) sysbench fsyncs each of its files: the
    # 4-file capture and the article's 128-file report both show it exactly.
    four_files = parse_sysbench_output(fixture("rndrw-sync-fsync100-4files.txt"))
    assert four_files.fsyncs_per_s == pytest.approx((four_files.reads_per_s + four_files.writes_per_s) / 100 * 4, rel=0.01)
    article = parse_sysbench_output(fixture("sysbench-1.0.9-article.txt"))
    assert article.fsyncs_per_s == pytest.approx((article.reads_per_s + article.writes_per_s) / 100 * 128, rel=0.01)
    workload = sysbench_workload({"rw": "randrw", "size": "1M", "fsync": "100", "nrfiles": "128"})
    assert "each of its 128 files" in workload.notes[0]
