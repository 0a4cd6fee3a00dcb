"""A private ext4 filesystem on a loop device: a device no other program on the machine writes to.

Tests of another program's I/O need a device that is quiet unless the test makes it
busy; the machine's own disk is shared with whatever else runs. The loop device does
direct I/O to its backing file, so a writer on it moves at the disk's pace rather than
the page cache's; its inode tables are written by mkfs, not by the kernel after the
mount. Needs root (losetup, mkfs.ext4, mount); ``None`` where any step fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=60)


@contextmanager
def private_loop_fs(directory: Path, size_mib: int = 1024) -> Iterator[Path | None]:
    """A mounted ext4 of ``size_mib`` on a new loop device under ``directory``; unmounted and detached after."""
    if os.geteuid() != 0 or not all(shutil.which(tool) for tool in ("losetup", "mkfs.ext4", "mount", "umount")):
        yield None
        return
    image, mount_point = directory / "loop.img", directory / "mnt"
    with open(image, "wb") as handle:
        handle.truncate(size_mib * 1024 * 1024)
    attached = _run("losetup", "--find", "--show", "--direct-io=on", str(image))
    device = attached.stdout.strip()
    if attached.returncode != 0 or not device:
        image.unlink()
        yield None
        return
    mounted = False
    try:
        mount_point.mkdir()
        made = _run("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", device)
        mounted = made.returncode == 0 and _run("mount", device, str(mount_point)).returncode == 0
        yield mount_point if mounted else None
    finally:
        if mounted:
            _run("umount", str(mount_point))
        _run("losetup", "--detach", device)
        image.unlink(missing_ok=True)
