"""The option policy and the target checks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iotui.core import presets, safety
from iotui.core.safety import PolicyError, TargetError


@pytest.mark.parametrize(
    "options, name",
    [
        ({"exec_prerun": "x"}, "exec_prerun"),
        ({"exec_postrun": "x"}, "exec_postrun"),
        ({"ioengine": "exec"}, "ioengine=exec"),
        ({"ioengine": "external:/lib/x.so"}, "ioengine=external"),
        ({"ioengine": "/tmp/engine.so"}, "ioengine=/tmp/engine.so"),
        ({"include": "other.fio"}, "include"),
        ({"trigger": "cmd"}, "trigger"),
        ({"trigger-file": "f"}, "trigger-file"),
        ({"trigger_timeout": "1"}, "trigger_timeout"),
        ({"trigger-remote": "x"}, "trigger-remote"),
        ({"remote-config": "x"}, "remote-config"),
        ({"size": "$mb_memory"}, "size"),
        ({"bs": "${BS}"}, "bs"),
        ({"filename": "/dev/sda"}, "filename"),
        ({"directory": "/"}, "directory"),
        ({"filename_format": "x"}, "filename_format"),
        ({"opendir": "/"}, "opendir"),
        ({"unlink": "1"}, "unlink"),
        ({"unlink_each_loop": "1"}, "unlink_each_loop"),
        ({"write_bw_log": "x"}, "write_bw_log"),
        ({"write_lat_log": "x"}, "write_lat_log"),
        ({"write_iops_log": "x"}, "write_iops_log"),
        ({"write_hist_log": "x"}, "write_hist_log"),
        ({"ioscheduler": "none"}, "ioscheduler"),
        ({"output-format": "normal"}, "output-format"),
    ],
)
def test_refused_options_name_the_option_and_why(options: dict, name: str) -> None:
    with pytest.raises(PolicyError) as error:
        safety.check_options(options, "test.toml")
    message = str(error.value)
    assert name in message and "test.toml" in message and "refused" in message


def test_ordinary_options_pass() -> None:
    safety.check_options({"rw": "randread", "bs": "4k", "ioengine": "io_uring", "time_based": ""}, "x")


def test_current_directory_is_inspected(tmp_path: Path) -> None:
    info = safety.inspect_target(tmp_path)
    assert info.path == tmp_path.resolve()
    assert info.filesystem and info.device
    assert info.free_bytes and info.free_bytes > 0
    assert safety.check_target(info, needs_bytes=1 << 20, direct=True, read_only=False, allow_cache=False) == info.warnings


def test_missing_and_file_targets_are_sentences(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="does not exist"):
        safety.inspect_target(tmp_path / "nope")
    a_file = tmp_path / "f"
    a_file.write_text("x")
    info = safety.inspect_target(a_file)
    with pytest.raises(TargetError, match="not a directory"):
        safety.check_target(info, needs_bytes=None, direct=True, read_only=True, allow_cache=False)


def test_not_enough_space_is_refused(tmp_path: Path) -> None:
    info = safety.inspect_target(tmp_path)
    with pytest.raises(TargetError, match="Not enough free space"):
        safety.check_target(info, needs_bytes=info.free_bytes * 2, direct=True, read_only=False, allow_cache=False)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to a read-only directory, so this refusal cannot be shown as root")
def test_unwritable_directory_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(TargetError, match="Cannot write"):
        safety.check_target(safety.inspect_target(locked), needs_bytes=None, direct=True, read_only=False, allow_cache=False)


def test_tmpfs_is_refused_unless_allowed(tmp_path: Path) -> None:
    info = safety.inspect_target(tmp_path)
    info.filesystem = "tmpfs"
    with pytest.raises(TargetError, match="--allow-cache"):
        safety.check_target(info, needs_bytes=None, direct=True, read_only=False, allow_cache=False)
    assert safety.check_target(info, needs_bytes=None, direct=True, read_only=False, allow_cache=True) is not None


def test_small_buffered_file_is_warned(tmp_path: Path) -> None:
    info = safety.inspect_target(tmp_path)
    warnings = safety.check_target(info, needs_bytes=1 << 20, direct=False, read_only=False, allow_cache=False)
    assert any(code == "cache-small-file" for code, _ in warnings)


def test_stacked_filesystems_are_warned(tmp_path: Path) -> None:
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(
        "22 1 0:21 / / rw,relatime - overlay overlay rw,lowerdir=/a\n"
        "23 22 0:22 / /mnt/nfs rw - nfs4 server:/export rw,vers=4.2\n"
        "24 22 0:23 / /mnt/fuse rw - fuse.sshfs host: rw\n"
        "25 22 0:24 / /mnt/my\\040disk rw - ext4 /dev/sdb1 rw\n"
    )
    mounts = safety.read_mounts(mountinfo)
    assert mounts[3].mount_point == Path("/mnt/my disk")
    codes = {}
    for mount in mounts:
        warning = safety._filesystem_warning(mount.filesystem)
        codes[mount.filesystem] = warning[0] if warning else None
    assert codes == {"overlay": "fs-overlay", "nfs4": "fs-nfs4", "fuse.sshfs": "fs-fuse", "ext4": None}


def test_write_presets_on_raw_devices_are_refused(tmp_path: Path) -> None:
    info = safety.TargetInfo(Path("/dev/null-disk"), "raw", "/dev/null-disk", Path("/dev/null-disk"), "", True, None, None, None)
    with pytest.raises(TargetError, match="refuses write tests on raw devices"):
        safety.check_target(info, needs_bytes=None, direct=True, read_only=False, allow_cache=False)


def test_mounted_raw_device_is_refused() -> None:
    root_device = next((m.source for m in safety.read_mounts() if str(m.mount_point) == "/" and m.source.startswith("/dev/")), None)
    if root_device is None or not os.path.exists(root_device):
        pytest.skip("the root filesystem has no /dev block device here (container), so there is no mounted device to refuse")
    info = safety.inspect_target(Path(root_device))
    assert info.is_block_device
    with pytest.raises(TargetError, match="mounted"):
        safety.check_target(info, needs_bytes=None, direct=True, read_only=True, allow_cache=False)


def test_write_workload_detection() -> None:
    shipped = [presets.shipped_presets_dir()]
    assert safety.is_write_workload(presets.find_preset("quick", shipped))
    assert safety.is_write_workload(presets.find_preset("rnd4k-q1t1", shipped))
    assert not safety.is_write_workload(presets.find_preset("blocksize-table", shipped))
    assert not safety.is_write_workload(presets.find_preset("engine-efficiency", shipped))


def test_targets_list_starts_with_the_current_directory(tmp_path: Path) -> None:
    targets = safety.list_targets(tmp_path)
    assert targets[0].path == tmp_path.resolve()
    assert all(t.filesystem not in ("proc", "sysfs") for t in targets)
