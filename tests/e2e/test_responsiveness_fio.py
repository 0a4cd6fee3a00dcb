"""Responsiveness with real fio and the real probes: a gentle run stays OK, a flood is caught.

Both runs go through `iotui run` with its baseline, on a directory on a real disk (never
tmpfs: the I/O probe must meet the same queue as fio). Other test suites may share the
machine; the gentle test tells their load from fio's by the record's own figures and
says so rather than blaming fio for it (see `_interference`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from iotui.core.host.levels import IO_CAUSES
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

REPO = Path(__file__).resolve().parent.parent.parent


def _filesystem_of(path: Path) -> str:
    best, fstype = "", ""
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        for line in mounts:
            fields = line.split()
            mount_point = fields[1].replace("\\040", " ")
            if str(path).startswith(mount_point) and len(mount_point) > len(best):
                best, fstype = mount_point, fields[2]
    return fstype


@pytest.fixture
def disk_dir(tmp_path: Path):
    """A directory on a real disk: tmp_path, or one beside the repository when /tmp is memory."""
    if _filesystem_of(tmp_path.resolve()) not in ("tmpfs", "ramfs"):
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix=".test-disk-", dir=REPO))
    try:
        yield directory
    finally:
        for child in directory.iterdir():
            child.unlink()
        directory.rmdir()


def iotui_run(target: Path, runs: Path, *args: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--runs-dir", str(runs),
         "--baseline", "2", "--json", *args],
        capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _interference(samples: list[dict], cause: str) -> str | None:
    """Why seconds judged above OK were others' doing, from the record's own figures; else None.

    The gentle run only reads, so writes on the device beyond the probe's few come from
    other programs; and fio well under half a core cannot by itself make wake-ups late.
    """
    flagged = [s for s in samples if s.get("responsiveness_cause") == cause]
    if cause in IO_CAUSES:
        foreign_writes = [
            (s.get("device_write_iops") or 0.0) - 4 * (s.get("io_probe_write_iops") or 0.0) for s in flagged
        ]
        if foreign_writes and max(foreign_writes) > 50:
            return (f"other programs wrote to the disk ({max(foreign_writes):.0f} writes/s beyond the probe's) "
                    f"while the I/O probe crossed its threshold; this read-only run writes nothing")
    if cause == "wakeup":
        fio_cores = [s.get("fio_cpu_cores") for s in flagged if s.get("fio_cpu_cores") is not None]
        if fio_cores and max(fio_cores) < 0.5:
            return (f"wake-ups ran late while fio used at most {max(fio_cores):.2f} of a core: "
                    f"other programs took the CPUs")
    return None


def test_a_qd1_direct_read_stays_ok(disk_dir: Path, tmp_path: Path) -> None:
    printed = iotui_run(
        disk_dir, tmp_path / "runs", "--runtime", "3", "--size", "16M",
        "--set", "rw=randread", "--set", "iodepth=1", "--set", "numjobs=1", "--set", "direct=1",
    )
    record = load_record(Path(printed["path"]))
    samples = record.samples
    assert len(samples) >= 2
    # Every second carries both probes' figures and the probe's own I/O.
    for sample in samples:
        assert sample["io_probe_p99_ms"] > 0 and sample["io_probe_write_p99_ms"] > 0
        assert 1 <= sample["io_probe_read_iops"] <= 8 and 1 <= sample["io_probe_write_iops"] <= 8
        # The start-up probe's figure, cold (its files evicted) on a real disk, every second.
        assert sample["app_start_ms"] > 0 and "app_start_warm_ms" not in sample
    pressure = record.pressure
    assert pressure["io_probe_baseline_p99_ms"] > 0 and pressure["io_probe_write_baseline_p99_ms"] > 0
    assert pressure["app_start_baseline_ms"] > 0 and pressure["app_start_ms_max"] >= min(
        sample["app_start_ms"] for sample in samples)
    if pressure["responsiveness"] != "ok":
        reason = _interference(samples, pressure["cause"])
        if reason:
            pytest.skip(f"cannot judge fio here: {reason}")
    assert pressure["responsiveness"] == "ok", (pressure, [w["message"] for w in record.warnings])
    assert "cause" not in pressure
    assert not [w for w in record.warnings if w["code"] == "responsiveness"]
    # The probe cleans up after itself.
    assert [p.name for p in disk_dir.iterdir() if p.name.startswith(".iotui-")] == []


def test_a_write_flood_that_fills_the_queue_is_caught_with_an_io_cause(disk_dir: Path, tmp_path: Path) -> None:
    # 4 jobs x 1 MiB direct writes at QD64 over one 32 MiB file: on a disk shared with the
    # desktop, a small save waits behind up to 256 MiB of queued writes.
    printed = iotui_run(
        disk_dir, tmp_path / "runs", "--runtime", "6", "--size", "32M",
        "--set", "rw=write", "--set", "bs=1M", "--set", "iodepth=64", "--set", "numjobs=4",
        "--set", "ioengine=libaio", "--set", "direct=1", "--set", "time_based=1",
    )
    record = load_record(Path(printed["path"]))
    pressure = record.pressure
    assert pressure["responsiveness"] in ("sluggish", "unresponsive"), pressure
    assert pressure["cause"] in ("io_probe_read", "io_probe_write"), pressure
    assert pressure["cause_value"] > pressure["cause_threshold"]
    assert any(s.get("responsiveness_cause") in IO_CAUSES for s in record.samples)
    (warning,) = [w["message"] for w in record.warnings if w["code"] == "responsiveness"]
    assert warning.startswith("Other programs found the machine ")
    assert "try a lower iodepth (now 64) or fewer jobs (now 4)" in warning
    assert [p.name for p in disk_dir.iterdir() if p.name.startswith(".iotui-")] == []
