"""Every scheduler change undone: after the point, on SIGINT/SIGTERM/SIGHUP, and after SIGKILL at
the next iotui command. On a real loop device (root only), its scheduler really changed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.remedy.schedulers import SchedulerChanges, device_of, state_path
from tests.e2e.loop_device import loop_filesystem

REPO = Path(__file__).resolve().parent.parent.parent

# A process that changes the loop device's scheduler inside UndoOnSignals, says so, then waits.
CHANGER = r"""
import sys
from pathlib import Path
from iotui.core.remedy.schedulers import SchedulerChanges, UndoOnSignals, device_of
device = device_of(Path(sys.argv[1]))
with UndoOnSignals(SchedulerChanges()) as changes:
    changes.change(device, sys.argv[2])
    print("changed", flush=True)
    sys.stdin.read()
"""


def _other_scheduler(loop) -> str:
    offered = [word.strip("[]") for word in loop.scheduler_file.read_text().split()]
    return next(name for name in ("bfq", "kyber", "mq-deadline", "none") if name in offered and name != loop.original)


def _start_changer(loop, scheduler: str) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", CHANGER, str(loop.mount_point), scheduler], cwd=REPO,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "changed"
    return process


def test_the_original_is_in_the_state_file_before_the_change_and_restored_after(tmp_path: Path) -> None:
    with loop_filesystem(tmp_path) as loop:
        device = device_of(loop.mount_point)
        assert device is not None and device.name == loop.device
        wanted = _other_scheduler(loop)
        changes = SchedulerChanges()
        changes.change(device, wanted)
        assert loop.scheduler() == wanted
        saved = json.loads(state_path().read_text())
        assert saved["originals"] == {str(loop.scheduler_file): loop.original} and saved["pid"] == os.getpid()
        assert changes.restore() == []
        assert loop.scheduler() == loop.original
        assert not state_path().exists()


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_in_the_middle_restores_the_scheduler(tmp_path: Path, signal_name: str) -> None:
    with loop_filesystem(tmp_path) as loop:
        process = _start_changer(loop, _other_scheduler(loop))
        try:
            assert loop.scheduler() != loop.original and state_path().exists()
            process.send_signal(getattr(signal, signal_name))
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        assert loop.scheduler() == loop.original
        assert not state_path().exists()


def test_after_sigkill_the_next_iotui_command_restores_and_says_so(tmp_path: Path) -> None:
    with loop_filesystem(tmp_path) as loop:
        wanted = _other_scheduler(loop)
        process = _start_changer(loop, wanted)
        process.kill()  # SIGKILL: nothing of the process runs, the change stays
        process.wait()
        assert loop.scheduler() == wanted and state_path().exists()
        result = subprocess.run([sys.executable, "-m", "iotui", "presets"], cwd=REPO, capture_output=True,
                                text=True, timeout=60, env=dict(os.environ))
        assert result.returncode == 0, result.stderr
        assert loop.scheduler() == loop.original
        assert f"{loop.device}'s I/O scheduler is {loop.original} again" in result.stderr
        assert not state_path().exists()
        # Said once: the next command finds nothing left to restore.
        again = subprocess.run([sys.executable, "-m", "iotui", "presets"], cwd=REPO, capture_output=True,
                               text=True, timeout=60, env=dict(os.environ))
        assert "I/O scheduler" not in again.stderr
