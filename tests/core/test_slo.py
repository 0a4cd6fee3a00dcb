"""Latency targets for sweeps: parsing --slo and choosing the best point that meets it."""

from __future__ import annotations

import pytest

from iotui.core.sweep.points import PointResult
from iotui.core.sweep.slo import SloCandidate, SloError, choose, choose_point, parse_slo


@pytest.mark.parametrize(
    ("text", "direction", "figure", "op", "limit_ns", "key"),
    [
        ("read p99<=1ms", "read", "p99", "<=", 1_000_000.0, "lat_p99_ns"),
        ("write p99.9 < 250us", "write", "p99.9", "<", 250_000.0, "lat_p99_9_ns"),
        ("READ P50<=0.5ms", "read", "p50", "<=", 500_000.0, "lat_p50_ns"),
        ("read mean<=800µs", "read", "mean", "<=", 800_000.0, "lat_mean_ns"),
        ("trim p90<=2s", "trim", "p90", "<=", 2e9, "lat_p90_ns"),
        ("read p99<=900ns", "read", "p99", "<=", 900.0, "lat_p99_ns"),
    ],
)
def test_targets_parse(text, direction, figure, op, limit_ns, key) -> None:
    slo = parse_slo(text)
    assert (slo.direction, slo.figure, slo.op, slo.limit_ns, slo.key) == (direction, figure, op, limit_ns, key)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("read p99", "DIRECTION FIGURE<=TIME"),
        ("read p99<=1", "DIRECTION FIGURE<=TIME"),
        ("read p99>=1ms", "DIRECTION FIGURE<=TIME"),
        ("both p99<=1ms", "'both'"),
        ("read p95<=1ms", "'p95'"),
        ("read p99<=0ms", "above zero"),
    ],
)
def test_bad_targets_are_sentences_naming_the_problem(text, named) -> None:
    with pytest.raises(SloError) as caught:
        parse_slo(text)
    message = str(caught.value)
    assert named in message and message.endswith(".")


def _points() -> list[SloCandidate]:
    # numjobs 1..8: IOPS rises, p99 rises; 4 jobs is the last under 1 ms.
    return [
        SloCandidate({"numjobs": "1"}, 10_000.0, 200_000.0),
        SloCandidate({"numjobs": "2"}, 19_000.0, 450_000.0),
        SloCandidate({"numjobs": "4"}, 30_000.0, 1_000_000.0),
        SloCandidate({"numjobs": "8"}, 34_000.0, 2_400_000.0),
    ]


def test_the_highest_iops_point_that_meets_the_target_is_chosen_with_a_sentence() -> None:
    choice = choose(parse_slo("read p99<=1ms"), _points())
    assert choice.params == {"numjobs": "4"}
    assert choice.index == 2
    assert choice.iops == 30_000.0
    assert choice.why == (
        "numjobs=4 gives the most read IOPS that meet read p99 <= 1.00ms: 30.0k IOPS at read p99 1.00ms; "
        "the fastest point, numjobs=8, gives 34.0k IOPS but its read p99 is 2.40ms."
    )
    strict = choose(parse_slo("read p99<1ms"), _points())
    assert strict.params == {"numjobs": "2"}


def test_no_point_meets_the_target() -> None:
    choice = choose(parse_slo("read p99<=100us"), _points())
    assert choice.params is None and choice.index is None
    assert choice.why == "No point meets read p99 <= 100µs: the lowest read p99 was 200µs at numjobs=1."


def test_points_without_the_figure_are_left_out() -> None:
    points = [SloCandidate({"numjobs": "1"}, None, None), SloCandidate({"numjobs": "2"}, 5.0, None)]
    choice = choose(parse_slo("write p99<=1ms"), points)
    assert choice.params is None
    assert "No point has write IOPS and a write p99 latency" in choice.why


def test_the_fastest_point_meeting_the_target_needs_no_aside() -> None:
    points = [SloCandidate({"iodepth": "1"}, 100.0, 50_000.0), SloCandidate({"iodepth": "4"}, 300.0, 90_000.0)]
    choice = choose(parse_slo("read p99<=1ms"), points)
    assert choice.params == {"iodepth": "4"}
    assert "fastest" not in choice.why


def test_a_point_is_judged_by_the_figure_the_target_names() -> None:
    point = PointResult({"a": "1"}, read_iops=1234.0, read_lat_p99_ns=5.0, read_lat_p99_9_ns=9.0, read_lat_mean_ns=2.0)
    assert choose_point(parse_slo("read p99.9<=1ms"), [point]).latency_ns == 9.0
    assert choose_point(parse_slo("read mean<=1ms"), [point]).latency_ns == 2.0
    assert choose_point(parse_slo("write mean<=1ms"), [point]).iops is None
