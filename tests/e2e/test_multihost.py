"""Many hosts, for real: iotui over ssh to a private sshd on 127.0.0.1-3, real fio.

Each host runs a rate-limited job (500 IOPS), so the expected figures come
from the job, not from iotui: about 500 IOPS per host, about 1,500 together.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.private_sshd import HOSTS, missing_reason

pytestmark = [pytest.mark.fio, pytest.mark.sshd, pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")]

RATE_IOPS = 500
LINE = re.compile(r"^\s*(?P<t>[\d.]+)s (?P<dir>read|write)\s+(?P<iops>\S+)\s.*\s(?P<live>\d)/(?P<total>\d) hosts$")


def _iops(text: str) -> float:
    scale = {"k": 1e3, "M": 1e6}.get(text[-1], 1.0)
    return float(text.rstrip("kM")) * scale


def _command(tmp_path: Path, runtime_s: int, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "iotui", "run", "rnd4k-q1t1",
        "--hosts", ",".join(HOSTS),
        "--target", str(tmp_path / "target"),
        "--runtime", str(runtime_s), "--size", "4M",
        "--set", "rw=randwrite", "--set", f"rate_iops={RATE_IOPS}", "--set", "ioengine=psync",
        "--runs-dir", str(tmp_path / "runs"), "--baseline", "0", *extra,
    ]


def _env(sshd) -> dict[str, str]:
    return {**os.environ, "IOTUI_SSH": sshd.ssh_command, "PYTHONUNBUFFERED": "1"}


def _fio_under(target: Path) -> list[int]:
    """fio processes (found with pgrep) working in the test's target."""
    found = subprocess.run(["pgrep", "-x", "fio"], capture_output=True, text=True).stdout.split()
    pids = []
    for pid in found:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd.startswith(str(target)):
            pids.append(int(pid))
    return pids


def _wait_no_fio(target: Path, within_s: float) -> float:
    start = time.monotonic()
    while _fio_under(target):
        assert time.monotonic() - start < within_s, f"remote fio still running {within_s} s after iotui ended"
        time.sleep(0.05)
    return time.monotonic() - start


def _start(sshd, tmp_path: Path, runtime_s: int, *extra: str) -> subprocess.Popen:
    (tmp_path / "target").mkdir(exist_ok=True)
    return subprocess.Popen(
        _command(tmp_path, runtime_s, *extra), env=_env(sshd), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )


def _read_until(process: subprocess.Popen, pattern: str, timeout_s: float = 60) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if pattern in line:
            return lines
    raise AssertionError(f"no line with {pattern!r} in {lines}")


def _record(tmp_path: Path) -> dict:
    records = sorted((tmp_path / "runs").glob("*.toml"))
    assert len(records) == 1, records
    shown = subprocess.run(
        [sys.executable, "-m", "iotui", "show", "--json", str(records[0])], capture_output=True, text=True, check=True
    )
    return json.loads(shown.stdout)


def test_three_hosts_at_500_iops_make_1500_live_and_in_the_record(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    done = subprocess.run(_command(tmp_path, 3), env=_env(sshd), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    live = [m for m in (LINE.match(line) for line in done.stdout.splitlines()) if m]
    assert live, done.stdout
    assert all(m["live"] == "3" and m["total"] == "3" for m in live), done.stdout
    # Whole seconds of the run (not the short last interval) sum to the 3 x 500 limit.
    middle = sorted(_iops(m["iops"]) for m in live)[len(live) // 2]
    assert 1350 <= middle <= 1650, done.stdout
    record = _record(tmp_path)
    assert record["run"]["status"] == "completed"
    assert [host["name"] for host in record["hosts"]] == list(HOSTS)
    for host in record["hosts"]:
        assert host["exit_status"] == 0 and host["tool_version"].startswith("fio-")
        assert 450 <= host["sections"][0]["write"]["iops"] <= 550, host["sections"]
        assert host["samples"], host
        assert "clock_offset_ms" in host
    aggregate = record["sections"][0]
    assert 1350 <= aggregate["write"]["iops"] <= 1650
    assert aggregate["write"]["iops"] == pytest.approx(sum(h["sections"][0]["write"]["iops"] for h in record["hosts"]))
    assert aggregate["write"]["total_ios"] == sum(h["sections"][0]["write"]["total_ios"] for h in record["hosts"])
    assert aggregate["write"]["lat_max_ns"] == max(h["sections"][0]["write"]["lat_max_ns"] for h in record["hosts"])
    assert record["run"]["start_spread_ms"] >= 0
    # rnd4k-q1t1 has two sections (a read one, then a write one, both writing here):
    # every sample belongs to one of them, the host's and the aggregate's alike.
    assert len(record["sections"]) == 2
    assert {s.get("section") for s in record["samples"]} == {0, 1}
    assert all("section" in s for host in record["hosts"] for s in host["samples"])
    assert list((tmp_path / "target").iterdir()) == []
    assert _fio_under(tmp_path / "target") == []


def test_a_host_killed_mid_run_is_marked_failed_and_the_others_go_on(sshd, tmp_path):
    process = _start(sshd, tmp_path, 4)
    _read_until(process, "3/3 hosts")
    victims = _fio_under(tmp_path / "target")
    assert len(victims) == 3
    os.kill(victims[0], signal.SIGKILL)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 1, stderr
    after = [m for m in (LINE.match(line) for line in stdout.splitlines()) if m]
    assert after and all(m["live"] == "2" for m in after), stdout
    record = _record(tmp_path)
    failed = [host for host in record["hosts"] if "failed_at_s" in host]
    assert len(failed) == 1 and failed[0]["exit_status"] == 128 + signal.SIGKILL
    assert all(host["exit_status"] == 0 for host in record["hosts"] if host is not failed[0])
    assert record["sections"][0]["hosts"] == 2
    assert any(w["code"] == "host-failed" for w in record["warnings"])
    assert list((tmp_path / "target").iterdir()) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_no_remote_fio_outlives_iotui(sshd, tmp_path, signum):
    process = _start(sshd, tmp_path, 60)
    _read_until(process, "3/3 hosts")
    assert len(_fio_under(tmp_path / "target")) == 3
    process.send_signal(signum)
    if signum == signal.SIGKILL:
        process.wait(timeout=10)
        _wait_no_fio(tmp_path / "target", within_s=2.0)
    else:
        _wait_no_fio(tmp_path / "target", within_s=2.0)
        process.communicate(timeout=30)
        assert process.returncode == 130
        record = _record(tmp_path)
        assert record["run"]["status"] == "stopped"
        assert record["run"]["ended_by"] == f"signal:{signal.Signals(signum).name}"
        assert len(record["hosts"]) == 3 and all(h["sections"] for h in record["hosts"])
    # The lifeline removes the test files and its directory in every ending.
    deadline = time.monotonic() + 5
    while list((tmp_path / "target").iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list((tmp_path / "target").iterdir()) == []


def test_a_host_that_cannot_be_reached_refuses_the_run_naming_it(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    command = _command(tmp_path, 1)
    command[command.index("--hosts") + 1] = "127.0.0.1,127.0.0.4"
    done = subprocess.run(command, env=_env(sshd), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "127.0.0.4" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").glob("*.toml"))
    assert list((tmp_path / "target").iterdir()) == []


def test_min_hosts_starts_without_a_host_that_cannot_be_reached_and_names_it(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    command = _command(tmp_path, 2, "--min-hosts", "2")
    command[command.index("--hosts") + 1] = "127.0.0.1,127.0.0.4,127.0.0.2"
    done = subprocess.run(command, env=_env(sshd), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "left out [127.0.0.4]" in done.stderr and "Traceback" not in done.stderr
    record = _record(tmp_path)
    assert record["run"]["status"] == "completed"
    assert [host["name"] for host in record["hosts"]] == ["127.0.0.1", "127.0.0.2"]
    left_out = [w["message"] for w in record["warnings"] if w["code"] == "host-left-out"]
    assert len(left_out) == 1 and "127.0.0.4" in left_out[0]
    assert record["sections"][0]["hosts"] == 2


def test_min_hosts_above_what_passes_refuses_naming_every_failed_host(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    command = _command(tmp_path, 1, "--min-hosts", "2")
    command[command.index("--hosts") + 1] = "127.0.0.1,127.0.0.4,127.0.0.5"
    done = subprocess.run(command, env=_env(sshd), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "127.0.0.4" in done.stderr and "127.0.0.5" in done.stderr and "Traceback" not in done.stderr
    assert "1 passed and 2 are needed" in done.stderr
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").glob("*.toml"))


@pytest.mark.slow
def test_a_host_whose_fio_stops_answering_is_failed_after_10_s_and_the_run_completes(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    command = _command(tmp_path, 16)
    command[command.index("rnd4k-q1t1")] = "quick"  # one section, so the run is 16 s
    process = subprocess.Popen(command, env=_env(sshd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _read_until(process, "3/3 hosts")
    victims = _fio_under(tmp_path / "target")
    assert len(victims) == 3
    stopped_at = time.monotonic()
    os.kill(victims[0], signal.SIGSTOP)  # alive, holding its files, saying nothing
    try:
        stdout, stderr = process.communicate(timeout=120)
    finally:
        try:
            os.kill(victims[0], signal.SIGCONT)
        except ProcessLookupError:
            pass
    assert time.monotonic() - stopped_at >= 10
    assert process.returncode == 0, stderr
    assert "no report from" in stderr and "the other hosts go on" in stderr
    live = [m for m in (LINE.match(line) for line in stdout.splitlines()) if m]
    assert live[-1]["live"] == "2", stdout
    record = _record(tmp_path)
    assert record["run"]["status"] == "completed"
    failed = [host for host in record["hosts"] if "failed_at_s" in host]
    assert len(failed) == 1 and 10 <= failed[0]["failed_at_s"] <= 14, failed
    warnings = [w["message"] for w in record["warnings"] if w["code"] == "host-failed"]
    assert len(warnings) == 1 and failed[0]["name"] in warnings[0] and "sent nothing for 10 s" in warnings[0]
    assert record["sections"][0]["hosts"] == 2
    _wait_no_fio(tmp_path / "target", within_s=5.0)
    assert list((tmp_path / "target").iterdir()) == []


def _fio_ios(report: dict) -> dict[tuple[int, str], int]:
    """fio's own I/Os per (groupid, direction) in one host's final report."""
    ios: dict[tuple[int, str], int] = {}
    for job in report["jobs"]:
        for direction in ("read", "write", "trim"):
            count = (job.get(direction) or {}).get("total_ios", 0)
            if count:
                ios[(job["groupid"], direction)] = ios.get((job["groupid"], direction), 0) + count
    return ios


def _rows_ios(rows: list[dict], sections: list[dict]) -> dict[tuple[int, str], float]:
    """I/Os per (groupid, direction) the rows add up to; a row has I/O only where its section did."""
    added: dict[tuple[int, str], float] = {}
    for row in rows:
        groupid = sections[row["section"]]["groupid"]
        for direction in ("read", "write", "trim"):
            iops = row.get(f"{direction}_iops")
            if iops is not None:
                assert direction in sections[row["section"]], (row, sections[row["section"]]["name"])
                added[(groupid, direction)] = added.get((groupid, direction), 0.0) + iops * row["dt_s"]
    return added


def test_no_row_mixes_two_sections_per_host_or_in_the_aggregate(sshd, tmp_path):
    # rnd4k-q1t1 with a read section and then a write one (stonewall): the second that spans
    # them is two rows on each host and in the aggregate, each with its own section's I/O only.
    (tmp_path / "target").mkdir()
    command = _command(tmp_path, 2)
    at = command.index("rw=randwrite")
    del command[at - 1 : at + 1]  # the preset's own read and write sections
    done = subprocess.run(command, env=_env(sshd), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    record = _record(tmp_path)
    assert record["run"]["status"] == "completed"
    runs = tmp_path / "runs"
    reports = json.loads(next(runs.glob("*.fio.json")).read_text())["hosts"]
    totals: dict[tuple[int, str], int] = {}
    for host in record["hosts"]:
        fio_ios = _fio_ios(reports[host["name"]])
        assert {direction for _groupid, direction in fio_ios} == {"read", "write"}, fio_ios
        # Each section's rows add up to fio's own I/Os for that group on that host.
        added = _rows_ios(host["samples"], host["sections"])
        assert {key: round(value) for key, value in added.items()} == fio_ios, host["name"]
        for key, count in fio_ios.items():
            totals[key] = totals.get(key, 0) + count
    # The aggregate's rows: each in one section, and they add up to the hosts' I/Os for that
    # group (within what a row's dt_s rounded to 1 ms can move: under 1 I/O a row at 1,500 IOPS).
    added = _rows_ios(record["samples"], record["sections"])
    assert set(added) == set(totals)
    rows = len(record["samples"])
    for key, count in totals.items():
        assert added[key] == pytest.approx(count, abs=rows), (key, added, totals)
