"""``iotui sweep`` with real fio: scaling of a rate-limited job, Ctrl-C and --resume, the output shapes.

Short points (1-2 s, 4 MiB file, no responsiveness baseline) keep the whole
module under about 30 s.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from iotui.core.sweep import SWEEP_SUFFIX
from iotui.core.sweep.record import load_sweep
from tests.conftest import requires_fio
from tests.waiting import wait_until

pytestmark = [pytest.mark.fio, requires_fio]

RATE_JOB = """\
[global]
ioengine=psync
rw=randread
bs=4k
size=4M
rate_iops=100
time_based
runtime={runtime}
group_reporting

[rated]
"""
POINT_KEYS = {
    "params", "record", "read_iops", "write_iops", "read_lat_p99_ns", "write_lat_p99_ns", "responsiveness",
}


def sweep_command(tmp_path: Path, runtime_s: int, *extra: str) -> list[str]:
    job = tmp_path / f"rate{runtime_s}.fio"
    job.write_text(RATE_JOB.format(runtime=runtime_s))
    target = tmp_path / "target"
    target.mkdir(exist_ok=True)
    return [
        sys.executable, "-m", "iotui", "sweep", "--job-file", str(job), "--vary", "numjobs=1,2,4",
        "--target", str(target), "--runs-dir", str(tmp_path / "runs"), "--baseline", "0", *extra,
    ]


def run(command: list[str], timeout_s: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)


def test_rate_limited_sweep_scales_with_numjobs_and_prints_json(tmp_path):
    result = run(sweep_command(tmp_path, 2, "--format", "json"))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)  # progress goes to stderr, only JSON on stdout
    assert {"points", "sweet_spot", "balanced"} <= doc.keys() and "ranking" not in doc
    said = " ".join(result.stderr.split())  # broken between words where $COLUMNS is set
    assert "3 points over numjobs (3)" in said and "disk space needed: 4.0MiB" in said
    points = doc["points"]
    assert [p["params"] for p in points] == [{"numjobs": "1"}, {"numjobs": "2"}, {"numjobs": "4"}]
    for point, jobs in zip(points, (1, 2, 4)):
        assert POINT_KEYS <= point.keys()
        # rate_iops is per job: the total is 100 x numjobs.
        assert point["read_iops"] == pytest.approx(100 * jobs, rel=0.05)
        assert point["write_iops"] is None and point["read_lat_p99_ns"] > 0
        assert point["responsiveness"] in ("ok", "sluggish", "unresponsive")
        record = load_record(Path(point["record"]))
        assert record.summary["read"]["iops"] == point["read_iops"]
        assert record.options["numjobs"] == str(jobs)
    # 100/200/400 IOPS are far apart, so only the best responsive point reaches 95% of
    # the best: 4 jobs on a quiet machine. On a busy CI host a point may be judged
    # sluggish (other programs' CPU pressure) and is then left out, as documented.
    responsive = [p for p in points if p["responsiveness"] == "ok"]
    candidates = responsive or [p for p in points if p["responsiveness"] != "unresponsive"] or points
    expected = max(candidates, key=lambda p: p["read_iops"])["params"]
    assert doc["sweet_spot"]["params"] == expected and doc["sweet_spot"]["why"]
    if len(responsive) == 3:
        assert expected == {"numjobs": "4"}
    assert set(doc["balanced"]) == {"params", "why"}
    assert list((tmp_path / "target").iterdir()) == []  # every point removed its test file
    sweeps = list((tmp_path / "runs").glob(f"*{SWEEP_SUFFIX}"))
    assert len(sweeps) == 1 and load_sweep(sweeps[0]).status == "completed"


def test_ctrl_c_keeps_the_partial_point_and_resume_runs_only_the_rest(tmp_path):
    command = sweep_command(tmp_path, 1)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    for line in process.stdout:
        if line.startswith("[2/3]") and "running" in line:
            break
        assert time.monotonic() < deadline, "the second point never started"
    # The second point's fio runs (a stop before it starts would leave the point pending).
    target = (tmp_path / "target").resolve()
    wait_until(
        lambda: subprocess.run(["pgrep", "-f", "--", f"--filename={target}"], capture_output=True).stdout.strip(),
        what="the second point's fio to start",
    )
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "--resume" in stderr
    sweep_path = next((tmp_path / "runs").glob(f"*{SWEEP_SUFFIX}"))
    stopped = load_sweep(sweep_path)
    assert stopped.status == "stopped"
    assert [p.status for p in stopped.points] == ["completed", "stopped", "pending"]
    first_record = stopped.points[0].record
    partial = stopped.record_path(stopped.points[1])
    assert load_record(partial).status == "stopped"  # the partial record is kept

    resumed = run(command + ["--resume", "--format", "markdown"])
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 3 points already completed" in resumed.stdout
    assert "[1/3]" not in resumed.stdout and "[2/3] numjobs=2: running" in resumed.stdout
    assert "| numjobs | read IOPS |" in resumed.stdout and "- Sweet spot: numjobs=" in resumed.stdout
    done = load_sweep(sweep_path)
    assert done.status == "completed" and done.points[0].record == first_record
    assert [p.status for p in done.points] == ["completed"] * 3
    assert len(list((tmp_path / "runs").glob(f"*{SWEEP_SUFFIX}"))) == 1  # the same sweep record, updated


def test_refusals_are_sentences(tmp_path):
    result = run(sweep_command(tmp_path, 1, "--size", "100P"))
    assert result.returncode == 1
    assert result.stderr.startswith("iotui: The sweep needs") and "free" in result.stderr
    assert "Traceback" not in result.stderr
    result = run(sweep_command(tmp_path, 1, "--vary", "numjobs=8"))
    assert result.returncode == 1 and "varied twice" in result.stderr


@pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench is not installed (sudo apt-get install sysbench)")
def test_sysbench_compare_runs_fio_and_sysbench_side_by_side(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    command = [
        sys.executable, "-m", "iotui", "sweep", "sysbench-compare", "--vary", "job=sync-fsync100",
        "--target", str(target), "--runs-dir", str(tmp_path / "runs"), "--baseline", "0",
        "--runtime", "1", "--size", "16M", "--format", "json",
    ]
    result = run(command, timeout_s=60)
    assert result.returncode == 0, result.stderr
    points = json.loads(result.stdout)["points"]
    assert [p["params"]["tool"] for p in points] == ["fio", "sysbench"]
    fio_point, sysbench_point = points
    assert fio_point["read_lat_p99_ns"] > 0
    assert sysbench_point["read_iops"] > 0 and sysbench_point["write_iops"] > 0
    assert sysbench_point["read_lat_p99_ns"] is None  # sysbench reports a 95th percentile, not a p99
    record = load_record(Path(sysbench_point["record"]))
    assert record.run["source"] == "sysbench" and "lat_p95_ns" in record.summary["read"]
    assert record.summary["cpu"]["ctx_switches_per_s"] > 0
    assert list(target.iterdir()) == []
