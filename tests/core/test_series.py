"""Ring buffers and counter -> rate conversion."""

from __future__ import annotations

import pytest

from iotui.core.series import CounterRate, Ring


def test_ring_keeps_only_the_newest_values_oldest_first() -> None:
    ring = Ring(3)
    for value in (1.0, 2.0, 3.0, 4.0, 5.0):
        ring.append(value)
    assert ring.values() == [3.0, 4.0, 5.0]
    assert len(ring) == 3
    assert ring.capacity == 3
    assert ring.latest() == 5.0


def test_ring_keeps_gaps_but_min_max_and_present_skip_them() -> None:
    ring = Ring(5, [2.0, None, 7.0, None])
    assert ring.values() == [2.0, None, 7.0, None]
    assert ring.present() == [2.0, 7.0]
    assert ring.max() == 7.0
    assert ring.min() == 2.0
    # The newest sample is a gap: latest says so instead of reaching back.
    assert ring.latest() is None


def test_empty_ring_has_no_latest_min_or_max() -> None:
    ring = Ring(2)
    assert ring.latest() is None
    assert ring.max() is None
    assert ring.min() is None
    assert list(ring) == []


def test_ring_extend_and_clear() -> None:
    ring = Ring(2)
    ring.extend([1.0, 2.0, 3.0])
    assert list(ring) == [2.0, 3.0]
    ring.clear()
    assert len(ring) == 0 and ring.capacity == 2


def test_ring_values_is_a_copy() -> None:
    ring = Ring(2, [1.0])
    snapshot = ring.values()
    snapshot.append(99.0)
    assert ring.values() == [1.0]


@pytest.mark.parametrize("capacity", [0, -1])
def test_ring_refuses_a_capacity_below_one(capacity: int) -> None:
    with pytest.raises(ValueError, match="capacity"):
        Ring(capacity)


def test_counter_rate_first_call_is_none_then_delta_over_time() -> None:
    rate = CounterRate()
    assert rate.update(1000, now_s=10.0) is None
    assert rate.update(1500, now_s=12.0) == 250.0
    assert rate.update(1500, now_s=13.0) == 0.0
    assert rate.update(1600, now_s=13.5) == 200.0


def test_counter_rate_going_backwards_returns_none_and_rebaselines() -> None:
    rate = CounterRate()
    rate.update(5000, now_s=0.0)
    assert rate.update(100, now_s=1.0) is None
    # The backwards value is the new baseline: 100 -> 400 over 1 s.
    assert rate.update(400, now_s=2.0) == 300.0
    # Even one step back is a reset, not a small negative rate.
    assert rate.update(399, now_s=3.0) is None


def test_counter_rate_needs_time_to_pass() -> None:
    rate = CounterRate()
    rate.update(10, now_s=5.0)
    assert rate.update(20, now_s=5.0) is None
    assert rate.update(30, now_s=6.0) == 10.0


def test_counter_rate_none_counter_forgets_the_baseline() -> None:
    rate = CounterRate()
    rate.update(10, now_s=0.0)
    assert rate.update(None, now_s=1.0) is None
    assert rate.update(50, now_s=2.0) is None
    assert rate.update(80, now_s=3.0) == 30.0


def test_counter_rate_reset() -> None:
    rate = CounterRate()
    rate.update(10, now_s=0.0)
    rate.reset()
    assert rate.update(20, now_s=1.0) is None
    assert rate.update(25, now_s=2.0) == 5.0
