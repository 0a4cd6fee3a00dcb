"""What iotui refuses to run, and where it refuses to write.

Two policies live here:

* options: a preset, a job file or ``--set`` must not run commands, load code
  or write anywhere but iotui's own test file (deny-list with a reason each);
* targets: a directory on a mounted filesystem, checked before fio starts
  (space, permissions, filesystem kind), or a raw block device behind strict
  guards (read-only presets, nothing mounted, held or swapped on it).
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

# Option -> why it is refused. Checked case-insensitively; '-' and '_' alike.
_RUNS_COMMANDS = "it runs a command or loads code, and iotui runs only fio itself"
_WRITES_ELSEWHERE = "it makes fio read or write files other than iotui's own test file; iotui decides where the test file lives"
REFUSED_OPTIONS: dict[str, str] = {
    "exec_prerun": _RUNS_COMMANDS,
    "exec_postrun": _RUNS_COMMANDS,
    "include": "it pulls in another job file that iotui has not checked",
    "trigger": _RUNS_COMMANDS,
    "trigger_file": _RUNS_COMMANDS,
    "trigger_timeout": _RUNS_COMMANDS,
    "trigger_remote": _RUNS_COMMANDS,
    "remote_config": "it loads a job file from elsewhere",
    "client": "it sends jobs to other machines",
    "server": "it turns fio into a server",
    "filename": _WRITES_ELSEWHERE,
    "directory": _WRITES_ELSEWHERE,
    "filename_format": _WRITES_ELSEWHERE,
    "opendir": _WRITES_ELSEWHERE,
    "unlink": "iotui removes its own test file itself",
    "unlink_each_loop": "iotui removes its own test file itself",
    "write_bw_log": _WRITES_ELSEWHERE,
    "write_lat_log": _WRITES_ELSEWHERE,
    "write_iops_log": _WRITES_ELSEWHERE,
    "write_hist_log": _WRITES_ELSEWHERE,
    "write_iolog": _WRITES_ELSEWHERE,
    "read_iolog": _WRITES_ELSEWHERE,
    "replay_redirect": "it sends replayed I/O to another device",
    "ioscheduler": "it changes the I/O scheduler of a device for the whole system",
    "output": "iotui reads fio's output itself",
    "output_format": "iotui sets the output format itself (json+)",
    "status_interval": "iotui sets the status interval itself (1 s)",
    "eta": "iotui sets eta itself (never)",
    "cgroup": "it creates control groups on the system",
}
_ENGINE_REFUSED = {
    "exec": _RUNS_COMMANDS,
    "external": "it loads an external engine's code",
}


class PolicyError(Exception):
    """An option iotui refuses; str() names the option and why."""


class TargetError(Exception):
    """A target iotui refuses; str() says why and what to do."""


def _normal_key(key: str) -> str:
    return key.strip().lower().lstrip("-").replace("-", "_")


def check_options(options: dict[str, str], origin: str) -> None:
    """Raise PolicyError for the first refused option (name and reason in the message)."""
    for raw_key, raw_value in options.items():
        key = _normal_key(raw_key)
        value = str(raw_value)
        reason = REFUSED_OPTIONS.get(key)
        if reason is not None:
            raise PolicyError(f"{origin}: option '{raw_key}' is refused: {reason}.")
        if key == "ioengine":
            engine = value.strip().lower()
            engine_name = engine.split(":", 1)[0]
            if engine_name in _ENGINE_REFUSED:
                raise PolicyError(f"{origin}: option 'ioengine={value}' is refused: {_ENGINE_REFUSED[engine_name]}.")
            if "/" in engine or engine.endswith(".so"):
                raise PolicyError(f"{origin}: option 'ioengine={value}' is refused: it loads an engine from a file.")
        if "$" in value or "$" in raw_key:
            raise PolicyError(
                f"{origin}: option '{raw_key}={value}' is refused: '$' expansions are evaluated by fio "
                "(environment variables, $mb_memory and the like), so the job would not be what it says."
            )


# -- targets ------------------------------------------------------------------------

WARN_FILESYSTEMS = {
    "overlay": "an overlay filesystem: this measures a stack of filesystems, not a device",
    "fuse": "a FUSE filesystem: this measures a userspace filesystem stack, not a device",
    "nfs": "a network filesystem (NFS): this measures the network and the server, not a local device",
    "nfs4": "a network filesystem (NFS): this measures the network and the server, not a local device",
    "cifs": "a network filesystem (SMB): this measures the network and the server, not a local device",
    "smb3": "a network filesystem (SMB): this measures the network and the server, not a local device",
    "9p": "a 9p filesystem (often a VM share): this measures the share, not a device",
    "virtiofs": "a virtio-fs share: this measures the host's filesystem through the VM, not a device",
    "btrfs": "btrfs: copy-on-write and checksums shape the numbers; compare only with btrfs",
    "zfs": "ZFS: its ARC cache and copy-on-write shape the numbers; direct I/O may not bypass the ARC",
}
MEMORY_FILESYSTEMS = {"tmpfs", "ramfs", "devtmpfs"}
PSEUDO_FILESYSTEMS = {
    "proc", "sysfs", "devpts", "cgroup", "cgroup2", "securityfs", "pstore", "debugfs", "tracefs",
    "configfs", "fusectl", "mqueue", "hugetlbfs", "bpf", "autofs", "binfmt_misc", "rpc_pipefs",
    "nsfs", "efivarfs", "selinuxfs", "squashfs", "devtmpfs", "ramfs", "overlayfs_internal",
}
FREE_SPACE_MARGIN_BYTES = 64 << 20


@dataclass
class TargetInfo:
    path: Path
    filesystem: str
    device: str
    mount_point: Path
    mount_options: str
    is_block_device: bool
    rotational: bool | None
    model: str | None
    free_bytes: int | None
    warnings: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Mount:
    mount_point: Path
    filesystem: str
    source: str
    options: str


def _unescape(field_text: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as octal.
    return (
        field_text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
    )


def read_mounts(mountinfo: Path = Path("/proc/self/mountinfo")) -> list[_Mount]:
    mounts: list[_Mount] = []
    try:
        text = mountinfo.read_text()
    except OSError:
        return mounts
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        left_fields, right_fields = left.split(), right.split()
        if len(left_fields) < 6 or len(right_fields) < 2:
            continue
        super_options = right_fields[2] if len(right_fields) > 2 else ""
        # Per-mount and superblock options, each once, in order.
        options = ",".join(dict.fromkeys((left_fields[5] + "," + super_options).strip(",").split(",")))
        mounts.append(_Mount(Path(_unescape(left_fields[4])), right_fields[0], _unescape(right_fields[1]), options))
    return mounts


def _mount_for(path: Path, mounts: list[_Mount]) -> _Mount | None:
    best: _Mount | None = None
    for mount in mounts:
        try:
            path.relative_to(mount.mount_point)
        except ValueError:
            continue
        if best is None or len(str(mount.mount_point)) >= len(str(best.mount_point)):
            best = mount
    return best


def _sys_block_name(device: str) -> str | None:
    """Whole-disk name in /sys/block for a /dev path (partition -> its disk)."""
    try:
        real = os.path.realpath(device)
        rdev = os.stat(real).st_rdev
    except OSError:
        return None
    sys_dev = Path(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}")
    try:
        resolved = sys_dev.resolve()
    except OSError:
        return None
    if (resolved / "partition").exists():
        return resolved.parent.name
    return resolved.name


def _device_facts(device: str) -> tuple[bool | None, str | None]:
    name = _sys_block_name(device) if device.startswith("/dev/") else None
    if name is None:
        return None, None
    rotational: bool | None = None
    model: str | None = None
    try:
        rotational = Path(f"/sys/block/{name}/queue/rotational").read_text().strip() == "1"
    except OSError:
        pass
    try:
        model = Path(f"/sys/block/{name}/device/model").read_text().strip() or None
    except OSError:
        pass
    return rotational, model


def _filesystem_warning(filesystem: str) -> tuple[str, str] | None:
    base = filesystem.split(".", 1)[0]
    if base.startswith("fuse"):
        base = "fuse"
    if filesystem in WARN_FILESYSTEMS:
        return f"fs-{filesystem}", f"The target is on {WARN_FILESYSTEMS[filesystem]}."
    if base in WARN_FILESYSTEMS:
        return f"fs-{base}", f"The target is on {WARN_FILESYSTEMS[base]}."
    return None


def inspect_target(path: Path, mounts: list[_Mount] | None = None) -> TargetInfo:
    """Facts about a target path; raises TargetError when it does not exist."""
    path = Path(path).expanduser()
    if not path.exists():
        raise TargetError(f"The target {path} does not exist; give an existing directory with --target.")
    resolved = path.resolve()
    try:
        mode = os.stat(resolved).st_mode
    except OSError as error:
        raise TargetError(f"Cannot look at the target {path} ({error.strerror}).") from None
    is_block_device = stat.S_ISBLK(mode)
    mounts = read_mounts() if mounts is None else mounts
    if is_block_device:
        rotational, model = _device_facts(str(resolved))
        try:
            size = _block_device_bytes(resolved)
        except OSError:
            size = None
        return TargetInfo(resolved, "raw", str(resolved), resolved, "", True, rotational, model, size)
    mount = _mount_for(resolved, mounts)
    free_bytes: int | None
    try:
        free_bytes = shutil.disk_usage(resolved).free
    except OSError:
        free_bytes = None
    filesystem = mount.filesystem if mount else "unknown"
    source = mount.source if mount else "unknown"
    rotational, model = _device_facts(source)
    info = TargetInfo(
        path=resolved,
        filesystem=filesystem,
        device=source,
        mount_point=mount.mount_point if mount else Path("/"),
        mount_options=mount.options if mount else "",
        is_block_device=False,
        rotational=rotational,
        model=model,
        free_bytes=free_bytes,
    )
    warning = _filesystem_warning(filesystem)
    if warning:
        info.warnings.append(warning)
    if filesystem in MEMORY_FILESYSTEMS:
        info.warnings.append(("fs-memory", f"The target is on {filesystem}: it measures memory, not storage (refused without --allow-cache)."))
    return info


def _block_device_bytes(device: Path) -> int:
    with open(device, "rb") as handle:
        return handle.seek(0, os.SEEK_END)


def _mem_total_bytes() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:
        return None


def check_target(
    info: TargetInfo,
    *,
    needs_bytes: int | None,
    direct: bool,
    read_only: bool,
    allow_cache: bool,
) -> list[tuple[str, str]]:
    """Refuse (TargetError) or return the warnings that go into the record."""
    if info.is_block_device:
        _check_raw_device(info, read_only=read_only)
        return list(info.warnings)
    path = info.path
    if not path.is_dir():
        raise TargetError(f"The target {path} is not a directory; give a directory (or a raw device for read-only presets).")
    if info.filesystem in MEMORY_FILESYSTEMS and not allow_cache:
        raise TargetError(
            f"The target {path} is on {info.filesystem}, which is memory: the results would not be storage "
            "numbers. Choose a directory on a disk, or pass --allow-cache to measure memory anyway."
        )
    _check_writable(path)
    if needs_bytes and info.free_bytes is not None and needs_bytes + FREE_SPACE_MARGIN_BYTES > info.free_bytes:
        raise TargetError(
            f"Not enough free space in {path}: the run needs {needs_bytes / (1 << 20):,.0f} MiB "
            f"and {info.free_bytes / (1 << 20):,.0f} MiB is free. Use --size to make the test file smaller, "
            "or choose another target."
        )
    warnings = list(info.warnings)
    memory_bytes = _mem_total_bytes()
    if not direct and needs_bytes and memory_bytes and needs_bytes < 2 * memory_bytes:
        warnings.append(
            (
                "cache-small-file",
                f"Direct I/O is off and the test file ({needs_bytes / (1 << 20):,.0f} MiB) is smaller than "
                f"twice the RAM ({memory_bytes / (1 << 30):,.1f} GiB): the page cache will serve much of it, "
                "so results will be too good. Set direct=1 or a larger --size.",
            )
        )
    return warnings


def _check_writable(path: Path) -> None:
    if not os.access(path, os.W_OK | os.X_OK):
        raise TargetError(f"Cannot write to {path}: permission denied. Choose a directory you can write to with --target.")
    probe = path / f".iotui-probe-{os.getpid()}"
    try:
        descriptor = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError as error:
        raise TargetError(
            f"Cannot create a file in {path} ({error.strerror}); choose a directory you can write to with --target."
        ) from None
    os.close(descriptor)
    try:
        probe.unlink()
    except OSError:
        pass


def _partitions(disk: str) -> list[str]:
    base = Path(f"/sys/block/{disk}")
    return [entry.name for entry in base.iterdir() if (entry / "partition").exists()] if base.is_dir() else []


def _check_raw_device(info: TargetInfo, *, read_only: bool) -> None:
    device = info.path
    if not read_only:
        raise TargetError(
            f"{device} is a raw block device and this preset writes: iotui refuses write tests on raw "
            "devices (they destroy data). Choose a read-only preset or a directory on a filesystem."
        )
    name = _sys_block_name(str(device))
    if name is None:
        raise TargetError(f"Cannot identify the block device {device} in /sys; iotui will not read it blind.")
    real_name = Path(os.path.realpath(device)).name
    names = {name, real_name} | set(_partitions(name))
    dev_paths = {f"/dev/{n}" for n in names}
    for mount in read_mounts():
        source = os.path.realpath(mount.source) if mount.source.startswith("/dev/") else mount.source
        if source in dev_paths or mount.source in dev_paths:
            raise TargetError(
                f"{device} (or a partition of it) is mounted at {mount.mount_point}: iotui does not test mounted "
                "devices raw. Test the mounted directory instead."
            )
    for node in names:
        for holders_dir in (Path(f"/sys/block/{name}/{node}/holders"), Path(f"/sys/block/{node}/holders")):
            try:
                holders = [entry.name for entry in holders_dir.iterdir()]
            except OSError:
                continue
            if holders:
                raise TargetError(
                    f"{device} is held by {', '.join(holders)} (device mapper, RAID or LVM): iotui does not test it raw."
                )
    try:
        swaps = Path("/proc/swaps").read_text().splitlines()[1:]
    except OSError:
        swaps = []
    for line in swaps:
        swap_device = line.split()[0] if line.split() else ""
        if os.path.realpath(swap_device) in dev_paths or swap_device in dev_paths:
            raise TargetError(f"{device} (or a partition of it) is used as swap: iotui does not test it raw.")


def list_targets(cwd: Path | None = None) -> list[TargetInfo]:
    """Mounted filesystems worth offering, the current directory first."""
    cwd = Path(cwd or os.getcwd())
    targets: list[TargetInfo] = []
    seen: set[Path] = set()
    try:
        first = inspect_target(cwd)
        targets.append(first)
        seen.add(first.path)
    except TargetError:
        pass
    mounts = read_mounts()
    for mount in mounts:
        if mount.filesystem in PSEUDO_FILESYSTEMS or mount.filesystem.startswith("cgroup"):
            continue
        if str(mount.mount_point).startswith(("/proc", "/sys", "/dev", "/run/user", "/snap")):
            continue
        if mount.mount_point in seen:
            continue
        try:
            info = inspect_target(mount.mount_point, mounts)
        except TargetError:
            continue
        seen.add(mount.mount_point)
        targets.append(info)
    return targets


_WRITE_WORDS = ("write", "trim", "rw", "verify")


def is_write_workload(preset: object) -> bool:
    """Does any section write (rw/readwrite with write, trim, rw, randrw; verify)?"""
    options = [getattr(preset, "options", {})] + [section.options for section in getattr(preset, "jobs", ())]
    for table in options:
        for key in ("rw", "readwrite"):
            value = str(table.get(key, "")).lower().split(":", 1)[0]
            if any(word in value for word in _WRITE_WORDS):
                return True
        if str(table.get("verify", "0")).lower() not in ("0", "", "none", "false"):
            return True
        if "do_verify" in table and str(table["do_verify"]) not in ("0", "false"):
            return True
    return False
