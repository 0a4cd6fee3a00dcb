"""The level rules against felt latency: streams bench/bench_felt.py recorded beside real runs.

Each `felt-*.json` in tests/fixtures/responsiveness holds a run's per-second samples (as its
record kept them, with the run's baselines) and, for each second, the level an independent
program judged from what it felt: an uncached 4 KiB read, a 4 KiB save with fdatasync, a
fork + exec of /bin/true and a 10 ms timer, each against its own idle p99, by the same
thresholds and rise and fall rules. Replaying the samples through the rules must give the
record's own levels, and those must agree with the felt ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iotui.core.host.counters import HostSample
from iotui.core.host.io_probe import IoProbeStats
from iotui.core.host.levels import Level, ResponsivenessMonitor
from iotui.core.host.wakeup_probe import ProbeStats

STREAMS = Path(__file__).resolve().parent.parent / "fixtures" / "responsiveness"
FELT = sorted(path.name for path in STREAMS.glob("felt-*.json"))
PSI_KEYS = [name for name in HostSample.__dataclass_fields__ if name.startswith("psi_")]
RANK = {level.value: level.rank for level in Level}


def replay(stream: dict) -> list[str]:
    base = stream["baseline"]
    monitor = ResponsivenessMonitor(
        baseline=ProbeStats(0.0, base["probe_p99_ms"], base["probe_p99_ms"]),
        io_baseline=IoProbeStats(base["io_probe_p99_ms"], base["io_probe_write_p99_ms"], 0.0, 0.0),
    )
    levels = []
    for row in stream["seconds"]:
        wake = row.get("probe_p99_ms")
        probe = ProbeStats(0.0, wake, wake) if wake is not None else None
        io = IoProbeStats(row.get("io_probe_p99_ms"), row.get("io_probe_write_p99_ms"), 4.0, 4.0)
        levels.append(monitor.update(HostSample(**{key: row.get(key) for key in PSI_KEYS}), probe, io).level.value)
    return levels


def load(name: str) -> dict:
    return json.loads((STREAMS / name).read_text())


@pytest.mark.parametrize("name", FELT)
def test_the_rules_give_the_records_own_levels(name: str) -> None:
    stream = load(name)
    assert replay(stream) == [row["responsiveness"] for row in stream["seconds"]]


# Streams where the independent program felt nothing past a threshold for long (not felt), and
# where it did (felt): by CPU starvation (others' load on 2 cores), by a direct write queue.
NOT_FELT = ("felt-cpu-hogs.json", "felt-idle.json", "felt-randread-qd128x4.json", "felt-randwrite-qd32x4.json",
            "felt-window-buffered-flood.json", "felt-window-randread-qd32x4.json")
FELT_STREAMS = ("felt-buffered-flood.json", "felt-randread-qd32x4.json", "felt-seqwrite-direct.json",
                "felt-window-randread-qd128x4.json", "felt-window-randwrite-qd128x4.json")
NEAR_S = 3  # the two clocks' seconds and the probes' one-second reports put the verdicts up to ~2 s apart


def test_every_felt_stream_is_named_here() -> None:
    assert set(FELT) == set(NOT_FELT) | set(FELT_STREAMS)


@pytest.mark.parametrize("name", FELT)
def test_never_unresponsive_far_from_a_felt_freeze_nor_ok_through_one(name: str) -> None:
    seconds = load(name)["seconds"]
    levels, felt = replay(load(name)), [row["felt_level"] for row in seconds]
    for index, level in enumerate(levels):
        near = slice(max(0, index - NEAR_S), index + NEAR_S + 1)
        if level == "unresponsive":
            assert "unresponsive" in felt[near], (index, seconds[index])
        if felt[index] == "unresponsive":
            assert set(levels[near]) != {"ok"}, (index, seconds[index])


@pytest.mark.parametrize("name", NOT_FELT)
def test_where_nothing_was_felt_iotui_agrees_nearly_every_second(name: str) -> None:
    seconds = load(name)["seconds"]
    levels = replay(load(name))
    same = sum(1 for level, row in zip(levels, seconds) if level == row["felt_level"])
    assert same >= 0.95 * len(seconds), (same, len(seconds))
    assert "unresponsive" not in levels


@pytest.mark.parametrize("name", FELT_STREAMS)
def test_where_it_was_felt_iotui_reaches_the_same_worst_level(name: str) -> None:
    seconds = load(name)["seconds"]
    levels = replay(load(name))
    assert max(levels, key=RANK.__getitem__) == max((row["felt_level"] for row in seconds), key=RANK.__getitem__)


def test_a_direct_write_queue_is_caught_by_the_write_probe_as_the_save_felt_it() -> None:
    stream = load("felt-seqwrite-direct.json")
    base = stream["felt_baseline"]["felt_save_ms"]
    slow_saves = [row for row in stream["seconds"] if row.get("felt_save_ms", 0.0) > base + 100.0]
    assert len(slow_saves) >= 10  # saves took 250 ms to 1.3 s beside the queue
    causes = {row.get("responsiveness_cause") for row in stream["seconds"]}
    assert "io_probe_write" in causes
