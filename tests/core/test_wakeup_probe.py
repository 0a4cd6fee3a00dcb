"""The wake-up probe: its arithmetic and its child process."""

from __future__ import annotations

import os
import time

from iotui.core.host.wakeup_probe import ProbeStats, WakeupProbe, collect_baseline, lateness_stats
from tests.waiting import wait_until


# --- probe arithmetic -------------------------------------------------------------------


def test_lateness_stats_uses_nearest_rank() -> None:
    lateness_ms = [float(value) for value in range(1, 101)]  # 1..100 ms, shuffled below
    lateness_ms.reverse()
    stats = lateness_stats(lateness_ms)
    assert stats == ProbeStats(p50_ms=50.0, p99_ms=99.0, max_ms=100.0, samples=100)
    assert lateness_stats([3.0]) == ProbeStats(3.0, 3.0, 3.0, 1)
    assert lateness_stats([]) is None


def test_a_silent_probe_reports_a_lower_bound_not_stale_figures() -> None:
    probe = WakeupProbe()
    probe.start()
    try:
        wait_until(probe.read_latest, what="the probe's first report", interval_s=0.05)
        # Pretend no report came for 4.5 s: the child is stuck >= 3.5 s late.
        overdue = probe.read_latest(now_s=time.monotonic() + 4.5)
        assert overdue is not None and overdue.samples == 0
        assert 3400.0 < overdue.max_ms < 4600.0
    finally:
        probe.stop()


# --- the real probe ---------------------------------------------------------------------


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_real_probe_reports_plausible_figures_and_its_child_ends() -> None:
    probe = WakeupProbe()
    baseline = await collect_baseline(probe, seconds=1)
    try:
        pid = probe.pid
        assert pid is not None and probe.running
        assert baseline is not None
        latest = probe.read_latest()
        assert latest is not None
        # ~100 sleeps of 10 ms per second (fewer when some wake late).
        assert 20 <= latest.samples <= 101
        assert 0.0 <= latest.p50_ms <= latest.p99_ms <= latest.max_ms
        assert latest.p50_ms < 50.0  # an idle test machine wakes roughly on time
        assert baseline.samples == latest.samples
    finally:
        probe.stop()
    assert not probe.running
    assert probe.read_latest() is None
    assert not _process_exists(pid)


def test_probe_child_exits_when_its_pipe_closes() -> None:
    # What happens when iotui dies: the kernel closes the pipe and the child sees EOF.
    probe = WakeupProbe()
    probe.start()
    process = probe._process
    assert process is not None and process.stdin is not None
    process.stdin.close()
    try:
        assert process.wait(timeout=3) == 0
    finally:
        probe.stop()


async def test_with_a_loop_the_probes_reports_are_read_by_it_and_no_thread(tmp_path) -> None:
    # 128 hosts' probes as 256 threads fought the event loop for the interpreter's lock (the
    # hosts' release took 16 s on two busy cores); a probe given the loop is read by the loop.
    import asyncio
    import threading

    from iotui.core.host.io_probe import IoProbe

    loop = asyncio.get_running_loop()
    wakeup, io = WakeupProbe(), IoProbe(tmp_path, probe_home=False)
    wakeup.loop = io.loop = loop
    wakeup.start()
    io.start()
    try:
        names = {thread.name for thread in threading.enumerate()}
        assert "iotui-wakeup-probe" not in names and "iotui-io-probe" not in names
        for _ in range(100):
            if wakeup.reports_received >= 2 and io.reports_received >= 2:
                break
            await asyncio.sleep(0.05)
        assert wakeup.reports_received >= 2 and io.reports_received >= 2
        assert wakeup.read_latest() is not None and io.read_latest() is not None
    finally:
        wakeup.detach_reader()
        io.detach_reader()
        await asyncio.to_thread(wakeup.stop)
        await asyncio.to_thread(io.stop)
    assert not wakeup.running and not io.running and io.directories == []


def test_a_loop_reader_hands_over_whole_lines_and_lets_go_at_the_end() -> None:
    import asyncio
    import subprocess
    import sys

    from iotui.core.host.probe_child import ReportReader

    async def read() -> list[bytes]:
        child = subprocess.Popen(
            [sys.executable, "-c", "import sys, time\nfor i in range(3):\n    sys.stdout.write(f'line {i}\\n');"
             " sys.stdout.flush(); time.sleep(0.05)\nsys.stdout.write('cut')"],
            stdout=subprocess.PIPE,
        )
        lines: list[bytes] = []
        reader = ReportReader(child, lines.append, "test", asyncio.get_running_loop())
        while reader.watching:  # the reader lets go of the pipe at its end
            await asyncio.sleep(0.02)
        child.wait()
        child.stdout.close()
        return lines

    assert asyncio.run(read()) == [b"line 0", b"line 1", b"line 2"]  # an unfinished last line is not a report
