"""The I/O probe: its per-second arithmetic, its private files and its child process."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from tests.waiting import wait_until
from iotui.core.host.io_probe import (
    PROBE_DIR_PREFIX,
    IoProbe,
    IoProbeStats,
    p99,
    probe_places,
    stats_from_report,
)


def test_p99_is_nearest_rank() -> None:
    assert p99([float(v) for v in range(1, 201)]) == 198.0
    assert p99([3.0, 1.0]) == 3.0
    assert p99([]) is None


def test_a_report_gives_the_worst_place_and_the_probes_own_iops() -> None:
    report = {"places": [
        {"place": "/t/a", "read_us": [400, 500, 300, 450], "write_us": [2000, 2500, 2100, 1900],
         "read_inflight_us": 0, "write_inflight_us": 0},
        {"place": "/h/b", "read_us": [700, 600, 650, 800], "write_us": [5000, 4000, 4500],
         "read_inflight_us": 0, "write_inflight_us": 312000},
    ]}
    stats = stats_from_report(report, {"/t/a": "target", "/h/b": "home"}, 1.0)
    # A write + fdatasync still in flight after 312 ms counts with that age: a lower bound.
    assert stats == IoProbeStats(
        read_p99_ms=0.8, write_p99_ms=312.0, read_iops=8.0, write_iops=7.0,
        read_place="home", write_place="home",
    )
    assert stats_from_report({"nothing": 1}, {}, 1.0) is None


def test_places_add_home_only_on_another_filesystem(tmp_path: Path) -> None:
    same = tmp_path / "home"
    same.mkdir()
    assert probe_places(tmp_path, same) == [("target", tmp_path)]
    assert probe_places(tmp_path, None) == [("target", tmp_path)]
    shm = Path("/dev/shm")
    if shm.is_dir() and os.stat(shm).st_dev != os.stat(tmp_path).st_dev:
        assert probe_places(tmp_path, shm) == [("target", tmp_path), ("home", shm)]
    # A raw device target has no filesystem of its own to probe: home only.
    device = Path("/dev/null")
    assert probe_places(device, same) == [("home", same)]


def _wait_for_report(probe: IoProbe) -> IoProbeStats:
    return wait_until(probe.read_latest, what=f"the I/O probe's first report (error: {probe.error})", interval_s=0.05)


def test_the_real_probe_measures_in_a_private_directory_and_removes_it(tmp_path: Path) -> None:
    before = set(tmp_path.iterdir())
    probe = IoProbe(tmp_path, probe_home=False)
    probe.start()
    try:
        assert probe.error is None and probe.running
        (directory,) = probe.directories
        assert directory.parent == tmp_path and directory.name.startswith(PROBE_DIR_PREFIX)
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
        latest = _wait_for_report(probe)
        assert latest.read_p99_ms is not None and latest.read_p99_ms > 0
        assert latest.write_p99_ms is not None and latest.write_p99_ms > 0
        # Four of each a second (a loaded machine may fit one fewer or one more in a report).
        assert 2 <= latest.read_iops <= 6 and 2 <= latest.write_iops <= 6
        assert latest.read_place == "target"
        baseline = probe.baseline()
        assert baseline is not None and baseline.read_p99_ms is not None
        pid = probe.pid
    finally:
        probe.stop()
    assert set(tmp_path.iterdir()) == before
    assert probe.read_latest() is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_the_child_removes_its_files_when_iotui_goes_away(tmp_path: Path) -> None:
    # What happens when iotui dies: the kernel closes the pipe; the child cleans up and exits.
    probe = IoProbe(tmp_path, probe_home=False)
    probe.start()
    _wait_for_report(probe)
    process = probe._process
    assert process is not None and process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=5) == 0
    assert list(tmp_path.iterdir()) == []
    probe.stop()


def test_home_on_another_filesystem_is_probed_too(tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs a second filesystem (/dev/shm) to stand for a home elsewhere")
    home = Path(tempfile.mkdtemp(dir=shm))
    try:
        probe = IoProbe(tmp_path, home=home)
        probe.start()
        try:
            assert [d.parent for d in probe.directories] == [tmp_path, home]
            latest = _wait_for_report(probe)
            # Both places do their four reads and writes a second.
            assert latest.read_iops >= 4 and latest.write_iops >= 4
        finally:
            probe.stop()
        assert list(home.iterdir()) == [] and list(tmp_path.iterdir()) == []
    finally:
        home.rmdir()


def test_no_place_to_probe_means_no_figures_not_a_crash(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    missing.mkdir()
    probe = IoProbe(missing, probe_home=False)
    missing.rmdir()
    probe.start()
    try:
        assert probe.read_latest() is None
        assert not probe.running
    finally:
        probe.stop()
