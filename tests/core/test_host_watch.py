"""Sampler, probe and monitor read together; a failing sampler is dropped once."""

from __future__ import annotations

import pytest

from iotui.core.host.counters import HostSample
from iotui.core.host.watch import HostWatch
from iotui.core.host.responsiveness import Level, ProbeStats, ResponsivenessMonitor


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
        return ProbeStats(p50_ms=1.0, p99_ms=60.0, max_ms=70.0)

    def baseline(self) -> ProbeStats:
        return ProbeStats(p50_ms=0.1, p99_ms=0.5, max_ms=1.0)

    def stop(self) -> None:
        self.stopped = True


def test_reading_combines_host_probe_and_assessment() -> None:
    sampler, probe, monitor = Sampler(), Probe(), ResponsivenessMonitor()
    watch = HostWatch(sampler, probe, monitor)
    watch.start()
    assert probe.started and sampler.calls == 1  # primed
    watch.take_baseline()
    assert monitor.baseline.p99_ms == 0.5
    watch.watch_pid(1234)
    assert sampler.pid == 1234
    reading = watch.read()
    assert reading.probe.p99_ms == 60.0
    assert reading.assessment.level is Level.UNRESPONSIVE  # probe p99 over 50 ms
    assert watch.pressure_summary()["responsiveness"] == "unresponsive"
    watch.stop()
    assert probe.stopped


def test_failing_sampler_raises_once_then_is_dropped() -> None:
    watch = HostWatch(Sampler(fail_after=1), None, None)
    assert watch.read() is not None
    with pytest.raises(OSError):
        watch.read()
    assert watch.read() is None
    assert watch.pressure_summary() is None
