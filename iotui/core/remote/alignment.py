"""Hosts on one clock: each host's seconds, and the aggregate's, one section each.

Each host's cumulative documents become seconds through the local run's code
(:mod:`iotui.core.fio.section_seconds`): one per section that ran in the
interval, timed by the host's own ``job_runtime`` differences (its jobs' clock,
not its wall clock, which may be off or jump). Seconds are placed on iotui's
monotonic clock at the moment they arrive. The aggregate is built in rounds:
once every live host has sent a new document (or ``ROUND_TIMEOUT_S`` after a
round's first arrival) the round's seconds become one aggregate second per
section: rates summed, latency bins merged. A host with nothing new for
``STALE_AFTER_S`` is stale and no longer counted live until it reports again;
a failed host never counts again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from iotui.core.fio.intervals import (
    DIRECTIONS,
    PERCENTILES,
    DirectionInterval,
    IntervalSample,
    fio_percentiles,
)
from iotui.core.fio.section_seconds import SectionSecondsDeriver

STALE_AFTER_S = 1.6
ROUND_TIMEOUT_S = 1.6
RUNTIME_SLACK_S = 5.0


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


@dataclass(frozen=True)
class HostInterval:
    """One section's second of one host (fio's ``groupid`` in ``sample``), as it arrived."""

    host: str
    arrived_s: float
    sample: IntervalSample


def _figures(
    ios: int, io_bytes: float, dt_s: float, bins: dict[int, int], clat_n: int, clat_sum_ns: float
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
        clat_n=clat_n,
        clat_sum_ns=clat_sum_ns,
        bins=bins,
    )


def jobs_have_run(doc: Mapping[str, object]) -> bool:
    """Whether any job in a status document has a direction with time of its own (it did I/O).

    A status that fio began while its jobs were held (the lifeline's prerun) is printed once
    they start, with a ``job_runtime`` from before their clock started (about the status
    interval) and no direction's runtime: its times are not the jobs', so it is not used.
    """
    return any(isinstance(job, dict) and _job_has_run(job) for job in _jobs(doc))


class HostDeriver:
    """A host's cumulative documents -> its seconds, one per section that ran in each.

    The seconds are made by the local run's code (:class:`SectionSecondsDeriver`), timed by
    the host's own ``job_runtime`` differences rather than its wall clock.
    """

    def __init__(self, host: str) -> None:
        self.host = host
        self.seconds = SectionSecondsDeriver()
        self._previous_runtimes: list[int] = []

    def feed(self, doc: dict[str, object], arrived_s: float) -> list[HostInterval]:
        if not jobs_have_run(doc):
            return []
        runtimes = job_runtimes_ms(doc, (arrived_s + RUNTIME_SLACK_S) * 1000.0)
        previous = self._previous_runtimes
        if previous and len(runtimes) == len(previous):
            dt_ms = max((a - b for a, b in zip(runtimes, previous)), default=0)
        else:
            dt_ms = max(runtimes, default=0)
        if dt_ms <= 0:
            return []
        self._previous_runtimes = runtimes
        samples = self.seconds.feed(doc, elapsed_s=dt_ms / 1000.0)
        return [HostInterval(self.host, arrived_s, sample) for sample in samples]


@dataclass
class AggregateSample:
    """One section's second of the hosts together, at ``t_s`` on iotui's clock since the barrier.

    ``hosts``: the hosts whose I/O it holds; ``live_hosts``: the hosts that reported in its round
    (in this section or the next).
    """

    t_s: float
    sample: IntervalSample
    live_hosts: int
    total_hosts: int
    hosts: list[str] = field(default_factory=list)

    @property
    def hosts_label(self) -> str:
        return f"{self.live_hosts}/{self.total_hosts} hosts"


def _merged(samples: list[IntervalSample], t_s: float, *, rates_summed: bool) -> IntervalSample:
    """Seconds of one section merged: counts and bins added, the mean weighted by completions.

    ``rates_summed``: the seconds are different hosts' side by side: rates add, and the span is
    the hosts' spans averaged weighted by their rates (so rate x span is every host's I/Os: the
    rows of a section add up to the hosts' I/Os in it, as a host's own do); else one host's one
    after another: the spans add and the rate is over all of it.
    """
    spans = [sample.dt_s for sample in samples]
    dt_s = sum(spans) if spans else 1.0
    if rates_summed and spans:
        rates = [(figures.iops, sample.dt_s) for sample in samples for figures in sample.directions.values()]
        total_rate = sum(rate for rate, _span in rates)
        dt_s = sum(rate * span for rate, span in rates) / total_rate if total_rate > 0 else max(spans)
    directions: dict[str, DirectionInterval] = {}
    for direction in DIRECTIONS:
        parts = [s.directions[direction] for s in samples if direction in s.directions]
        if not parts:
            continue
        bins: dict[int, int] = {}
        for part in parts:
            for value, count in part.bins.items():
                bins[value] = bins.get(value, 0) + count
        ios = sum(part.ios for part in parts)
        clat_n = sum(part.clat_n for part in parts)
        clat_sum_ns = sum(part.clat_sum_ns for part in parts)
        if rates_summed:
            figures = _figures(ios, 0.0, 1.0, bins, clat_n, clat_sum_ns)
            directions[direction] = replace(
                figures, iops=sum(p.iops for p in parts), bw_bytes=sum(p.bw_bytes for p in parts)
            )
        else:
            io_bytes = sum(p.bw_bytes * s.dt_s for s in samples if (p := s.directions.get(direction)))
            directions[direction] = _figures(ios, io_bytes, dt_s, bins, clat_n, clat_sum_ns)
    groupid = samples[0].groupid if samples else None
    paused = any(sample.paused for sample in samples)
    return IntervalSample(t_s=t_s, dt_s=dt_s, directions=directions, groupid=groupid, paused=paused)


def combine(intervals: list[HostInterval], t_s: float) -> IntervalSample:
    """One section's seconds of many hosts: rates summed, latency merged from the hosts' bins,
    means weighted by counts; a host's several seconds in one round are one second first."""
    by_host: dict[str, list[IntervalSample]] = {}
    for interval in intervals:
        by_host.setdefault(interval.host, []).append(interval.sample)
    per_host = [
        samples[0] if len(samples) == 1 else _merged(samples, t_s, rates_summed=False)
        for samples in by_host.values()
    ]
    return _merged(per_host, t_s, rates_summed=True)


class Aligner:
    """Collects hosts' seconds as they arrive and hands back the aggregate's, one per section.

    Each host's second counts in exactly one round (a host's several in one round are merged,
    never replaced), so a section's aggregate rows hold every host's I/O of that section once.
    """

    def __init__(self, hosts: list[str], *, stale_after_s: float = STALE_AFTER_S) -> None:
        self.hosts = list(hosts)
        self.stale_after_s = stale_after_s
        self.failed: set[str] = set()
        self.finished: set[str] = set()
        self.latest: dict[str, HostInterval] = {}
        self._round: dict[str, list[HostInterval]] = {}
        self._round_started_s: float | None = None
        self._last_t_s = 0.0

    def live(self) -> list[str]:
        return [h for h in self.hosts if h not in self.failed and h not in self.finished]

    def fresh(self, host: str, now_s: float) -> bool:
        latest = self.latest.get(host)
        return latest is not None and now_s - latest.arrived_s <= self.stale_after_s and host not in self.failed

    def add(self, *intervals: HostInterval) -> list[AggregateSample]:
        """One document's seconds of one host (one per section that ran in it)."""
        if not intervals:
            return []
        last = intervals[-1]
        self.latest[last.host] = last
        # A host's next document in one round (its documents came close together) adds to
        # its part: the round still waits for the others.
        self._round.setdefault(last.host, []).extend(intervals)
        if self._round_started_s is None:
            self._round_started_s = last.arrived_s
        # Counted first: at 128 hosts the whole test ran 128 times a round.
        if len(self._round) >= len(self.hosts) - len(self.failed | self.finished) and all(
            host in self._round for host in self.live()
        ):
            return self._close(last.arrived_s)
        return []

    def tick(self, now_s: float) -> list[AggregateSample]:
        """Close a round whose slow hosts kept it open too long (their seconds go in the next)."""
        if self._round and self._round_started_s is not None and now_s - self._round_started_s >= ROUND_TIMEOUT_S:
            return self._close(now_s)
        return []

    def mark_failed(self, host: str) -> None:
        self.failed.add(host)

    def mark_finished(self, host: str, now_s: float) -> list[AggregateSample]:
        self.finished.add(host)
        if self._round and all(host in self._round for host in self.live()):
            return self._close(now_s)
        return []

    def flush(self, now_s: float) -> list[AggregateSample]:
        return self._close(now_s) if self._round else []

    def _close(self, now_s: float) -> list[AggregateSample]:
        parts = [interval for h in self.hosts if h not in self.failed for interval in self._round.get(h, [])]
        # Live: the hosts in the round, and those whose latest second is still fresh (a host
        # whose document came a moment before the round began is not counted out).
        live = [h for h in self.hosts if h not in self.failed and (h in self._round or self.fresh(h, now_s))]
        self._round = {}
        self._round_started_s = None
        if not parts:
            return []
        t_s = max(now_s, self._last_t_s)
        self._last_t_s = t_s
        by_section: dict[int | None, list[HostInterval]] = {}
        for interval in parts:
            by_section.setdefault(interval.sample.groupid, []).append(interval)
        return [
            AggregateSample(
                t_s=t_s,
                sample=combine(section_parts, t_s),
                live_hosts=len(live),
                total_hosts=len(self.hosts),
                hosts=list(dict.fromkeys(p.host for p in section_parts)),
            )
            for _groupid, section_parts in sorted(by_section.items(), key=lambda item: (item[0] is None, item[0] or 0))
        ]
