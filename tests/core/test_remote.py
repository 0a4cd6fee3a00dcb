"""Multi-host pieces without a network: ssh words, host lists, alignment, aggregate."""

from __future__ import annotations

import subprocess

import pytest

from iotui.core.remote.aggregate import aggregate_sections, host_sections, version_warning
from iotui.core.remote.alignment import Aligner, HostDeriver
from iotui.core.remote.lifeline_script import can_hold, clock_offset, is_prerun_note
from iotui.core.remote.transport import (
    RemoteError,
    parse_hosts,
    read_hosts_file,
    ssh_command,
    ssh_config_hosts,
)


def test_ssh_command_is_split_like_a_shell_and_always_in_batch_mode():
    assert ssh_command(None, env={}) == ["ssh", "-o", "BatchMode=yes"]
    env = {"IOTUI_SSH": "ssh -p 2222 -i '/keys/my key'"}
    assert ssh_command(None, env=env) == ["ssh", "-o", "BatchMode=yes", "-p", "2222", "-i", "/keys/my key"]
    assert ssh_command("/opt/ssh -F cfg", env=env) == ["/opt/ssh", "-o", "BatchMode=yes", "-F", "cfg"]
    with pytest.raises(RemoteError, match="cannot be split"):
        ssh_command("ssh -i 'unbalanced", env={})


def test_hosts_from_a_list_and_a_file(tmp_path):
    assert parse_hosts("h1, user@h2,h1\nh3") == ["h1", "user@h2", "h3"]
    with pytest.raises(RemoteError, match="not an ssh destination"):
        parse_hosts("h1,-oProxyCommand=touch x")
    hosts_file = tmp_path / "hosts"
    hosts_file.write_text("# the NFS clients\nclient-a\n\nroot@client-b  # second\n")
    assert read_hosts_file(hosts_file) == ["client-a", "root@client-b"]
    with pytest.raises(RemoteError, match="missing: cannot read the hosts file"):
        read_hosts_file(tmp_path / "missing")


def test_ssh_config_host_entries_without_patterns(tmp_path):
    config = tmp_path / "config"
    config.write_text("Host nfs1 nfs2\n  User bench\nHost *.lab !x\nhost ceph-client\nMatch all\n")
    assert ssh_config_hosts(config) == ["nfs1", "nfs2", "ceph-client"]
    assert ssh_config_hosts(tmp_path / "none") == []


def test_fio_holds_its_jobs_only_where_every_job_name_is_one_shell_word():
    # fio's prerun runs as sh -c "PRERUN > JOBNAME.prerun.txt": the name is read by a shell.
    assert can_hold(["--thread", "--name=randread", "--rw=randread", "--name=w-2.x", "--stonewall"])
    assert not can_hold(["--name=a b"])
    assert not can_hold(["--name=w", "--name=$(touch x)"])
    assert not can_hold(["--name=w;reboot"])
    assert not can_hold(["--rw=read"])  # no job name at all: nothing is held
    assert is_prerun_note("randread : Saving output of prerun in randread.prerun.txt")
    assert not is_prerun_note("randread : Saving output of prerun in other.prerun.txt")
    assert not is_prerun_note("fio: pid=12, err=5/file:io_u.c:1845, func=io_u error")


def test_a_clock_answer_gives_the_offset_within_half_the_round_trip():
    # The host said 1,000,000.250 s while iotui asked at 999,999.000 and heard back at 1,000,001.000.
    offset_ms, rtt_ms = clock_offset("1000000250000000", 999_999.0, 1_000_001.0)
    assert rtt_ms == 2000.0 and offset_ms == 250.0
    assert clock_offset("1700000000N", 1.0, 2.0) is None  # a date without nanoseconds
    assert clock_offset("", 1.0, 2.0) is None
    assert clock_offset("9" * 40, 1.0, 2.0) is None


def _doc(timestamp_ms: int, jobs: list[tuple[int, int, int]]) -> dict:
    """A status document: per job (job_runtime_ms, write runtime_ms, write total_ios)."""
    return {
        "timestamp_ms": timestamp_ms,
        "jobs": [
            {
                "jobname": f"j{index}",
                "groupid": index,
                "job_runtime": job_runtime,
                "write": {"total_ios": ios, "io_bytes": ios * 4096, "runtime": runtime,
                          "clat_ns": {"N": ios, "mean": 1000.0, "bins": {"1000": ios} if ios else {}}},
            }
            for index, (job_runtime, runtime, ios) in enumerate(jobs)
        ],
    }


def test_host_rates_come_from_its_own_job_runtime_not_its_wall_clock():
    deriver = HostDeriver("h1")
    # The second job has not started: fio can report the time since boot as its job_runtime.
    (first,) = deriver.feed(_doc(10_000, [(1000, 1000, 500), (1_209_132, 0, 0)]), arrived_s=1.1)
    assert first.sample.dt_s == pytest.approx(1.0)
    assert first.sample.directions["write"].iops == pytest.approx(500)
    # The wall clock jumped 60 s; the jobs ran 1 s more and did 400 I/Os.
    (second,) = deriver.feed(_doc(70_000, [(2000, 2000, 900), (1_210_132, 0, 0)]), arrived_s=2.1)
    assert second.sample.dt_s == pytest.approx(1.0)
    assert second.sample.directions["write"].iops == pytest.approx(400)


def test_a_status_begun_while_the_jobs_were_held_is_not_used_for_intervals_or_the_start():
    # As fio 3.33 printed it (exec_prerun held the job 3.6 s): the status begun during the hold
    # comes out when the job starts, job_runtime 1049 from before the job's clock, no runtime
    # in any direction, 1 I/O; the next one, 14 ms later, is the job's own 450 ms and 44 I/Os.
    from iotui.core.remote.record import HostState

    held, own = _doc(1_000_000, [(1049, 0, 1)]), _doc(1_000_450, [(450, 450, 44)])
    deriver = HostDeriver("h1")
    assert deriver.feed(held, arrived_s=0.02) == []
    (interval,) = deriver.feed(own, arrived_s=0.46)
    assert interval.sample.dt_s == pytest.approx(0.45)
    assert interval.sample.directions["write"].iops == pytest.approx(44 / 0.45)
    state = HostState("h1", None)
    state.take_document(held, arrived_monotonic=0.0, at_s=0.02)
    assert state.first_start_remote_ms is None
    state.take_document(own, arrived_monotonic=0.0, at_s=0.46)
    assert state.first_start_remote_ms == pytest.approx(1_000_000.0)


def test_a_later_section_s_job_counts_no_runtime_until_it_has_done_i_o():
    # As fio 3.33 printed it for two sections (the second with stonewall) started before the
    # barrier: the waiting job reports the time since fio's start (6,372 ms, growing).
    from iotui.core.remote.record import HostState

    deriver = HostDeriver("h1")
    docs = [
        _doc(1_000_163, [(163, 163, 9), (6372, 0, 0)]),
        _doc(1_001_255, [(1255, 1255, 113), (7464, 0, 0)]),
        _doc(1_003_006, [(3002, 3003, 295), (9466, 0, 0)]),
        _doc(1_003_918, [(3002, 3003, 295), (912, 912, 92)]),
        _doc(1_004_935, [(3002, 3003, 295), (1928, 1928, 189)]),
    ]
    intervals = [interval for index, doc in enumerate(docs) for interval in deriver.feed(doc, arrived_s=index + 0.2)]
    assert [round(i.sample.dt_s, 3) for i in intervals] == [0.163, 1.092, 1.747, 0.912, 1.016]
    assert [i.sample.groupid for i in intervals] == [0, 0, 0, 1, 1]
    assert intervals[-1].sample.directions["write"].iops == pytest.approx(97 / 1.016)
    state = HostState("h1", None)
    state.take_document(docs[0], arrived_monotonic=0.0, at_s=0.2)
    assert state.first_start_remote_ms == pytest.approx(1_000_000.0)


def test_a_section_ending_inside_an_interval_is_rated_over_its_own_runtime():
    deriver = HostDeriver("h1")
    deriver.feed(_doc(1000, [(1000, 1000, 500), (0, 0, 0)]), arrived_s=1.0)
    # j0 ran 0.2 s more (100 I/Os) and ended; j1 ran 0.5 s (250 I/Os).
    ending, starting = deriver.feed(_doc(2000, [(1200, 1200, 600), (500, 500, 250)]), arrived_s=2.0)
    # Both sections wrote: one second each, at 500 IOPS over its own runtime, never mixed.
    assert (ending.sample.groupid, starting.sample.groupid) == (0, 1)
    assert (ending.sample.dt_s, starting.sample.dt_s) == (pytest.approx(0.2), pytest.approx(0.5))
    assert ending.sample.directions["write"].iops == pytest.approx(100 / 0.2)
    assert starting.sample.directions["write"].iops == pytest.approx(250 / 0.5)


def _interval(host: str, iops: int, arrived_s: float):
    deriver = HostDeriver(host)
    (interval,) = deriver.feed(_doc(1000, [(1000, 1000, iops)]), arrived_s=arrived_s)
    return interval


def test_the_aggregate_sums_the_hosts_latest_and_counts_live_hosts():
    aligner = Aligner(["a", "b", "c"])
    assert aligner.add(_interval("a", 500, 1.0)) == []
    assert aligner.add(_interval("b", 500, 1.05)) == []
    (aggregate,) = aligner.add(_interval("c", 500, 1.1))
    assert aggregate.hosts_label == "3/3 hosts"
    assert aggregate.sample.directions["write"].iops == pytest.approx(1500)
    assert aggregate.sample.directions["write"].lat_percentiles_ns["p99"] == 1000
    aligner.mark_failed("b")
    assert aligner.add(_interval("a", 500, 2.0)) == []
    (aggregate,) = aligner.add(_interval("c", 500, 2.1))
    assert aggregate.hosts_label == "2/3 hosts"
    assert aggregate.sample.directions["write"].iops == pytest.approx(1000)
    # A host that stays silent does not hold the aggregate back for long.
    assert aligner.add(_interval("a", 500, 3.0)) == []
    assert aligner.tick(3.5) == []
    (late,) = aligner.tick(4.7)
    assert late.hosts_label == "1/3 hosts"


def test_a_host_reporting_twice_in_a_round_does_not_split_the_aggregate():
    aligner = Aligner(["a", "b", "c"])
    for host, at in (("a", 1.0), ("b", 1.05), ("c", 1.1)):
        aggregates = aligner.add(_interval(host, 500, at))
    assert len(aggregates) == 1
    # a's next two documents come before b's and c's (jitter on the way).
    assert aligner.add(_interval("a", 500, 2.0)) == []
    assert aligner.add(_interval("a", 500, 2.95)) == []
    assert aligner.add(_interval("b", 500, 3.0)) == []
    (aggregate,) = aligner.add(_interval("c", 500, 3.05))
    assert aggregate.hosts_label == "3/3 hosts"
    assert aggregate.sample.directions["write"].iops == pytest.approx(1500)
    # At the end each host finishes; the last round holds all three.
    aligner.add(_interval("a", 500, 4.0))
    assert aligner.mark_finished("a", 4.0) == []
    aligner.add(_interval("b", 500, 4.1))
    assert aligner.mark_finished("b", 4.1) == []
    (aggregate,) = aligner.add(_interval("c", 500, 4.2))
    assert aggregate.hosts_label == "3/3 hosts"


@pytest.fixture(scope="module")
def fio_reports(tmp_path_factory):
    """Two real fio reports of a rate-limited write job (two 'hosts')."""
    import json

    reports = {}
    for name in ("h1", "h2"):
        directory = tmp_path_factory.mktemp(name)
        done = subprocess.run(
            ["fio", "--output-format=json+", "--thread", "--name=w", f"--filename={directory}/f",
             "--size=2M", "--rw=randwrite", "--bs=4k", "--rate_iops=400", "--runtime=1", "--time_based",
             "--ioengine=psync"],
            capture_output=True, text=True, check=True,
        )
        reports[name] = json.loads(done.stdout[done.stdout.index("{"):])
    return reports


@pytest.mark.fio
def test_one_host_keeps_fios_own_numbers(fio_reports):
    doc = fio_reports["h1"]
    fio_write = doc["jobs"][0]["write"]
    (section,) = host_sections(doc)
    assert section["write"]["iops"] == fio_write["iops"]
    assert section["write"]["lat_p99_ns"] == fio_write["clat_ns"]["percentile"]["99.000000"]
    assert section["cpu"]["fio_cpu_cores"] == pytest.approx((doc["jobs"][0]["usr_cpu"] + doc["jobs"][0]["sys_cpu"]) / 100)


@pytest.mark.fio
def test_the_aggregate_sums_rates_and_merges_latency_bins(fio_reports):
    writes = [doc["jobs"][0]["write"] for doc in fio_reports.values()]
    (aggregate,) = aggregate_sections(fio_reports)
    assert aggregate["hosts"] == 2
    assert aggregate["write"]["iops"] == pytest.approx(sum(w["iops"] for w in writes))
    assert aggregate["write"]["bw_bytes"] == sum(w["bw_bytes"] for w in writes)
    assert aggregate["write"]["total_ios"] == sum(w["total_ios"] for w in writes)
    counts = [w["clat_ns"]["N"] for w in writes]
    weighted = sum(w["clat_ns"]["mean"] * n for w, n in zip(writes, counts)) / sum(counts)
    assert aggregate["write"]["lat_mean_ns"] == pytest.approx(weighted)
    assert aggregate["write"]["lat_max_ns"] == max(w["clat_ns"]["max"] for w in writes)
    p50s = [w["clat_ns"]["percentile"]["50.000000"] for w in writes]
    assert min(p50s) <= aggregate["write"]["lat_p50_ns"] <= max(p50s)
    cores = [(doc["jobs"][0]["usr_cpu"] + doc["jobs"][0]["sys_cpu"]) / 100 for doc in fio_reports.values()]
    assert aggregate["cpu"]["fio_cpu_cores"] == pytest.approx(sum(cores))
    assert aggregate["cpu"]["iops_per_fio_core"] == pytest.approx(aggregate["write"]["iops"] / sum(cores))


def test_different_fio_versions_are_named_in_a_warning():
    assert version_warning({"a": "fio-3.33", "b": "fio-3.33"}) is None
    warning = version_warning({"a": "fio-3.33", "b": "fio-3.36"})
    assert warning is not None and "a fio-3.33" in warning and "b fio-3.36" in warning



def _multi_host_record():
    import datetime as dt

    from iotui.core.records.record import RunRecord

    def section(iops: float) -> dict:
        return {"name": "w", "jobs": ["w"], "groupid": 0, "write": {"iops": iops, "bw_bytes": int(iops) * 4096}}

    return RunRecord(
        run={"id": "x" * 32, "preset": "quick", "title": "Quick", "status": "completed",
             "started": dt.datetime(2026, 11, 23, tzinfo=dt.timezone.utc), "duration_s": 3.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "ctl", "system": "Linux", "kernel": "6.1", "cpu_model": "x", "cpu_count": 2,
              "mem_total_bytes": 1 << 30},
        target={"path": "/mnt/nfs", "filesystem": "nfs4", "device": "remote", "mount_options": ""},
        sections=[section(1000.0)],
        hosts=[{"name": "h1", "kernel": "6.2", "sections": [section(600.0)], "samples": []},
               {"name": "h2", "failed_at_s": 1.5, "sections": [section(400.0)], "samples": []}],
    )


def test_a_multi_host_record_compares_and_exports_per_host_and_in_aggregate():
    from iotui.core.remote.split import per_host
    from iotui.core.records.export import export_table

    views = per_host([_multi_host_record()])
    assert [v.host["hostname"] for v in views] == ["all 2 hosts", "h1", "h2"]
    assert [v.metric("write", "iops") for v in views] == [1000.0, 600.0, 400.0]
    assert views[1].host["kernel"] == "6.2" and views[2].warnings[0]["code"] == "host-failed"
    table = export_table(views)
    assert ("setting:hostname", "hostname") in table.columns
    assert [(row["setting:hostname"], row["iops"]) for row in table.rows] == [
        ("all 2 hosts", 1000.0), ("h1", 600.0), ("h2", 400.0)
    ]


# A "host" whose ssh is ready, then ignores the stop line, end-of-file and SIGTERM: only SIGKILL ends it.
STUBBORN_SSH = ["sh", "-c", 'trap "" TERM; echo "IOTUI-READY /nowhere" >&2; while :; do sleep 0.2; done', "stubborn"]


async def test_a_stop_ends_every_stubborn_host_at_once_within_its_bounds():
    import asyncio
    import time

    from iotui.core.remote import session as remote_session
    from iotui.core.remote.lifeline import STOP_GRACE_S, HostRunner
    from iotui.core.remote.plan import RemotePlan

    hosts = [f"h{index}" for index in range(6)]
    plan = RemotePlan(preset_name="t", title="", hosts=hosts, ssh=[], target=None, fio_args=[], options={})
    runners: list[HostRunner] = []

    def stubborn(host: str) -> HostRunner:
        runner = HostRunner(["ssh"], host, None, [])
        runner.argv = list(STUBBORN_SSH)
        runners.append(runner)
        return runner

    session = remote_session.MultiHostSession(plan, runs_dir=None, runner_factory=stubborn)
    running = asyncio.ensure_future(session.run())
    for _ in range(200):
        if session.released_at is not None:
            break
        await asyncio.sleep(0.05)
    assert session.released_at is not None
    began = time.monotonic()
    session.request_stop()
    # Written at once, before the event loop's next turn (where a backlog of 128 hosts' output held it 10 s).
    assert all(runner.process is not None and runner.process.stdin is not None
               and runner.process.stdin.is_closing() for runner in runners)
    # Before, the run waited on these hosts for ever (SIGTERM was the last word).
    record = await asyncio.wait_for(running, 30)
    took_s = time.monotonic() - began
    assert record.status == "stopped"
    assert all(runner.process is not None and runner.process.returncode is not None for runner in runners)
    # Bounded and all at once: the stop's grace, 2 s after SIGTERM, then SIGKILL, not 6 times that.
    assert took_s < STOP_GRACE_S + 1.0 + 2.0 + 3.0, took_s


@pytest.mark.fio
def test_the_aggregate_options_say_what_ran_on_each_host_not_the_host_count(tmp_path):
    """fio's report of 3 jobs at 4k on each of 2 hosts: the aggregate is 4k, 3 jobs, iodepth 2, on 2 hosts."""
    import json

    reports = {}
    for name in ("h1", "h2"):
        done = subprocess.run(
            ["fio", "--output-format=json", "--thread", "--bs=4k", "--iodepth=2", "--numjobs=3",
             "--group_reporting", "--rw=randread", "--size=1M", "--runtime=1", "--rate_iops=50",
             f"--directory={tmp_path}", f"--name={name}job", "--ioengine=psync"],
            capture_output=True, text=True, check=True,
        )
        reports[name] = json.loads(done.stdout[done.stdout.index("{"):])
    (aggregate,) = aggregate_sections(reports)
    options = aggregate["options"]
    assert (options["bs"], options["iodepth"], options["numjobs"]) == ("4k", "2", "3")
    assert aggregate["hosts"] == 2
    (own,) = host_sections(reports["h1"])
    assert own["options"]["numjobs"] == "3"


def test_a_host_s_offset_is_the_middle_of_what_its_clock_exchange_and_its_documents_allow():
    from types import SimpleNamespace

    from iotui.core.remote.record import HostState

    state = HostState("h1", None)
    assert state.offset_ms is None
    state.clock_offset_ms = -12.0  # from its documents: the true offset is not below it
    assert state.offset_ms == -12.0
    # The exchange: -521 ms +- 543 ms (a 1,086-ms round trip on a busy machine).
    state.runner = SimpleNamespace(clock_offset_ms=-521.0, clock_rtt_ms=1086.0)  # type: ignore[assignment]
    assert state.offset_ms == pytest.approx((-12.0 + 22.0) / 2)
    # Documents that disagree with the exchange (a clock that jumped) leave the exchange alone.
    state.clock_offset_ms = 400.0
    assert state.offset_ms == pytest.approx(-521.0)



def test_a_host_is_not_called_silent_while_iotui_itself_is_behind(monkeypatch):
    """128 loopback hosts on two cores left iotui seconds behind; hosts whose documents waited in
    their pipes were failed as silent. Silence is judged only once iotui has kept time again."""
    from iotui.core.remote import session as remote_session
    from iotui.core.remote.plan import RemotePlan
    from iotui.core.remote.record import STALL_S
    from iotui.core.remote.silence import CAUGHT_UP_S

    plan = RemotePlan(preset_name="t", title="", hosts=["h1", "h2"], ssh=[], target=None, fio_args=[], options={})
    session = remote_session.MultiHostSession(plan, runs_dir=None)
    session.released_at = 0.0
    clock = [100.0]
    monkeypatch.setattr(session, "now_s", lambda: clock[0])
    session.states["h1"].last_arrival_s = 100.0 - STALL_S - 5.0  # silent for longer than the limit
    session.states["h2"].last_arrival_s = 99.5

    session.silence.last_tick_s = 99.0  # this tick comes a second after the last: iotui did not run
    session._tick()
    assert session.states["h1"].failed_at_s is None
    ticks = int(CAUGHT_UP_S / 0.2)
    for index in range(1, ticks):  # on time again, but not yet for CAUGHT_UP_S
        clock[0] = 100.0 + 0.2 * index
        session._tick()
        assert session.states["h1"].failed_at_s is None, clock[0]
    clock[0] = 100.0 + 0.2 * ticks + 0.05
    session._tick()  # on time for CAUGHT_UP_S: every pipe has been read, h1 is silent
    assert session.states["h1"].failed_at_s == pytest.approx(clock[0])
    assert session.states["h2"].failed_at_s is None


def test_a_round_whose_hosts_cross_a_section_makes_one_row_per_section_and_counts_every_i_o_once():
    a, b = HostDeriver("a"), HostDeriver("b")
    aligner = Aligner(["a", "b"])
    # Both hosts 1 s into section 0 (500 I/Os each).
    assert aligner.add(*a.feed(_doc(1000, [(1000, 1000, 500), (0, 0, 0)]), arrived_s=1.0)) == []
    (first,) = aligner.add(*b.feed(_doc(1000, [(1000, 1000, 500), (0, 0, 0)]), arrived_s=1.0))
    assert first.sample.groupid == 0 and first.sample.directions["write"].iops == pytest.approx(1000)
    # a crossed into section 1 (0.2 s and 100 I/Os of section 0 left, 0.8 s and 400 of section 1);
    # b sent two documents in the round, both still in section 0 (the second is added, not replaced).
    assert aligner.add(*b.feed(_doc(1500, [(1500, 1500, 750), (0, 0, 0)]), arrived_s=1.5)) == []
    assert aligner.add(*b.feed(_doc(2000, [(2000, 2000, 1000), (0, 0, 0)]), arrived_s=2.0)) == []
    section_0, section_1 = aligner.add(*a.feed(_doc(2000, [(1200, 1200, 600), (800, 800, 400)]), arrived_s=2.05))
    assert (section_0.sample.groupid, section_1.sample.groupid) == (0, 1)
    assert sorted(section_0.hosts) == ["a", "b"] and section_1.hosts == ["a"]
    assert section_0.live_hosts == section_1.live_hosts == 2
    # Rates add (both hosts ran at 500 IOPS); rate x span is every host's I/Os of the section.
    ios_0 = section_0.sample.directions["write"].iops * section_0.sample.dt_s
    assert section_0.sample.directions["write"].iops == pytest.approx(1000)
    assert ios_0 == pytest.approx(100 + 500)
    assert section_1.sample.directions["write"].iops * section_1.sample.dt_s == pytest.approx(400)
    assert section_1.sample.directions["write"].lat_percentiles_ns["p99"] == 1000
