"""Latencies near a unit's edge keep three figures and take the larger unit."""

import pytest

from iotui.core.format import in_unit, latency_ns


@pytest.mark.parametrize(
    ("value_ns", "shown"),
    [
        (999.6, "1.00µs"),
        (999.4, "999ns"),
        (999_600.0, "1.00ms"),
        (999_600_000.0, "1.00s"),
        (9_996.0, "10.0µs"),
        (99_960.0, "100µs"),
        (1_234.0, "1.23µs"),
        (161.0, "161ns"),
    ],
)
def test_latency_near_a_unit_edge(value_ns: float, shown: str) -> None:
    assert latency_ns(value_ns) == shown


@pytest.mark.parametrize(
    ("value_ns", "shown"),
    [(207.0, "<0.001"), (499.0, "<0.001"), (500.0, "0.001"), (120_000.0, "0.120"), (0.0, "0.000"), (6_720_000.0, "6.72")],
)
def test_a_tiny_latency_in_milliseconds_is_not_shown_as_zero(value_ns: float, shown: str) -> None:
    assert in_unit(value_ns, 1e6) == shown
