"""A safe block device for scheduler tests: a loop device on a small file, ext4, mounted in a temp dir.

Root only. Whatever the test does, the loop device's scheduler is put back, the filesystem
unmounted and the loop device detached when the context ends.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

IMAGE_BYTES = 160 << 20  # sparse; room for a 16 MiB test file and iotui's 64 MiB margin


@dataclass(frozen=True)
class LoopFs:
    device: str  # "loop7"
    mount_point: Path
    scheduler_file: Path
    original: str  # its scheduler before the test

    def scheduler(self) -> str:
        text = self.scheduler_file.read_text().split()
        return next(word[1:-1] for word in text if word.startswith("["))


def skip_unless_loop_devices() -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a device's I/O scheduler needs root (a loop device stands in for a disk)")
    for tool in ("losetup", "mkfs.ext4", "mount", "umount"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@contextmanager
def loop_filesystem(work: Path) -> Iterator[LoopFs]:
    skip_unless_loop_devices()
    image, mount_point = work / "disk.img", work / "mnt"
    mount_point.mkdir()
    with open(image, "wb") as handle:
        handle.truncate(IMAGE_BYTES)
    found = subprocess.run(["losetup", "--find", "--show", str(image)], capture_output=True, text=True)
    if found.returncode != 0:
        pytest.skip(f"no loop device available: {found.stderr.strip()}")
    path = found.stdout.strip()
    name = Path(path).name
    scheduler_file = Path("/sys/block") / name / "queue" / "scheduler"
    original = next(word[1:-1] for word in scheduler_file.read_text().split() if word.startswith("["))
    mounted = False
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", path], check=True, capture_output=True)
        subprocess.run(["mount", path, str(mount_point)], check=True, capture_output=True)
        mounted = True
        yield LoopFs(name, mount_point, scheduler_file, original)
    finally:
        try:
            scheduler_file.write_text(original)
        except OSError:
            pass
        if mounted:
            subprocess.run(["umount", str(mount_point)], check=False, capture_output=True)
        subprocess.run(["losetup", "-d", path], check=False, capture_output=True)
        image.unlink(missing_ok=True)
