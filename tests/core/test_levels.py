"""The level rules: what crosses, relative to which baseline, with which hysteresis and cause."""

from __future__ import annotations

import pytest

from iotui.core.host.advice import RunShape, run_shape, suggestion
from iotui.core.host.counters import HostSample
from iotui.core.host.io_probe import IoProbeStats
from iotui.core.host.levels import (
    FALL_AFTER_SAMPLES,
    THRESHOLDS,
    Assessment,
    Level,
    ResponsivenessMonitor,
)
from iotui.core.host.verdict import pressure_warning, verdict_text
from iotui.core.host.wakeup_probe import ProbeStats

CALM = HostSample(
    psi_cpu_some_pct=0.5, psi_cpu_full_pct=0.0, psi_io_some_pct=1.0, psi_io_full_pct=0.5,
    psi_memory_some_pct=0.0, psi_memory_full_pct=0.0,
)
QUIET = ProbeStats(p50_ms=0.1, p99_ms=0.5, max_ms=1.0, samples=100)
QUIET_IO = IoProbeStats(read_p99_ms=0.4, write_p99_ms=2.0, read_iops=4.0, write_iops=4.0)


def host(**pressure: float) -> HostSample:
    return HostSample(**{**CALM.__dict__, **pressure})


def wake(p99_ms: float) -> ProbeStats:
    return ProbeStats(p50_ms=0.1, p99_ms=p99_ms, max_ms=p99_ms, samples=100)


def io(read_ms: float = 0.4, write_ms: float = 2.0) -> IoProbeStats:
    return IoProbeStats(read_p99_ms=read_ms, write_p99_ms=write_ms, read_iops=4.0, write_iops=4.0)


def feed(monitor: ResponsivenessMonitor, seconds: int, sample: HostSample = CALM,
         probe: ProbeStats | None = QUIET, io_stats: IoProbeStats | None = QUIET_IO) -> list[Assessment]:
    return [monitor.update(sample, probe, io_stats) for _ in range(seconds)]


def test_the_table_holds_exactly_the_documented_rules() -> None:
    rules = {(t.level, t.cause): (t.limit, t.relative) for t in THRESHOLDS}
    assert rules == {
        (Level.SLUGGISH, "wakeup"): (16.0, True),
        (Level.SLUGGISH, "io_probe_read"): (100.0, True),
        (Level.SLUGGISH, "io_probe_write"): (100.0, True),
        (Level.SLUGGISH, "app_start"): (1000.0, True),
        (Level.SLUGGISH, "psi_memory_full"): (7.0, False),
        (Level.UNRESPONSIVE, "wakeup"): (100.0, True),
        (Level.UNRESPONSIVE, "io_probe_read"): (1000.0, True),
        (Level.UNRESPONSIVE, "io_probe_write"): (1000.0, True),
        (Level.UNRESPONSIVE, "app_start"): (10000.0, True),
        (Level.UNRESPONSIVE, "psi_memory_full"): (10.0, False),
    }


def test_psi_cpu_and_io_alone_never_raise_a_level() -> None:
    # fio's own threads waiting on their own I/O: io full 51%, cpu some 100%, probes quiet.
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    loud = host(psi_io_full_pct=51.0, psi_io_some_pct=60.0, psi_cpu_some_pct=100.0, psi_memory_some_pct=20.0)
    assert all(a.level is Level.OK for a in feed(monitor, 20, loud))
    assert monitor.summary()["responsiveness"] == "ok"
    assert "cause" not in monitor.summary()


def test_io_psi_never_lowers_the_probe_threshold_even_when_a_probe_rises() -> None:
    # The QD32 x 16 random write: io full 63% while a small save took 14-27 ms.
    # Nobody feels a 27 ms save: io full "agreeing" with a probe 25 ms up is still OK.
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    loud = host(psi_io_full_pct=63.0, psi_io_some_pct=95.0)
    assert all(a.level is Level.OK for a in feed(monitor, 20, loud, QUIET, io(read_ms=24.0, write_ms=27.0)))
    # Just past the write probe's own threshold (2 ms at rest + 100 ms), it is the probe that counts.
    levels = feed(monitor, 3, loud, QUIET, io(write_ms=102.1))
    assert [a.level for a in levels] == [Level.OK, Level.OK, Level.SLUGGISH]
    assert levels[-1].cause == "io_probe_write"
    assert monitor.summary()["psi_io_full_pct_max"] == 63.0  # kept as context


def test_an_old_record_naming_io_psi_still_reads() -> None:
    old = {"responsiveness": "sluggish", "cause": "psi_io_full", "cause_value": 62.9,
           "cause_unit": "%", "cause_threshold": 30.0}
    assert verdict_text(old) == "sluggish · io full 63% > 30%"


@pytest.mark.parametrize(
    ("probe", "io_stats", "expected"),
    [
        (wake(16.5), QUIET_IO, Level.OK),  # 16.0 ms over a 0.5 ms baseline: not above
        (wake(16.6), QUIET_IO, Level.SLUGGISH),
        (QUIET, io(read_ms=100.4), Level.OK),
        (QUIET, io(read_ms=100.5), Level.SLUGGISH),
        (QUIET, io(write_ms=102.0), Level.OK),
        (QUIET, io(write_ms=102.1), Level.SLUGGISH),
    ],
)
def test_probe_limits_are_exact_and_relative_to_the_baseline(
    probe: ProbeStats, io_stats: IoProbeStats, expected: Level
) -> None:
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    assert feed(monitor, 3, CALM, probe, io_stats)[-1].level is expected


def test_a_slow_disk_is_judged_by_the_change() -> None:
    # An HDD or NFS whose idle write + fdatasync already takes 20 ms.
    slow_idle = io(read_ms=9.0, write_ms=20.0)
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=slow_idle)
    assert feed(monitor, 5, CALM, QUIET, io(read_ms=12.0, write_ms=110.0))[-1].level is Level.OK
    assessment = feed(monitor, 3, CALM, QUIET, io(read_ms=12.0, write_ms=125.0))[-1]
    assert assessment.level is Level.SLUGGISH
    assert assessment.signal == "io write p99 125 ms > 120 ms"
    assert "20 ms at rest + 100 ms" in assessment.sentence


def test_sluggish_needs_three_consecutive_seconds_of_any_rule() -> None:
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    assert monitor.update(CALM, wake(30.0), QUIET_IO).level is Level.OK
    assert monitor.update(host(psi_memory_full_pct=8.0), QUIET, QUIET_IO).level is Level.OK
    third = monitor.update(CALM, QUIET, io(write_ms=250.0))
    assert third.level is Level.SLUGGISH and third.changed
    assert third.cause == "io_probe_write" and third.signal == "io write p99 250 ms > 102 ms"


@pytest.mark.parametrize(
    ("sample", "probe", "io_stats", "cause", "signal"),
    [
        (host(psi_memory_full_pct=10.0), QUIET, QUIET_IO, "psi_memory_full", "memory full 10.0% > 10.0%"),
        (CALM, wake(120.0), QUIET_IO, "wakeup", "wake-up p99 120 ms > 100 ms"),
        (CALM, QUIET, io(read_ms=1500.0), "io_probe_read", "io read p99 1500 ms > 1000 ms"),
        (CALM, QUIET, io(write_ms=1500.0), "io_probe_write", "io write p99 1500 ms > 1002 ms"),
    ],
)
def test_one_second_past_an_unresponsive_limit_is_enough(
    sample: HostSample, probe: ProbeStats, io_stats: IoProbeStats, cause: str, signal: str
) -> None:
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    assessment = monitor.update(sample, probe, io_stats)
    assert assessment.level is Level.UNRESPONSIVE
    assert assessment.cause == cause
    assert assessment.signal == signal
    assert assessment.sentence.startswith("The machine is not responding: ")


def test_easing_off_never_shows_a_signal_below_its_threshold_as_the_cause() -> None:
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    feed(monitor, 3, CALM, QUIET, io(write_ms=300.0))
    # 60 ms: under the 102 ms threshold, over half of the 100 ms limit: the level holds.
    held = feed(monitor, 10, CALM, QUIET, io(write_ms=60.0))
    assert all(a.level is Level.SLUGGISH and a.easing for a in held)
    assert held[-1].signal == "easing off · io write p99 was 300 ms"
    assert "60" not in held[-1].signal
    assert held[-1].sentence.startswith("The machine is sluggish (easing off): ")


def test_sluggish_falls_to_ok_after_exactly_five_calm_seconds() -> None:
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    feed(monitor, 3, CALM, wake(40.0))
    levels = [a.level for a in feed(monitor, FALL_AFTER_SAMPLES, CALM, wake(8.0))]
    assert levels == [Level.SLUGGISH] * 4 + [Level.OK]


def test_unresponsive_falls_one_level_per_calm_window() -> None:
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    assert monitor.update(host(psi_memory_full_pct=12.0), QUIET, QUIET_IO).level is Level.UNRESPONSIVE
    assert [a.level for a in feed(monitor, 5)] == [Level.UNRESPONSIVE] * 4 + [Level.SLUGGISH]
    assert [a.level for a in feed(monitor, 5)] == [Level.SLUGGISH] * 4 + [Level.OK]
    assert monitor.worst_level is Level.UNRESPONSIVE


def test_missing_signals_neither_raise_nor_hold_a_level() -> None:
    monitor = ResponsivenessMonitor()
    assert all(a.level is Level.OK for a in feed(monitor, 10, HostSample(), None, None))
    feed(monitor, 3, CALM, wake(40.0))
    levels = [a.level for a in feed(monitor, 5, HostSample(), None, None)]
    assert levels == [Level.SLUGGISH] * 4 + [Level.OK]


def test_summary_names_the_cause_that_held_the_worst_level_longest() -> None:
    monitor = ResponsivenessMonitor(baseline=QUIET, io_baseline=QUIET_IO)
    feed(monitor, 6, CALM, wake(45.0))
    monitor.update(CALM, wake(45.0), io(write_ms=400.0))  # one stray spike of another signal
    feed(monitor, 2, CALM, wake(60.0))
    feed(monitor, 12)
    summary = monitor.summary()
    assert summary["responsiveness"] == "sluggish"
    assert (summary["cause"], summary["cause_value"], summary["cause_unit"]) == ("wakeup", 60.0, "ms")
    assert summary["cause_threshold"] == 16.5
    assert summary["io_probe_write_p99_ms_max"] == 400.0
    assert summary["probe_baseline_p99_ms"] == 0.5
    assert summary["io_probe_write_baseline_p99_ms"] == 2.0
    assert verdict_text(summary) == "sluggish · wake-up p99 60 ms > 16.5 ms"


def test_summary_leaves_out_figures_never_seen() -> None:
    monitor = ResponsivenessMonitor()
    monitor.update(HostSample(psi_io_some_pct=2.0), None)
    assert monitor.summary() == {"responsiveness": "ok", "psi_io_some_pct_max": 2.0}
    assert verdict_text(monitor.summary()) == "ok"
    assert pressure_warning(monitor.summary()) is None


# --- suggestions that fit the run ----------------------------------------------------


def test_run_shape_reads_the_effective_options() -> None:
    shape = run_shape({"rw": "write", "bs": "1M", "numjobs": "2", "iodepth": "1"}, cpu_count=2)
    assert shape == RunShape(numjobs=2, iodepth=1, direct=False, writes=True, cpu_count=2)
    direct = run_shape({"a.rw": "randread", "a.direct": "1", "a.iodepth": "32"}, cpu_count=4)
    assert direct == RunShape(numjobs=1, iodepth=32, direct=True, writes=False, cpu_count=4)


def test_an_io_cause_never_asks_for_fewer_jobs_when_there_is_one() -> None:
    qd1 = suggestion(RunShape(numjobs=1, iodepth=1, direct=True), "io_probe_read")
    assert "jobs" not in qd1 and "iodepth" not in qd1 and "rate_iops" in qd1
    deep = suggestion(RunShape(numjobs=1, iodepth=32, direct=True), "io_probe_write")
    assert "iodepth (now 32)" in deep and "jobs" not in deep
    many = suggestion(RunShape(numjobs=4, iodepth=32, direct=True), "io_probe_write")
    assert "fewer jobs (now 4)" in many


def test_buffered_writes_are_told_direct_io_or_a_smaller_dirty_budget() -> None:
    advice = suggestion(RunShape(numjobs=2, writes=True, direct=False), "io_probe_write")
    assert "direct=1" in advice and "vm.dirty_bytes" in advice and "fewer jobs" not in advice


def test_a_cpu_cause_is_told_fios_cpu_share() -> None:
    assert "nice=19" in suggestion(RunShape(numjobs=2, cpu_count=2), "wakeup")
    assert suggestion(RunShape(numjobs=32, cpu_count=2), "wakeup") == (
        "numjobs (32) is above the core count (2): try fewer jobs."
    )
    memory = suggestion(RunShape(numjobs=1), "psi_memory_full")
    assert "fewer jobs" not in memory and "iodepth" in memory


def test_the_warning_reads_like_the_chip() -> None:
    pressure = {
        "responsiveness": "unresponsive", "cause": "io_probe_write",
        "cause_value": 1312.0, "cause_unit": "ms", "cause_threshold": 1002.0,
    }
    warning = pressure_warning(pressure, RunShape(numjobs=2, writes=True))
    assert warning is not None
    assert warning.startswith(
        "Other programs found the machine not responding during the run: a small write + fdatasync "
        "by another program took 1312 ms (io write p99 1312 ms > 1002 ms). "
    )
    assert "direct=1" in warning
    assert verdict_text(pressure) == "unresponsive · io write p99 1312 ms > 1002 ms"
