"""An I/O probe that reports given figures: a disk that stalls other programs on cue.

The real probe (tests/core/test_io_probe.py) cannot be made to see a one-second
stall of exactly a given length; UI tests that need the level to change use this.
"""

from __future__ import annotations

from iotui.core.host.io_probe import IoProbeStats

QUIET_IO = IoProbeStats(read_p99_ms=0.4, write_p99_ms=3.0, read_iops=4.0, write_iops=4.0)
# A small write + fdatasync by another program waits 1.5 s: past the 1 s "froze" budget.
STALLED_IO = IoProbeStats(read_p99_ms=80.0, write_p99_ms=1500.0, read_iops=4.0, write_iops=1.0)


class FixedIoProbe:
    """Returns the given figures in turn, then the last one, one per read."""

    error = None

    def __init__(self, samples: list[IoProbeStats]) -> None:
        self.samples = list(samples)
        self.reads = 0
        self.running = False

    def start(self) -> None:
        self.running = True

    def read_latest(self) -> IoProbeStats | None:
        sample = self.samples[min(self.reads, len(self.samples) - 1)]
        self.reads += 1
        return sample

    def baseline(self) -> IoProbeStats:
        return self.samples[0]

    def stop(self) -> None:
        self.running = False
