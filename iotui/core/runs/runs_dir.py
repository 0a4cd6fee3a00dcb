"""The runs directory, checked before fio starts so a finished run is never lost."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

# Room for a record and its raw report (a long run's json+ report is a few MiB).
RUNS_DIR_ROOM_BYTES = 16 << 20


class RunsDirError(Exception):
    """The runs directory cannot take a record; str() says why (``path`` is the directory)."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def check_runs_dir(runs_dir: Path, *, room_bytes: int = RUNS_DIR_ROOM_BYTES) -> None:
    """Can records be saved here: created if missing, a directory, writable, with room?"""
    runs_dir = Path(runs_dir).expanduser()
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise RunsDirError(f"The runs directory {runs_dir} is a file, not a directory; records cannot be saved there.", runs_dir) from None
    except OSError as error:
        raise RunsDirError(f"The runs directory {runs_dir} cannot be created ({error.strerror}).", runs_dir) from None
    if not runs_dir.is_dir():
        raise RunsDirError(f"The runs directory {runs_dir} is not a directory; records cannot be saved there.", runs_dir)
    probe = runs_dir / f".iotui-write-check-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        descriptor = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(descriptor)
        probe.unlink()
    except OSError as error:
        raise RunsDirError(f"Records cannot be written to the runs directory {runs_dir} ({error.strerror}).", runs_dir) from None
    try:
        free = shutil.disk_usage(runs_dir).free
    except OSError:
        return
    if free < room_bytes:
        raise RunsDirError(
            f"The runs directory {runs_dir} has {free >> 20} MiB free; a record needs up to "
            f"{room_bytes >> 20} MiB.", runs_dir,
        )
