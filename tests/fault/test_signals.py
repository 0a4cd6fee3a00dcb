"""Faults during a real run: signals to iotui (headless and the app), fio stopped from outside,
the target deleted. Each must end fio, leave no file in the target and keep the record saying
what happened."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.conftest import requires_fio
from tests.waiting import wait_until

pytestmark = [pytest.mark.fio, requires_fio]


def _fio_pids(target: Path) -> list[int]:
    found = subprocess.run(["pgrep", "-f", "--", f"={target.resolve()}/.iotui-"], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def _gone(target: Path) -> None:
    wait_until(lambda: not _fio_pids(target), what="every fio process to end", interval_s=0.1)


def _start(target: Path, runs: Path, *extra: str, runtime: str = "30") -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--runtime", runtime, "--size", "8M",
         "--set", "rate_iops=200", "--runs-dir", str(runs), "--baseline", "0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:  # the first interval line: fio is running and reporting
        if "IOPS" in line:
            break
    assert _fio_pids(target), "fio should be running"
    return process


def _only_record(runs: Path):
    records = list(runs.glob("*.toml"))
    assert len(records) == 1, records
    return load_record(records[0])


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    target = tmp_path / "target"
    target.mkdir()
    return target, tmp_path / "runs"


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_headless_run_keeps_a_stopped_record_and_no_file(dirs, signum: int) -> None:
    target, runs = dirs
    process = _start(target, runs)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in err
    record = _only_record(runs)
    assert record.status == "stopped" and record.run["ended_by"] == f"signal:{signal.Signals(signum).name}"
    assert record.summary["read"]["total_ios"] > 0
    assert list(target.iterdir()) == []
    _gone(target)


def test_sigkill_of_iotui_the_guard_ends_fio_and_removes_the_private_directory(dirs) -> None:
    target, runs = dirs
    process = _start(target, runs)
    process.kill()
    process.communicate(timeout=30)
    _gone(target)
    wait_until(lambda: list(target.iterdir()) == [], what="the guard to remove the private test directory",
               interval_s=0.1)


def test_fio_stopped_from_outside_is_recorded_as_a_stall(dirs) -> None:
    target, runs = dirs
    process = _start(target, runs, runtime="6")
    fio_pid = _fio_pids(target)[0]
    os.kill(fio_pid, signal.SIGSTOP)  # someone else's SIGSTOP, not iotui's pause
    try:
        time.sleep(4.0)  # the fault itself: fio stays stopped this long
    finally:
        os.kill(fio_pid, signal.SIGCONT)
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    record = _only_record(runs)
    assert record.run["ended_by"] == "stall"
    assert any(warning["code"] == "stall" for warning in record.warnings)
    assert list(target.iterdir()) == []


def test_a_target_deleted_mid_run_is_recorded_as_vanished(dirs) -> None:
    target, runs = dirs
    process = _start(target, runs)
    shutil.rmtree(target)
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    record = _only_record(runs)
    assert record.status != "completed" and record.run["ended_by"] == "target-vanished"
    assert any(warning["code"] == "target-vanished" for warning in record.warnings)
    _gone(target)


def test_leftovers_of_a_power_loss_are_removed_at_the_next_run(dirs) -> None:
    target, runs = dirs
    leftover = target / ".iotui-0123456789abcdef"
    leftover.mkdir(mode=0o700)
    (leftover / ".iotui-owner").write_text('{"pid": 1, "boot_id": "a boot long gone"}')
    (leftover / "testfile").write_bytes(b"\0" * 4096)
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--runtime", "1", "--size", "1M",
         "--runs-dir", str(runs), "--baseline", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert f"Removed {leftover}" in result.stderr and "earlier run" in result.stderr
    assert list(target.iterdir()) == []


@pytest.mark.parametrize("problem", ["a file", "read-only"])
def test_an_unusable_runs_directory_is_refused_before_fio_starts(dirs, problem: str) -> None:
    target, runs = dirs
    if problem == "a file":
        runs.write_text("not a directory")
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes to a read-only directory, so this refusal cannot be shown as root")
        runs.mkdir(mode=0o500)
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--runtime", "1", "--size", "1M",
         "--runs-dir", str(runs), "--baseline", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1 and "runs directory" in result.stderr and "Traceback" not in result.stderr
    assert list(target.iterdir()) == [] and "IOPS" not in result.stdout
