"""The lifeline with real fio, run by a local shell in place of ssh (no sshd needed)."""

from __future__ import annotations

import asyncio
import os

import pytest

from iotui.core.fio.status import FioDocument
from iotui.core.remote.lifeline import HostEnded, HostReady, HostRunner

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
            assert os.listdir(event.directory) == ["iotui.fio-test"]
            await runner.stop()
    assert list(tmp_path.iterdir()) == []
