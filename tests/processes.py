"""The command lines of this machine's processes, read from /proc (for checks that nothing is left)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator


def command_lines() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, argv) of every process whose command line can still be read."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        yield int(entry.name), argv
