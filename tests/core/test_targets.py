"""The target checks (mounts, sysfs, space, raw devices) and what a preset does."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from iotui.core.fio import policy as safety
from iotui.core.host import targets as target_checks
from iotui.core.host.disks import raw_device_problem
from iotui.core.host.mounts import Mount, mount_for, parse_mountinfo, read_mounts
from iotui.core.host.targets import TargetError
from iotui.core.presets.files import find_preset, shipped_presets_dir
from iotui.core.presets.model import JobSection, Preset, section_options

# -- mounts and sysfs --------------------------------------------------------------------

MOUNTINFO = (
    "22 1 0:21 / / rw,relatime - overlay overlay rw,lowerdir=/a\n"
    "23 22 0:22 / /mnt/nfs rw - nfs4 server:/export rw,vers=4.2\n"
    "24 22 0:23 / /mnt/fuse rw - fuse.sshfs host: rw\n"
    "25 22 8:17 / /mnt/my\\040disk rw,noatime - ext4 /dev/sdb1 rw,discard\n"
    "26 22 8:17 /sub /mnt/ab rw shared:1 - ext4 /dev/sdb1 rw\n"
    "27 22 0:40 / /mnt/a rw - tmpfs tmpfs rw\n"
    "28 27 0:41 / /mnt/a rw - btrfs /dev/sdc rw\n"
    "garbage line\n"
)


def test_mountinfo_is_parsed_with_escapes_numbers_and_options() -> None:
    mounts = parse_mountinfo(MOUNTINFO)
    assert len(mounts) == 7
    disk = mounts[3]
    assert disk.mount_point == Path("/mnt/my disk")
    assert (disk.filesystem, disk.source, disk.major, disk.minor) == ("ext4", "/dev/sdb1", 8, 17)
    assert disk.options == "rw,noatime,discard"  # per-mount and superblock options, each once
    assert mounts[4].root == "/sub"  # optional fields ("shared:1") are skipped


def test_the_longest_mount_point_wins_by_component_and_the_top_mount_on_ties() -> None:
    mounts = parse_mountinfo(MOUNTINFO)
    assert mount_for(Path("/mnt/ab/x"), mounts).mount_point == Path("/mnt/ab")
    assert mount_for(Path("/mnt/abc"), mounts).mount_point == Path("/")
    assert mount_for(Path("/mnt/a/f"), mounts).filesystem == "btrfs"  # mounted over the tmpfs


def test_filesystem_warnings() -> None:
    codes = {}
    for mount in parse_mountinfo(MOUNTINFO):
        warning = target_checks._filesystem_warning(mount.filesystem)
        codes[mount.filesystem] = warning[0] if warning else None
    assert codes == {
        "overlay": "fs-overlay", "nfs4": "fs-nfs4", "fuse.sshfs": "fs-fuse", "ext4": None, "tmpfs": None,
        "btrfs": "fs-btrfs",
    }
    assert "stack" in target_checks._filesystem_warning("overlay")[1]
    for filesystem in ("9p", "zfs", "cifs", "virtiofs"):
        assert target_checks._filesystem_warning(filesystem) is not None


def fake_sysfs(root: Path) -> Path:
    """/sys with a rotating disk sda (partitions sda1, sda2) and dm-0 on sda2."""
    sys_root = root / "sys"
    sda = sys_root / "block" / "sda"
    (sda / "queue").mkdir(parents=True)
    (sda / "queue" / "rotational").write_text("1\n")
    (sda / "device").mkdir()
    (sda / "device" / "model").write_text("FAKE DISK 4TB   \n")
    (sda / "dev").write_text("8:0\n")
    (sda / "holders").mkdir()
    for number in (1, 2):
        part = sda / f"sda{number}"
        (part / "holders").mkdir(parents=True)
        (part / "partition").write_text(f"{number}\n")
        (part / "dev").write_text(f"8:{number}\n")
    dm = sys_root / "block" / "dm-0"
    (dm / "queue").mkdir(parents=True)
    (dm / "queue" / "rotational").write_text("0\n")
    (dm / "slaves").mkdir()
    (dm / "slaves" / "sda2").symlink_to(sda / "sda2")
    (dm / "dev").write_text("253:0\n")
    links = sys_root / "dev" / "block"
    links.mkdir(parents=True)
    for numbers, target in (("8:0", sda), ("8:1", sda / "sda1"), ("8:2", sda / "sda2"), ("253:0", dm)):
        (links / numbers).symlink_to(target)
    return sys_root


def test_inspect_finds_the_disk_its_rotation_and_model(tmp_path: Path) -> None:
    sys_root = fake_sysfs(tmp_path)
    mounts = [Mount(Path("/"), "ext4", "/dev/sda1", "rw,relatime", 8, 1)]
    info = target_checks.inspect_target(tmp_path, mounts, sys_root=sys_root)
    assert (info.filesystem, info.device, info.mount_point) == ("ext4", "/dev/sda1", Path("/"))
    assert info.rotational is True and info.model == "FAKE DISK 4TB"
    assert info.free_bytes and info.free_bytes > 0 and not info.is_block_device
    on_dm = target_checks.inspect_target(tmp_path, [Mount(Path("/"), "xfs", "/dev/mapper/vg-x", "rw", 253, 0)], sys_root=sys_root)
    assert on_dm.rotational is False and on_dm.model == "FAKE DISK 4TB"  # followed through the slaves
    unknown = target_checks.inspect_target(tmp_path, [Mount(Path("/"), "nfs4", "srv:/x", "rw", 0, 55)], sys_root=sys_root)
    assert unknown.rotational is None and unknown.model is None
    assert [code for code, _ in unknown.warnings] == ["fs-nfs4"]


def test_inspect_marks_memory_filesystems(tmp_path: Path) -> None:
    info = target_checks.inspect_target(tmp_path, [Mount(Path("/"), "tmpfs", "tmpfs", "rw", 0, 40)])
    assert any(code == "fs-memory" and "measures memory" in text for code, text in info.warnings)


def test_current_directory_is_inspected(tmp_path: Path) -> None:
    info = target_checks.inspect_target(tmp_path)
    assert info.path == tmp_path.resolve()
    assert info.filesystem and info.device
    assert info.free_bytes and info.free_bytes > 0
    assert target_checks.check_target(info, needs_bytes=1 << 20, direct=True, read_only=False, allow_cache=False) == info.warnings


# -- check_target ------------------------------------------------------------------------


def directory_info(tmp_path: Path, **changes: object) -> target_checks.TargetInfo:
    info = target_checks.inspect_target(tmp_path, [Mount(Path("/"), "ext4", "/dev/x", "rw", 0, 0)])
    return replace(info, **changes)


def check(info: target_checks.TargetInfo, **changes: object) -> list[tuple[str, str]]:
    arguments = dict(needs_bytes=1 << 20, direct=True, read_only=False, allow_cache=False, mem_total_bytes=8 << 30)
    arguments.update(changes)
    return target_checks.check_target(info, **arguments)  # type: ignore[arg-type]


def test_missing_and_file_targets_are_sentences(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="does not exist") as missing:
        target_checks.inspect_target(tmp_path / "nope")
    assert missing.value.code == "target-missing"
    gone = tmp_path / "gone"
    gone.mkdir()
    info = directory_info(gone)
    gone.rmdir()
    with pytest.raises(TargetError, match="does not exist"):
        check(info)
    a_file = tmp_path / "f"
    a_file.write_text("x")
    with pytest.raises(TargetError, match="not a directory"):
        check(target_checks.inspect_target(a_file), needs_bytes=None, read_only=True)


def test_not_enough_space_is_refused_with_the_margin(tmp_path: Path) -> None:
    info = directory_info(tmp_path, free_bytes=100 << 20)
    check(info, needs_bytes=(100 << 20) - target_checks.FREE_SPACE_MARGIN_BYTES)
    with pytest.raises(TargetError, match="Not enough free space") as error:
        check(info, needs_bytes=(100 << 20) - target_checks.FREE_SPACE_MARGIN_BYTES + 1)
    assert "64 MiB margin" in str(error.value) and "100 MiB is free" in str(error.value)
    assert error.value.code == "target-space"


def test_the_write_probe_leaves_nothing_behind(tmp_path: Path) -> None:
    check(directory_info(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_a_failing_create_is_refused_even_when_access_says_yes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Root passes os.access everywhere; a read-only mount or a quota shows only on a real create.
    def refuse(*args: object, **kwargs: object) -> int:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(target_checks.os, "open", refuse)
    with pytest.raises(TargetError, match=r"Cannot write to .*creating a file there failed \(Read-only file system\)"):
        check(directory_info(tmp_path))


def test_permission_denied_by_access_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(target_checks.os, "access", lambda *args, **kwargs: False)
    with pytest.raises(TargetError, match="Cannot write to .*permission denied") as refused:
        check(directory_info(tmp_path))
    assert refused.value.code == "target-read-only"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to a read-only directory, so this refusal cannot be shown as root")
def test_unwritable_directory_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(TargetError, match="Cannot write"):
        check(directory_info(locked))


def test_memory_filesystems_are_refused_unless_allowed(tmp_path: Path) -> None:
    for filesystem in ("tmpfs", "ramfs"):
        info = directory_info(tmp_path, filesystem=filesystem)
        with pytest.raises(TargetError, match=f"on {filesystem}, which is memory") as refused:
            check(info)
        assert refused.value.code == "target-memory"
        assert check(info, allow_cache=True) == info.warnings


def test_small_buffered_file_is_warned(tmp_path: Path) -> None:
    info = directory_info(tmp_path)
    warnings = check(info, needs_bytes=1 << 30, direct=False, mem_total_bytes=8 << 30)
    (code, text), = [w for w in warnings if w[0] == "cache-small-file"]
    assert "page cache will serve much of it" in text and "too good" in text and "1,024 MiB" in text
    assert check(info, needs_bytes=1 << 30, direct=True) == []
    assert check(info, needs_bytes=16 << 30, direct=False, mem_total_bytes=8 << 30, ) == []


def test_filesystem_warnings_go_into_the_result(tmp_path: Path) -> None:
    info = directory_info(tmp_path, filesystem="nfs4", warnings=[target_checks._filesystem_warning("nfs4")])
    assert [code for code, _ in check(info)] == ["fs-nfs4"]


# -- raw block devices ---------------------------------------------------------------


def test_write_presets_on_raw_devices_are_refused() -> None:
    info = target_checks.TargetInfo(Path("/dev/null-disk"), "raw", "/dev/null-disk", Path("/dev/null-disk"), "", True, None, None, None)
    with pytest.raises(TargetError, match="raw block device and this preset writes.*refuses write tests on raw devices"):
        check(info, read_only=False)


def test_a_device_without_sysfs_entry_is_refused(tmp_path: Path) -> None:
    info = target_checks.TargetInfo(tmp_path, "raw", str(tmp_path), tmp_path, "", True, None, None, None)
    with pytest.raises(TargetError, match="Cannot find the block device .* cannot check that nothing uses it"):
        check(info, read_only=True, sys_root=tmp_path / "no-sys")


def sda_dir(tmp_path: Path) -> Path:
    return fake_sysfs(tmp_path) / "block" / "sda"


def test_an_unused_disk_has_no_problem(tmp_path: Path) -> None:
    sda = sda_dir(tmp_path)
    assert raw_device_problem(sda, [Mount(Path("/"), "ext4", "/dev/vdz", "rw", 254, 0)], []) is None


def test_a_disk_with_a_mounted_partition_is_refused(tmp_path: Path) -> None:
    sda = sda_dir(tmp_path)
    problem = raw_device_problem(sda, [Mount(Path("/home"), "ext4", "/dev/root", "rw", 8, 1)], [])
    assert problem == "sda1 is mounted at /home; test the mounted directory instead"
    # btrfs shows an anonymous device number; the source still names the partition.
    by_source = raw_device_problem(sda, [Mount(Path("/data"), "btrfs", "/dev/sda1", "rw", 0, 45)], [])
    assert by_source and "sda1 is mounted at /data" in by_source
    # A partition alone is not refused for its sibling.
    assert raw_device_problem(sda / "sda2", [Mount(Path("/home"), "ext4", "/dev/root", "rw", 8, 1)], []) is None


def test_a_held_partition_is_refused(tmp_path: Path) -> None:
    sda = sda_dir(tmp_path)
    (sda / "sda2" / "holders" / "dm-0").symlink_to(tmp_path / "sys" / "block" / "dm-0")
    problem = raw_device_problem(sda, [], [])
    assert problem and "sda2 is held by dm-0" in problem and "LVM" in problem


def test_a_disk_used_as_swap_is_refused(tmp_path: Path) -> None:
    sda = sda_dir(tmp_path)
    problem = raw_device_problem(sda, [], ["/dev/sda2"])
    assert problem == "sda2 is used as swap"
    assert raw_device_problem(sda, [], ["/swapfile"]) is None


def test_mounted_raw_device_is_refused() -> None:
    root = next(
        (m for m in read_mounts() if str(m.mount_point) == "/" and m.source.startswith("/dev/")), None
    )
    if root is None or not os.path.exists(root.source) or not Path(root.source).is_block_device():
        pytest.skip("the root filesystem has no /dev block device here (container), so there is no mounted device to refuse")
    info = target_checks.inspect_target(Path(root.source))
    assert info.is_block_device
    with pytest.raises(TargetError, match="is mounted at"):
        target_checks.check_target(info, needs_bytes=None, direct=True, read_only=True, allow_cache=False)


# -- list_targets ------------------------------------------------------------------------


def test_targets_list_offers_real_filesystems_once_with_their_warnings(tmp_path: Path) -> None:
    dirs = {name: tmp_path / name for name in ("cwd", "disk", "bind", "nfs", "ro")}
    for path in dirs.values():
        path.mkdir()
    mounts = [
        Mount(Path("/proc"), "proc", "proc", "rw", 0, 21),
        Mount(Path("/sys/fs/cgroup"), "cgroup2", "cgroup2", "rw", 0, 22),
        Mount(Path("/run"), "tmpfs", "tmpfs", "rw", 0, 23),
        Mount(Path("/dev/shm"), "tmpfs", "tmpfs", "rw", 0, 24),
        Mount(dirs["disk"], "ext4", "/dev/sdb1", "rw,relatime", 8, 17),
        Mount(dirs["bind"], "ext4", "/dev/sdb1", "rw,relatime", 8, 17),  # a bind mount of the same filesystem
        Mount(dirs["nfs"], "nfs4", "srv:/x", "rw", 0, 50),
        Mount(dirs["ro"], "ext4", "/dev/sdc1", "ro,relatime", 8, 33),
        Mount(tmp_path / "missing", "ext4", "/dev/sdd1", "rw", 8, 49),
    ]
    targets = target_checks.list_targets(dirs["cwd"], mounts=mounts)
    assert [t.path for t in targets] == [dirs["cwd"].resolve(), dirs["disk"], dirs["nfs"]]
    assert [code for code, _ in targets[2].warnings] == ["fs-nfs4"]


def test_targets_list_starts_with_the_current_directory(tmp_path: Path) -> None:
    targets = target_checks.list_targets(tmp_path)
    assert targets[0].path == tmp_path.resolve()
    assert all(t.filesystem not in ("proc", "sysfs", "cgroup2", "devpts") for t in targets)
    assert len({t.path for t in targets}) == len(targets)


# -- what a preset does ----------------------------------------------------------------


def preset(options: dict[str, str], *sections: dict[str, str]) -> Preset:
    jobs = tuple(JobSection(f"j{index}", section) for index, section in enumerate(sections))
    return Preset("p", "p", "d", "", options, jobs or (JobSection("p", {}),))


@pytest.mark.parametrize(
    "options, sections, writes",
    [
        ({}, (), False),  # fio's default is rw=read
        ({"rw": "randread"}, (), False),
        ({"rw": "randread:8"}, (), False),
        ({"readwrite": "read"}, ({"bs": "4k"},), False),
        ({"rw": "write"}, (), True),
        ({"rw": "randread"}, ({}, {"readwrite": "randwrite"}), True),
        ({"rw": "randrw"}, (), True),
        ({"rw": "rw"}, (), True),
        ({"rw": "trim"}, (), True),
        ({"rw": "trimwrite"}, (), True),
        ({"rw": "something-new"}, (), True),  # unknown: assume it writes
        ({"rw": "read", "verify": "crc32c"}, (), True),
        ({"rw": "read", "verify": "0"}, (), False),
        ({"rw": "read", "ioengine": "ftruncate"}, (), True),
        ({"rw": "write"}, ({"rw": "read"},), False),  # the section's own rw wins
    ],
)
def test_write_workload_detection(options: dict, sections: tuple, writes: bool) -> None:
    assert safety.is_write_workload(section_options(preset(options, *sections))) is writes


def test_shipped_write_and_read_presets() -> None:
    shipped = [shipped_presets_dir()]
    for name in ("quick", "rnd4k-q1t1", "mount-options", "sustained-write", "sysbench-compare"):
        assert safety.is_write_workload(section_options(find_preset(name, shipped))), name
    for name in ("blocksize-table", "engine-efficiency"):
        assert not safety.is_write_workload(section_options(find_preset(name, shipped))), name
