"""Sampler, probe and monitor read together; a failing sampler is dropped once."""

from __future__ import annotations

import asyncio
import time

import pytest

from iotui.core.host.counters import HostSample
from iotui.core.host.watch import HostWatch
from iotui.core.host.io_probe import IoProbeStats
from iotui.core.host.levels import Level, ResponsivenessMonitor
from iotui.core.host.wakeup_probe import ProbeStats


class Sampler:
    def __init__(self, fail_after: int | None = None) -> None:
        self.calls = 0
        self.fail_after = fail_after
        self.pid = None

    def sample(self) -> HostSample:
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise OSError("proc went away")
        return HostSample(**{name: None for name in HostSample.__dataclass_fields__})

    def set_fio_pid(self, pid: int | None) -> None:
        self.pid = pid


class Probe:
    def __init__(self) -> None:
        self.started = self.stopped = False

    def start(self) -> None:
        self.started = True

    def read_latest(self) -> ProbeStats:
        return ProbeStats(p50_ms=1.0, p99_ms=160.0, max_ms=170.0)

    def baseline(self) -> ProbeStats:
        return ProbeStats(p50_ms=0.1, p99_ms=0.5, max_ms=1.0)

    def stop(self) -> None:
        self.stopped = True


class IoProbe(Probe):
    error = None

    def read_latest(self) -> IoProbeStats:
        return IoProbeStats(read_p99_ms=3.0, write_p99_ms=40.0, read_iops=4.0, write_iops=4.0)

    def baseline(self) -> IoProbeStats:
        return IoProbeStats(read_p99_ms=0.3, write_p99_ms=5.0, read_iops=4.0, write_iops=4.0)


def test_reading_combines_host_probe_and_assessment() -> None:
    sampler, probe, monitor, io_probe = Sampler(), Probe(), ResponsivenessMonitor(), IoProbe()
    watch = HostWatch(sampler, probe, monitor, io_probe)
    watch.start()
    assert probe.started and io_probe.started and sampler.calls == 1  # primed
    watch.take_baseline()
    assert monitor.baseline.p99_ms == 0.5
    assert monitor.io_baseline.write_p99_ms == 5.0
    watch.watch_pid(1234)
    assert sampler.pid == 1234
    reading = watch.read()
    assert reading.probe.p99_ms == 160.0
    assert reading.io_probe.write_p99_ms == 40.0
    # 159.5 ms later than at rest: past the 100 ms response budget at once.
    assert reading.assessment.level is Level.UNRESPONSIVE
    assert reading.assessment.cause == "wakeup"
    assert watch.pressure_summary()["responsiveness"] == "unresponsive"
    watch.stop()
    assert probe.stopped and io_probe.stopped


def test_failing_sampler_raises_once_then_is_dropped() -> None:
    watch = HostWatch(Sampler(fail_after=1), None, None)
    assert watch.read() is not None
    with pytest.raises(OSError):
        watch.read()
    assert watch.read() is None
    assert watch.pressure_summary() is None


class LateProbe:
    """A probe whose child reports for the first time `after_s` after the baseline began."""

    def __init__(self, after_s: float, running: bool = True) -> None:
        self.started_at = time.monotonic()
        self.after_s, self.running = after_s, running

    @property
    def reports_received(self) -> int:
        return int(time.monotonic() - self.started_at >= self.after_s)


def test_the_baseline_waits_for_a_probe_that_has_not_reported_yet() -> None:
    watch = HostWatch(None, LateProbe(0.3), None, io_probe=LateProbe(0.0))
    assert watch.baseline_pending()
    began = time.monotonic()
    asyncio.run(watch.wait_for_first_reports(asyncio.Event(), grace_s=2.0))
    assert 0.25 <= time.monotonic() - began < 1.5 and not watch.baseline_pending()


def test_the_wait_is_bounded_and_skips_probes_that_are_not_running_or_stopped() -> None:
    watch = HostWatch(None, LateProbe(60.0), None)
    began = time.monotonic()
    asyncio.run(watch.wait_for_first_reports(asyncio.Event(), grace_s=0.2))
    assert time.monotonic() - began < 1.0  # never forever: the probe is judged without a baseline then
    assert not HostWatch(None, LateProbe(60.0, running=False), None).baseline_pending()
    assert not HostWatch(None, Probe(), None).baseline_pending()  # a probe that does not count reports

    async def stopped() -> None:
        stop = asyncio.Event()
        stop.set()
        await watch.wait_for_first_reports(stop, grace_s=5.0)

    began = time.monotonic()
    asyncio.run(stopped())
    assert time.monotonic() - began < 1.0
