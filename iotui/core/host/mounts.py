"""The mount table: which filesystem holds a path (/proc/self/mountinfo; psutil elsewhere)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mount:
    """One line of /proc/self/mountinfo."""

    mount_point: Path
    filesystem: str
    source: str
    options: str
    major: int = -1
    minor: int = -1
    root: str = "/"


def _unescape(field_text: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as octal.
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), field_text)


def parse_mountinfo(text: str) -> list[Mount]:
    """The lines of a mountinfo file, in order (a later mount on the same point is on top)."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        left_fields, right_fields = left.split(), right.split()
        if len(left_fields) < 6 or len(right_fields) < 2:
            continue
        super_options = right_fields[2] if len(right_fields) > 2 else ""
        # Per-mount and superblock options, each once, in order.
        options = ",".join(dict.fromkeys((left_fields[5] + "," + super_options).strip(",").split(",")))
        major_text, _, minor_text = left_fields[2].partition(":")
        try:
            major, minor = int(major_text), int(minor_text)
        except ValueError:
            major, minor = -1, -1
        mounts.append(
            Mount(
                Path(_unescape(left_fields[4])), right_fields[0], _unescape(right_fields[1]), options,
                major, minor, _unescape(left_fields[3]),
            )
        )
    return mounts


def read_mounts(mountinfo: Path = Path("/proc/self/mountinfo")) -> list[Mount]:
    """The mount table: mountinfo on Linux, psutil's partitions elsewhere, [] when unknown."""
    try:
        return parse_mountinfo(mountinfo.read_text())
    except OSError:
        pass
    if sys.platform.startswith("linux"):
        return []
    try:
        import psutil

        return [
            Mount(Path(part.mountpoint), part.fstype, part.device, part.opts)
            for part in psutil.disk_partitions(all=True)
        ]
    except Exception:  # noqa: BLE001 - no mount table only means fewer facts
        return []


def mount_for(path: Path, mounts: list[Mount]) -> Mount | None:
    """The mount holding ``path``: the longest mount point above it, the latest on ties."""
    best: Mount | None = None
    for mount in mounts:
        try:
            path.relative_to(mount.mount_point)
        except ValueError:
            continue
        if best is None or len(mount.mount_point.parts) >= len(best.mount_point.parts):
            best = mount
    return best
