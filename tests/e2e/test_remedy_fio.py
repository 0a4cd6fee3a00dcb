"""`iotui remedy` with real fio on a loop-device filesystem (root only): as-is, the other schedulers
and the idle class, start-up figures in every point, and the scheduler back as it was, also
after SIGINT in the middle."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from iotui.core.remedy.cgroups import Hierarchy, usable_hierarchy
from iotui.core.sweep.record import load_sweep
from tests.conftest import requires_fio
from tests.e2e.loop_device import loop_filesystem

pytestmark = [pytest.mark.fio, requires_fio, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent.parent
WORKLOAD = ["quick", "--size", "16M", "--set", "rw=read", "--set", "bs=1M", "--set", "numjobs=2",
            "--set", "iodepth=8", "--set", "ioengine=libaio", "--set", "direct=1", "--baseline", "1"]


def _end_fio_under(place: Path) -> None:
    """End any fio left running on ``place`` by a killed iotui (so the loop device can be detached)."""
    import psutil

    left = [process for process in psutil.process_iter(["cmdline"])
            if any(str(place) in arg for arg in process.info["cmdline"] or []) and process.pid != os.getpid()]
    for process in left:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(left, timeout=30)


def _remedy(loop, runs: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "iotui", "remedy", *WORKLOAD, "--target", str(loop.mount_point),
            "--runs-dir", str(runs), *extra]


def test_every_remedy_runs_with_start_up_figures_and_the_scheduler_is_put_back(tmp_path: Path) -> None:
    with loop_filesystem(tmp_path) as loop:
        result = subprocess.run(_remedy(loop, tmp_path / "runs", "--runtime", "2", "--json"), cwd=REPO,
                                capture_output=True, text=True, timeout=300, env=dict(os.environ))
        assert loop.scheduler() == loop.original
        assert result.returncode == 0, result.stderr
        doc = json.loads(result.stdout)
        remedies = [row["remedy"] for row in doc["rows"]]
        offered = [word.strip("[]") for word in loop.scheduler_file.read_text().split()]
        cgroup = ["cgroup-weight=10"] if isinstance(usable_hierarchy(True), Hierarchy) else []
        assert remedies == ["as-is", *(f"scheduler={name}" for name in offered if name != loop.original), "prioclass=3",
                            *cgroup]
        assert len(remedies) >= 4  # as-is, two schedulers at least, the idle class
        assert doc["device"] == loop.device
        for row in doc["rows"]:
            assert row["status"] == "completed" and row["iops"] > 0
            assert row["felt"]["start-up"]["p99_ms"] > 0
        sweep = load_sweep(Path(doc["sweep"]))
        for point in sweep.points:
            record = load_record(Path(doc["sweep"]).parent / point.record)
            assert record.samples and all(sample["app_start_ms"] > 0 for sample in record.samples)
            assert record.pressure["app_start_baseline_ms"] > 0
            # fio's own figure, unchanged: the table's IOPS is what fio reported for the point.
            row = next(r for r in doc["rows"] if r["remedy"] == point.params["remedy"])
            assert row["iops"] == pytest.approx(point.result["read_iops"], rel=1e-3)
        # `iotui show` of the saved record prints the same table and verdict.
        shown = subprocess.run([sys.executable, "-m", "iotui", "show", doc["sweep"], "--json"], cwd=REPO,
                               capture_output=True, text=True, timeout=60, env=dict(os.environ))
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["rows"] == doc["rows"] and json.loads(shown.stdout)["verdict"] == doc["verdict"]
        idle_point = next(point for point in sweep.points if point.params["remedy"] == "prioclass=3")
        idle = load_record(Path(doc["sweep"]).parent / idle_point.record)
        assert any(arg.endswith("prioclass=3") for arg in idle.argv)
        assert not any("prioclass" in arg for arg in load_record(Path(doc["sweep"]).parent / sweep.points[0].record).argv)


def test_sigint_during_a_scheduler_point_puts_the_scheduler_back(tmp_path: Path) -> None:
    with loop_filesystem(tmp_path) as loop:
        process = subprocess.Popen(_remedy(loop, tmp_path / "runs", "--runtime", "3"), cwd=REPO,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
        assert process.stdout is not None
        try:
            for line in process.stdout:
                if "scheduler=" in line and line.rstrip().endswith("running"):
                    break
            else:
                pytest.fail("no scheduler point started")
            wanted = line.split("scheduler=", 1)[1].split(":", 1)[0]
            assert loop.scheduler() == wanted  # really changed while its point runs
            process.send_signal(signal.SIGINT)
            process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        assert process.returncode == 130
        assert loop.scheduler() == loop.original


def test_sigkill_of_iotui_remedy_then_any_iotui_command_puts_the_scheduler_back(tmp_path: Path) -> None:
    with loop_filesystem(tmp_path) as loop:
        process = subprocess.Popen(_remedy(loop, tmp_path / "runs", "--runtime", "3"), cwd=REPO,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
        assert process.stdout is not None
        try:
            for line in process.stdout:
                if "scheduler=" in line and line.rstrip().endswith("running"):
                    break
            else:
                pytest.fail("no scheduler point started")
            wanted = line.split("scheduler=", 1)[1].split(":", 1)[0]
            assert loop.scheduler() == wanted
            process.kill()  # SIGKILL: iotui cannot undo anything itself
            process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        _end_fio_under(loop.mount_point)  # fio outlives a killed iotui only until its runtime; no need to wait
        assert loop.scheduler() == wanted
        after = subprocess.run([sys.executable, "-m", "iotui", "presets"], cwd=REPO, capture_output=True, text=True,
                               timeout=60, env=dict(os.environ))
        assert loop.scheduler() == loop.original
        assert f"{loop.device}'s I/O scheduler is {loop.original} again" in after.stderr
