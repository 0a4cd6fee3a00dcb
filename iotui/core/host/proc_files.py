"""Reading small kernel files (/proc, /sys): their text, or None where they are missing or unreadable."""

from __future__ import annotations

from pathlib import Path


def read_text(path: Path) -> str | None:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        # Missing on non-Linux, EOPNOTSUPP for /proc/pressure when booted with psi=0.
        return None

