"""The run screen's rolling series and the sparkline drawing (pure, no terminal)."""

from __future__ import annotations

from iotui.core.host.counters import HostSample
from iotui.core.fio.intervals import IntervalDeriver
from iotui.ui.live import SERIES_CAPACITY, SPARK_BARS, SPARK_MIN_WINDOW, LiveSeries, sparkline
from tests.conftest import fio_documents
from tests.ui.replay import RANDRW, synthetic_documents


def _intervals(documents):
    deriver = IntervalDeriver()
    return [interval for doc in documents if (interval := deriver.feed(doc)) is not None]


def test_rings_stay_bounded_over_an_hour() -> None:
    live = LiveSeries()
    for interval in _intervals(synthetic_documents(3600)):
        live.add_interval(interval)
        live.add_host(HostSample(cpu_user_pct=10.0))
    assert live.intervals_seen == 3600
    assert all(len(ring) <= SERIES_CAPACITY for ring in live.rings.values())
    assert len(live.ring("read_iops")) == SERIES_CAPACITY


def test_directions_appear_in_order_with_their_figures() -> None:
    live = LiveSeries()
    intervals = _intervals(fio_documents(RANDRW))
    for interval in intervals:
        live.add_interval(interval)
    assert live.directions == ["read", "write"]
    assert [spec.key for spec in live.fio_specs()][:3] == ["read_iops", "read_bw_bytes", "read_lat_p99_ns"]
    assert live.ring("write_iops").latest() == intervals[-1].directions["write"].iops


def test_absent_host_figures_are_gaps_not_zeros() -> None:
    live = LiveSeries()
    live.add_host(HostSample(cpu_user_pct=5.0))  # no PSI on this "machine"
    assert live.ring("psi_io_some_pct").values() == [None]
    assert live.ring("cpu_user_pct").values() == [5.0]


def test_sparkline_keeps_at_least_a_minute_and_puts_now_on_the_right() -> None:
    values = [float(v) for v in range(1, 121)]
    line = sparkline(values, 20)
    assert len(line) == 20
    assert line[-1] == SPARK_BARS[-1]  # the newest, largest value
    # 20 cells show the last 60 samples: the oldest shown (61) is about half the top.
    assert line[0] in SPARK_BARS[3:5]


def test_sparkline_pads_a_young_series_and_draws_gaps_as_blanks() -> None:
    line = sparkline([4.0, None, 0.0, 8.0], SPARK_MIN_WINDOW)
    assert line[:-4] == " " * (SPARK_MIN_WINDOW - 4)
    assert line[-4:] == SPARK_BARS[3] + " " + SPARK_BARS[0] + SPARK_BARS[-1]


def test_sparkline_uses_a_fixed_scale_when_given() -> None:
    assert sparkline([50.0], 60, scale_max=100.0)[-1] == SPARK_BARS[3]
    assert sparkline([50.0], 60)[-1] == SPARK_BARS[-1]


def test_throughput_cells_show_the_stall_latency_cells_the_spike() -> None:
    values = [100.0, 0.0, 100.0] * 40  # 120 samples, 2 cells of 60: each cell holds a stall
    assert sparkline(values, 2, show_lowest=True) == SPARK_BARS[0] * 2
    assert sparkline(values, 2) == SPARK_BARS[-1] * 2
