"""`iotui run` with the real fio binary: small files, short runs."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.conftest import requires_fio
from tests.waiting import wait_until

pytestmark = [pytest.mark.fio, requires_fio]


def iotui(*args: str, cwd: Path, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "iotui", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def test_rate_limited_run_shows_the_rate_and_equals_fios_report(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    result = iotui(
        "run", "quick", "--runtime", "3", "--size", "8M", "--set", "rw=randread", "--set", "rate_iops=200",
        "--set", "iodepth=1", "--runs-dir", str(runs), "--baseline", "0", "--json", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    record = load_record(Path(printed["path"]))
    assert record.status == "completed"
    full_intervals = [s for s in record.samples if s["dt_s"] >= 0.5]
    assert len(full_intervals) >= 2
    for sample in full_intervals:
        assert sample["read_iops"] == pytest.approx(200, rel=0.1)
    report = json.loads((runs / record.run["report"]).read_text())
    fio_read = report["jobs"][0]["read"]
    assert record.summary["read"]["iops"] == fio_read["iops"]
    assert record.summary["read"]["total_ios"] == fio_read["total_ios"]
    assert record.summary["read"]["lat_mean_ns"] == fio_read["clat_ns"]["mean"]
    assert record.summary["read"]["lat_p99_ns"] == fio_read["clat_ns"]["percentile"]["99.000000"]
    assert record.summary["read"]["lat_p99_9_ns"] == fio_read["clat_ns"]["percentile"]["99.900000"]
    assert record.options["rate_iops"] == "200"
    assert record.host["cpu_count"] >= 1 and record.target["filesystem"]
    assert "cpu" in record.summary and "pressure" in record.summary
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".iotui-")] == []
    assert "read" in result.stderr and "IOPS" in result.stderr  # live lines went to stderr with --json


def test_ctrl_c_keeps_a_partial_record_and_exits_130(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "run", "quick", "--runtime", "30", "--size", "8M", "--set", "rate_iops=500",
         "--runs-dir", str(runs), "--baseline", "0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    # Two interval lines printed (after the header): fio runs and the record has samples to keep.
    intervals = 0
    for line in process.stdout:
        if re.match(r"^\s*\d+\.\ds ", line):
            intervals += 1
            if intervals == 2:
                break
    assert intervals == 2, "fio never reported two intervals"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    records = list(runs.glob("*.toml"))
    assert len(records) == 1
    record = load_record(records[0])
    assert record.status == "stopped"
    assert record.samples and record.summary["read"]["total_ios"] > 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".iotui-")] == []
    assert subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True).stdout == b""


def test_job_file_runs_through_the_same_model(tmp_path: Path) -> None:
    job = tmp_path / "mine.fio"
    job.write_text("[global]\nsize=4M\nruntime=1\ntime_based\nbs=4k\n\n[reader]\nrw=randread\n")
    result = iotui("run", "--job-file", str(job), "--runs-dir", str(tmp_path / "runs"), "--baseline", "0", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    record = load_record(next((tmp_path / "runs").glob("*.toml")))
    assert record.preset == "job-file:mine"
    assert record.summary["read"]["total_ios"] > 0


def test_smuggling_job_file_is_refused_before_fio_starts(tmp_path: Path) -> None:
    job = tmp_path / "evil.fio"
    job.write_text("[x]\nrw=read\nexec_prerun=touch pwned\n")
    result = iotui("run", "--job-file", str(job), "--runs-dir", str(tmp_path / "runs"), cwd=tmp_path)
    assert result.returncode == 1
    assert "exec_prerun" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "pwned").exists()


def test_missing_fio_is_a_sentence(tmp_path: Path) -> None:
    result = iotui("run", "quick", "--fio", "/nonexistent/fio", cwd=tmp_path)
    assert result.returncode == 1
    assert "apt-get install fio" in result.stderr and "Traceback" not in result.stderr
    # Said of the path given, without asking for the option that gave it.
    assert "The fio given, /nonexistent/fio, does not exist" in result.stderr and "--fio" not in result.stderr


def test_unknown_preset_lists_the_presets(tmp_path: Path) -> None:
    result = iotui("run", "no-such-preset", cwd=tmp_path)
    assert result.returncode == 1 and "quick" in result.stderr


def test_show_prints_the_summary(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    iotui("run", "quick", "--runtime", "1", "--size", "4M", "--runs-dir", str(runs), "--baseline", "0", cwd=tmp_path)
    record_path = next(runs.glob("*.toml"))
    result = iotui("show", str(record_path), cwd=tmp_path)
    assert result.returncode == 0 and "IOPS" in result.stdout and "quick" in result.stdout
    broken = tmp_path / "broken.toml"
    broken.write_text("schema = 1\n")
    result = iotui("show", str(broken), cwd=tmp_path)
    assert result.returncode == 1 and "broken.toml" in result.stderr and "Traceback" not in result.stderr


def _fio_processes_in(directory: Path) -> list[int]:
    found = subprocess.run(["pgrep", "-f", "--", f"--filename={directory.resolve()}"], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def _start_and_wait_for_fio(tmp_path: Path) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "run", "quick", "--runtime", "30", "--size", "8M", "--set", "rate_iops=200",
         "--no-save", "--baseline", "0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if "IOPS" in line:
            break
    assert _fio_processes_in(tmp_path), "fio should be running"
    return process


def _wait_until_gone(tmp_path: Path) -> None:
    wait_until(lambda: not _fio_processes_in(tmp_path), what="every fio process to end", interval_s=0.1)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_no_fio_outlives_iotui_on_terminate_or_hangup(tmp_path: Path, signum: int) -> None:
    process = _start_and_wait_for_fio(tmp_path)
    process.send_signal(signum)
    process.communicate(timeout=30)
    assert process.returncode == 130
    _wait_until_gone(tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".iotui-")] == []


def test_no_fio_outlives_iotui_killed_outright(tmp_path: Path) -> None:
    process = _start_and_wait_for_fio(tmp_path)
    process.kill()
    process.wait(timeout=10)
    # The kernel ends fio (parent-death signal) and the guard removes the private test directory.
    _wait_until_gone(tmp_path)
    wait_until(lambda: not list(tmp_path.glob(".iotui-*")), what="the guard to remove the private test directory",
               interval_s=0.1)


def test_set_name_renames_the_job_fio_runs_and_the_record_shows_fios_name(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    result = iotui(
        "run", "quick", "--runtime", "1", "--size", "8M", "--set", "name=nightly-4k", "--runs-dir", str(runs),
        "--baseline", "0", "--json", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    record = load_record(Path(json.loads(result.stdout)["path"]))
    report = json.loads((runs / record.run["report"]).read_text())
    assert [job["jobname"] for job in report["jobs"]] == ["nightly-4k"]
    assert [section["name"] for section in record.sections] == ["nightly-4k"]
    assert "--name=nightly-4k" in record.run["argv"]
    assert record.options.get("name", "nightly-4k") == "nightly-4k"  # never a name fio did not use
