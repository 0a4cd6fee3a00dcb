"""Cumulative fio documents -> per-interval samples, one per reporting group that ran in the interval.

Sections of a preset run one after another (``stonewall``), so a 1-second status
interval can cover the end of one group and the start of the next. Such an
interval becomes one sample per group, each with only that group's own I/O
(from its jobs' own counter deltas) and, as ``dt_s``, the part of the interval
the group ran (its directions' ``runtime`` delta, bounded to the interval).
fio's per-job ``job_runtime`` is not used: for a job that has not started yet it
counts time since fio started and then falls back.

An interval in which one group ran is :class:`IntervalDeriver`'s sample over the
whole interval, unless the group ran clearly less of it (under ``PART_OF_SECOND``:
the run's first I/O began inside it, after fio laid out its files, or the last
ended inside it): then, as at a boundary, its ``dt_s`` is the part it ran, so a
5-second section never counts six whole seconds. (A remote host's intervals are
timed by its jobs' own runtime, ``elapsed_s``, and are left as they come.) Each
document's jobs are walked once: per group, and the whole document's snapshot is
the groups' snapshots merged.
"""

from __future__ import annotations

from dataclasses import replace

from iotui.core.fio.intervals import (
    DIRECTIONS,
    DirectionTotals,
    IntervalDeriver,
    IntervalSample,
    Snapshot,
    EMPTY_TOTALS,
    direction_interval,
    snapshot_from_document,
)
from iotui.core.fio.sections import group_entries


# A group that ran less than this share of an interval ran a part of a second (its runtime delta is
# the part); above it, the interval is the group's (fio's runtime and the documents' clock differ by
# a few milliseconds a second).
PART_OF_SECOND = 0.9


def group_snapshots(doc: dict) -> dict[int, Snapshot]:
    """Each reporting group's cumulative snapshot of one document, by ``groupid``."""
    timestamp_ms = int(doc.get("timestamp_ms", 0) or 0)
    return {
        groupid: snapshot_from_document({"timestamp_ms": timestamp_ms, "jobs": entries})
        for groupid, entries in group_entries(doc)
    }


def _merged_totals(parts: list[DirectionTotals]) -> DirectionTotals:
    if len(parts) == 1:
        return parts[0]
    bins: dict[int, int] = {}
    for part in parts:
        for value, count in part.bins.items():
            bins[value] = bins.get(value, 0) + count
    mins = [p.clat_min_ns for p in parts if p.clat_min_ns is not None]
    maxes = [p.clat_max_ns for p in parts if p.clat_max_ns is not None]
    return DirectionTotals(
        total_ios=sum(p.total_ios for p in parts),
        io_bytes=sum(p.io_bytes for p in parts),
        runtime_ms=max(p.runtime_ms for p in parts),
        clat_n=sum(p.clat_n for p in parts),
        clat_sum_ns=sum(p.clat_sum_ns for p in parts),
        clat_min_ns=min(mins) if mins else None,
        clat_max_ns=max(maxes) if maxes else None,
        bins=bins,
    )


def merged_snapshot(doc: dict, groups: dict[int, Snapshot]) -> Snapshot:
    """The whole document's snapshot from its groups' snapshots (jobs summed as one)."""
    timestamp_ms = int(doc.get("timestamp_ms", 0) or 0)
    if len(groups) == 1:
        return next(iter(groups.values()))
    directions: dict[str, DirectionTotals] = {}
    for direction in DIRECTIONS:
        parts = [g.directions[direction] for g in groups.values() if direction in g.directions]
        directions[direction] = _merged_totals(parts) if parts else EMPTY_TOTALS
    return Snapshot(timestamp_ms, sum(g.job_count for g in groups.values()), directions)


def _ran(before: Snapshot, after: Snapshot) -> bool:
    """Whether the group did anything between two documents (a running but stalled direction's runtime grows)."""
    for direction in DIRECTIONS:
        old = before.directions.get(direction, EMPTY_TOTALS)
        new = after.directions.get(direction, EMPTY_TOTALS)
        if new.runtime_ms != old.runtime_ms or new.total_ios != old.total_ios:
            return True
    return False


def _runtime_delta_ms(before: Snapshot, after: Snapshot) -> int:
    return max(
        (after.directions.get(d, EMPTY_TOTALS).runtime_ms - before.directions.get(d, EMPTY_TOTALS).runtime_ms for d in DIRECTIONS),
        default=0,
    )


class SectionSecondsDeriver:
    """Turns a stream of cumulative documents into per-group interval samples (see the module doc).

    :meth:`feed` returns the document's samples (none, one, or one per group that
    ran), each with its ``groupid``; :attr:`whole` is the last document's snapshot
    over all its jobs, for whoever needs the totals (the pause log).
    """

    def __init__(self) -> None:
        self._deriver = IntervalDeriver()
        self._previous: dict[int, Snapshot] = {}
        self._last_groupid: int | None = None
        self.whole: Snapshot | None = None
        self.groups: dict[int, Snapshot] = {}

    @property
    def resets(self) -> int:
        return self._deriver.resets

    def feed(self, doc: dict, elapsed_s: float | None = None) -> list[IntervalSample]:
        """The document's samples; ``elapsed_s``: the time since the last document on the jobs'
        own clock, where the documents' timestamps cannot be trusted (a remote host's)."""
        groups = group_snapshots(doc)
        whole = merged_snapshot(doc, groups)
        self.whole, self.groups = whole, groups
        resets = self._deriver.resets
        first = self._deriver._previous is None
        interval = self._deriver.feed_snapshot(whole, elapsed_s)
        previous = self._previous
        if first or self._deriver.resets != resets:
            previous = {}  # measured against zero, as the whole interval is
        if interval is None:
            if not first and self._deriver.resets == resets:
                return []
            self._previous = groups  # a new baseline that made no sample
            return []
        self._previous = groups
        ran = [
            (groupid, previous.get(groupid) or _zero(snapshot), snapshot)
            for groupid, snapshot in groups.items()
            if _ran(previous.get(groupid) or _zero(snapshot), snapshot)
        ]
        if len(ran) == 1:
            groupid, before, after = ran[0]
            self._last_groupid = groupid
            ran_s = _runtime_delta_ms(before, after) / 1000.0
            # (A remote host's intervals are timed by its jobs' runtime already: elapsed_s.)
            if elapsed_s is None and 0 < ran_s < PART_OF_SECOND * interval.dt_s:
                return [_group_sample(interval, groupid, before, after, ran_s)]
            return [replace(interval, groupid=groupid)]
        if not ran:
            last = self._last_groupid
            if last is None and groups:
                last = min(groups)
            self._last_groupid = last
            return [replace(interval, groupid=last)]
        samples = []
        for groupid, before, after in ran:
            runtime_ms = _runtime_delta_ms(before, after)
            dt_s = min(runtime_ms / 1000.0, interval.dt_s) if runtime_ms > 0 else interval.dt_s
            samples.append(_group_sample(interval, groupid, before, after, dt_s))
        self._last_groupid = ran[-1][0]
        return samples


def _group_sample(interval: IntervalSample, groupid: int, before: Snapshot, after: Snapshot, dt_s: float) -> IntervalSample:
    """The group's own I/O in the interval, over ``dt_s`` (the part of the interval it ran)."""
    directions = {}
    for direction in DIRECTIONS:
        old = before.directions.get(direction, EMPTY_TOTALS)
        new = after.directions.get(direction, EMPTY_TOTALS)
        if new.runtime_ms == old.runtime_ms and new.total_ios == old.total_ios:
            continue
        directions[direction] = direction_interval(old, new, dt_s)
    return IntervalSample(t_s=interval.t_s, dt_s=dt_s, directions=directions, groupid=groupid)


def _zero(snapshot: Snapshot) -> Snapshot:
    return Snapshot(snapshot.timestamp_ms, snapshot.job_count, {d: EMPTY_TOTALS for d in DIRECTIONS})
