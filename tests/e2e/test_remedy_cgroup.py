"""`iotui remedy`'s cgroup weight with real fio, as root on this machine's cgroup hierarchy: the
private cgroup exists during its point with fio inside it at the weight, and is gone after the
command, after SIGINT, SIGTERM or SIGHUP in the middle of the point, and after SIGKILL followed by
any iotui command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from iotui.core.remedy.cgroups import WEIGHT, Hierarchy, usable_hierarchy
from tests.conftest import requires_fio
from tests.waiting import wait_until

HIERARCHY = usable_hierarchy(os.geteuid() == 0) if os.geteuid() == 0 else None
pytestmark = [
    pytest.mark.fio, requires_fio, pytest.mark.slow,
    pytest.mark.skipif(not isinstance(HIERARCHY, Hierarchy), reason="needs root and a cgroup I/O controller"),
]

REPO = Path(__file__).resolve().parent.parent.parent
WORKLOAD = ["quick", "--size", "8M", "--set", "rw=randread", "--set", "numjobs=2", "--baseline", "1"]


def _remedy(target: Path, runtime_s: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "iotui", "remedy", *WORKLOAD, "--runtime", str(runtime_s), "--target", str(target),
            "--runs-dir", str(target / "runs"), *extra]


def _cgroup_of(process: subprocess.Popen[str]) -> Path:
    assert isinstance(HIERARCHY, Hierarchy)
    return HIERARCHY.root / f"iotui-remedy-{process.pid}"


def _fio_inside(cgroup: Path) -> list[psutil.Process]:
    """The fio processes in ``cgroup`` (the parent and its jobs), if it exists."""
    try:
        pids = [int(word) for word in (cgroup / "cgroup.procs").read_text().split()]
    except OSError:
        return []
    found = []
    for pid in pids:
        try:
            if psutil.Process(pid).name() == "fio":
                found.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    return found


def _threads_inside(fio: psutil.Process, cgroup: Path) -> int:
    """How many of fio's threads (iotui runs its jobs as threads) the kernel places in ``cgroup``."""
    count = 0
    for thread in fio.threads():
        try:
            lines = Path(f"/proc/{fio.pid}/task/{thread.id}/cgroup").read_text().splitlines()
        except OSError:
            continue
        count += any(line.endswith("/" + cgroup.name) for line in lines)
    return count


def _until_fio_in_the_cgroup(process: subprocess.Popen[str]) -> list[psutil.Process]:
    """fio in the cgroup with its two job threads; iotui itself outside; the weight written."""
    cgroup = _cgroup_of(process)
    inside = wait_until(lambda: [fio for fio in _fio_inside(cgroup) if _threads_inside(fio, cgroup) >= 3],
                        timeout_s=120, what="fio and its two job threads inside iotui's cgroup")
    assert isinstance(HIERARCHY, Hierarchy)
    assert (cgroup / HIERARCHY.weight_file).read_text().split()[-1] == str(WEIGHT)
    assert str(process.pid) not in (cgroup / "cgroup.procs").read_text().split()
    return inside


def test_fio_runs_inside_a_weighted_private_cgroup_that_is_gone_after(tmp_path: Path) -> None:
    process = subprocess.Popen(_remedy(tmp_path, 3, "--json"), cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        inside = _until_fio_in_the_cgroup(process)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert not _cgroup_of(process).exists()
    assert not any(process_.is_running() for process_ in inside)
    doc = json.loads(stdout)
    assert [row["remedy"] for row in doc["rows"]][-1] == f"cgroup-weight={WEIGHT}"
    cgroup_row = doc["rows"][-1]
    assert cgroup_row["status"] == "completed" and cgroup_row["iops"] > 0
    assert cgroup_row["felt"]["start-up"]["p99_ms"] > 0


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_during_the_cgroup_point_removes_the_cgroup(tmp_path: Path, signal_name: str) -> None:
    process = subprocess.Popen(_remedy(tmp_path, 4), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=dict(os.environ))
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.rstrip().endswith(f"cgroup-weight={WEIGHT}: running"):
                break
        else:
            pytest.fail("the cgroup point never started")
        _until_fio_in_the_cgroup(process)
        process.send_signal(getattr(signal, signal_name))
        process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130  # stopped, the partial records kept
    assert not _cgroup_of(process).exists()


def test_sigkill_then_any_iotui_command_removes_the_cgroup(tmp_path: Path) -> None:
    process = subprocess.Popen(_remedy(tmp_path, 4), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=dict(os.environ))
    cgroup = _cgroup_of(process)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.rstrip().endswith(f"cgroup-weight={WEIGHT}: running"):
                break
        else:
            pytest.fail("the cgroup point never started")
        _until_fio_in_the_cgroup(process)
        process.kill()  # SIGKILL: iotui cannot undo anything itself
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert cgroup.exists()  # left behind
    after = subprocess.run([sys.executable, "-m", "iotui", "presets"], cwd=REPO, capture_output=True, text=True,
                           timeout=60, env=dict(os.environ))
    assert not cgroup.exists()
    assert f"{cgroup} is removed" in after.stderr
