"""The cache cliff: where a sustained write's bandwidth fell and stayed down.

Consumer SSDs write into a fast cache (SLC, DRAM) until it fills, then at the
speed of the flash behind it. On the per-second samples that is a change
point: the first second from which the bandwidth is at least 30% below the
level before it and stays there for at least 10 s (80% of those seconds below). The level before is the
mean of every second before the change; the level after is the mean of the
low stretch (until the bandwidth recovers, or the section ends).
``docs/numbers.md`` documents the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from iotui.core import format as fmt
from iotui.core.numbers import number, numbers

DROP_SHARE = 0.30
STAY_DOWN_S = 10.0
# "Stays down": at least this share of the 10 s after the drop is below the threshold.
STAY_DOWN_SHARE = 0.80
MIN_BEFORE_SAMPLES = 3
# A write section shorter than this is not "sustained": no cliff judgement.
SUSTAINED_MIN_S = 20.0


@dataclass(frozen=True)
class Cliff:
    """The finder's answer for one section.

    ``found``: a cliff was found. ``at_s`` and ``at_bytes``: seconds since the
    section started and bytes written before the drop. ``bw_before_bytes`` and
    ``bw_after_bytes``: bytes per second before and after it. Without a cliff,
    ``within_bytes`` and ``within_s`` say how much writing was watched.
    """

    found: bool
    within_bytes: float
    within_s: float
    at_s: float | None = None
    at_bytes: float | None = None
    bw_before_bytes: float | None = None
    bw_after_bytes: float | None = None

    def to_record(self) -> dict[str, bool | float | int]:
        """The record's ``sections.cliff`` table."""
        if not self.found:
            return {"found": False, "within_bytes": int(round(self.within_bytes)), "within_s": round(self.within_s, 3)}
        return {
            "found": True,
            "at_s": round(self.at_s or 0.0, 3),
            "at_bytes": int(round(self.at_bytes or 0.0)),
            "bw_before_bytes": int(round(self.bw_before_bytes or 0.0)),
            "bw_after_bytes": int(round(self.bw_after_bytes or 0.0)),
        }

    def sentence(self) -> str:
        """"after 12.3 GiB (45 s): 2,000 MiB/s → 460 MiB/s" or "no cliff within 4 GiB"."""
        if not self.found:
            return f"no cliff within {fmt.size_spaced(self.within_bytes)}"
        return (
            f"after {fmt.size_spaced(self.at_bytes)} ({self.at_s:.0f} s): "
            f"{_mib(self.bw_before_bytes)} → {_mib(self.bw_after_bytes)}"
        )


def cliff_from_record(table: object) -> Cliff | None:
    """A ``sections.cliff`` table back into a Cliff (None when it is not one)."""
    if not isinstance(table, Mapping) or not isinstance(table.get("found"), bool):
        return None
    if table["found"]:
        figures = numbers(table.get(key) for key in ("at_s", "at_bytes", "bw_before_bytes", "bw_after_bytes"))
        if len(figures) != 4:
            return None
        return Cliff(True, 0.0, 0.0, *figures)
    return Cliff(False, number(table.get("within_bytes")) or 0.0, number(table.get("within_s")) or 0.0)


def _mib(value: float | None) -> str:
    return f"{(value or 0.0) / (1 << 20):,.0f} MiB/s"


def find_cliff(durations_s: list[float], bw_bytes: list[float]) -> Cliff:
    """The first second from which bandwidth is >= 30% below everything before and stays down >= 10 s.

    ``durations_s`` and ``bw_bytes`` are the samples' lengths and bandwidths
    in order. "Stays down": at least 80% of the 10 s from the drop (the
    drop's own sample included) is below the threshold, so a fast second or
    two in a slow stretch do not hide a cliff, and a short dip does not make one.
    """
    if len(durations_s) != len(bw_bytes):
        raise ValueError("durations_s and bw_bytes differ in length")
    count = len(bw_bytes)
    starts = [0.0]
    written = [0.0]
    for duration, bw in zip(durations_s, bw_bytes):
        starts.append(starts[-1] + duration)
        written.append(written[-1] + bw * duration)
    total_s, total_bytes = starts[-1], written[-1]
    running_sum = 0.0
    for index in range(count):
        if index >= MIN_BEFORE_SAMPLES:
            before = running_sum / index
            threshold = (1.0 - DROP_SHARE) * before
            if before > 0 and bw_bytes[index] <= threshold:
                stretch = _within(starts, index, STAY_DOWN_S)
                if stretch is not None and _share_below(starts, bw_bytes, index, stretch, threshold) >= STAY_DOWN_SHARE:
                    end = _low_stretch_end(starts, bw_bytes, index, threshold)
                    low_seconds = starts[end] - starts[index]
                    after = (written[end] - written[index]) / low_seconds if low_seconds > 0 else 0.0
                    return Cliff(True, total_bytes, total_s, starts[index], written[index], before, after)
        running_sum += bw_bytes[index]
    return Cliff(False, total_bytes, total_s)


def _within(starts: list[float], index: int, seconds: float) -> int | None:
    """The end index (exclusive) of the samples covering ``seconds`` from ``index``; None if the data ends first."""
    target = starts[index] + seconds - 1e-9
    for end in range(index + 1, len(starts)):
        if starts[end] >= target:
            return end
    return None


def _share_below(starts: list[float], bw_bytes: list[float], first: int, end: int, threshold: float) -> float:
    """The share of the time from sample ``first`` to ``end`` (exclusive) spent at or below ``threshold``."""
    span = starts[end] - starts[first]
    if span <= 0:
        return 0.0
    below = sum(starts[i + 1] - starts[i] for i in range(first, end) if bw_bytes[i] <= threshold)
    return below / span


def _low_stretch_end(starts: list[float], bw_bytes: list[float], index: int, threshold: float) -> int:
    """Where the low stretch ends: the first later second starting 10 s that are mostly (80%) back above the threshold."""
    for later in range(index + 1, len(bw_bytes)):
        if bw_bytes[later] > threshold:
            stretch = _within(starts, later, STAY_DOWN_S)
            if stretch is not None and _share_below(starts, bw_bytes, later, stretch, threshold) <= 1 - STAY_DOWN_SHARE:
                return later
    return len(bw_bytes)


def is_sustained_write(options: Mapping[str, str], duration_s: float) -> bool:
    """A write-only section (rw write or randwrite) that ran at least 20 s."""
    rw = str(options.get("rw", options.get("readwrite", ""))).strip().lower()
    return rw in ("write", "randwrite") and duration_s >= SUSTAINED_MIN_S


def section_cliff(samples: Iterable[Mapping[str, object]]) -> Cliff:
    """The finder on one section's record samples (``dt_s``, ``write_bw_bytes``); paused seconds left out."""
    durations: list[float] = []
    bandwidths: list[float] = []
    for sample in samples:
        if sample.get("paused"):
            continue
        bw = number(sample.get("write_bw_bytes"))
        if bw is None:
            continue
        durations.append(number(sample.get("dt_s", 1.0)) or 0.0)
        bandwidths.append(bw)
    return find_cliff(durations, bandwidths)
