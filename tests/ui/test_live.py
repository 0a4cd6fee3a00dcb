"""The run screen's rolling series and the sparkline drawing (pure, no terminal)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from iotui.core.host.counters import HostSample
from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.series import Ring
from iotui.ui.live import HOST_SPECS, SERIES_CAPACITY, SPARK_BARS, LiveSeries, psi_legend, span_text, sparkline
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


def test_sparkline_draws_one_cell_per_sample_newest_on_the_right() -> None:
    values = [float(v) for v in range(1, 121)]
    line = sparkline(values, 20)
    assert len(line) == 20
    assert line[-1] == SPARK_BARS[-1]  # 120, the newest and the top of the scale
    # 20 cells show the last 20 samples (101..120), not a bucketed minute: the oldest is near the top.
    assert line[0] == SPARK_BARS[6]


def test_sparkline_pads_a_young_series_and_draws_gaps_as_blanks() -> None:
    line = sparkline([4.0, None, 0.0, 8.0], 30)
    assert line[:-4] == " " * 26
    assert line[-4:] == SPARK_BARS[3] + " " + SPARK_BARS[0] + SPARK_BARS[-1]


def test_sparkline_uses_a_fixed_scale_when_given() -> None:
    assert sparkline([50.0], 60, scale_max=100.0)[-1] == SPARK_BARS[3]
    assert sparkline([50.0], 60)[-1] == SPARK_BARS[-1]


def test_a_stall_is_its_own_cell() -> None:
    # One second at zero between busy seconds: with a cell per second it is never merged away.
    line = sparkline([100.0, 100.0, 0.0, 100.0], 4)
    assert line == SPARK_BARS[-1] * 2 + SPARK_BARS[0] + SPARK_BARS[-1]


def test_span_text_names_the_cells_in_seconds_then_minutes() -> None:
    assert span_text(58) == "last 58 s"
    assert span_text(60) == "last 1 min"
    assert span_text(139) == "last 2 min 19 s"


def test_ring_last_gives_the_newest_values_oldest_first() -> None:
    ring = Ring(5, [1.0, 2.0, None, 4.0])
    assert ring.last(2) == [None, 4.0]
    assert ring.last(9) == [1.0, 2.0, None, 4.0]
    assert ring.last(0) == []


def test_host_specs_leave_out_what_this_machine_never_gave() -> None:
    live = LiveSeries()
    assert [spec.key for spec in live.host_specs()] == [spec.key for spec in HOST_SPECS]  # before any sample
    live.add_host(HostSample(cpu_user_pct=5.0, ctx_switches_per_s=100.0))  # no PSI, no device counters
    assert [spec.key for spec in live.host_specs()] == ["cpu_user_pct", "ctx_switches_per_s"]
    assert psi_legend(live.host_specs()) is None
    live.add_host(HostSample(cpu_user_pct=5.0, psi_io_some_pct=1.0))
    assert "psi_io_some_pct" in [spec.key for spec in live.host_specs()]
    assert psi_legend(live.host_specs()) is not None


def test_each_cell_is_its_sample_s_share_of_the_top_in_eighths() -> None:
    # A cell per sample: blank for a gap, the lowest bar for zero or less, else the bar whose
    # eighth of the top the value reaches (written out here one sample at a time).
    import random

    def cell(value, top):
        if value is None:
            return " "
        if top <= 0 or value <= 0:
            return SPARK_BARS[0]
        eighth = 0
        while eighth < 7 and value > top * (eighth + 1) / 8 * (1 + 1e-12):
            eighth += 1
        return SPARK_BARS[eighth]

    rng = random.Random(7)
    for _ in range(300):
        values = [None if rng.random() < 0.1 else rng.choice([0.0, -1.0, rng.uniform(0, 1000)]) for _ in range(30)]
        scale_max = rng.choice([None, 100.0, 0.0])
        present = [v for v in values if v is not None]
        top = scale_max if scale_max is not None else (max(present) if present else 0.0)
        assert sparkline(values, 40, scale_max) == " " * 10 + "".join(cell(v, top) for v in values)


def test_sparkline_clamps_values_over_a_fixed_scale_and_keeps_tiny_ones_on_the_lowest_bar() -> None:
    assert sparkline([150.0, 100.0, 1e-12], 3, scale_max=100.0) == SPARK_BARS[-1] * 2 + SPARK_BARS[0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(0.0, 1e9, allow_nan=False)), max_size=80),
       st.integers(1, 90), st.one_of(st.none(), st.floats(1.0, 1e9)))
def test_property_each_cell_is_its_value_s_level_of_eight(values, width, scale_max) -> None:
    line = sparkline(values, width, scale_max)
    recent = values[-width:]
    assert len(line) == width
    top = scale_max if scale_max is not None else max([v for v in recent if v is not None], default=0.0)
    for cell, value in zip(line[width - len(recent):], recent):
        if value is None:
            assert cell == " "
        elif value <= 0 or top <= 0:
            assert cell == SPARK_BARS[0]
        else:
            # Level k of 8 holds the values in (k/8, (k+1)/8] of the top (a 1e-9 allowance for
            # float noise at the edges); anything above the top is the top bar.
            share = value / top
            expected = 7 if share >= 1 else max(0, math.floor(share * 8 - 1e-9))
            assert cell == SPARK_BARS[expected], (value, top)
