"""Directories of the operating system itself: a run there writes its test file among system files.

iotui never overwrites anything (its test file is created exclusively and
removed after the run), but filling ``/`` or ``/boot`` with a 1 GiB test file
can still starve the system, so the app asks before a run there.
"""

from __future__ import annotations

from pathlib import Path

SYSTEM_DIRECTORIES = frozenset(
    {"/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc", "/root",
     "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/usr/bin", "/usr/lib", "/usr/local", "/usr/sbin",
     "/var/lib", "/var/log", "/boot/efi", "/System", "/Library", "/private"}
)


def is_system_directory(path: str | Path) -> bool:
    """Whether ``path`` (resolved) is one of the system's own directories (not one below them)."""
    try:
        resolved = str(Path(path).expanduser().resolve())
    except (OSError, RuntimeError):
        resolved = str(path)
    return resolved in SYSTEM_DIRECTORIES
