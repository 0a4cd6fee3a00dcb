"""The scheduler state file: written before a change, trusted only when it is iotui's own.

The real devices are in tests/e2e/test_scheduler_restore.py (root, a loop device); here a plain
file stands in for sysfs, which is enough for what is decided before any write.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from iotui.core.remedy.schedulers import Device, SchedulerChanges, SchedulerError, restore_left_behind, state_path


def _fake_device(tmp_path: Path, text: str = "none [mq-deadline] kyber bfq") -> Device:
    scheduler_file = tmp_path / "scheduler"
    scheduler_file.write_text(text + "\n")
    return Device("fake0", scheduler_file)


def test_the_original_is_saved_before_the_write_and_written_back(tmp_path: Path) -> None:
    device = _fake_device(tmp_path)
    changes = SchedulerChanges()
    changes.change(device, "bfq")
    assert device.scheduler_file.read_text() == "bfq"
    assert json.loads(state_path().read_text())["originals"] == {str(device.scheduler_file): "mq-deadline"}
    assert (state_path().stat().st_mode & 0o077) == 0
    device.scheduler_file.write_text("none mq-deadline kyber [bfq]\n")  # as sysfs shows it now
    changes.change(device, "kyber")  # the original stays the first one
    assert json.loads(state_path().read_text())["originals"] == {str(device.scheduler_file): "mq-deadline"}
    assert changes.restore() == []
    assert device.scheduler_file.read_text() == "mq-deadline" and not state_path().exists()


def test_a_scheduler_the_device_does_not_offer_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    device = _fake_device(tmp_path, "[none] mq-deadline")
    with pytest.raises(SchedulerError) as caught:
        SchedulerChanges().change(device, "bfq")
    assert caught.value.code == "not-offered"
    assert not state_path().exists() and device.scheduler_file.read_text() == "[none] mq-deadline\n"


def _write_state(originals: dict, pid: int = 999_999_999, mode: int = 0o600) -> Path:
    path = state_path()
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.write_text(json.dumps({"pid": pid, "started_at": 1.0, "originals": originals}))
    path.chmod(mode)
    return path


def test_a_state_file_naming_anything_but_a_scheduler_file_writes_nothing(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    path = _write_state({str(victim): "none", "/sys/block/vda/queue/scheduler": "$(reboot)"})
    restored = restore_left_behind()
    assert restored is not None and restored.devices == {} and restored.refused is None
    assert victim.read_text() == "precious\n"
    assert not path.exists()


def test_a_state_file_others_can_write_is_left_alone(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    path = _write_state({str(victim): "none"}, mode=0o666)
    restored = restore_left_behind()
    assert restored is not None and restored.refused is not None and "not this user's own" in restored.refused
    assert path.exists() and victim.read_text() == "precious\n"


def test_a_live_writers_changes_are_its_own_to_undo() -> None:
    import psutil

    path = state_path()
    path.parent.mkdir(mode=0o700, exist_ok=True)
    started_at = psutil.Process(os.getpid()).create_time()
    path.write_text(json.dumps({"pid": os.getpid(), "started_at": started_at, "originals": {}}))
    path.chmod(0o600)
    assert restore_left_behind() is None and path.exists()
