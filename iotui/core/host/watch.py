"""The host sampler, the wake-up probe and the responsiveness monitor, read together.

A run (fio or sysbench) reads all three once a second: this is the one place
that does it, so both sessions start, baseline, read and stop them alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HostReading:
    host: Any
    probe: Any | None
    assessment: Any | None


class HostWatch:
    """Any of the three may be None (tests, platforms without /proc)."""

    def __init__(self, sampler: Any | None, probe: Any | None, monitor: Any | None) -> None:
        self.sampler = sampler
        self.probe = probe
        self.monitor = monitor

    def start(self) -> None:
        if self.probe is not None:
            self.probe.start()
        if self.sampler is not None:
            self.sampler.sample()  # prime the counters

    def take_baseline(self) -> None:
        """After a few quiet seconds: what "normal" wake-up latency is here."""
        if self.probe is not None and self.monitor is not None:
            self.monitor.baseline = self.probe.baseline()

    def watch_pid(self, pid: int | None) -> None:
        if self.sampler is not None and hasattr(self.sampler, "set_fio_pid"):
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
        except Exception:
            self.sampler = None
            raise
        probe_stats = self.probe.read_latest() if self.probe is not None else None
        assessment = self.monitor.update(host, probe_stats) if self.monitor is not None else None
        return HostReading(host, probe_stats, assessment)

    def stop(self) -> None:
        if self.probe is not None:
            try:
                self.probe.stop()
            except Exception:
                pass

    def pressure_summary(self) -> dict | None:
        return self.monitor.summary() if self.monitor is not None else None
