"""The app during a run on two hosts (a private sshd on loopback, real fio), ended from outside:
SIGHUP (the SSH session to the app dropped) and SIGTERM stop fio on every host and keep the
record as stopped; SIGKILL leaves no ssh client and no remote fio behind either."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.e2e.private_sshd import HOSTS, missing_reason, start_private_sshd
from tests.e2e.test_multihost import _fio_under
from tests.pty_terminal import Terminal, screen_text, terminal_env

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


@pytest.fixture(scope="module")
def sshd():
    server = start_private_sshd()
    yield server
    server.stop()


def _ssh_clients(port: int) -> list[int]:
    """ssh clients to the private sshd (its port on their command line)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and Path(argv[0].decode(errors="replace")).name == "ssh" and str(port).encode() in argv:
            pids.append(int(entry.name))
    return pids


def _shows(words: str):
    """The screen's text holds ``words`` (blanks collapsed: escape sequences leave gaps)."""
    return lambda text: words in " ".join(text.split())


def _wait_until(condition, within_s: float, what: str) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {within_s} s"
        time.sleep(0.05)


def _app_on_two_hosts(sshd, tmp_path: Path) -> tuple[Terminal, Path, Path]:
    target = tmp_path / "target"
    target.mkdir()
    runs_dir = tmp_path / "runs"
    presets = tmp_path / "config" / "iotui" / "presets"
    presets.mkdir(parents=True)
    (presets / "held.toml").write_text(HELD_PRESET)
    env = terminal_env(XDG_CONFIG_HOME=str(tmp_path / "config"), IOTUI_SSH=sshd.ssh_command)
    terminal = Terminal([sys.executable, "-m", "iotui", "--runs-dir", str(runs_dir), "--target", str(target),
                         "--preset", "held"], env, REPO, columns=100, rows=40)
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
            terminal.press(b"p")  # hosts are not paused (one paused host would skew the aggregate)
            terminal.wait_for(_shows("could not be paused"), 10, "the screen saying so", since=mark)
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
