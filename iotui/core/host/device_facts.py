"""Device and host facts a comparison needs, read from sysfs (no root needed).

The I/O scheduler, read-ahead, write cache, rotational, model and firmware of
the disk under a target, and the CPU frequency governor. A fact sysfs does not
offer (a virtual disk without firmware, a VM without cpufreq) is absent.
"""

from __future__ import annotations

from pathlib import Path

from iotui.core.host.block_devices import device_numbers_of_path, sysfs_block_dir

SYS = Path("/sys")


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None


def selected_scheduler(text: str | None) -> str | None:
    """``mq-deadline kyber [bfq] none`` -> ``bfq``: the one in brackets (a lone name is the one)."""
    if not text:
        return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    words = text.split()
    return words[0] if len(words) == 1 else None


def disk_dir_of(target: Path, sys_root: Path = SYS) -> Path | None:
    """The sysfs directory of the whole disk under a target (a path, or a block device).

    Which device holds the target is :mod:`iotui.core.host.block_devices`'s answer, the
    same one the host sampler counts (btrfs and the like found through the mount source).
    """
    if not target.exists():
        return None
    numbers = device_numbers_of_path(target)
    device = sysfs_block_dir(*numbers, sys_root) if numbers is not None else None
    if device is None:
        return None
    return device.parent if (device / "partition").exists() else device


def disk_facts(disk: Path | None) -> dict[str, str | int | bool]:
    """``scheduler``, ``read_ahead_kb``, ``write_cache``, ``rotational``, ``model``, ``firmware`` where sysfs has them."""
    if disk is None:
        return {}
    facts: dict[str, str | int | bool] = {}
    scheduler = selected_scheduler(_read(disk / "queue" / "scheduler"))
    if scheduler:
        facts["scheduler"] = scheduler
    read_ahead = _read(disk / "queue" / "read_ahead_kb")
    if read_ahead is not None and read_ahead.isdigit():
        facts["read_ahead_kb"] = int(read_ahead)
    write_cache = _read(disk / "queue" / "write_cache")
    if write_cache:
        facts["write_cache"] = write_cache
    rotational = _read(disk / "queue" / "rotational")
    if rotational in ("0", "1"):
        facts["rotational"] = rotational == "1"
    model = _read(disk / "device" / "model")
    if model:
        facts["model"] = model
    firmware = _read(disk / "device" / "firmware_rev") or _read(disk / "device" / "rev")
    if firmware:
        facts["firmware"] = firmware
    return facts


def target_device_facts(target: Path, sys_root: Path = SYS) -> dict[str, str | int | bool]:
    return disk_facts(disk_dir_of(Path(target), sys_root))


def cpu_governor(sys_root: Path = SYS) -> str | None:
    """cpu0's frequency governor (``performance``, ``powersave``, ``schedutil``...)."""
    return _read(sys_root / "devices" / "system" / "cpu" / "cpu0" / "cpufreq" / "scaling_governor")
