"""The lifeline with real fio, run by a local shell in place of ssh (no sshd needed)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from iotui.core.fio.status import FioDocument
from iotui.core.remote import session as remote_session
from iotui.core.remote import silence
from iotui.core.remote.lifeline import HostEnded, HostPaused, HostReady, HostRunner
from iotui.core.remote.lifeline_script import HOLD_BEFORE_BARRIER
from iotui.core.remote.plan import RemotePlan
from tests.waiting import wait_for

pytestmark = pytest.mark.fio

# Runs the remote command string the way sshd hands it to the user's shell.
LOCAL_SHELL = ["sh", "-c", 'exec sh -c "$3"', "local"]
JOB = ["--output-format=json+", "--status-interval=1", "--eta=never", "--thread", "--name=w",
       "--filename=iotui.fio-test", "--size=2M", "--rw=randwrite", "--rate_iops=200",
       "--runtime=30", "--time_based", "--ioengine=psync"]


async def _collect(runner: HostRunner, *, release: bool, stop_after_docs: int | None):
    events = []
    docs = 0
    async for event in runner.events():
        events.append(event)
        if isinstance(event, HostReady) and release:
            runner.release()
        if isinstance(event, FioDocument):
            docs += 1
            if stop_after_docs is not None and docs == stop_after_docs:
                asyncio.ensure_future(runner.stop())
    return events


def _fio_in(directory) -> list[str]:
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.readlink(f"/proc/{pid}/cwd").startswith(str(directory)) and \
                        open(f"/proc/{pid}/comm").read().strip() == "fio":
                    pids.append(pid)
            except OSError:
                continue
    return pids


async def test_a_line_on_stdin_stops_fio_with_its_final_report_and_cleans_up(tmp_path):
    runner = HostRunner(LOCAL_SHELL, "local", str(tmp_path), JOB)
    await runner.start()
    events = await asyncio.wait_for(_collect(runner, release=True, stop_after_docs=2), 30)
    ready = [e for e in events if isinstance(e, HostReady)]
    assert ready and os.path.dirname(ready[0].directory) == str(tmp_path)
    docs = [e.doc for e in events if isinstance(e, FioDocument)]
    assert len(docs) >= 3  # two status documents and the final report
    assert docs[-1]["jobs"][0]["write"]["total_ios"] > 0
    # fio's exit status when a signal ended it is 128 (its sig_int handler sets it).
    assert isinstance(events[-1], HostEnded) and events[-1].exit_status in (0, 128)
    assert list(tmp_path.iterdir()) == []


async def test_end_of_stdin_before_the_barrier_ends_everything(tmp_path):
    runner = HostRunner(LOCAL_SHELL, "local", str(tmp_path), JOB)
    await runner.start()

    async def close_when_ready():
        async for event in runner.events():
            if isinstance(event, HostReady):
                await runner.stop()
            if isinstance(event, HostEnded):
                return event

    ended = await asyncio.wait_for(close_when_ready(), 30)
    assert ended.exit_status == 98
    assert _fio_in(tmp_path) == [] and list(tmp_path.iterdir()) == []


async def test_the_private_directory_is_mode_0700(tmp_path):
    runner = HostRunner(LOCAL_SHELL, "local", str(tmp_path), JOB)
    await runner.start()
    async for event in runner.events():
        if isinstance(event, HostReady):
            assert os.stat(event.directory).st_mode & 0o777 == 0o700
            # The test file; with the held start, also the lifeline's own: the gate fio's held job
            # waits at and fio's pid (fio starts only after go without it).
            held = [".iotui-fio", ".iotui-go"] if HOLD_BEFORE_BARRIER else []
            listed = sorted(os.listdir(event.directory))
            await runner.stop()
            assert listed == [*held, "iotui.fio-test"]
    assert list(tmp_path.iterdir()) == []


def _state(pid: str) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rpartition(")")[2].split()[0]


async def test_pause_and_resume_stop_and_continue_fio_and_a_stop_while_paused_still_ends_it(tmp_path):
    runner = HostRunner(LOCAL_SHELL, "local", str(tmp_path), JOB)
    assert not runner.pause()  # nothing to pause before the barrier
    await runner.start()
    events = runner.events()

    async def next_of(kind):
        async for event in events:
            if isinstance(event, HostReady):
                assert not runner.pause()  # not yet released: fio is not running
                runner.release()
            if isinstance(event, kind):
                return event
        raise AssertionError(f"no {kind.__name__}")

    await asyncio.wait_for(next_of(FioDocument), 30)
    [fio] = _fio_in(tmp_path)
    try:
        assert runner.pause()
        assert (await asyncio.wait_for(next_of(HostPaused), 10)).paused
        # The host says paused once kill -STOP returned; fio stops as it next takes the signal.
        await wait_for(lambda: _state(fio) == "T", what="fio stopped")
        assert runner.resume()
        assert not (await asyncio.wait_for(next_of(HostPaused), 10)).paused
        await wait_for(lambda: _state(fio) != "T", what="fio running again")
        await asyncio.wait_for(next_of(FioDocument), 10)  # it reports again
        assert runner.pause()
        assert (await asyncio.wait_for(next_of(HostPaused), 10)).paused
        await runner.stop()  # continued so that SIGINT reaches it: its final report, then its exit
        ended = await asyncio.wait_for(next_of(HostEnded), 10)
        assert ended.exit_status in (0, 128)
        assert _fio_in(tmp_path) == [] and list(tmp_path.iterdir()) == []
    except BaseException:
        # A failure above must not leave fio stopped: its runner's task would never end.
        for signum in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(int(fio), signum)
            except (ProcessLookupError, ValueError):
                break
        raise


@pytest.mark.slow
async def test_paused_hosts_are_not_judged_silent_and_each_counts_the_pause(tmp_path, monkeypatch):
    # The silence limit made 1 s, so that a pause of 2.5 s would fail both hosts if it were judged.
    monkeypatch.setattr(silence, "STALL_S", 1.0)
    hosts = ["a", "b"]
    job = [arg for arg in JOB if not arg.startswith("--runtime")] + ["--runtime=3"]
    for host in hosts:
        (tmp_path / host).mkdir()
    plan = RemotePlan(preset_name="t", title="", hosts=hosts, ssh=[], target=None, fio_args=job, options={})
    paused = asyncio.Event()
    session = remote_session.MultiHostSession(
        plan, runs_dir=None, runner_factory=lambda host: HostRunner(LOCAL_SHELL, host, str(tmp_path / host), job),
        on_event=lambda event: isinstance(event, remote_session.AggregateUpdate) and not paused.is_set()
        and session.pause() and paused.set(),
    )
    running = asyncio.ensure_future(session.run())
    await asyncio.wait_for(paused.wait(), 30)
    for _ in range(100):  # the line is on its way: each lifeline stops its fio a moment later
        if sorted(_state(pid) for host in hosts for pid in _fio_in(tmp_path / host)) == ["T", "T"]:
            break
        await asyncio.sleep(0.05)
    assert sorted(_state(pid) for host in hosts for pid in _fio_in(tmp_path / host)) == ["T", "T"]
    await asyncio.sleep(2.5)
    assert session.resume()
    record = await asyncio.wait_for(running, 30)
    assert record.status == "completed", record.warnings
    assert record.paused_s == pytest.approx(2.5, abs=0.3)
    for host in record.hosts:
        assert "failed_at_s" not in host
        assert host["paused_s"] == pytest.approx(record.paused_s, abs=0.05)
        assert host["sections"][0]["paused_s"] == pytest.approx(host["paused_s"], abs=0.01)
    assert [_fio_in(tmp_path / host) for host in hosts] == [[], []]
