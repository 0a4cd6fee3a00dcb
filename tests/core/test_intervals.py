"""Interval arithmetic on fio's cumulative documents."""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iotui.core.fio.intervals import (
    IntervalDeriver,
    fio_percentile_rank,
    fio_percentile_threshold,
    fio_percentiles,
    snapshot_from_document,
)
from tests.conftest import fio_documents, recorded_fio_outputs


def _fio_reported(clat: dict) -> tuple[list[float], list[int]]:
    keys = sorted(clat["percentile"], key=float)
    return [float(k) for k in keys], [clat["percentile"][k] for k in keys]


@pytest.mark.parametrize("name", recorded_fio_outputs())
def test_percentile_walk_equals_fio_on_every_recorded_document(name: str) -> None:
    checked = 0
    for doc in fio_documents(name):
        for job in doc["jobs"]:
            for direction in ("read", "write", "trim"):
                clat = job[direction]["clat_ns"]
                if not clat.get("N") or "bins" not in clat:
                    continue
                percentiles, expected = _fio_reported(clat)
                bins = sorted((int(k), v) for k, v in clat["bins"].items())
                assert fio_percentiles(bins, clat["N"], tuple(percentiles)) == expected
                checked += 1
    assert checked > 0


def test_first_interval_equals_fios_own_first_figures() -> None:
    docs = fio_documents("randrw-rate200-json+.txt")
    sample = IntervalDeriver().feed(docs[0])
    assert sample is not None
    for direction in ("read", "write"):
        fio_stats = docs[0]["jobs"][0][direction]
        figures = sample.directions[direction]
        assert figures.iops == pytest.approx(fio_stats["iops"], rel=1e-6)
        assert figures.lat_mean_ns == pytest.approx(fio_stats["clat_ns"]["mean"], rel=1e-9)
        assert figures.lat_percentiles_ns["p99"] == fio_stats["clat_ns"]["percentile"]["99.000000"]
        assert figures.lat_percentiles_ns["p50"] == fio_stats["clat_ns"]["percentile"]["50.000000"]


def test_rate_limited_intervals_show_the_rate() -> None:
    deriver = IntervalDeriver()
    samples = [s for s in map(deriver.feed, fio_documents("randrw-rate200-json+.txt")) if s]
    full = [s for s in samples if s.dt_s >= 0.5]
    assert len(full) >= 2
    for sample in full:
        assert sample.directions["read"].iops == pytest.approx(200, rel=0.1)
        assert sample.directions["write"].iops == pytest.approx(200, rel=0.1)
    # Interval I/O adds up to fio's cumulative total.
    last = fio_documents("randrw-rate200-json+.txt")[-1]["jobs"][0]["read"]
    assert sum(s.directions["read"].ios for s in samples) == last["total_ios"]
    assert sum(s.directions["read"].bw_bytes * s.dt_s for s in samples) == pytest.approx(last["io_bytes"])


def test_interval_mean_is_n_weighted_difference() -> None:
    docs = fio_documents("randrw-rate200-json+.txt")
    deriver = IntervalDeriver()
    deriver.feed(docs[0])
    second = deriver.feed(docs[1])
    a, b = docs[0]["jobs"][0]["read"]["clat_ns"], docs[1]["jobs"][0]["read"]["clat_ns"]
    expected = (b["mean"] * b["N"] - a["mean"] * a["N"]) / (b["N"] - a["N"])
    assert second.directions["read"].lat_mean_ns == pytest.approx(expected, rel=1e-12)
    assert second.dt_s == (docs[1]["timestamp_ms"] - docs[0]["timestamp_ms"]) / 1000


def test_interval_percentiles_come_from_bin_differences() -> None:
    docs = fio_documents("randread-3jobs-json+.txt")
    first, second = snapshot_from_document(docs[0]), snapshot_from_document(docs[1])
    deriver = IntervalDeriver()
    deriver.feed(docs[0])
    sample = deriver.feed(docs[1])
    before, after = first.directions["read"].bins, second.directions["read"].bins
    delta = sorted((v, c - before.get(v, 0)) for v, c in after.items() if c - before.get(v, 0) > 0)
    total = sum(c for _, c in delta)
    # The median from a plain cumulative walk over the delta histogram.
    running = 0
    median = None
    for value, count in delta:
        running += count
        if running * 2 >= total:
            median = value
            break
    assert sample.directions["read"].lat_percentiles_ns["p50"] == median
    assert sample.directions["read"].lat_min_ns == delta[0][0]
    assert sample.directions["read"].lat_max_ns == delta[-1][0]


def test_jobs_without_group_reporting_are_summed() -> None:
    doc = fio_documents("randread-3jobs-json+.txt")[-1]
    snapshot = snapshot_from_document(doc)
    assert snapshot.job_count == 3
    read = snapshot.directions["read"]
    assert read.total_ios == sum(job["read"]["total_ios"] for job in doc["jobs"])
    assert read.clat_n == sum(job["read"]["clat_ns"]["N"] for job in doc["jobs"])
    assert sum(read.bins.values()) == sum(sum(j["read"]["clat_ns"]["bins"].values()) for j in doc["jobs"])


def test_ramp_time_reset_starts_a_new_baseline() -> None:
    docs = fio_documents("randread-ramp-json+.txt")
    deriver = IntervalDeriver()
    samples = [s for s in map(deriver.feed, docs) if s]
    assert deriver.resets == 1
    assert all(s.directions["read"].iops >= 0 for s in samples)
    assert [s.t_s for s in samples] == sorted(s.t_s for s in samples)
    # After the reset, intervals add up to the final cumulative count.
    final_ios = docs[-1]["jobs"][0]["read"]["total_ios"]
    reset_at = next(i for i, d in enumerate(docs[1:], 1) if d["jobs"][0]["read"]["total_ios"] < docs[i - 1]["jobs"][0]["read"]["total_ios"])
    after = [deriver_sample for deriver_sample in samples[reset_at:]]
    assert sum(s.directions["read"].ios for s in after) == final_ios


def test_counters_going_backwards_never_give_negative_figures() -> None:
    docs = fio_documents("randrw-rate200-json+.txt")
    shuffled = [docs[2], docs[0], docs[1]]
    deriver = IntervalDeriver()
    for doc in shuffled:
        sample = deriver.feed(doc)
        if sample:
            assert all(d.iops >= 0 and d.bw_bytes >= 0 for d in sample.directions.values())


def test_a_direction_that_has_only_begun_still_counts() -> None:
    # Directions with no I/O at all are skipped when the jobs are added up; one whose
    # runtime runs (a stalled write) or that holds a latency sample is not idle.
    doc = copy.deepcopy(fio_documents("randread-3jobs-json+.txt")[-1])
    write, trim = doc["jobs"][1]["write"], doc["jobs"][2]["trim"]
    assert write["total_ios"] == write["runtime"] == trim["total_ios"] == trim["runtime"] == 0  # a read-only capture
    write["runtime"] = 750
    trim["clat_ns"].update(N=1, mean=1200.0, min=1200, max=1200, bins={"1200": 1})
    snapshot = snapshot_from_document(doc)
    assert snapshot.directions["write"].runtime_ms == 750
    assert snapshot.directions["trim"].clat_n == 1
    assert snapshot.directions["trim"].bins == {1200: 1}


def test_directions_without_io_are_absent() -> None:
    sample = IntervalDeriver().feed(fio_documents("randread-3jobs-json+.txt")[0])
    assert set(sample.directions) == {"read"}


def test_threshold_matches_fio_extended_precision_edge() -> None:
    # 99.9 as a double is a hair above 99.9, so 999 of 1000 samples is not enough.
    assert fio_percentile_threshold(99.9, 1000) > 999
    assert fio_percentiles([(10, 999), (20, 1)], 1000, (99.9,)) == [20]
    assert fio_percentiles([(10, 5), (20, 5)], 10, (50.0,)) == [10]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 10**9), st.integers(1, 1000)), min_size=1, max_size=50, unique_by=lambda t: t[0]),
    st.sampled_from([1.0, 5.0, 50.0, 90.0, 99.0, 99.5, 99.9, 99.99]),
)
def test_property_percentile_is_a_bin_value_with_enough_mass(bins, percentile) -> None:
    bins = sorted(bins)
    total = sum(c for _, c in bins)
    (value,) = fio_percentiles(bins, total, (percentile,))
    assert value in {v for v, _ in bins}
    below = sum(c for v, c in bins if v < value)
    at_or_below = below + dict(bins)[value]
    assert at_or_below * 100 >= percentile * total * (1 - 1e-12)
    assert below * 100 < percentile * total * (1 + 1e-12)


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(st.sampled_from([0.0, 1.0, 5.0, 50.0, 90.0, 99.0, 99.5, 99.9, 99.99, 100.0]),
              st.floats(0.0, 100.0, allow_nan=False)),
    st.integers(1, 10**15),
)
def test_property_integer_rank_is_the_ceiling_of_fios_threshold(percentile, sample_count) -> None:
    # x87 rounding written out with Fractions (nearest, ties even, 64 significant bits) is
    # the oracle for the integer arithmetic: fio's (long double) p / 100.0 * nr.
    def extended(value: Fraction) -> Fraction:
        if value == 0:
            return value
        exponent = value.numerator.bit_length() - value.denominator.bit_length()
        if Fraction(2) ** exponent > value:
            exponent -= 1
        scale = Fraction(2) ** (63 - exponent)
        return Fraction(round(value * scale)) / scale

    threshold = extended(extended(Fraction(percentile) / 100) * sample_count)
    assert fio_percentile_threshold(percentile, sample_count) == threshold
    assert fio_percentile_rank(percentile, sample_count) == math.ceil(threshold)


def _walk_as_fio_does(bins, sample_count, percentiles):
    """fio's calc_clat_percentiles as written in fio: a running count over the bins, bin by bin."""
    results = []
    for percentile in percentiles:
        threshold = fio_percentile_threshold(percentile, sample_count)
        running, found = 0, None
        for value, count in bins:
            running += count
            if running >= threshold:
                found = value
                break
        results.append(found)
    return results


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 10**9), st.integers(0, 1000)), max_size=60, unique_by=lambda t: t[0]),
    st.integers(-2, 3000),
)
def test_property_bisected_walk_equals_the_bin_by_bin_walk(bins, extra) -> None:
    # Zero counts, and sample counts above and below the bins' total (N and the
    # histogram are updated a moment apart): every percentile lands where fio's walk does.
    bins = sorted(bins)
    sample_count = sum(count for _, count in bins) + extra
    percentiles = (1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0)
    expected = _walk_as_fio_does(bins, sample_count, percentiles) if sample_count > 0 else [None] * len(percentiles)
    assert fio_percentiles(bins, sample_count, percentiles) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5000), st.integers(0, 50)), min_size=2, max_size=8))
def test_property_interval_counts_add_up(steps) -> None:
    """Synthetic cumulative documents: the sum of interval ios is the last total."""
    docs = []
    total_ios = 0
    timestamp_ms = 1000
    bins: dict[str, int] = {}
    for step_ms, new_ios in steps:
        total_ios += new_ios
        timestamp_ms += step_ms
        if new_ios:
            bins[str(1000 + new_ios)] = bins.get(str(1000 + new_ios), 0) + new_ios
        docs.append(
            {
                "timestamp_ms": timestamp_ms,
                "jobs": [
                    {
                        "read": {
                            "total_ios": total_ios,
                            "io_bytes": total_ios * 4096,
                            "runtime": timestamp_ms - 1000,
                            "clat_ns": {"N": total_ios, "mean": 1000.0, "min": 1, "max": 2, "bins": copy.copy(bins)},
                        }
                    }
                ],
            }
        )
    deriver = IntervalDeriver()
    samples = [s for s in map(deriver.feed, docs) if s]
    assert sum(s.directions["read"].ios for s in samples) == total_ios
    assert all(s.dt_s > 0 for s in samples)


def test_a_finished_section_is_absent_not_zero() -> None:
    docs = fio_documents("two-sections-json+.txt")
    deriver = IntervalDeriver()
    samples = [s for s in map(deriver.feed, docs) if s]
    assert set(samples[0].directions) == {"read"}
    assert set(samples[2].directions) == {"read", "write"}  # the read section ended inside it
    assert set(samples[-1].directions) == {"write"}
    assert all(s.directions["write"].iops > 0 for s in samples[2:])
    total_read = sum(s.directions["read"].ios for s in samples if "read" in s.directions)
    assert total_read == docs[-1]["jobs"][0]["read"]["total_ios"]
