"""A paused section's latency comes from the unpaused bins, bounded by fio's own extremes."""

from __future__ import annotations

from iotui.core.fio.intervals import DirectionTotals
from iotui.core.runs.pauses import _Lost, unpaused_latency


def test_bin_values_never_lie_outside_fios_own_min_and_max() -> None:
    # fio's bins hold a bucket's representative value: the slowest bucket here reads
    # 24,248,320 ns while the slowest I/O fio timed took 24,172,711 ns (seen on a real run).
    totals = DirectionTotals(
        total_ios=30, io_bytes=30 * 4096, runtime_ms=3000, clat_n=30, clat_sum_ns=30 * 1_000_000.0,
        clat_min_ns=101_000, clat_max_ns=24_172_711,
        bins={100_352: 10, 1_003_520: 10, 24_248_320: 10},
    )
    table: dict = {"iops": 10.0, "lat_max_ns": 24_172_711}
    unpaused_latency(table, totals, _Lost(clat_n=10, clat_sum_ns=10 * 1000.0, bins={100_352: 10}))
    assert table["lat_source"] == "bins-unpaused"
    assert table["lat_max_ns"] == 24_172_711
    assert table["lat_min_ns"] == 1_003_520  # the fastest unpaused bucket, above fio's min
    assert table["lat_mean_ns"] == (30 * 1_000_000.0 - 10 * 1000.0) / 20
