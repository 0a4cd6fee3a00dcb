"""Block devices in sysfs: the disk under a mount, its facts, and what uses a raw device.

A raw device may only be read when nothing is mounted on it or its partitions,
nothing (device mapper, LVM, RAID) holds it, and it is not swap.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from iotui.core.host.mounts import Mount


def read_text(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def sysfs_dir(major: int, minor: int, sys_root: Path) -> Path | None:
    """The sysfs directory of a block device (disk or partition), None when there is none."""
    if major <= 0:
        return None
    link = sys_root / "dev" / "block" / f"{major}:{minor}"
    try:
        return link.resolve(strict=True)
    except OSError:
        return None


def device_numbers(device: str) -> tuple[int, int] | None:
    try:
        rdev = os.stat(os.path.realpath(device)).st_rdev
    except OSError:
        return None
    return os.major(rdev), os.minor(rdev)


def _whole_disk(device_dir: Path) -> Path:
    """A partition's disk; a disk is its own."""
    return device_dir.parent if (device_dir / "partition").exists() else device_dir


def rotational_and_model(device_dir: Path | None) -> tuple[bool | None, str | None]:
    """(rotational, model) of the disk under a device; dm/md devices are followed to their disks."""
    if device_dir is None:
        return None, None
    disk = _whole_disk(device_dir)
    rotational_text = read_text(disk / "queue" / "rotational")
    rotational = None if rotational_text is None else rotational_text == "1"
    model = read_text(disk / "device" / "model") or None
    if model is None:
        try:
            slaves = sorted((disk / "slaves").iterdir())
        except OSError:
            slaves = []
        for slave in slaves:
            slave_rotational, model = rotational_and_model(slave.resolve())
            if rotational is None:
                rotational = slave_rotational
            if model:
                break
    return rotational, model


def device_dir_for_mount(mount: Mount, sys_root: Path) -> Path | None:
    found = sysfs_dir(mount.major, mount.minor, sys_root)
    if found is None and mount.source.startswith("/dev/"):
        # btrfs and friends show an anonymous device number; the source names the disk.
        numbers = device_numbers(mount.source)
        if numbers is not None:
            found = sysfs_dir(*numbers, sys_root)
    return found


@dataclass(frozen=True)
class _BlockNode:
    name: str
    numbers: tuple[int, int] | None
    sys_dir: Path


def _block_family(device_dir: Path) -> list[_BlockNode]:
    """The device and, for a whole disk, its partitions."""
    members = [device_dir]
    if not (device_dir / "partition").exists():
        try:
            members += sorted(entry for entry in device_dir.iterdir() if (entry / "partition").exists())
        except OSError:
            pass
    family = []
    for member in members:
        numbers_text = read_text(member / "dev") or ""
        major, _, minor = numbers_text.partition(":")
        numbers = (int(major), int(minor)) if major.isdigit() and minor.isdigit() else None
        family.append(_BlockNode(member.name, numbers, member))
    return family


def raw_device_problem(device_dir: Path, mounts: list[Mount], swap_devices: list[str]) -> str | None:
    """Why a raw device must not be read (mounted, held, swap), or None.

    ``device_dir`` is the device's sysfs directory; ``swap_devices`` the first
    column of /proc/swaps.
    """
    family = _block_family(device_dir)
    names = {node.name for node in family}
    numbers = {node.numbers: node.name for node in family if node.numbers}
    for mount in mounts:
        source_name = Path(os.path.realpath(mount.source)).name if mount.source.startswith("/dev/") else None
        hit = numbers.get((mount.major, mount.minor)) or (source_name if source_name in names else None)
        if hit:
            return f"{hit} is mounted at {mount.mount_point}; test the mounted directory instead"
    for node in family:
        try:
            holders = sorted(entry.name for entry in (node.sys_dir / "holders").iterdir())
        except OSError:
            holders = []
        if holders:
            return (
                f"{node.name} is held by {', '.join(holders)} (device mapper, LVM, dm-crypt or RAID), "
                "so reading it raw bypasses what is built on it"
            )
    for swap in swap_devices:
        swap_numbers = device_numbers(swap) if swap.startswith("/dev/") else None
        if Path(os.path.realpath(swap)).name in names or (swap_numbers and swap_numbers in numbers):
            return f"{Path(swap).name} is used as swap"
    return None


def swap_devices(swaps: Path) -> list[str]:
    try:
        lines = swaps.read_text().splitlines()[1:]
    except OSError:
        return []
    return [line.split()[0] for line in lines if line.split()]
