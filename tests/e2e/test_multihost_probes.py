"""Each host's responsiveness, for real: the probes over ssh to a private sshd on 127.0.0.1-3.

The third host is reached through an ssh wrapper that gives its remote command a
PATH without python3, as on a host that has none: its responsiveness is not
measured, and one line says so.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.private_sshd import HOSTS, missing_reason

pytestmark = [
    pytest.mark.fio, pytest.mark.sshd, pytest.mark.slow,
    pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or ""),
]

NO_PYTHON_HOST = HOSTS[2]
PROBE_DIR_PREFIX = ".iotui-probe-"  # the I/O probe's private directory, as docs/multi-host.md names it


def _path_without_python(directory: Path) -> Path:
    """A directory of links to every command on the usual PATH except python3."""
    directory.mkdir()
    for bin_dir in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        if not os.path.isdir(bin_dir):
            continue
        for name in os.listdir(bin_dir):
            if name.startswith("python") or (directory / name).exists():
                continue
            (directory / name).symlink_to(os.path.join(bin_dir, name))
    return directory


def _ssh_wrapper(sshd, tmp_path: Path) -> str:
    """IOTUI_SSH: ssh itself, but NO_PYTHON_HOST's remote commands run with a PATH without python3."""
    no_python = _path_without_python(tmp_path / "nopython")
    wrapper = tmp_path / "bin" / "ssh"  # named ssh, so the connections are still shared
    wrapper.parent.mkdir()
    wrapper.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "args = sys.argv[1:]\n"
        f"if len(args) >= 2 and args[-2] == {NO_PYTHON_HOST!r}:\n"
        f"    args[-1] = 'PATH={no_python}; export PATH; ' + args[-1]\n"
        f"os.execv({shutil.which('ssh')!r}, ['ssh', *args])\n"
    )
    wrapper.chmod(0o755)
    words = shlex.split(sshd.ssh_command)
    return shlex.join([str(wrapper), *words[1:]])


def _command(tmp_path: Path, runtime_s: int, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "iotui", "run", "rnd4k-q1t1",
        "--hosts", ",".join(HOSTS),
        "--target", str(tmp_path / "target"),
        "--runtime", str(runtime_s), "--size", "4M",
        "--set", "rw=randwrite", "--set", "rate_iops=200", "--set", "ioengine=psync",
        "--runs-dir", str(tmp_path / "runs"), "--baseline", "0", *extra,
    ]


def _env(ssh: str) -> dict[str, str]:
    return {**os.environ, "IOTUI_SSH": ssh, "PYTHONUNBUFFERED": "1"}


def _record(tmp_path: Path) -> dict:
    records = sorted((tmp_path / "runs").glob("*.toml"))
    assert len(records) == 1, records
    shown = subprocess.run(
        [sys.executable, "-m", "iotui", "show", "--json", str(records[0])], capture_output=True, text=True, check=True
    )
    return json.loads(shown.stdout)


def _ancestors(pid: int) -> set[int]:
    found = set()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                pid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        found.add(pid)
    return found


def _probes_under(sshd_pid: int) -> list[int]:
    """Probe children (either program) that the private sshd started."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                words = cmdline.read().split(b"\0")
        except OSError:
            continue
        if any(b"exit_on_eof" in word for word in words) and sshd_pid in _ancestors(int(entry)):
            pids.append(int(entry))
    return pids


def _leftovers(target: Path) -> list[str]:
    return [path.name for path in target.iterdir()] if target.exists() else []


def _wait(condition, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_each_host_has_its_level_and_a_host_without_python3_is_named(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    done = subprocess.run(
        _command(tmp_path, 4), env=_env(_ssh_wrapper(sshd, tmp_path)), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    line = f"{NO_PYTHON_HOST}: no python3 there, so its responsiveness is not measured."
    assert done.stderr.count(line) == 1, done.stderr
    record = _record(tmp_path)
    assert [m["text"] for m in record["messages"]].count(line) == 1
    hosts = {host["name"]: host for host in record["hosts"]}
    for name in HOSTS[:2]:
        pressure = hosts[name]["pressure"]
        assert pressure["responsiveness"] in ("ok", "sluggish", "unresponsive")
        # Figures came from the host's own probes: both of them reported.
        assert pressure["probe_p99_ms_max"] >= 0 and pressure["io_probe_write_p99_ms_max"] > 0
        # Each judged against its own figures at rest, which came before the hosts were released.
        assert pressure["probe_baseline_p99_ms"] >= 0, pressure
        assert pressure["io_probe_baseline_p99_ms"] >= 0 and pressure["io_probe_write_baseline_p99_ms"] > 0, pressure
        assert "not_measured" not in pressure
        assert name in done.stdout.split("responsiveness:", 1)[1]
    assert "pressure" not in hosts[NO_PYTHON_HOST]
    assert _leftovers(tmp_path / "target") == []
    assert _probes_under(sshd.process.pid) == []


def test_no_host_probes_leaves_them_off(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    done = subprocess.run(
        _command(tmp_path, 2, "--no-host-probes"), env=_env(_ssh_wrapper(sshd, tmp_path)),
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert "responsiveness is not measured" not in done.stderr
    record = _record(tmp_path)
    assert all("pressure" not in host for host in record["hosts"])
    assert "responsiveness:" not in done.stdout


def test_no_probe_outlives_iotui_killed(sshd, tmp_path):
    (tmp_path / "target").mkdir()
    process = subprocess.Popen(
        _command(tmp_path, 60), env=_env(sshd.ssh_command), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 90
        while "3/3 hosts" not in process.stdout.readline():
            assert time.monotonic() < deadline and process.poll() is None
        # Two probes a host, each in its own ssh session; the I/O probe's directory is in the target.
        assert _wait(lambda: len(_probes_under(sshd.process.pid)) == 2 * len(HOSTS), 10), _probes_under(sshd.process.pid)
        assert sum(name.startswith(PROBE_DIR_PREFIX) for name in _leftovers(tmp_path / "target")) == len(HOSTS)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    assert _wait(lambda: _probes_under(sshd.process.pid) == [], 3), _probes_under(sshd.process.pid)
    assert _wait(lambda: _leftovers(tmp_path / "target") == [], 5), _leftovers(tmp_path / "target")


async def _run_from_the_app(sshd, tmp_path: Path, monkeypatch, *, probes_off: bool) -> tuple[dict, list[str]]:
    """A 3-s run on every host started from Home (the switch turned off where asked); its record and
    the host rows shown once every host had reported."""
    from iotui.ui.app import IotuiApp
    from iotui.ui.messages import HostIntervalArrived, RunEnded
    from iotui.ui.services import Services
    from iotui.ui.widgets.host_rows import HostRows
    from tests.ui.helpers import MessageLog, settle
    from tests.waiting import wait_for

    target = tmp_path / "target"
    target.mkdir()
    monkeypatch.setenv("IOTUI_SSH", _ssh_wrapper(sshd, tmp_path))
    log = MessageLog()
    app = IotuiApp(Services(runs_dir=tmp_path / "runs", baseline_s=0.0), target=str(target), preset="quick")
    rows: list[str] = []
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("e", *"3", "tab", *"4M", "escape")  # 3 s on a 4 MiB file
        await pilot.press("o", *",".join(HOSTS), "tab")
        if probes_off:
            await pilot.press("space")
        await pilot.press("r")
        reported = lambda: {m.host for m in log.of(HostIntervalArrived)} >= set(HOSTS) or log.of(RunEnded)  # noqa: E731
        await wait_for(reported, pilot=pilot, what="a report from every host", timeout_s=90)
        if not log.of(RunEnded):
            rows = app.screen.query_one(HostRows).render_rows().plain.splitlines()
        await wait_for(lambda: log.of(RunEnded), pilot=pilot, what="the run's end", timeout_s=60)
        await settle(pilot)
    ended = log.of(RunEnded)[0]
    assert ended.error is None and ended.saved_path is not None
    return _record(tmp_path), rows


async def test_a_run_from_the_app_with_the_host_probes_off_runs_none(sshd, tmp_path, monkeypatch):
    record, _rows = await _run_from_the_app(sshd, tmp_path, monkeypatch, probes_off=True)
    assert [host["name"] for host in record["hosts"]] == list(HOSTS)
    assert all("pressure" not in host for host in record["hosts"])
    assert not any("responsiveness is not measured" in m["text"] for m in record.get("messages", []))
    assert _leftovers(tmp_path / "target") == []


async def test_a_run_from_the_app_says_which_host_is_not_measured(sshd, tmp_path, monkeypatch):
    record, rows = await _run_from_the_app(sshd, tmp_path, monkeypatch, probes_off=False)
    line = f"{NO_PYTHON_HOST}: no python3 there, so its responsiveness is not measured."
    assert [m["text"] for m in record["messages"]].count(line) == 1
    hosts = {host["name"]: host for host in record["hosts"]}
    for name in HOSTS[:2]:
        assert hosts[name]["pressure"]["io_probe_write_baseline_p99_ms"] > 0
    assert "pressure" not in hosts[NO_PYTHON_HOST]
    # On screen: the host's row says so (the others carry their own level).
    shown = {row.split()[1]: row for row in rows}
    assert shown[NO_PYTHON_HOST].endswith("not measured"), rows
    assert all("not measured" not in shown[name] for name in HOSTS[:2]), rows
