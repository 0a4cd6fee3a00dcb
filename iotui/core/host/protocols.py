"""What a session's host watch needs of its parts (:class:`~iotui.core.host.watch.HostWatch`).

In a run these are :class:`~iotui.core.host.counters.HostSampler`,
:class:`~iotui.core.host.wakeup_probe.WakeupProbe`, :class:`~iotui.core.host.io_probe.IoProbe`
and :class:`~iotui.core.host.levels.ResponsivenessMonitor`; tests hand in ones
that replay recorded figures (``tests/ui/replay.py``, ``tests/fakes/``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from iotui.core.host.counters import HostSample
    from iotui.core.host.io_probe import IoProbeStats
    from iotui.core.host.levels import Assessment
    from iotui.core.host.wakeup_probe import ProbeStats


class Sampler(Protocol):
    """The host's counters as rates: one :class:`HostSample` a call (the first call primes them)."""

    def sample(self) -> HostSample: ...


@runtime_checkable
class FollowsProcess(Protocol):
    """A sampler that also counts one process tree's CPU (fio's): told which process to follow."""

    def set_fio_pid(self, pid: int | None) -> None: ...


class WakeupProbe(Protocol):
    """The wake-up probe: how late a sleeping child wakes, as p50/p99/max figures."""

    def start(self) -> None: ...
    def read_latest(self) -> ProbeStats | None: ...
    def baseline(self) -> ProbeStats | None: ...
    def stop(self) -> None: ...


class IoProbe(Protocol):
    """The I/O probe: a small read and write beside the run; ``error`` says why it could not run."""

    def start(self) -> None: ...
    def read_latest(self) -> IoProbeStats | None: ...
    def baseline(self) -> IoProbeStats | None: ...
    def stop(self) -> None: ...


class Monitor(Protocol):
    """The responsiveness monitor: a level from each second's figures, and the run's summary."""

    baseline: ProbeStats | None
    io_baseline: IoProbeStats | None

    def update(self, host: HostSample | None, probe: ProbeStats | None, io: IoProbeStats | None = None) -> Assessment: ...
    def summary(self) -> dict[str, str | float]: ...
