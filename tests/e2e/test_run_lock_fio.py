"""Two `iotui run`s with real fio on one machine: the second is refused naming the first, or forced and both say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.runs.lock import lock_path
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

SLOW_RUN = ("run", "quick", "--runtime", "6", "--size", "4M", "--set", "rate_iops=100", "--baseline", "0")
SHORT_RUN = ("run", "quick", "--runtime", "1", "--size", "4M", "--set", "rate_iops=100", "--baseline", "0")


def wait_for_holder(pid: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if json.loads(lock_path().read_text())["holder"]["pid"] == pid:
                return
        except (OSError, ValueError, KeyError, TypeError):
            pass
        time.sleep(0.05)
    raise AssertionError("the first run never took the lock")


def start_first(tmp_path: Path, runs: Path) -> subprocess.Popen:
    first = subprocess.Popen(
        [sys.executable, "-m", "iotui", *SLOW_RUN, "--runs-dir", str(runs), "--target", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
    )
    wait_for_holder(first.pid)
    return first


def test_second_run_is_refused_naming_the_holder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    first = start_first(tmp_path, runs)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "iotui", *SHORT_RUN, "--runs-dir", str(runs), "--target", str(tmp_path)],
            capture_output=True, text=True, timeout=60,
        )
        assert second.returncode == 1
        assert f"pid {first.pid}" in second.stderr and "quick" in second.stderr and str(tmp_path) in second.stderr
        assert "--force" in second.stderr and "Traceback" not in second.stderr
    finally:
        first.send_signal(2)
        first.communicate(timeout=60)
    assert len(list(runs.glob("*.toml"))) == 1  # the refused run wrote nothing


def test_forced_run_is_recorded_in_both_records(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    first = start_first(tmp_path, runs)
    second = subprocess.run(
        [sys.executable, "-m", "iotui", *SHORT_RUN, "--force", "--runs-dir", str(runs), "--target", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=60,
    )
    first.send_signal(2)  # no need to wait its six seconds out
    first.communicate(timeout=60)
    assert second.returncode == 0, second.stderr
    records = [load_record(path) for path in runs.glob("*.toml")]
    assert len(records) == 2
    assert all(record.run.get("forced") is True for record in records)
    assert all(any(w["code"] == "forced" for w in record.warnings) for record in records)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".iotui-")] == []
