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
