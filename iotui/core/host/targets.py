"""Where iotui may write: mounted filesystems, target facts and the checks before a run.

A target is a directory on a mounted filesystem, checked before fio starts
(space, permissions, filesystem kind), or a raw block device behind strict
guards (read-only presets, nothing mounted, held or swapped on it).
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from iotui.core.host.disks import (
    device_dir_for_mount,
    device_numbers,
    rotational_and_model,
    raw_device_problem,
    swap_devices,
    sysfs_dir,
)
from iotui.core.host.mounts import Mount, mount_for, read_mounts


class TargetError(Exception):
    """A target iotui refuses; str() says what is wrong, naming no command-line flag.

    ``code`` names the refusal where a front end adds what to do in its own terms (a flag, a
    field): ``target-missing`` (the path does not exist), ``target-memory`` (tmpfs or ramfs
    without leave to measure memory), ``target-read-only`` (iotui cannot write there),
    ``target-space`` (the test file does not fit). The others already say what to do.
    """

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


# -- targets ------------------------------------------------------------------------

WARN_FILESYSTEMS = {
    "overlay": "an overlay filesystem (a container's layered root, typically): it measures a stack, not a device",
    "fuse": "a FUSE filesystem: it measures a user-space daemon and what is behind it, a stack, not a device",
    "nfs": "a network filesystem (NFS): it measures the network and the server, not a local device",
    "nfs4": "a network filesystem (NFS): it measures the network and the server, not a local device",
    "cifs": "a network filesystem (SMB): it measures the network and the server, not a local device",
    "smb3": "a network filesystem (SMB): it measures the network and the server, not a local device",
    "ceph": "a network filesystem (Ceph): it measures the cluster and the network, not a local device",
    "glusterfs": "a network filesystem (GlusterFS): it measures the cluster and the network, not a local device",
    "9p": "a 9p filesystem (often a VM's share of the host): it measures the share, not a device",
    "virtiofs": "a virtio-fs share: it measures the host's filesystem through the VM, not a device",
    "btrfs": "btrfs: copy-on-write and checksums shape the numbers, so it measures a stack, not the bare device",
    "zfs": "ZFS: its ARC cache and copy-on-write shape the numbers, and direct I/O may not bypass the ARC",
    "bcachefs": "bcachefs: copy-on-write and checksums shape the numbers, so it measures a stack, not the bare device",
    "ecryptfs": "an encrypting stacked filesystem (eCryptfs): it measures a stack, not a device",
}
MEMORY_FILESYSTEMS = {"tmpfs", "ramfs", "devtmpfs"}
PSEUDO_FILESYSTEMS = {
    "proc", "sysfs", "devpts", "cgroup", "cgroup2", "securityfs", "pstore", "debugfs", "tracefs",
    "configfs", "fusectl", "mqueue", "hugetlbfs", "bpf", "autofs", "binfmt_misc", "rpc_pipefs",
    "nsfs", "efivarfs", "selinuxfs", "squashfs", "devtmpfs", "ramfs", "fuse.lxcfs", "nfsd",
    "overlayfs_internal",
}
# Directories under which mounts are the system's, not places to benchmark.
_SYSTEM_MOUNT_PREFIXES = ("/proc", "/sys", "/dev", "/run", "/snap", "/var/lib/docker", "/var/lib/containers")
_OFFERED_UNDER_SYSTEM = ("/run/media",)  # removable drives mount here
FREE_SPACE_MARGIN_BYTES = 64 << 20
# Inodes kept free beyond the run's files: iotui's private directory, the job's subdirectories, the probe.
FREE_INODES_MARGIN = 64
# Files one run may create, whatever the inodes: nrfiles=0x7fffffff passed every byte check with size=1M.
MAX_RUN_FILES = 1_000_000


@dataclass
class TargetInfo:
    """What iotui knows about a target before a run (a directory, or a raw device)."""

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
    # Inodes an unprivileged user may still use (f_favail); None where the filesystem does not count them.
    free_inodes: int | None = None


def _filesystem_warning(filesystem: str) -> tuple[str, str] | None:
    base = filesystem.split(".", 1)[0]
    if base.startswith("fuse"):
        base = "fuse"
    for name in (filesystem, base):
        if name in WARN_FILESYSTEMS:
            return f"fs-{name}", f"The target is on {WARN_FILESYSTEMS[name]}."
    return None


def _free_bytes(path: Path) -> int | None:
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def free_inodes(path: Path) -> int | None:
    """statvfs's f_favail; None for a raw device, or where the filesystem reports no inodes at all
    (btrfs and many network filesystems allocate them as needed: 0 total means unknown, not full)."""
    try:
        if stat.S_ISBLK(os.stat(path).st_mode):
            return None
        status = os.statvfs(path)
    except OSError:
        return None
    return int(status.f_favail) if status.f_files else None


def files_problem(needs_files: int | None, how: str, free_inodes: int | None, where: str) -> str | None:
    """A sentence refusing a run that creates too many files (over MAX_RUN_FILES, or over ``where``'s
    free inodes less FREE_INODES_MARGIN), or None. ``how``: how the count adds up (nrfiles x numjobs)."""
    if not needs_files:
        return None
    if needs_files > MAX_RUN_FILES:
        return (
            f"The run would create {needs_files:,} files ({how}); iotui refuses more than {MAX_RUN_FILES:,} "
            "files in one run. Lower nrfiles or numjobs."
        )
    if free_inodes is not None and needs_files + FREE_INODES_MARGIN > free_inodes:
        return (
            f"Not enough free inodes in {where}: the run creates {needs_files:,} files ({how}) plus a margin of "
            f"{FREE_INODES_MARGIN} and {free_inodes:,} inodes are free. Lower nrfiles or numjobs, remove some "
            "files there, or choose another target."
        )
    return None


def chosen_target(target: TargetInfo | str | os.PathLike[str] | None) -> TargetInfo:
    """A run's target as its one value: the user's text (None: the current directory) inspected, the
    only time its path is resolved; or a target already chosen (Home's), its free space and inodes
    read now. The mount and disk facts hold while the target stays chosen; the space a run is checked
    against must be this moment's. TargetError when it does not exist (any more)."""
    if not isinstance(target, TargetInfo):
        return inspect_target(Path(target if target is not None else os.getcwd()))
    if not target.path.exists():  # gone since it was chosen
        raise TargetError(f"The target {target.path} does not exist.", code="target-missing")
    if target.is_block_device:
        return target
    return replace(target, free_bytes=_free_bytes(target.path), free_inodes=free_inodes(target.path))


def inspect_target(
    path: Path, mounts: list[Mount] | None = None, *, sys_root: Path = Path("/sys")
) -> TargetInfo:
    """Facts about a target path (mount, filesystem, device, free space, warnings).

    Raises TargetError when the path does not exist, since nothing can be said
    about it.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise TargetError(f"The target {path} does not exist.", code="target-missing")
    resolved = path.resolve()
    try:
        status = os.stat(resolved)
    except OSError as error:
        raise TargetError(f"Cannot look at the target {path} ({error.strerror}).") from None
    mounts = read_mounts() if mounts is None else mounts
    if stat.S_ISBLK(status.st_mode):
        device_dir = sysfs_dir(os.major(status.st_rdev), os.minor(status.st_rdev), sys_root)
        rotational, model = rotational_and_model(device_dir)
        return TargetInfo(resolved, "raw", str(resolved), resolved, "", True, rotational, model, None)
    mount = mount_for(resolved, mounts)
    rotational, model = rotational_and_model(device_dir_for_mount(mount, sys_root)) if mount else (None, None)
    filesystem = mount.filesystem if mount else "unknown"
    info = TargetInfo(
        path=resolved,
        filesystem=filesystem,
        device=mount.source if mount else "unknown",
        mount_point=mount.mount_point if mount else Path(resolved.anchor or "/"),
        mount_options=mount.options if mount else "",
        is_block_device=False,
        rotational=rotational,
        model=model,
        free_bytes=_free_bytes(resolved),
        free_inodes=free_inodes(resolved),
    )
    warning = _filesystem_warning(filesystem)
    if warning:
        info.warnings.append(warning)
    if filesystem in MEMORY_FILESYSTEMS:
        info.warnings.append(
            ("fs-memory", f"The target is on {filesystem}: it measures memory, not storage.")
        )
    return info


def _mem_total_bytes() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:  # noqa: BLE001 - an unknown RAM size only drops one warning
        return None


def _format_mib(size_bytes: int) -> str:
    return f"{size_bytes / (1 << 20):,.0f} MiB"


def check_target(
    info: TargetInfo,
    *,
    needs_bytes: int | None,
    direct: bool,
    read_only: bool,
    allow_cache: bool,
    mem_total_bytes: int | None = None,
    needs_files: int | None = None,
    files_how: str = "",
    mounts: list[Mount] | None = None,
    sys_root: Path = Path("/sys"),
    swaps: Path = Path("/proc/swaps"),
) -> list[tuple[str, str]]:
    """Refuse the target (TargetError: what is wrong, and its ``code``) or return its warnings.

    ``read_only``: the preset only reads (see :func:`is_write_workload`).
    ``needs_bytes``: the test file's size (``command.required_bytes``).
    ``needs_files``: files the run creates (``estimate.file_estimate``), ``files_how`` how they add up.
    """
    path = info.path
    if info.is_block_device and not read_only:
        raise TargetError(
            f"{path} is a raw block device and this preset writes: iotui refuses write tests on raw "
            "devices (they destroy data). Choose a read-only preset or a directory on a filesystem."
        )
    if not path.exists():
        raise TargetError(f"The target {path} does not exist.", code="target-missing")
    memory_bytes = mem_total_bytes if mem_total_bytes is not None else _mem_total_bytes()
    if info.is_block_device:
        _check_raw_device(info, mounts=mounts, sys_root=sys_root, swaps=swaps)
        warnings = list(info.warnings)
        if not direct and needs_bytes and memory_bytes and needs_bytes < 2 * memory_bytes:
            warnings.append(_page_cache_warning(needs_bytes, memory_bytes))
        return warnings
    if not path.is_dir():
        raise TargetError(
            f"The target {path} is not a directory; give a directory (or a raw device for read-only presets)."
        )
    if info.filesystem in MEMORY_FILESYSTEMS and not allow_cache:
        raise TargetError(
            f"The target {path} is on {info.filesystem}, which is memory: the results would not be storage "
            "numbers.", code="target-memory",
        )
    _check_writable(path)
    if needs_bytes and info.free_bytes is not None and needs_bytes + FREE_SPACE_MARGIN_BYTES > info.free_bytes:
        raise TargetError(
            f"Not enough free space in {path}: the run needs {_format_mib(needs_bytes)} plus a "
            f"{_format_mib(FREE_SPACE_MARGIN_BYTES)} margin and {_format_mib(info.free_bytes)} is free.",
            code="target-space",
        )
    problem = files_problem(needs_files, files_how, info.free_inodes, str(path))
    if problem:
        raise TargetError(problem)
    warnings = list(info.warnings)
    if not direct and needs_bytes and memory_bytes and needs_bytes < 2 * memory_bytes:
        warnings.append(_page_cache_warning(needs_bytes, memory_bytes))
    return warnings


def _page_cache_warning(needs_bytes: int, memory_bytes: int) -> tuple[str, str]:
    return (
        "cache-small-file",
        f"Direct I/O is off and the test file ({_format_mib(needs_bytes)}) is smaller than twice the RAM "
        f"({memory_bytes / (1 << 30):,.1f} GiB): the page cache will serve much of it, so results will be "
        "too good. Set direct=1 or a larger size.",
    )


def _check_writable(path: Path) -> None:
    """os.access, then a real exclusive create and remove: ACLs, read-only mounts and quotas show up."""
    if not os.access(path, os.W_OK | os.X_OK):
        raise TargetError(f"Cannot write to {path}: permission denied.", code="target-read-only")
    import secrets  # here, not at import: it loads OpenSSL's hashes, and the app's first frame lists targets

    probe = path / f".iotui-probe-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        descriptor = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError as error:
        raise TargetError(
            f"Cannot write to {path}: creating a file there failed ({error.strerror}).", code="target-read-only"
        ) from None
    os.close(descriptor)
    try:
        probe.unlink()
    except OSError:
        pass


def _check_raw_device(info: TargetInfo, *, mounts: list[Mount] | None, sys_root: Path, swaps: Path) -> None:
    """Only a device nothing uses may be read raw (the caller has refused writes already)."""
    device = info.path
    numbers = device_numbers(str(device))
    device_dir = sysfs_dir(*numbers, sys_root) if numbers else None
    if device_dir is None:
        raise TargetError(
            f"Cannot find the block device {device} in {sys_root}, so iotui cannot check that nothing uses it; "
            "choose a directory on a filesystem instead."
        )
    problem = raw_device_problem(device_dir, read_mounts() if mounts is None else mounts, swap_devices(swaps))
    if problem:
        raise TargetError(f"iotui will not read {device} raw: {problem}.")
    if not os.access(device, os.R_OK):
        raise TargetError(f"Cannot read {device}: permission denied. Run as a user who may read the device.")


def _under(path: Path, prefixes: tuple[str, ...]) -> bool:
    return any(path == Path(prefix) or Path(prefix) in path.parents for prefix in prefixes)


def _offered(mount: Mount) -> bool:
    """Is this mount a place a user would benchmark (not a pseudo or system filesystem)?"""
    if mount.filesystem in PSEUDO_FILESYSTEMS or mount.filesystem.startswith("cgroup"):
        return False
    if _under(mount.mount_point, _SYSTEM_MOUNT_PREFIXES) and not _under(mount.mount_point, _OFFERED_UNDER_SYSTEM):
        return False
    return "ro" not in mount.options.split(",")


def list_targets(
    cwd: Path | None = None, *, mounts: list[Mount] | None = None, sys_root: Path = Path("/sys")
) -> list[TargetInfo]:
    """Mounted filesystems worth offering, the current directory first, each with its warnings.

    Pseudo and system filesystems and read-only mounts are left out; a bind
    mount of a filesystem already listed is shown once.
    """
    cwd = Path(cwd or os.getcwd())
    mounts = read_mounts() if mounts is None else mounts
    targets: list[TargetInfo] = []
    seen_paths: set[Path] = set()
    seen_filesystems: set[tuple[int, int, str]] = set()
    try:
        first = inspect_target(cwd, mounts, sys_root=sys_root)
        targets.append(first)
        seen_paths.add(first.path)
    except TargetError:
        pass
    # The mount on top of each mount point is the one that counts.
    on_top = {mount.mount_point: mount for mount in mounts}
    for mount in on_top.values():
        if not _offered(mount) or mount.mount_point in seen_paths:
            continue
        filesystem_key = (mount.major, mount.minor, mount.root)
        if mount.major >= 0 and filesystem_key in seen_filesystems:
            continue
        try:
            info = inspect_target(mount.mount_point, mounts, sys_root=sys_root)
        except TargetError:
            continue
        if not os.access(info.path, os.W_OK | os.X_OK):
            info.warnings.append(
                ("unwritable", f"You cannot create files in {info.path}: choose a directory inside it you can write to.")
            )
        seen_filesystems.add(filesystem_key)
        seen_paths.add(mount.mount_point)
        targets.append(info)
    return targets
