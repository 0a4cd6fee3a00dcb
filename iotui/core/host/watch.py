"""The host sampler, the probes and the responsiveness monitor, read together.

A run (fio or sysbench) reads them once a second: this is the one place that
does it, so both sessions start, baseline, read and stop them alike.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iotui.core.host.protocols import FollowsProcess, IoProbe, Monitor, Sampler, WakeupProbe

if TYPE_CHECKING:
    from iotui.core.host.counters import HostSample
    from iotui.core.host.io_probe import IoProbeStats
    from iotui.core.host.levels import Assessment
    from iotui.core.host.wakeup_probe import ProbeStats


# How long past the baseline's seconds a run waits for a probe's first report.
BASELINE_GRACE_S = 3.0


@dataclass(frozen=True)
class HostReading:
    host: HostSample
    probe: ProbeStats | None
    assessment: Assessment | None
    io_probe: IoProbeStats | None = None


class HostWatch:
    """Each of them may be None (tests, platforms without /proc)."""

    def __init__(
        self, sampler: Sampler | None, probe: WakeupProbe | None, monitor: Monitor | None, io_probe: IoProbe | None = None
    ) -> None:
        self.sampler = sampler
        self.probe = probe
        self.monitor = monitor
        self.io_probe = io_probe

    def start(self) -> None:
        """Start the probes and prime the counters; a probe that cannot start is left out."""
        if self.probe is not None:
            self.probe.start()
        if self.io_probe is not None:
            try:
                self.io_probe.start()
            except (OSError, RuntimeError):  # its own failures are in its `error`; a thread or process that will not start
                self.io_probe = None
        if self.sampler is not None:
            self.sampler.sample()  # prime the counters

    @property
    def io_probe_error(self) -> str | None:
        """A sentence when the I/O probe could not run, for the run's messages."""
        return getattr(self.io_probe, "error", None) if self.io_probe is not None else None

    def baseline_pending(self) -> bool:
        """Is a running probe still without its first report (its child started late)?"""
        return any(
            probe is not None and getattr(probe, "reports_received", None) == 0
            and getattr(probe, "running", True)
            for probe in (self.probe, self.io_probe)
        )

    async def wait_for_first_reports(self, stop: asyncio.Event, grace_s: float = BASELINE_GRACE_S) -> None:
        """After the baseline's seconds, wait up to `grace_s` more for a probe with no report yet.

        On a loaded machine a probe's child can start after the baseline seconds have gone;
        without a single report there is no baseline, and the probe would be judged against
        its bare limit (a save that always takes 150 ms there would read as sluggish).
        """
        deadline = time.monotonic() + grace_s
        while self.baseline_pending() and time.monotonic() < deadline and not stop.is_set():
            await asyncio.sleep(0.05)

    def take_baseline(self) -> None:
        """After a few quiet seconds: what "normal" wake-up and I/O latency is here."""
        if self.monitor is None:
            return
        if self.probe is not None:
            self.monitor.baseline = self.probe.baseline()
        if self.io_probe is not None:
            self.monitor.io_baseline = self.io_probe.baseline()

    def watch_pid(self, pid: int | None) -> None:
        if isinstance(self.sampler, FollowsProcess):
            self.sampler.set_fio_pid(pid)

    def read(self) -> HostReading | None:
        """One second's reading; None when there is no sampler.

        A sampler that fails is dropped (the run goes on without host
        figures) and the error is raised once for the caller to report.
        """
        if self.sampler is None:
            return None
        try:
            host = self.sampler.sample()
        except Exception:  # noqa: BLE001 - any sampler failure drops it; the caller reports it (re-raised)
            self.sampler = None
            raise
        probe_stats = self.probe.read_latest() if self.probe is not None else None
        io_stats = self.io_probe.read_latest() if self.io_probe is not None else None
        assessment = None
        if self.monitor is not None:
            assessment = self.monitor.update(host, probe_stats, io_stats)
        return HostReading(host, probe_stats, assessment, io_stats)

    def stop(self) -> None:
        for probe in (self.probe, self.io_probe):
            if probe is not None:
                try:
                    probe.stop()
                except Exception:  # noqa: BLE001 - cleanup at the run's end: the other probe still stops, the record is kept
                    pass

    def pressure_summary(self) -> dict | None:
        return self.monitor.summary() if self.monitor is not None else None


def responsiveness_row(
    assessment: Assessment | None, probe: ProbeStats | None, io_probe: IoProbeStats | None
) -> dict[str, str | float]:
    """The responsiveness keys of one `[[samples]]` row (absent figures left out)."""
    row: dict[str, str | float] = {}
    if assessment is not None:
        row["responsiveness"] = assessment.level.value
        cause = assessment.cause
        if cause is not None and assessment.level.value != "ok":
            row["responsiveness_cause"] = cause
    if probe is not None:
        row["probe_p99_ms"] = probe.p99_ms
    if io_probe is not None:
        for key, value in (
            ("io_probe_p99_ms", io_probe.read_p99_ms),
            ("io_probe_write_p99_ms", io_probe.write_p99_ms),
            ("io_probe_read_iops", io_probe.read_iops),
            ("io_probe_write_iops", io_probe.write_iops),
        ):
            if value is not None:
                row[key] = round(float(value), 3)
        if io_probe.start_ms is not None:
            # A start whose files' eviction was not confirmed: kept apart, never judged.
            row["app_start_warm_ms" if io_probe.start_warm else "app_start_ms"] = round(float(io_probe.start_ms), 3)
    return row
