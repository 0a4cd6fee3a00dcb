"""The app during a run on two hosts (a private sshd on loopback, real fio): p pauses and resumes
fio on every host (stopped there, the pause in each host's record and the run's); ended from
outside, SIGHUP (the SSH session to the app dropped, here while paused) and SIGTERM stop fio on
every host and keep the record as stopped; SIGKILL leaves no ssh client and no remote fio behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.e2e.private_sshd import HOSTS, missing_reason
from tests.e2e.test_multihost import _fio_under
from tests.pty_terminal import Terminal, screen_text, terminal_env
from tests.processes import command_lines

pytestmark = [
    pytest.mark.slow, pytest.mark.fio, pytest.mark.sshd,
    pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or ""),
]

REPO = Path(__file__).resolve().parents[2]
GONE_WITHIN_S = 5.0
# Held at 200 IOPS for a minute: only the signal ends it.
HELD_PRESET = """name = "held"
title = "Held at 200 IOPS"
description = "4 KiB random writes held at 200 IOPS"

[options]
ioengine = "psync"
rw = "randwrite"
bs = "4k"
rate_iops = 200
size = "4M"
runtime = 60
time_based = ""
"""
# 4 s of work at 200 IOPS, one section: a pause of about 3 s in the middle of it.
SHORT_PRESET = HELD_PRESET.replace('name = "held"', 'name = "short"').replace("runtime = 60", "runtime = 4")
PAUSE_S = 3.0


def _ssh_clients(port: int) -> list[int]:
    """ssh clients to the private sshd (its port on their command line)."""
    return [
        pid for pid, argv in command_lines()
        if argv and Path(argv[0].decode(errors="replace")).name == "ssh" and str(port).encode() in argv
    ]


def _shows(words: str):
    """The screen's text holds ``words`` (blanks collapsed: escape sequences leave gaps)."""
    return lambda text: words in " ".join(text.split())


def _wait_until(condition, within_s: float, what: str) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {within_s} s"
        time.sleep(0.05)


def _state(pid: int) -> str:
    """The process's state letter in /proc/PID/stat (``T``: stopped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat.rpartition(")")[2].split()[0]


def _app_on_two_hosts(sshd, tmp_path: Path, preset: str = "held") -> tuple[Terminal, Path, Path]:
    target = tmp_path / "target"
    target.mkdir()
    runs_dir = tmp_path / "runs"
    presets = tmp_path / "config" / "iotui" / "presets"
    presets.mkdir(parents=True)
    (presets / "held.toml").write_text(HELD_PRESET)
    (presets / "short.toml").write_text(SHORT_PRESET)
    env = terminal_env(XDG_CONFIG_HOME=str(tmp_path / "config"), IOTUI_SSH=sshd.ssh_command)
    terminal = Terminal([sys.executable, "-m", "iotui", "--runs-dir", str(runs_dir), "--target", str(target),
                         "--preset", preset], env, REPO, columns=100, rows=40)
    terminal.wait_for(_shows("--status-interval"), 60, "Home's fio command")
    terminal.press(b"o")
    terminal.pump(0.3)
    for key in ",".join(HOSTS[:2]):
        terminal.press(key.encode())
    terminal.wait_for(_shows(",".join(HOSTS[:2])), 10, "the hosts typed")
    terminal.press(b"\r")  # on to the presets
    terminal.pump(0.5)
    terminal.press(b"r")
    # Both hosts report (their rows show their own figures).
    terminal.wait_for(lambda text: all(_shows(f"{host} write")(text) for host in HOSTS[:2]), 60,
                      "figures from both hosts")
    assert len(_fio_under(target)) >= 2
    return terminal, target, runs_dir


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_signal_to_the_app_stops_every_host_and_keeps_the_record(sshd, tmp_path: Path, signum: int) -> None:
    terminal, target, runs_dir = _app_on_two_hosts(sshd, tmp_path)
    try:
        if signum == signal.SIGHUP:
            mark = len(terminal.received)
            terminal.press(b"p")  # every host paused: the stop below must still end its fio
            terminal.wait_for(_shows("PAUSED (p resumes)"), 10, "the run shown paused", since=mark)
            _wait_until(lambda: {_state(pid) for pid in _fio_under(target)} == {"T"}, 5.0, "fio stopped on each host")
        terminal.process.send_signal(signum)
        try:
            terminal.process.wait(GONE_WITHIN_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the app was still there {GONE_WITHIN_S} s after {signum.name}")
        _wait_until(lambda: not _fio_under(target), 2.0, "fio still running on a host")
        _wait_until(lambda: not _ssh_clients(sshd.port), 2.0, "an ssh client still running")
        shown = screen_text(bytes(terminal.received))
    finally:
        terminal.close()
    assert "Traceback" not in shown
    records = [load_record(path) for path in runs_dir.glob("*.toml")]
    assert len(records) == 1
    assert records[0].status == "stopped"
    assert records[0].run["ended_by"] == f"signal:{signum.name}"


def test_sigkill_of_the_app_leaves_no_ssh_client_and_no_remote_fio(sshd, tmp_path: Path) -> None:
    terminal, target, _runs_dir = _app_on_two_hosts(sshd, tmp_path)
    try:
        assert _ssh_clients(sshd.port)
        terminal.process.send_signal(signal.SIGKILL)
        terminal.process.wait(10)
        _wait_until(lambda: not _fio_under(target), 5.0, "fio still running on a host")
        _wait_until(lambda: not _ssh_clients(sshd.port), 5.0, "an ssh client still running")
    finally:
        terminal.close()


def test_p_pauses_and_resumes_every_host_and_the_record_counts_the_pause(sshd, tmp_path: Path) -> None:
    terminal, target, runs_dir = _app_on_two_hosts(sshd, tmp_path, preset="short")
    try:
        fio = _fio_under(target)
        assert len(fio) == 2 and {_state(pid) for pid in fio} != {"T"}
        mark = len(terminal.received)
        terminal.press(b"p")
        terminal.wait_for(_shows("PAUSED (p resumes)"), 10, "the run shown paused", since=mark)
        _wait_until(lambda: {_state(pid) for pid in fio} == {"T"}, 5.0, "fio stopped (T) on both hosts")
        paused_at = time.monotonic()
        terminal.pump(PAUSE_S - (time.monotonic() - paused_at))
        assert {_state(pid) for pid in fio} == {"T"}  # still stopped: nothing resumed it, no host failed
        terminal.press(b"p")
        _wait_until(lambda: "T" not in {_state(pid) for pid in fio}, 5.0, "fio running again on both hosts")
        resumed_at = time.monotonic()
        _wait_until(lambda: list(runs_dir.glob("*.toml")) != [], 60, "the record saved")
        shown = screen_text(bytes(terminal.received))
        _wait_until(lambda: not _fio_under(target), 5.0, "fio still running on a host")
    finally:
        terminal.close()
    assert "Traceback" not in shown and "no report from" not in shown
    record = load_record(next(runs_dir.glob("*.toml")))
    assert record.status == "completed"
    paused_s = resumed_at - paused_at
    # The key presses took their effect within the waits above: the pause lasted about as long.
    assert record.paused_s == pytest.approx(paused_s, abs=0.6)
    assert len(record.pauses) == 1
    assert [host["name"] for host in record.hosts] == list(HOSTS[:2])
    for host in record.hosts:
        assert "failed_at_s" not in host
        assert host["paused_s"] == pytest.approx(record.paused_s, abs=0.2)
        assert host["sections"][0]["paused_s"] == pytest.approx(host["paused_s"], abs=0.01)
        assert any(sample.get("paused") for sample in host["samples"])
        section = host["sections"][0]
        write = section["write"]
        # IOPS over the unpaused time, fio's own over the whole. Not the rate limit: fio's rate
        # clock counts the pause, so a rate-limited job that was stopped after its clock started
        # catches up after the resume (fio's behaviour under SIGSTOP, with or without iotui).
        unpaused_s = section["duration_s"] - paused_s
        assert write["iops"] == pytest.approx(write["total_ios"] / unpaused_s, rel=0.2), (write, section)
        assert write["fio"]["iops"] == pytest.approx(write["total_ios"] / section["duration_s"], rel=0.05)
        assert write["fio"]["iops"] < write["iops"]
    aggregate = record.sections[0]["write"]
    assert record.sections[0]["paused_s"] == pytest.approx(record.paused_s, abs=0.2)
    assert aggregate["iops"] == pytest.approx(sum(h["sections"][0]["write"]["iops"] for h in record.hosts))
    assert aggregate["lat_source"] == "bins-unpaused"
    assert list(target.iterdir()) == []
