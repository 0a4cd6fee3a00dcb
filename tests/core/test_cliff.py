"""The cache cliff finder on per-second bandwidth streams with and without a cliff."""

from __future__ import annotations

import random

import pytest

from iotui.core.records.cliff import Cliff, cliff_from_record, find_cliff, is_sustained_write, section_cliff

MIB = 1 << 20


def _seconds(count: int) -> list[float]:
    return [1.0] * count


def test_a_cache_that_fills_after_45_s_is_a_cliff() -> None:
    stream = [2000.0 * MIB] * 45 + [460.0 * MIB] * 60
    cliff = find_cliff(_seconds(len(stream)), stream)
    assert cliff.found
    assert cliff.at_s == 45.0
    assert cliff.at_bytes == 45 * 2000 * MIB
    assert cliff.bw_before_bytes == 2000 * MIB
    assert cliff.bw_after_bytes == 460 * MIB
    # 45 s x 2,000 MiB/s = 90,000 MiB = 87.89 GiB
    assert cliff.sentence() == "after 87.9 GiB (45 s): 2,000 MiB/s → 460 MiB/s"
    assert cliff.to_record() == {
        "found": True, "at_s": 45.0, "at_bytes": 45 * 2000 * MIB,
        "bw_before_bytes": 2000 * MIB, "bw_after_bytes": 460 * MIB,
    }
    assert cliff_from_record(cliff.to_record()) == Cliff(True, 0.0, 0.0, 45.0, 45 * 2000.0 * MIB, 2000.0 * MIB, 460.0 * MIB)


def test_a_steady_write_has_no_cliff_and_says_how_much_was_watched() -> None:
    rng = random.Random(3)
    stream = [512.0 * MIB * (1 + rng.uniform(-0.1, 0.1)) for _ in range(64)]
    cliff = find_cliff(_seconds(64), stream)
    assert not cliff.found
    assert cliff.within_s == 64.0
    assert cliff.within_bytes == pytest.approx(sum(stream))
    flat = find_cliff(_seconds(8), [512.0 * MIB] * 8)
    assert flat.sentence() == "no cliff within 4 GiB"  # 8 s x 512 MiB/s
    assert flat.to_record() == {"found": False, "within_bytes": 4 << 30, "within_s": 8.0}


def test_a_short_dip_or_a_single_slow_second_is_not_a_cliff() -> None:
    dip = [1000.0 * MIB] * 30 + [300.0 * MIB] * 5 + [1000.0 * MIB] * 30
    assert not find_cliff(_seconds(len(dip)), dip).found
    blip = [1000.0 * MIB] * 30 + [100.0 * MIB] + [1000.0 * MIB] * 30
    assert not find_cliff(_seconds(len(blip)), blip).found


def test_a_drop_that_lasts_at_least_10_s_is_a_cliff_and_its_level_is_the_low_stretch() -> None:
    stream = [1000.0 * MIB] * 30 + [300.0 * MIB] * 15 + [1000.0 * MIB] * 30
    cliff = find_cliff(_seconds(len(stream)), stream)
    assert cliff.found and cliff.at_s == 30.0
    assert cliff.bw_after_bytes == 300.0 * MIB


def test_drop_size_limit_is_30_percent() -> None:
    just_under = [1000.0 * MIB] * 20 + [710.0 * MIB] * 20
    assert not find_cliff(_seconds(40), just_under).found
    exactly = [1000.0 * MIB] * 20 + [700.0 * MIB] * 20
    assert find_cliff(_seconds(40), exactly).found


def test_a_drop_near_the_end_that_has_not_lasted_10_s_is_not_judged_a_cliff() -> None:
    stream = [1000.0 * MIB] * 30 + [200.0 * MIB] * 9
    assert not find_cliff(_seconds(len(stream)), stream).found
    longer = [1000.0 * MIB] * 30 + [200.0 * MIB] * 10
    assert find_cliff(_seconds(len(longer)), longer).at_s == 30.0


def test_noisy_slow_stretch_with_bursts_still_shows_the_cliff_where_it_starts() -> None:
    rng = random.Random(11)
    fast = [1800.0 * MIB * (1 + rng.uniform(-0.08, 0.08)) for _ in range(40)]
    slow = [400.0 * MIB * (1 + rng.uniform(-0.2, 0.2)) for _ in range(50)]
    for burst in (5, 17, 33):  # the device flushes and briefly writes fast again
        slow[burst] = 1700.0 * MIB
    cliff = find_cliff(_seconds(90), fast + slow)
    assert cliff.found and cliff.at_s == 40.0
    assert cliff.at_bytes == pytest.approx(sum(fast))
    assert cliff.bw_before_bytes == pytest.approx(sum(fast) / 40)
    assert cliff.bw_after_bytes == pytest.approx(sum(slow) / 50)


def test_uneven_intervals_are_weighted_by_their_length() -> None:
    durations = [2.0] * 10 + [1.0] * 12
    stream = [1000.0 * MIB] * 10 + [100.0 * MIB] * 12
    cliff = find_cliff(durations, stream)
    assert cliff.at_s == 20.0
    assert cliff.at_bytes == 20 * 1000 * MIB


def test_section_samples_use_write_bandwidth_and_skip_paused_seconds() -> None:
    samples = [{"t_s": float(i + 1), "dt_s": 1.0, "write_bw_bytes": 900.0 * MIB} for i in range(20)]
    samples += [{"t_s": 21.0, "dt_s": 1.0, "paused": True, "write_bw_bytes": 0.0}]
    samples += [{"t_s": float(22 + i), "dt_s": 1.0, "write_bw_bytes": 200.0 * MIB} for i in range(12)]
    cliff = section_cliff(samples)
    assert cliff.found and cliff.at_s == 20.0
    assert cliff.bw_after_bytes == 200.0 * MIB


def test_only_write_only_sections_of_20_s_or_more_are_sustained_writes() -> None:
    assert is_sustained_write({"rw": "write"}, 180.0)
    assert is_sustained_write({"rw": "randwrite"}, 20.0)
    assert not is_sustained_write({"rw": "write"}, 5.0)
    assert not is_sustained_write({"rw": "randrw"}, 180.0)
    assert not is_sustained_write({"rw": "read"}, 180.0)
