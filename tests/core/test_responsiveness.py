"""Responsiveness: the level rules and their hysteresis, the probe's arithmetic and process."""

from __future__ import annotations

import os
import time

import pytest

from iotui.core.host.counters import HostSample
from iotui.core.host.responsiveness import (
    FALL_AFTER_SAMPLES,
    THRESHOLDS,
    Assessment,
    Level,
    ProbeStats,
    ResponsivenessMonitor,
    WakeupProbe,
    collect_baseline,
    lateness_stats,
    likely_cause,
)
from tests.waiting import wait_until

CALM = HostSample(
    psi_cpu_some_pct=0.5, psi_cpu_full_pct=0.0, psi_io_some_pct=1.0, psi_io_full_pct=0.5,
    psi_memory_some_pct=0.0, psi_memory_full_pct=0.0,
)
QUIET_PROBE = ProbeStats(p50_ms=0.1, p99_ms=0.5, max_ms=1.0, samples=100)


def host(**pressure: float) -> HostSample:
    return HostSample(**{**CALM.__dict__, **pressure})


def feed(monitor: ResponsivenessMonitor, sample: HostSample, seconds: int,
         probe: ProbeStats | None = QUIET_PROBE) -> list[Assessment]:
    return [monitor.update(sample, probe) for _ in range(seconds)]


# --- the table --------------------------------------------------------------------


def test_the_table_holds_exactly_the_documented_rules() -> None:
    rules = {(t.level, t.signal): (t.limit, t.inclusive) for t in THRESHOLDS}
    assert rules == {
        (Level.SLUGGISH, "psi_cpu_some_pct"): (10.0, True),
        (Level.SLUGGISH, "psi_io_some_pct"): (10.0, True),
        (Level.SLUGGISH, "psi_memory_some_pct"): (7.0, True),
        (Level.SLUGGISH, "probe_p99_ms"): (16.0, False),
        (Level.UNRESPONSIVE, "psi_memory_full_pct"): (10.0, True),
        (Level.UNRESPONSIVE, "psi_io_full_pct"): (30.0, True),
        (Level.UNRESPONSIVE, "probe_p99_ms"): (50.0, False),
        (Level.UNRESPONSIVE, "probe_max_ms"): (100.0, False),
    }
    assert [level.value for level in Level] == ["ok", "sluggish", "unresponsive"]


# --- rising -----------------------------------------------------------------------


def test_sluggish_needs_three_consecutive_seconds() -> None:
    monitor = ResponsivenessMonitor()
    levels = [a.level for a in feed(monitor, host(psi_io_some_pct=34.0), 2)]
    assert levels == [Level.OK, Level.OK]
    # A calm second breaks the streak...
    assert monitor.update(CALM, QUIET_PROBE).level is Level.OK
    levels = [a.level for a in feed(monitor, host(psi_io_some_pct=34.0), 3)]
    # ...so it takes three more, and the third one flips it.
    assert levels == [Level.OK, Level.OK, Level.SLUGGISH]


def test_sustained_means_any_sluggish_rule_each_second() -> None:
    monitor = ResponsivenessMonitor()
    monitor.update(host(psi_cpu_some_pct=12.0), QUIET_PROBE)
    monitor.update(host(psi_memory_some_pct=7.0), QUIET_PROBE)
    third = monitor.update(CALM, ProbeStats(p50_ms=2.0, p99_ms=20.0, max_ms=25.0))
    assert third.level is Level.SLUGGISH
    assert third.signal == "probe p99 20 ms"
    assert third.signal_key == "probe_p99_ms"
    assert third.changed


@pytest.mark.parametrize(
    ("pressure", "probe", "expected"),
    [
        ({"psi_cpu_some_pct": 10.0}, QUIET_PROBE, Level.SLUGGISH),  # >= is inclusive
        ({"psi_cpu_some_pct": 9.99}, QUIET_PROBE, Level.OK),
        ({"psi_memory_some_pct": 7.0}, QUIET_PROBE, Level.SLUGGISH),
        ({"psi_memory_some_pct": 6.9}, QUIET_PROBE, Level.OK),
        ({}, ProbeStats(1.0, 16.0, 16.0), Level.OK),  # p99 must be above 16 ms
        ({}, ProbeStats(1.0, 16.1, 16.1), Level.SLUGGISH),
    ],
)
def test_sluggish_limits_are_exact(pressure: dict[str, float], probe: ProbeStats, expected: Level) -> None:
    monitor = ResponsivenessMonitor()
    assert feed(monitor, host(**pressure), 3, probe)[-1].level is expected


@pytest.mark.parametrize(
    ("pressure", "probe", "signal"),
    [
        ({"psi_memory_full_pct": 10.0, "psi_memory_some_pct": 12.0}, QUIET_PROBE, "memory full 10.0%"),
        ({"psi_io_full_pct": 30.0, "psi_io_some_pct": 40.0}, QUIET_PROBE, "io full 30%"),
        ({}, ProbeStats(5.0, 50.5, 60.0), "probe p99 50 ms"),
        ({}, ProbeStats(1.0, 2.0, 140.0), "probe max 140 ms"),
    ],
)
def test_one_second_past_an_unresponsive_limit_is_enough(
    pressure: dict[str, float], probe: ProbeStats, signal: str
) -> None:
    monitor = ResponsivenessMonitor()
    assessment = monitor.update(host(**pressure), probe)
    assert assessment.level is Level.UNRESPONSIVE
    assert assessment.signal == signal
    assert assessment.sentence.startswith("The machine is not responding: ")


@pytest.mark.parametrize(
    ("pressure", "probe"),
    [
        ({"psi_memory_full_pct": 9.9}, QUIET_PROBE),
        ({"psi_io_full_pct": 29.9}, QUIET_PROBE),
        ({}, ProbeStats(1.0, 50.0, 100.0)),  # both must be strictly above
    ],
)
def test_just_below_unresponsive_limits_is_not_unresponsive(
    pressure: dict[str, float], probe: ProbeStats
) -> None:
    assert ResponsivenessMonitor().update(host(**pressure), probe).level is not Level.UNRESPONSIVE


def test_the_strongest_signal_relative_to_its_limit_drives_the_label() -> None:
    monitor = ResponsivenessMonitor()
    # io some 12% is 1.2x its limit, memory some 14% is 2x its limit.
    assessment = feed(monitor, host(psi_io_some_pct=12.0, psi_memory_some_pct=14.0), 3)[-1]
    assert assessment.signal == "memory some 14.0%"
    assert "waited for memory 14.0% of the time" in assessment.sentence


# --- falling (hysteresis) -----------------------------------------------------------


def test_sluggish_holds_while_signals_stay_above_half_the_limit() -> None:
    monitor = ResponsivenessMonitor()
    feed(monitor, host(psi_io_some_pct=20.0), 3)
    # 6% is below the 10% limit but not below half of it (5%): no way down.
    held = feed(monitor, host(psi_io_some_pct=6.0), 20)
    assert all(a.level is Level.SLUGGISH for a in held)
    assert held[-1].sentence.startswith("The machine is sluggish (easing off): ")


def test_sluggish_falls_to_ok_after_exactly_five_calm_seconds() -> None:
    monitor = ResponsivenessMonitor()
    feed(monitor, host(psi_io_some_pct=20.0), 3)
    levels = [a.level for a in feed(monitor, host(psi_io_some_pct=4.9), FALL_AFTER_SAMPLES)]
    assert levels == [Level.SLUGGISH] * 4 + [Level.OK]


def test_one_second_above_half_restarts_the_calm_count() -> None:
    monitor = ResponsivenessMonitor()
    feed(monitor, host(psi_cpu_some_pct=20.0), 3)
    feed(monitor, CALM, 4)
    assert monitor.update(host(psi_cpu_some_pct=5.0), QUIET_PROBE).level is Level.SLUGGISH
    levels = [a.level for a in feed(monitor, CALM, 5)]
    assert levels == [Level.SLUGGISH] * 4 + [Level.OK]


def test_unresponsive_falls_one_level_per_calm_window() -> None:
    monitor = ResponsivenessMonitor()
    assert monitor.update(host(psi_memory_full_pct=12.0, psi_memory_some_pct=15.0), QUIET_PROBE).level \
        is Level.UNRESPONSIVE
    first_window = [a.level for a in feed(monitor, CALM, 5)]
    assert first_window == [Level.UNRESPONSIVE] * 4 + [Level.SLUGGISH]
    second_window = [a.level for a in feed(monitor, CALM, 5)]
    assert second_window == [Level.SLUGGISH] * 4 + [Level.OK]
    assert monitor.worst_level is Level.UNRESPONSIVE


def test_unresponsive_holds_above_half_its_limit() -> None:
    monitor = ResponsivenessMonitor()
    monitor.update(host(psi_io_full_pct=40.0, psi_io_some_pct=50.0), QUIET_PROBE)
    # io full 16% is under 30% but over 15%: still unresponsive.
    held = feed(monitor, host(psi_io_full_pct=16.0, psi_io_some_pct=20.0), 10)
    assert all(a.level is Level.UNRESPONSIVE for a in held)
    # Probe max 60 ms (over half of 100 ms) holds it as well.
    held = feed(monitor, CALM, 10, ProbeStats(1.0, 2.0, 60.0))
    assert all(a.level is Level.UNRESPONSIVE for a in held)


def test_sluggish_rises_to_unresponsive_at_once() -> None:
    monitor = ResponsivenessMonitor()
    feed(monitor, host(psi_io_some_pct=20.0), 3)
    assessment = monitor.update(host(psi_io_some_pct=20.0), ProbeStats(3.0, 70.0, 90.0))
    assert assessment.level is Level.UNRESPONSIVE and assessment.changed


def test_missing_signals_neither_raise_nor_hold_a_level() -> None:
    monitor = ResponsivenessMonitor()
    assert all(a.level is Level.OK for a in feed(monitor, HostSample(), 10, None))
    feed(monitor, host(psi_io_some_pct=20.0), 3)
    # Everything vanishes: absent counts as calm, so the level comes down after 5 s.
    levels = [a.level for a in feed(monitor, HostSample(), 5, None)]
    assert levels == [Level.SLUGGISH] * 4 + [Level.OK]


def test_ok_assessment_has_no_signal() -> None:
    assessment = ResponsivenessMonitor().update(CALM, QUIET_PROBE)
    assert assessment == Assessment(Level.OK, None, "The machine is responding normally.", None, False)


# --- summary and causes ----------------------------------------------------------------


def test_summary_keeps_the_worst_level_and_each_maximum() -> None:
    monitor = ResponsivenessMonitor(baseline=ProbeStats(0.1, 0.7, 1.2))
    monitor.update(host(psi_io_some_pct=12.0, psi_cpu_some_pct=3.0), ProbeStats(1.0, 8.0, 9.0))
    monitor.update(host(psi_io_full_pct=35.0, psi_io_some_pct=40.0), ProbeStats(1.0, 30.0, 31.0))
    feed(monitor, CALM, 12)
    assert monitor.level is Level.OK
    assert monitor.summary() == {
        "responsiveness": "unresponsive",
        "probe_p99_ms_max": 30.0,
        "psi_cpu_some_pct_max": 3.0,
        "psi_cpu_full_pct_max": 0.0,
        "psi_io_some_pct_max": 40.0,
        "psi_io_full_pct_max": 35.0,
        "psi_memory_some_pct_max": 0.0,
        "psi_memory_full_pct_max": 0.0,
        "probe_baseline_p99_ms": 0.7,
    }


def test_summary_leaves_out_figures_never_seen() -> None:
    monitor = ResponsivenessMonitor()
    monitor.update(HostSample(psi_io_some_pct=2.0), None)
    assert monitor.summary() == {"responsiveness": "ok", "psi_io_some_pct_max": 2.0}


def test_likely_cause_names_too_many_jobs() -> None:
    monitor = ResponsivenessMonitor()
    assessment = monitor.update(CALM, ProbeStats(5.0, 80.0, 120.0))
    assert likely_cause(32, 2, assessment) == "numjobs (32) is above the core count (2): try fewer jobs."
    # Within the core count the probe points at contention in general instead.
    assert "numjobs" not in likely_cause(2, 8, assessment)
    assert likely_cause(2, 8, assessment).startswith("Wake-ups run late")


def test_likely_cause_by_signal() -> None:
    memory = ResponsivenessMonitor().update(host(psi_memory_full_pct=20.0, psi_memory_some_pct=25.0), None)
    assert likely_cause(64, 2, memory).startswith("Memory is short")
    io = ResponsivenessMonitor().update(host(psi_io_full_pct=50.0, psi_io_some_pct=60.0), None)
    assert "iodepth" in likely_cause(1, 4, io)
    assert likely_cause(None, 4, ResponsivenessMonitor().update(CALM, None)) == ""


# --- probe arithmetic -------------------------------------------------------------------


def test_lateness_stats_uses_nearest_rank() -> None:
    lateness_ms = [float(value) for value in range(1, 101)]  # 1..100 ms, shuffled below
    lateness_ms.reverse()
    stats = lateness_stats(lateness_ms)
    assert stats == ProbeStats(p50_ms=50.0, p99_ms=99.0, max_ms=100.0, samples=100)
    assert lateness_stats([3.0]) == ProbeStats(3.0, 3.0, 3.0, 1)
    assert lateness_stats([]) is None


def test_a_silent_probe_reports_a_lower_bound_not_stale_figures() -> None:
    probe = WakeupProbe()
    probe.start()
    try:
        wait_until(probe.read_latest, what="the probe's first report", interval_s=0.05)
        # Pretend no report came for 4.5 s: the child is stuck >= 3.5 s late.
        overdue = probe.read_latest(now_s=time.monotonic() + 4.5)
        assert overdue is not None and overdue.samples == 0
        assert 3400.0 < overdue.max_ms < 4600.0
    finally:
        probe.stop()


# --- the real probe ---------------------------------------------------------------------


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_real_probe_reports_plausible_figures_and_its_child_ends() -> None:
    probe = WakeupProbe()
    baseline = await collect_baseline(probe, seconds=1)
    try:
        pid = probe.pid
        assert pid is not None and probe.running
        assert baseline is not None
        latest = probe.read_latest()
        assert latest is not None
        # ~100 sleeps of 10 ms per second (fewer when some wake late).
        assert 20 <= latest.samples <= 101
        assert 0.0 <= latest.p50_ms <= latest.p99_ms <= latest.max_ms
        assert latest.p50_ms < 50.0  # an idle test machine wakes roughly on time
        assert baseline.samples == latest.samples
    finally:
        probe.stop()
    assert not probe.running
    assert probe.read_latest() is None
    assert not _process_exists(pid)


def test_probe_child_exits_when_its_pipe_closes() -> None:
    # What happens when iotui dies: the kernel closes the pipe and the child sees EOF.
    probe = WakeupProbe()
    probe.start()
    process = probe._process
    assert process is not None and process.stdin is not None
    process.stdin.close()
    try:
        assert process.wait(timeout=3) == 0
    finally:
        probe.stop()
