"""The start-up probe: a program whose files are evicted, started and timed (S's measure)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from iotui.core.host.counters import HostSample
from iotui.core.host.io_probe import (
    START_FILE_BYTES,
    START_FILE_NAMES,
    IoProbe,
    IoProbeStats,
    stats_from_report,
)
from iotui.core.host.levels import Level, ResponsivenessMonitor
from iotui.core.host.section_pressure import pressure_from_samples
from iotui.core.host.watch import responsiveness_row
from tests.waiting import wait_until

CALM = HostSample(psi_memory_full_pct=0.0)


def _row(place: str, start: list, inflight=None, last=None) -> dict:
    return {"place": place, "read_us": [], "write_us": [], "read_inflight_us": 0, "write_inflight_us": 0,
            "start": start, "start_inflight": inflight, "start_last": last}


def test_a_report_gives_the_slowest_start_the_last_one_or_the_age_of_one_still_starting() -> None:
    labels = {"/t": "target", "/h": "home"}
    # The slowest start completed this second, the home's.
    stats = stats_from_report({"places": [_row("/t", [[120000, False]]), _row("/h", [[90000, False], [300000, False]])]},
                              labels, 1.0)
    assert (stats.start_ms, stats.start_warm, stats.start_place) == (300.0, False, "home")
    # No start completed this second: the last one's time stays the figure.
    stats = stats_from_report({"places": [_row("/t", [], last=[131000, False])]}, labels, 1.0)
    assert stats.start_ms == 131.0
    # A start still going after 2.27 s counts with its age (a lower bound), over the last one's 0.13 s.
    stats = stats_from_report({"places": [_row("/t", [], inflight=[2270000, False], last=[130000, False])]},
                              labels, 1.0)
    assert stats.start_ms == 2270.0
    # A warm start (eviction not confirmed) gives way to a cold one, however slower it is.
    stats = stats_from_report({"places": [_row("/t", [[40000, False]]), _row("/h", [[900000, True]])]}, labels, 1.0)
    assert (stats.start_ms, stats.start_warm, stats.start_place) == (40.0, False, "target")
    stats = stats_from_report({"places": [_row("/t", [[900000, True]])]}, labels, 1.0)
    assert (stats.start_ms, stats.start_warm) == (900.0, True)


def _io(start_ms: float | None, warm: bool = False) -> IoProbeStats:
    return IoProbeStats(0.4, 2.0, 4.0, 4.0, start_ms=start_ms, start_warm=warm)


def test_s_figures_none_is_sluggish_and_bfq_stays_ok() -> None:
    # S issue #8: gnome-terminal 0.13 s at rest; 2.27 s under `none` with ten readers; 0.149 s under `bfq`.
    under_bfq = ResponsivenessMonitor(io_baseline=_io(130.0))
    assert [under_bfq.update(CALM, None, _io(149.0)).level for _ in range(5)] == [Level.OK] * 5
    under_none = ResponsivenessMonitor(io_baseline=_io(130.0))
    levels = [under_none.update(CALM, None, _io(2270.0)) for _ in range(3)]
    assert [a.level for a in levels] == [Level.OK, Level.OK, Level.SLUGGISH]
    assert levels[-1].cause == "app_start" and levels[-1].threshold_value == 1130.0
    assert levels[-1].signal == "start-up 2270 ms > 1130 ms"
    summary = under_none.summary()
    assert summary["app_start_baseline_ms"] == 130.0 and summary["app_start_ms_max"] == 2270.0
    assert summary["cause"] == "app_start"
    # 10 s more than at rest: the user has given up waiting, at once.
    frozen = ResponsivenessMonitor(io_baseline=_io(130.0))
    assert frozen.update(CALM, None, _io(10200.0)).level is Level.UNRESPONSIVE


def test_a_warm_start_is_recorded_apart_and_never_judged() -> None:
    monitor = ResponsivenessMonitor(io_baseline=_io(130.0))
    warm = _io(20000.0, warm=True)
    assert [monitor.update(CALM, None, warm).level for _ in range(4)] == [Level.OK] * 4
    assert "app_start_ms_max" not in monitor.summary()
    row = responsiveness_row(None, None, warm)
    assert row["app_start_warm_ms"] == 20000.0 and "app_start_ms" not in row
    assert responsiveness_row(None, None, _io(131.5))["app_start_ms"] == 131.5


def test_a_section_is_judged_by_its_own_starts_against_the_runs_baseline() -> None:
    run_pressure = {"app_start_baseline_ms": 130.0}
    slow = [{"responsiveness": "sluggish", "responsiveness_cause": "app_start", "app_start_ms": 2230.0}] * 3
    table = pressure_from_samples(slow, run_pressure)
    assert table["responsiveness"] == "sluggish" and table["cause"] == "app_start"
    assert table["cause_threshold"] == 1130.0 and table["app_start_ms_max"] == 2230.0
    # A second at 1.1 s is under 0.13 s + 1 s: not sluggish by its own figure.
    near = [{"responsiveness": "sluggish", "responsiveness_cause": "app_start", "app_start_ms": 1100.0}]
    assert pressure_from_samples(near, run_pressure)["responsiveness"] == "ok"


def _cold_start(probe: IoProbe) -> IoProbeStats | None:
    latest = probe.read_latest()
    return latest if latest is not None and latest.start_ms is not None else None


def test_the_real_probe_starts_a_program_whose_files_it_evicted_and_removes_them(tmp_path: Path) -> None:
    probe = IoProbe(tmp_path, probe_home=False)
    probe.start()
    try:
        (directory,) = probe.directories
        latest = wait_until(lambda: _cold_start(probe), what=f"a start-up figure (error: {probe.error})")
        sizes = {name: (directory / name).stat().st_size for name in START_FILE_NAMES}
        assert sizes == {name: START_FILE_BYTES for name in START_FILE_NAMES}
        # On a disk filesystem the eviction is confirmed: a cold start, judged.
        assert latest.start_warm is False and latest.start_ms > 0
        assert latest.start_place == "target"
        baseline = probe.baseline()
        assert baseline is not None and baseline.start_ms is not None and baseline.start_ms > 0
    finally:
        probe.stop()
    assert list(tmp_path.iterdir()) == []


def test_on_tmpfs_eviction_cannot_be_confirmed_so_the_start_is_warm() -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("needs /dev/shm, a tmpfs whose pages DONTNEED cannot drop")
    place = Path(tempfile.mkdtemp(dir=shm))
    try:
        probe = IoProbe(place, probe_home=False)
        probe.start()
        try:
            latest = wait_until(lambda: _cold_start(probe), what=f"a start-up figure (error: {probe.error})")
            assert latest.start_warm is True
            # No cold start: no baseline either, and nothing judged.
            baseline = probe.baseline()
            assert baseline is None or baseline.start_ms is None
        finally:
            probe.stop()
        assert list(place.iterdir()) == []
    finally:
        place.rmdir()
