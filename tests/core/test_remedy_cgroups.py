"""The cgroup remedy's pure parts: which hierarchy offers a weight, the plan's skip sentence, the
verdict's lasting command, and what a left-behind state file may touch."""

from __future__ import annotations

import json
import os
from pathlib import Path

from iotui.core.remedy.cgroups import Hierarchy, find_hierarchy, remove_left_behind
from iotui.core.remedy.plan import IDLE_CLASS, plan_remedies
from iotui.core.remedy.table import RemedyRow, lasting_command, verdict
from iotui.core.remedy.words import verdict_sentence


def _mount(tmp_path: Path, name: str, files: list[str]) -> Path:
    point = tmp_path / name
    point.mkdir()
    for file in files:
        (point / file).write_text("")
    return point


def test_v2_with_the_io_controller_is_preferred_to_v1(tmp_path: Path) -> None:
    v2 = _mount(tmp_path, "unified", [])
    (v2 / "cgroup.subtree_control").write_text("cpu io memory\n")
    v1 = _mount(tmp_path, "blkio", ["blkio.bfq.io_serviced"])
    mounts = f"cgroup2 {v2} cgroup2 rw 0 0\ncgroup {v1} cgroup rw,relatime,blkio 0 0\n"
    assert find_hierarchy(mounts) == Hierarchy(2, v2, "io.weight")


def test_v2_without_io_falls_back_to_v1_bfq_then_cfq_weight(tmp_path: Path) -> None:
    v2 = _mount(tmp_path, "unified", [])
    (v2 / "cgroup.subtree_control").write_text("hugetlb\n")
    bfq = _mount(tmp_path, "blkio", ["blkio.bfq.io_serviced", "blkio.throttle.read_bps_device"])
    mounts = f"cgroup2 {v2} cgroup2 rw 0 0\ncgroup {bfq} cgroup rw,relatime,blkio 0 0\n"
    assert find_hierarchy(mounts) == Hierarchy(1, bfq, "blkio.bfq.weight")
    cfq = _mount(tmp_path, "blkio-cfq", ["blkio.weight"])
    assert find_hierarchy(f"cgroup {cfq} cgroup rw,blkio 0 0\n") == Hierarchy(1, cfq, "blkio.weight")
    none = _mount(tmp_path, "blkio-none", ["blkio.throttle.read_bps_device"])
    assert find_hierarchy(f"cgroup {none} cgroup rw,blkio 0 0\n") == "no-weight-file"
    assert find_hierarchy(f"cgroup2 {v2} cgroup2 rw 0 0\n") == "no-io-controller"


def test_without_a_controller_the_cgroup_is_skipped_with_a_sentence_and_the_others_run(tmp_path: Path) -> None:
    from iotui.commands.remedy_words import skipped_sentence

    plan = plan_remedies(tmp_path, allow_system_disk=False, is_root=False, cgroup="no-io-controller")
    assert plan.values[-1] == IDLE_CLASS and plan.cgroup is None
    skipped = next(item for item in plan.skipped if item.remedy == "cgroup")
    sentence = skipped_sentence(skipped)
    assert sentence.startswith("The cgroup weight is not tried") and sentence.endswith("the other remedies still run.")
    offered = plan_remedies(tmp_path, allow_system_disk=False, is_root=False,
                            cgroup=Hierarchy(1, Path("/sys/fs/cgroup/blkio"), "blkio.bfq.weight"))
    assert offered.values[-2:] == (IDLE_CLASS, "cgroup-weight=10")


def test_the_verdict_names_the_command_of_its_hierarchy() -> None:
    v1 = Hierarchy(1, Path("/sys/fs/cgroup/blkio"), "blkio.bfq.weight")
    assert lasting_command("cgroup-weight=10", None, Hierarchy(2, Path("/sys/fs/cgroup"), "io.weight")) == \
        "systemd-run --scope -p IOWeight=10 CMD"
    line = lasting_command("cgroup-weight=10", None, v1)
    assert line is not None
    assert "echo 10 > /sys/fs/cgroup/blkio/heavy/blkio.bfq.weight" in line and "cgroup.procs" in line
    rows = [RemedyRow("as-is", "completed", 1000.0, 4e6, 0.0, 0.0, level="sluggish"),
            RemedyRow("cgroup-weight=10", "completed", 900.0, 3.6e6, -10.0, -10.0, level="ok")]
    found = verdict(rows, None, v1)
    assert (found.remedy, found.command) == ("cgroup-weight=10", line)
    assert verdict_sentence(found).startswith("cgroup weight 10 keeps the desktop ok (as it is: sluggish), at -10%")


def _state(tmp_path: Path, cgroups: list[str], mode: int = 0o600) -> Path:
    path = tmp_path / "cgroups.json"
    path.write_text(json.dumps({"pid": 2 ** 22 + 12345, "started_at": 1.0, "cgroups": cgroups}))
    os.chmod(path, mode)
    return path


def test_a_left_behind_file_touches_only_cgroups_named_as_iotui_names_its_own(tmp_path: Path) -> None:
    canary = tmp_path / "not-a-cgroup"
    canary.mkdir()
    path = _state(tmp_path, [str(canary), "/sys/fs/cgroup/blkio/user.slice", "/sys/fs/cgroup/../iotui-remedy-1"])
    removed = remove_left_behind(path)
    assert removed is not None and removed.cgroups == () and not removed.failed
    assert canary.is_dir() and not path.exists()


def test_a_state_file_others_may_write_is_left_alone(tmp_path: Path) -> None:
    path = _state(tmp_path, ["/sys/fs/cgroup/blkio/iotui-remedy-1"], mode=0o666)
    removed = remove_left_behind(path)
    assert removed is not None and removed.refused and path.exists()


def test_a_cgroup_busy_while_its_last_processes_end_is_removed_once_they_are_reaped(tmp_path: Path, monkeypatch) -> None:
    """fio's jobs, ending as fio ends after iotui was killed, stay listed in the cgroup until reaped and
    cannot be moved: the kernel refuses the removal as busy (EBUSY) for that moment. No real cgroup can
    be held in that state on demand, so the refusal is stood in for; the directory is real."""
    import errno

    import pytest

    from iotui.core.remedy import cgroups

    cgroup = tmp_path / "iotui-remedy-4242"
    cgroup.mkdir()
    (tmp_path / "cgroup.procs").write_text("")
    real_rmdir = Path.rmdir
    refusals = {"left": 3}

    def busy_then_gone(self: Path) -> None:
        if self == cgroup and refusals["left"]:
            refusals["left"] -= 1
            raise OSError(errno.EBUSY, "Device or resource busy")
        real_rmdir(self)

    monkeypatch.setattr(Path, "rmdir", busy_then_gone)
    cgroups._move_out_and_remove(cgroup, busy_wait_s=5.0)
    assert not cgroup.exists() and refusals["left"] == 0

    cgroup.mkdir()
    refusals["left"] = 10_000  # busy for good: a sentence after the wait, not a hang
    with pytest.raises(cgroups.CgroupError, match="could not be removed"):
        cgroups._move_out_and_remove(cgroup, busy_wait_s=0.2)
