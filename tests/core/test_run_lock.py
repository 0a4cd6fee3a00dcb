"""The machine's run lock: a holder in another process refuses, a dead one is taken over, force overlaps."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from iotui.core.runs.lock import RunLock, RunLockError, RunLockHeld, acquire_run_lock, current_holder, lock_path, runtime_dir

HOLDER = textwrap.dedent(
    """
    import sys
    from iotui.core.runs.lock import acquire_run_lock
    lock = acquire_run_lock(preset="quick", target="/mnt/data", by="iotui run", force="--force" in sys.argv)
    print("held", flush=True)
    sys.stdin.readline()
    print("overlapped" if lock.overlapped() else "alone", flush=True)
    lock.release()
    """
)


@pytest.fixture(autouse=True)
def no_lock_left_in_this_process():
    yield
    assert RunLock._current is None, "a test left the run lock held"


def start_holder(*flags: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def finish(process: subprocess.Popen) -> str:
    out, _ = process.communicate("\n", timeout=30)
    return out.strip()


def test_lock_lives_in_the_runtime_directory(private_runtime_dir: Path) -> None:
    assert runtime_dir() == private_runtime_dir / "iotui"
    with acquire_run_lock(preset="quick", target="/data", by="iotui run"):
        holder = json.loads(lock_path().read_text())["holder"]
        assert holder["preset"] == "quick" and holder["target"] == "/data"
        assert holder["pid"] > 0 and holder["by"] == "iotui run"
    assert current_holder() is None


def test_runtime_directory_falls_back_when_xdg_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert runtime_dir().name.startswith("iotui-")


def test_a_live_holder_in_another_process_refuses_and_is_named() -> None:
    holder = start_holder()
    try:
        with pytest.raises(RunLockHeld) as caught:
            acquire_run_lock(preset="seq", target="/tmp", by="iotui run")
        assert caught.value.holder.pid == holder.pid
        assert f"pid {holder.pid}" in caught.value.holder.describe()
        assert "quick" in caught.value.holder.describe() and "/mnt/data" in caught.value.holder.describe()
    finally:
        assert finish(holder) == "alone"
    with acquire_run_lock(preset="seq", target="/tmp", by="iotui run") as lock:  # free once it ended
        assert not lock.overlapped()


def test_a_dead_holder_is_taken_over() -> None:
    holder = start_holder()
    dead_pid = holder.pid
    holder.kill()  # dies holding it: the lock file still names it
    holder.wait(timeout=10)
    assert json.loads(lock_path().read_text())["holder"]["pid"] == dead_pid
    with acquire_run_lock(preset="seq", target="/tmp", by="iotui run") as lock:
        assert lock.me.pid != dead_pid and not lock.forced


def test_a_reused_pid_is_not_mistaken_for_the_holder() -> None:
    lock_path().parent.mkdir(parents=True, exist_ok=True)
    # pid 1 is alive, but it did not start at the epoch: this holder is long gone.
    stale = {"pid": 1, "started_at": 1.0, "preset": "quick", "target": "/", "by": "iotui run", "since": "?"}
    lock_path().write_text(json.dumps({"holder": stale, "forced": []}))
    with acquire_run_lock(preset="seq", target="/tmp", by="iotui run") as lock:
        assert not lock.forced


def test_garbage_in_the_lock_file_is_taken_over() -> None:
    lock_path().parent.mkdir(parents=True, exist_ok=True)
    lock_path().write_bytes(b"\x00not json")
    with acquire_run_lock(preset="seq", target="/tmp", by="iotui run") as lock:
        assert lock.me.preset == "seq"


def test_force_runs_past_the_holder_and_both_know() -> None:
    holder = start_holder()
    try:
        with acquire_run_lock(preset="seq", target="/tmp", by="iotui run", force=True) as lock:
            assert lock.forced and lock.forced_past is not None and lock.forced_past.pid == holder.pid
            assert lock.overlapped()
    finally:
        assert finish(holder) == "overlapped"


def test_a_forced_run_becomes_the_holder_when_the_first_ends() -> None:
    holder = start_holder()
    lock = acquire_run_lock(preset="seq", target="/tmp", by="iotui run", force=True)
    try:
        assert finish(holder) == "overlapped"
        assert current_holder() is not None and current_holder().pid == lock.me.pid
        third = subprocess.run(
            [sys.executable, "-c", "from iotui.core.runs.lock import *\n"
             "try:\n acquire_run_lock(preset='x', target='/', by='t')\nexcept RunLockHeld as e:\n print(e.holder.pid)"],
            capture_output=True, text=True, timeout=30,
        )
        assert third.stdout.strip() == str(lock.me.pid)
    finally:
        lock.release()
    assert current_holder() is None


def test_the_lock_is_reentrant_within_one_process() -> None:
    with acquire_run_lock(preset="sweep", target="/tmp", by="iotui sweep") as outer:
        with acquire_run_lock(preset="point", target="/tmp", by="iotui run") as inner:
            assert inner is outer
        assert current_holder() is not None  # the point ended, the sweep still holds it
    assert current_holder() is None


async def test_a_sweep_holds_the_lock_from_first_point_to_last(tmp_path: Path) -> None:
    from tests.core.test_sweep import FakeSession, new_sweep
    from iotui.core.sweep.runner import SweepRunner

    seen_holders = []

    async def start_point(point, emit):
        seen_holders.append(current_holder())
        return FakeSession(point.params, tmp_path)

    await SweepRunner(new_sweep(), start_point=start_point, runs_dir=tmp_path, lock_by="iotui sweep").run()
    assert len(seen_holders) == 3 and all(h is not None and h.by == "iotui sweep" for h in seen_holders)
    assert current_holder() is None

    holder = start_holder()
    try:
        with pytest.raises(RunLockHeld):
            await SweepRunner(new_sweep(), start_point=start_point, runs_dir=tmp_path).run()
    finally:
        finish(holder)
    assert len(seen_holders) == 3  # the refused sweep started no point


async def test_a_sweep_whose_points_all_run_on_hosts_takes_no_lock_and_runs_past_a_holder(tmp_path: Path) -> None:
    # As one multi-host run: the lock guards this machine's disks, and fio runs on the hosts.
    from tests.core.test_sweep import FakeSession, new_sweep
    from iotui.core.sweep.runner import SweepRunner

    seen_holders = []

    async def start_point(point, emit):
        seen_holders.append(current_holder())
        return FakeSession(point.params, tmp_path)

    holder = start_holder()
    try:
        done = await SweepRunner(new_sweep(), start_point=start_point, runs_dir=tmp_path, on_hosts=True).run()
        assert done.status == "completed" and len(seen_holders) == 3
        assert all(h is not None and h.by == "iotui run" for h in seen_holders)  # the other run's, untouched
    finally:
        assert finish(holder) == "alone"  # nothing was forced past it


@pytest.mark.parametrize("hosts, on_hosts", [(None, False), ("127.0.0.1,127.0.0.2", True)])
async def test_iotui_sweep_takes_the_lock_for_local_points_only(tmp_path: Path, monkeypatch, hosts, on_hosts) -> None:
    import argparse

    from iotui.cli_common import CommandError
    from iotui.commands import sweep as sweep_command

    captured = []

    class CapturingRunner:
        def __init__(self, sweep, **kwargs) -> None:
            captured.append(kwargs["on_hosts"])

        async def run(self):
            raise CommandError("captured")

    monkeypatch.setattr(sweep_command, "SweepRunner", CapturingRunner)
    monkeypatch.setattr(sweep_command, "find_sysbench", lambda: None)
    args = argparse.Namespace(
        preset="quick", target=str(tmp_path), runtime="2", size="1M", vary=["bs=4k,8k"], yes=True,
        baseline=0.0, runs_dir=str(tmp_path / "runs"), hosts=hosts,
    )
    with pytest.raises(CommandError, match="captured"):
        await sweep_command._run(sweep_command.SweepOptions.from_namespace(args))
    assert captured == [on_hosts]


def test_a_link_planted_at_the_lock_is_never_followed(private_runtime_dir: Path, tmp_path: Path) -> None:
    """In a shared temporary directory another user may plant a link at the lock's name: root would
    have truncated and written the file it names."""
    canary = tmp_path / "canary"
    canary.write_text("keep me")
    folder = private_runtime_dir / "iotui"
    folder.mkdir(mode=0o700)
    lock_path().symlink_to(canary)
    with pytest.raises(RunLockError, match="cannot open the run lock"):
        acquire_run_lock(preset="quick", target="/data", by="iotui run")
    assert canary.read_text() == "keep me"


@pytest.mark.parametrize("planted", ["link", "shared"])
def test_a_lock_folder_that_is_not_this_users_own_is_refused(private_runtime_dir: Path, tmp_path: Path, planted: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    folder = private_runtime_dir / "iotui"
    if planted == "link":
        folder.symlink_to(elsewhere)
    else:
        folder.mkdir()
        folder.chmod(0o777)
    with pytest.raises(RunLockError, match="not a folder|others can write it"):
        acquire_run_lock(preset="quick", target="/data", by="iotui run")
    assert list(elsewhere.iterdir()) == []
