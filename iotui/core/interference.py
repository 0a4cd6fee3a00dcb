"""Another program's I/O on the target's device, second by second.

Each second of a run, the device's own counters (sectors read and written, summed over
the devices under a dm/md target) are set beside fio's own bytes and the I/O probe's:
what is left over is another program's. fio's buffered writes reach the device later
(writeback), and buffered reads may come from the page cache, so the comparison keeps a
*credit*: bytes fio moved that the device has not shown yet. A second's outside bytes
are the device's bytes beyond that second's own bytes and the credit; the credit is
bounded (writes: fio's own writes of the last WRITEBACK_WINDOW_S seconds plus the dirty
data there was when fio started; reads: fio's own reads of the last LEAD_WINDOW_S
seconds), so reads served from the cache never hide another program's I/O for long.

A second is *suspect* when its outside bytes are a meaningful share: more than
OUTSIDE_MIN_SHARE of the device's bytes that second and more than OUTSIDE_MIN_BYTES;
seconds are *affected* only in stretches of at least CONSECUTIVE_S suspect seconds
(docs/numbers.md gives the reasoning). Pure arithmetic: the caller reads the counters.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MIB = 1024 * 1024
# A second's outside bytes count only above both: a share of the device's bytes that second
# and a floor that filesystem metadata and journal commits of fio's own I/O stay under.
OUTSIDE_MIN_SHARE = 0.25
OUTSIDE_MIN_BYTES = 16 * MIB
# Suspect seconds count only in stretches this long: a single one is a misaligned edge.
CONSECUTIVE_S = 2
# fio's buffered writes reach the device within dirty_expire (30 s) plus a writeback period (5 s).
WRITEBACK_WINDOW_S = 40
# fio's document and the device's counters are read a moment apart: own bytes this recent
# may still show on the device (or already have).
LEAD_WINDOW_S = 2
# The sample key that marks a second as not the device's alone (steady state and compare leave it out).
SAMPLE_KEY = "interference"


@dataclass(frozen=True)
class ByteCounts:
    """Cumulative bytes read and written (device, fio) or bytes over one second (the probe)."""

    read_bytes: float = 0.0
    write_bytes: float = 0.0


@dataclass(frozen=True)
class OutsideSecond:
    """One second's I/O on the device that is neither fio's nor the probe's."""

    outside_read_bytes: float
    outside_write_bytes: float
    device_bytes: float

    @property
    def outside_bytes(self) -> float:
        return self.outside_read_bytes + self.outside_write_bytes

    @property
    def suspect(self) -> bool:
        """A meaningful share of the device's bytes that second (see the module doc)."""
        return self.outside_bytes > max(OUTSIDE_MIN_SHARE * self.device_bytes, OUTSIDE_MIN_BYTES)


class _Credit:
    """Bytes of one direction fio moved that the device has not shown yet, bounded by a window."""

    def __init__(self, window_s: int) -> None:
        self._own: deque[float] = deque(maxlen=window_s)
        self.bytes = 0.0

    def allow(self, allowance_bytes: float) -> None:
        """At least ``allowance_bytes`` of credit now (dirty data of fio's layout), leaving with the window."""
        extra = max(0.0, allowance_bytes - self.bytes)
        if extra:
            self._own.append(extra)
            self.bytes += extra

    def outside(self, device_bytes: float, own_bytes: float) -> float:
        """The device's bytes beyond this second's own bytes and the credit; the credit moves on."""
        explained = own_bytes + self.bytes
        outside = max(0.0, device_bytes - explained)
        self._own.append(max(0.0, own_bytes))
        self.bytes = min(max(0.0, explained - device_bytes), sum(self._own))
        return outside


class OutsideAttribution:
    """Feed cumulative device and fio bytes once a second; each call returns that second's outside I/O.

    ``dirty_bytes`` (to :meth:`rebase`): dirty and writeback data in memory before fio's I/O
    starts (its files' layout, earlier writes), which may reach the device during the first
    seconds without being anyone's I/O now.
    """

    def __init__(self) -> None:
        self._device: ByteCounts | None = None
        self._fio: ByteCounts | None = None
        self._read = _Credit(LEAD_WINDOW_S)
        self._write = _Credit(WRITEBACK_WINDOW_S)

    def rebase(self, device: ByteCounts, fio: ByteCounts, dirty_bytes: float = 0.0) -> None:
        """Counters to measure the next second from, judging nothing (fio laying out its files)."""
        self._device, self._fio = device, fio
        self._write.allow(dirty_bytes)

    def allow_dirty(self, dirty_bytes: float) -> None:
        """Dirty data in memory at fio's first second (the layout's tail) may reach the device later."""
        self._write.allow(dirty_bytes)

    def feed(self, device: ByteCounts, fio: ByteCounts, probe: ByteCounts = ByteCounts()) -> OutsideSecond | None:
        """This second's outside bytes; None for the first call (it only sets the baseline)."""
        before_device, before_fio = self._device, self._fio
        self._device, self._fio = device, fio
        if before_device is None or before_fio is None:
            return None
        device_read = max(0.0, device.read_bytes - before_device.read_bytes)
        device_write = max(0.0, device.write_bytes - before_device.write_bytes)
        # fio's counters start again from zero after a ramp (or a reset): then all of it is this second's.
        fio_read = _delta(fio.read_bytes, before_fio.read_bytes)
        fio_write = _delta(fio.write_bytes, before_fio.write_bytes)
        return OutsideSecond(
            outside_read_bytes=self._read.outside(device_read, fio_read + probe.read_bytes),
            outside_write_bytes=self._write.outside(device_write, fio_write + probe.write_bytes),
            device_bytes=device_read + device_write,
        )


def _delta(now: float, before: float) -> float:
    return now - before if now >= before else now


def affected(suspect: Sequence[bool], consecutive_s: int = CONSECUTIVE_S) -> list[bool]:
    """Which seconds are affected: those in a stretch of at least ``consecutive_s`` suspect seconds."""
    marks = [False] * len(suspect)
    start = 0
    while start < len(suspect):
        if not suspect[start]:
            start += 1
            continue
        end = start
        while end < len(suspect) and suspect[end]:
            end += 1
        if end - start >= consecutive_s:
            marks[start:end] = [True] * (end - start)
        start = end
    return marks


def settled_count(suspect: Sequence[bool], consecutive_s: int = CONSECUTIVE_S) -> int:
    """How many seconds, from the first, have marks no later second can change: all but a trailing
    stretch of suspect seconds still shorter than ``consecutive_s`` (the next one may complete it)."""
    trailing = 0
    for is_suspect in reversed(suspect):
        if not is_suspect:
            break
        trailing += 1
    return len(suspect) - trailing if trailing < consecutive_s else len(suspect)


def spans(seconds: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """Whole-second stretches ``(first, last)`` of intervals ``(start_s, end_s)``; touching ones join."""
    joined: list[tuple[int, int]] = []
    for start_s, end_s in sorted(seconds):
        first, last = int(start_s), max(int(start_s), round(end_s))
        if joined and first <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], last))
        else:
            joined.append((first, last))
    return joined


def disturbed(sample: Mapping[str, object]) -> bool:
    """Whether a record's per-second sample shared the device with another program's I/O."""
    return sample.get(SAMPLE_KEY) is True
