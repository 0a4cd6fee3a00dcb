"""Which block devices back a path: its device numbers (also under btrfs, overlay and the like),
the diskstats names of that device and of every dm/md device stacked under it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from iotui.core.host.proc_files import read_text as _read_text


def _slaves(sys_root: Path, name: str) -> list[str]:
    """Devices directly under `name` in a dm/md stack (empty for a plain disk or partition)."""
    try:
        return sorted(entry.name for entry in (sys_root / "class" / "block" / name / "slaves").iterdir())
    except OSError:
        return []


def bottom_of_stack(devices: list[str], sys_root: Path) -> list[str]:
    """`devices` minus those stacked on another listed device (their I/O shows below them)."""
    listed = set(devices)
    return [name for name in devices if not listed.intersection(_slaves(sys_root, name))]


def _diskstats_names(proc_root: Path) -> set[str]:
    text = _read_text(proc_root / "diskstats")
    if text is None:
        return set()
    return {parts[2] for line in text.splitlines() if len(parts := line.split()) >= 3}


def _mount_source(proc_root: Path, major: int, minor: int) -> str | None:
    """The mount source (field after " - fstype") of the mount whose device is major:minor."""
    text = _read_text(proc_root / "self" / "mountinfo")
    if text is None:
        return None
    wanted = f"{major}:{minor}"
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 3 or parts[2] != wanted or "-" not in parts:
            continue
        after_separator = parts[parts.index("-") + 1 :]
        return after_separator[1] if len(after_separator) >= 2 else None
    return None


def device_numbers_of_path(path: Path, proc_root: Path = Path("/proc")) -> tuple[int, int] | None:
    """major:minor of the block device holding `path` (or of `path` itself when it is a block
    device), or None for virtual/network filesystems."""
    # Walk up to something that exists: a target directory may not have been created yet.
    probe = path
    while True:
        try:
            status = os.stat(probe)
            break
        except OSError:
            if probe.parent == probe:
                return None
            probe = probe.parent
    if stat.S_ISBLK(status.st_mode):
        return os.major(status.st_rdev), os.minor(status.st_rdev)
    st_dev = status.st_dev
    major, minor = os.major(st_dev), os.minor(st_dev)
    if major != 0:
        return major, minor
    # Anonymous device (btrfs subvolumes, overlay, tmpfs, NFS...): a real block device
    # shows only as the mount source, e.g. "/dev/sdb1" for btrfs; "overlay" is not one.
    source = _mount_source(proc_root, major, minor)
    if not source or not source.startswith("/"):
        return None
    try:
        source_stat = os.stat(source)
    except OSError:
        return None
    if not stat.S_ISBLK(source_stat.st_mode):
        return None
    return os.major(source_stat.st_rdev), os.minor(source_stat.st_rdev)


def sysfs_block_dir(major: int, minor: int, sys_root: Path = Path("/sys")) -> Path | None:
    """The sysfs directory of block device major:minor (a disk, a partition, dm, md), None when there is none."""
    try:
        return (sys_root / "dev" / "block" / f"{major}:{minor}").resolve(strict=True)
    except (OSError, RuntimeError):
        return None


def block_devices_for(major: int, minor: int, proc_root: Path, sys_root: Path) -> list[str]:
    """The diskstats names for device major:minor and, for dm/md, every device under it.

    The device itself comes first, then the devices below it, depth first.
    """
    device_dir = sysfs_block_dir(major, minor, sys_root)
    if device_dir is None:
        return []
    name = device_dir.name
    ordered: list[str] = []
    pending = [name]
    while pending:
        current = pending.pop(0)
        if current in ordered:
            continue
        ordered.append(current)
        pending.extend(_slaves(sys_root, current))
    known = _diskstats_names(proc_root)
    return [device for device in ordered if device in known]


def backing_devices(
    path: Path, proc_root: Path = Path("/proc"), sys_root: Path = Path("/sys")
) -> list[str]:
    """Block device names in /proc/diskstats backing the filesystem that holds `path`.

    A partition is returned as itself; a dm/md device is followed down to the disks
    under it, which are returned after it. [] when unknown (overlay, tmpfs, NFS, ZFS,
    non-Linux). Never raises: a missing device only means no device figures.
    """
    try:
        numbers = device_numbers_of_path(Path(path), proc_root)
        if numbers is None:
            return []
        return block_devices_for(*numbers, proc_root=proc_root, sys_root=sys_root)
    except Exception:  # noqa: BLE001 - documented as never raising; figures are optional
        return []
