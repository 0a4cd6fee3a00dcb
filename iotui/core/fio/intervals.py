"""Cumulative fio documents -> per-interval samples.

fio's status documents are cumulative since the job started. The figures for
one interval come from two consecutive documents:

* ``dt_s`` from the documents' ``timestamp_ms``;
* IOPS = delta ``total_ios`` / dt, bandwidth = delta ``io_bytes`` / dt;
* mean completion latency = the N-weighted difference of the cumulative means;
* percentiles, min and max from the difference of the json+ ``clat_ns`` bins,
  walked the way fio walks them (see :func:`fio_percentiles`).

Jobs without ``group_reporting`` are aggregated first: counters are summed,
means are N-weighted and bins are merged. When counters go backwards (fio
zeroes them at the end of ``ramp_time``) the document becomes a new baseline.
``docs/numbers.md`` explains each figure.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate

# "mixed": fio's unified_rw_reporting reports reads and writes as one direction.
DIRECTIONS = ("read", "write", "trim", "mixed")

# (record key suffix, fio percentile) pairs reported per interval and summary.
PERCENTILES: tuple[tuple[str, float], ...] = (
    ("p50", 50.0),
    ("p90", 90.0),
    ("p99", 99.0),
    ("p99_9", 99.9),
)
_PERCENTILE_VALUES = tuple(percentile for _name, percentile in PERCENTILES)


@dataclass(frozen=True)
class DirectionTotals:
    """Cumulative counters of one direction, summed over all jobs."""

    total_ios: int
    io_bytes: int
    runtime_ms: int
    clat_n: int
    clat_sum_ns: float
    clat_min_ns: int | None
    clat_max_ns: int | None
    bins: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Snapshot:
    """One fio document reduced to what interval arithmetic needs."""

    timestamp_ms: int
    job_count: int
    directions: dict[str, DirectionTotals]


@dataclass(frozen=True)
class DirectionInterval:
    """One direction's figures over one interval."""

    ios: int
    iops: float
    bw_bytes: float
    lat_mean_ns: float | None
    lat_min_ns: int | None
    lat_max_ns: int | None
    lat_percentiles_ns: dict[str, int]
    # What merging this interval with others' (hosts of a multi-host run) needs: the
    # completions, their summed latency and the latency bins that grew in it.
    clat_n: int = 0
    clat_sum_ns: float = 0.0
    bins: Mapping[int, int] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class IntervalSample:
    """All directions over one interval; ``t_s`` is the interval's end."""

    t_s: float
    dt_s: float
    directions: dict[str, DirectionInterval]
    # fio's reporting group the sample belongs to (None where not split by group).
    groupid: int | None = None
    # A pause fell in this interval: it is left out of every figure.
    paused: bool = False


def _extended_parts(numerator: int, denominator: int, significand_bits: int = 64) -> tuple[int, int]:
    """A positive ``numerator / denominator`` rounded to x87 extended precision (nearest, ties
    even), as ``(significand, shift)``: the rounded value is ``significand / 2**shift``.

    Integers only: worked out for every percentile of every interval, where Fractions cost
    a third of the interval's arithmetic.
    """
    exponent = numerator.bit_length() - denominator.bit_length()
    # Make 2**exponent <= value < 2**(exponent + 1).
    if exponent >= 0:
        if denominator << exponent > numerator:
            exponent -= 1
    elif denominator > numerator << -exponent:
        exponent -= 1
    shift = significand_bits - 1 - exponent
    if shift >= 0:
        divisor = denominator
        quotient, remainder = divmod(numerator << shift, divisor)
    else:
        divisor = denominator << -shift
        quotient, remainder = divmod(numerator, divisor)
    if 2 * remainder > divisor or (2 * remainder == divisor and quotient & 1):
        quotient += 1
    return quotient, shift


def _round_extended(value: Fraction, significand_bits: int = 64) -> Fraction:
    """Round a positive rational to x87 extended precision (nearest, ties even)."""
    if value == 0:
        return value
    significand, shift = _extended_parts(value.numerator, value.denominator, significand_bits)
    return Fraction(significand, 1 << shift) if shift >= 0 else Fraction(significand << -shift)


@lru_cache(maxsize=64)
def _percentile_quotient(percentile: float) -> Fraction:
    """fio's ``(long double) p / 100.0``: the same few percentiles every interval, worked out once."""
    return _round_extended(Fraction(percentile) / 100)


def fio_percentile_threshold(percentile: float, sample_count: int) -> Fraction:
    """fio's ``(long double) p / 100.0 * nr``, computed as x86 fio computes it."""
    return _round_extended(_percentile_quotient(percentile) * sample_count)


def fio_percentile_rank(percentile: float, sample_count: int) -> int:
    """The running count a bin must reach to hold the percentile: ``ceil`` of fio's threshold.

    The running count is an integer, so comparing it with this integer is exactly fio's
    comparison with the extended-precision threshold.
    """
    quotient = _percentile_quotient(percentile)
    if quotient == 0 or sample_count <= 0:
        return 0
    significand, shift = _extended_parts(quotient.numerator * sample_count, quotient.denominator)
    return -(-significand >> shift) if shift >= 0 else significand << -shift


def fio_percentiles(
    sorted_bins: list[tuple[int, int]], sample_count: int, percentiles: tuple[float, ...]
) -> list[int | None]:
    """fio's percentile walk over histogram bins (``calc_clat_percentiles``).

    Each percentile is the value of the first bin at which the running count
    reaches ``p/100 * N``. Bins are (representative value, count) pairs sorted
    by value. Percentiles must be ascending.
    """
    if not sorted_bins:
        return [None] * len(percentiles)
    values, counts = zip(*sorted_bins)
    return fio_percentiles_of(values, counts, sample_count, percentiles)


def fio_percentiles_of(
    values: Sequence[int], counts: Iterable[int], sample_count: int, percentiles: tuple[float, ...]
) -> list[int | None]:
    """:func:`fio_percentiles` over the bins as two columns (ascending values, their counts).

    The running count at each bin is worked out once (``accumulate``), and each
    percentile's bin is found by bisection: the first bin whose running count
    reaches the threshold, as fio's walk finds it. Counts are never negative,
    so the running count never falls.
    """
    results: list[int | None] = [None] * len(percentiles)
    if sample_count <= 0 or not values:
        return results
    running = list(accumulate(counts))
    last = len(running)
    for index, percentile in enumerate(percentiles):
        at = bisect_left(running, fio_percentile_rank(percentile, sample_count))
        if at < last:
            results[index] = values[at]
    return results


def _direction_of_job(stats: dict) -> tuple[int, int, int, int, float, int | None, int | None, dict | None]:
    clat = stats.get("clat_ns") or {}
    clat_n = int(clat.get("N", 0) or 0)
    mean_ns = float(clat.get("mean", 0.0) or 0.0)
    min_ns = int(clat["min"]) if clat_n and "min" in clat else None
    max_ns = int(clat["max"]) if clat_n and "max" in clat else None
    # fio writes bin values as JSON keys (strings); they become integers once,
    # after jobs are merged (see snapshot_from_document).
    bins = clat.get("bins") if clat_n else None
    return (
        int(stats.get("total_ios", 0) or 0),
        int(stats.get("io_bytes", 0) or 0),
        int(stats.get("runtime", 0) or 0),
        clat_n,
        mean_ns * clat_n,
        min_ns,
        max_ns,
        bins,
    )


def _idle(stats: dict) -> bool:
    """A direction the job has not done at all (a read job's write and trim): nothing to add.

    Most directions of a large document are idle (a 1,024-job random-read document holds
    2,048 of them); skipping them costs three lookups instead of reading every counter.
    """
    if stats.get("total_ios") or stats.get("io_bytes") or stats.get("runtime"):
        return False
    clat = stats.get("clat_ns")
    return not (clat and clat.get("N"))


def snapshot_from_document(doc: dict) -> Snapshot:
    """Aggregate a fio document's jobs into one cumulative snapshot."""
    jobs = doc.get("jobs") or []
    directions: dict[str, DirectionTotals] = {}
    for direction in DIRECTIONS:
        total_ios = io_bytes = runtime_ms = clat_n = 0
        clat_sum_ns = 0.0
        min_ns: int | None = None
        max_ns: int | None = None
        merged: dict[str | int, int] = {}
        for job in jobs:
            stats = job.get(direction)
            if not isinstance(stats, dict) or _idle(stats):
                continue
            ios, nbytes, runtime, n, weighted, jmin, jmax, jbins = _direction_of_job(stats)
            total_ios += ios
            io_bytes += nbytes
            runtime_ms = max(runtime_ms, runtime)
            clat_n += n
            clat_sum_ns += weighted
            if jmin is not None:
                min_ns = jmin if min_ns is None else min(min_ns, jmin)
            if jmax is not None:
                max_ns = jmax if max_ns is None else max(max_ns, jmax)
            if not jbins:
                continue
            if not merged:
                merged = dict(jbins)
            else:
                get = merged.get
                for value, count in jbins.items():
                    merged[value] = get(value, 0) + count
        # Keys are strings as fio writes them (whole or read live), made integers once here.
        bins = dict(zip(map(int, merged), merged.values()))
        directions[direction] = DirectionTotals(
            total_ios, io_bytes, runtime_ms, clat_n, clat_sum_ns, min_ns, max_ns, bins
        )
    return Snapshot(
        timestamp_ms=int(doc.get("timestamp_ms", 0) or 0),
        job_count=len(jobs),
        directions=directions,
    )


# A direction that has done nothing yet.
EMPTY_TOTALS = DirectionTotals(0, 0, 0, 0, 0.0, None, None, {})


def _went_backwards(previous: Snapshot, current: Snapshot, *, by_timestamp: bool = True) -> bool:
    for direction in DIRECTIONS:
        before = previous.directions.get(direction, EMPTY_TOTALS)
        after = current.directions.get(direction, EMPTY_TOTALS)
        if after.total_ios < before.total_ios or after.clat_n < before.clat_n:
            return True
    return by_timestamp and current.timestamp_ms < previous.timestamp_ms


def direction_interval(
    before: DirectionTotals, after: DirectionTotals, dt_s: float
) -> DirectionInterval:
    """One direction's figures between two cumulative totals, its rates over ``dt_s``."""
    ios = after.total_ios - before.total_ios
    clat_n = after.clat_n - before.clat_n
    lat_mean_ns = (after.clat_sum_ns - before.clat_sum_ns) / clat_n if clat_n > 0 else None
    # The bins that grew since the last document (fio's are cumulative), in value order.
    grown: dict[int, int] = {}
    previous = before.bins.get
    for value, count in after.bins.items():
        new_count = count - previous(value, 0)
        if new_count > 0:
            grown[value] = new_count
    values = sorted(grown)
    counts = [grown[value] for value in values]
    # Walk over the bins' own total: fio updates the histogram and N a moment
    # apart, so a status document can hold one more binned sample than N.
    binned_count = sum(counts)
    percentile_values = fio_percentiles_of(values, counts, binned_count, _PERCENTILE_VALUES)
    percentiles = {
        name: value
        for (name, _), value in zip(PERCENTILES, percentile_values)
        if value is not None
    }
    return DirectionInterval(
        ios=ios,
        iops=ios / dt_s,
        bw_bytes=(after.io_bytes - before.io_bytes) / dt_s,
        lat_mean_ns=lat_mean_ns,
        lat_min_ns=values[0] if values else None,
        lat_max_ns=values[-1] if values else None,
        lat_percentiles_ns=percentiles,
        clat_n=clat_n,
        clat_sum_ns=after.clat_sum_ns - before.clat_sum_ns,
        bins=grown,
    )


def _zero_baseline(snapshot: Snapshot) -> Snapshot:
    return Snapshot(snapshot.timestamp_ms, snapshot.job_count, {d: EMPTY_TOTALS for d in DIRECTIONS})


class IntervalDeriver:
    """Turns a stream of cumulative documents into interval samples.

    The first document (and the first after a reset) is measured against
    zero, over the jobs' own runtime, so the first interval equals fio's own
    figure for it. Every later interval spans two documents' timestamps, or
    ``elapsed_s`` where the caller times it by the jobs' own clock (a remote
    host's wall clock may be off or jump).
    """

    def __init__(self) -> None:
        self._previous: Snapshot | None = None
        self._t_s = 0.0
        self.resets = 0

    def feed(self, doc: dict) -> IntervalSample | None:
        return self.feed_snapshot(snapshot_from_document(doc))

    def feed_snapshot(self, snapshot: Snapshot, elapsed_s: float | None = None) -> IntervalSample | None:
        previous = self._previous
        if previous is not None and _went_backwards(previous, snapshot, by_timestamp=elapsed_s is None):
            self.resets += 1
            if elapsed_s is None:
                elapsed_s = max(snapshot.timestamp_ms - previous.timestamp_ms, 0) / 1000.0
            self._t_s += elapsed_s
            previous = None
            self._previous = snapshot
            # Counters restarted from zero: measure the new stretch against
            # zero over the jobs' runtime, but keep the clock running.
            return self._interval(_zero_baseline(snapshot), snapshot, elapsed_s_override=True)
        self._previous = snapshot
        if previous is None:
            sample = self._interval(_zero_baseline(snapshot), snapshot, elapsed_s_override=False)
            return sample
        dt_s = (snapshot.timestamp_ms - previous.timestamp_ms) / 1000.0 if elapsed_s is None else elapsed_s
        if dt_s <= 0:
            return None
        self._t_s += dt_s
        return IntervalSample(
            t_s=self._t_s,
            dt_s=dt_s,
            directions=self._directions(previous, snapshot, dt_s),
        )

    def _interval(
        self, baseline: Snapshot, snapshot: Snapshot, *, elapsed_s_override: bool
    ) -> IntervalSample | None:
        runtime_ms = max(
            (totals.runtime_ms for totals in snapshot.directions.values()), default=0
        )
        if runtime_ms <= 0:
            return None
        dt_s = runtime_ms / 1000.0
        if not elapsed_s_override:
            self._t_s = dt_s
        return IntervalSample(
            t_s=self._t_s,
            dt_s=dt_s,
            directions=self._directions(baseline, snapshot, dt_s),
        )

    @staticmethod
    def _directions(
        before: Snapshot, after: Snapshot, dt_s: float
    ) -> dict[str, DirectionInterval]:
        result: dict[str, DirectionInterval] = {}
        for direction in DIRECTIONS:
            after_totals = after.directions.get(direction, EMPTY_TOTALS)
            before_totals = before.directions.get(direction, EMPTY_TOTALS)
            if (
                after_totals.runtime_ms == before_totals.runtime_ms
                and after_totals.total_ios == before_totals.total_ios
            ):
                # Not running in this interval (never started, or its section of
                # a multi-section preset is over): absent, not 0 IOPS. A running
                # but stalled direction still has its runtime growing.
                continue
            result[direction] = direction_interval(before_totals, after_totals, dt_s)
        return result
