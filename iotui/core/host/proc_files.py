"""Reading small kernel files (/proc, /sys): their text, or None where they are missing or unreadable."""

from __future__ import annotations

import os
from pathlib import Path

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def read_text(path: Path | str) -> str | None:
    # Read a dozen times a second during a run: plain open/read/close, without the
    # buffered text file's fstat, isatty and seeks (pathlib's read_text costs about
    # twice as much in system calls and Python objects).
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks).decode()
    except (OSError, UnicodeDecodeError):
        # Missing on non-Linux, EOPNOTSUPP for /proc/pressure when booted with psi=0.
        return None
    finally:
        os.close(fd)
