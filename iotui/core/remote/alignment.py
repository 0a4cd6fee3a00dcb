"""Hosts on one clock: each host's intervals, and the aggregate of the hosts' latest.

Each host's cumulative documents become intervals over the host's own
``job_runtime`` differences (its jobs' clock, not its wall clock, which may be
off or jump). Intervals are placed on iotui's monotonic clock at the moment
they arrive. The aggregate is built in rounds: once every live host has sent a
new interval (or ``ROUND_TIMEOUT_S`` after a round's first arrival) the
newest interval of every fresh host is taken: rates summed, latency bins
merged. A host with nothing new for ``STALE_AFTER_S`` is stale and left out
until it reports again; a failed host never counts again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from iotui.core.fio.intervals import (
    DIRECTIONS,
    PERCENTILES,
    DirectionInterval,
    DirectionTotals,
    IntervalSample,
    Snapshot,
    fio_percentiles,
    snapshot_from_document,
)

STALE_AFTER_S = 1.6
ROUND_TIMEOUT_S = 1.6
RUNTIME_SLACK_S = 5.0
_EMPTY = DirectionTotals(0, 0, 0, 0, 0.0, None, None, {})


def _jobs(doc: Mapping[str, object]) -> list[object]:
    jobs = doc.get("jobs")
    return jobs if isinstance(jobs, list) else []


def _ms(value: object) -> int:
    """A runtime of fio's in ms (absent or not a number: 0)."""
    return int(value) if isinstance(value, (int, float)) else 0


def job_runtimes_ms(doc: Mapping[str, object], limit_ms: float | None = None) -> list[int]:
    """Each job's ``job_runtime``; a job that has not started yet can report the
    time since boot there, so a value over ``limit_ms`` (the time since the
    barrier, plus slack) counts as 0."""
    runtimes = []
    for job in _jobs(doc):
        if not isinstance(job, dict):
            continue
        # A job that has done no I/O yet (a later section's, or one held in its prerun) reports
        # the time since fio's start there, which grows like a real runtime: it counts as 0.
        runtime = _ms(job.get("job_runtime")) if _job_has_run(job) else 0
        runtimes.append(0 if limit_ms is not None and runtime > limit_ms else runtime)
    return runtimes


def _job_has_run(job: Mapping[str, object]) -> bool:
    return any(isinstance(stats := job.get(d), dict) and _ms(stats.get("runtime")) > 0 for d in DIRECTIONS)


def direction_runtimes_ms(doc: Mapping[str, object], direction: str) -> list[int]:
    runtimes = []
    for job in _jobs(doc):
        stats = job.get(direction) if isinstance(job, dict) else None
        runtimes.append(_ms(stats.get("runtime")) if isinstance(stats, dict) else 0)
    return runtimes


def _runtime_delta_ms(after: list[int], before: list[int]) -> int:
    """The most any one job ran in between (jobs of one section run side by side)."""
    if len(before) != len(after):
        return max(after, default=0)
    return max((a - b for a, b in zip(after, before)), default=0)


@dataclass
class HostInterval:
    """One host's interval, with what the aggregate needs to merge it."""

    host: str
    arrived_s: float
    sample: IntervalSample
    bins: dict[str, dict[int, int]]
    clat_sums: dict[str, tuple[int, float]]


def _direction_delta(
    before: DirectionTotals, after: DirectionTotals, dt_s: float
) -> tuple[DirectionInterval, dict[int, int], tuple[int, float]]:
    ios = after.total_ios - before.total_ios
    clat_n = after.clat_n - before.clat_n
    clat_sum = after.clat_sum_ns - before.clat_sum_ns
    # Each bin's difference once (this runs for every document of every host).
    previous = before.bins.get
    bins = {value: gained for value, count in after.bins.items() if (gained := count - previous(value, 0)) > 0}
    return (
        _figures(ios, after.io_bytes - before.io_bytes, dt_s, bins, clat_n, clat_sum),
        bins,
        (clat_n, clat_sum),
    )


def _figures(
    ios: int, io_bytes: int, dt_s: float, bins: dict[int, int], clat_n: int, clat_sum_ns: float
) -> DirectionInterval:
    sorted_bins = sorted(bins.items())
    binned = sum(count for _, count in sorted_bins)
    values = fio_percentiles(sorted_bins, binned, tuple(p for _, p in PERCENTILES))
    return DirectionInterval(
        ios=ios,
        iops=ios / dt_s,
        bw_bytes=io_bytes / dt_s,
        lat_mean_ns=clat_sum_ns / clat_n if clat_n > 0 else None,
        lat_min_ns=sorted_bins[0][0] if sorted_bins else None,
        lat_max_ns=sorted_bins[-1][0] if sorted_bins else None,
        lat_percentiles_ns={name: v for (name, _), v in zip(PERCENTILES, values) if v is not None},
    )


def jobs_have_run(doc: Mapping[str, object]) -> bool:
    """Whether any job in a status document has a direction with time of its own (it did I/O).

    A status that fio began while its jobs were held (the lifeline's prerun) is printed once
    they start, with a ``job_runtime`` from before their clock started (about the status
    interval) and no direction's runtime: its times are not the jobs', so it is not used.
    """
    return any(isinstance(job, dict) and _job_has_run(job) for job in _jobs(doc))


class HostDeriver:
    """A host's cumulative documents -> intervals timed by its own job_runtime."""

    def __init__(self, host: str) -> None:
        self.host = host
        self._previous: Snapshot | None = None
        self._previous_doc: dict[str, object] = {}
        self._previous_runtimes: list[int] = []
        self.t_s = 0.0

    def feed(self, doc: dict[str, object], arrived_s: float) -> HostInterval | None:
        if not jobs_have_run(doc):
            return None
        snapshot = snapshot_from_document(doc)
        runtimes = job_runtimes_ms(doc, (arrived_s + RUNTIME_SLACK_S) * 1000.0)
        previous = self._previous
        if previous is not None and len(runtimes) == len(self._previous_runtimes):
            dt_ms = max((a - b for a, b in zip(runtimes, self._previous_runtimes)), default=0)
            went_back = any(
                snapshot.directions[d].total_ios < previous.directions[d].total_ios for d in DIRECTIONS
            )
            if went_back:
                previous = None
        else:
            previous = None
            dt_ms = max(runtimes, default=0)
        if dt_ms <= 0:
            return None
        previous_doc = self._previous_doc if previous is not None else {}
        self._previous = snapshot
        self._previous_doc = doc
        self._previous_runtimes = runtimes
        dt_s = dt_ms / 1000.0
        self.t_s += dt_s
        directions: dict[str, DirectionInterval] = {}
        bins: dict[str, dict[int, int]] = {}
        sums: dict[str, tuple[int, float]] = {}
        for direction in DIRECTIONS:
            before = previous.directions.get(direction, _EMPTY) if previous else _EMPTY
            after = snapshot.directions.get(direction, _EMPTY)
            if after.runtime_ms == before.runtime_ms and after.total_ios == before.total_ios:
                continue
            # The direction's own runtime: a section that ended or began inside
            # the interval ran for only part of it.
            direction_dt_s = _runtime_delta_ms(
                direction_runtimes_ms(doc, direction), direction_runtimes_ms(previous_doc, direction)
            ) / 1000.0
            if direction_dt_s <= 0:
                direction_dt_s = dt_s
            directions[direction], bins[direction], sums[direction] = _direction_delta(
                before, after, direction_dt_s
            )
        sample = IntervalSample(t_s=self.t_s, dt_s=dt_s, directions=directions)
        return HostInterval(self.host, arrived_s, sample, bins, sums)


@dataclass
class AggregateSample:
    """The hosts' latest intervals summed, at ``t_s`` on iotui's clock since the barrier."""

    t_s: float
    sample: IntervalSample
    live_hosts: int
    total_hosts: int
    hosts: list[str] = field(default_factory=list)

    @property
    def hosts_label(self) -> str:
        return f"{self.live_hosts}/{self.total_hosts} hosts"


def combine(intervals: list[HostInterval], t_s: float) -> IntervalSample:
    """Rates summed, latency merged from the hosts' interval bins, means weighted by counts."""
    directions: dict[str, DirectionInterval] = {}
    dt_s = max((interval.sample.dt_s for interval in intervals), default=1.0)
    for direction in DIRECTIONS:
        parts = [i for i in intervals if direction in i.sample.directions]
        if not parts:
            continue
        iops = sum(i.sample.directions[direction].iops for i in parts)
        bw = sum(i.sample.directions[direction].bw_bytes for i in parts)
        merged: dict[int, int] = {}
        clat_n = 0
        clat_sum = 0.0
        for part in parts:
            for value, count in part.bins.get(direction, {}).items():
                merged[value] = merged.get(value, 0) + count
            n, total = part.clat_sums.get(direction, (0, 0.0))
            clat_n += n
            clat_sum += total
        figures = _figures(0, 0, 1.0, merged, clat_n, clat_sum)
        directions[direction] = DirectionInterval(
            ios=sum(i.sample.directions[direction].ios for i in parts),
            iops=iops,
            bw_bytes=bw,
            lat_mean_ns=figures.lat_mean_ns,
            lat_min_ns=figures.lat_min_ns,
            lat_max_ns=figures.lat_max_ns,
            lat_percentiles_ns=figures.lat_percentiles_ns,
        )
    return IntervalSample(t_s=t_s, dt_s=dt_s, directions=directions)


class Aligner:
    """Collects hosts' intervals as they arrive and hands back aggregate samples."""

    def __init__(self, hosts: list[str], *, stale_after_s: float = STALE_AFTER_S) -> None:
        self.hosts = list(hosts)
        self.stale_after_s = stale_after_s
        self.failed: set[str] = set()
        self.finished: set[str] = set()
        self.latest: dict[str, HostInterval] = {}
        self._round: dict[str, HostInterval] = {}
        self._round_started_s: float | None = None
        self._last_t_s = 0.0

    def live(self) -> list[str]:
        return [h for h in self.hosts if h not in self.failed and h not in self.finished]

    def fresh(self, host: str, now_s: float) -> bool:
        latest = self.latest.get(host)
        return latest is not None and now_s - latest.arrived_s <= self.stale_after_s and host not in self.failed

    def add(self, interval: HostInterval) -> AggregateSample | None:
        # A host's second interval in one round (its documents came close
        # together) replaces its first: the round still waits for the others.
        self.latest[interval.host] = interval
        self._round[interval.host] = interval
        if self._round_started_s is None:
            self._round_started_s = interval.arrived_s
        # Counted first: at 128 hosts the whole test ran 128 times a round.
        if len(self._round) >= len(self.hosts) - len(self.failed | self.finished) and all(
            host in self._round for host in self.live()
        ):
            return self._close(interval.arrived_s)
        return None

    def tick(self, now_s: float) -> AggregateSample | None:
        """Close a round whose slow hosts kept it open too long (they count as not live)."""
        if self._round and self._round_started_s is not None and now_s - self._round_started_s >= ROUND_TIMEOUT_S:
            return self._close(now_s)
        return None

    def mark_failed(self, host: str) -> None:
        self.failed.add(host)

    def mark_finished(self, host: str, now_s: float) -> AggregateSample | None:
        self.finished.add(host)
        if self._round and all(host in self._round for host in self.live()):
            return self._close(now_s)
        return None

    def flush(self, now_s: float) -> AggregateSample | None:
        return self._close(now_s) if self._round else None

    def _close(self, now_s: float) -> AggregateSample | None:
        # Every host that is not failed counts with its newest interval: the one
        # of this round, or its latest while that is still fresh (a host whose
        # document came a moment before the round began is not left out).
        parts = [
            self.latest[h]
            for h in self.hosts
            if h not in self.failed and h in self.latest and (h in self._round or self.fresh(h, now_s))
        ]
        had_round = bool(self._round)
        self._round = {}
        self._round_started_s = None
        if not parts or not had_round:
            return None
        t_s = max(now_s, self._last_t_s)
        self._last_t_s = t_s
        return AggregateSample(
            t_s=t_s,
            sample=combine(parts, t_s),
            live_hosts=len(parts),
            total_hosts=len(self.hosts),
            hosts=[p.host for p in parts],
        )
