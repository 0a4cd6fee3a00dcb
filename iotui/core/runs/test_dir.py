"""iotui's private test directory: where every file fio touches lives.

Created inside the target with a random name (``.iotui-`` + 16 hex digits),
exclusively (``mkdir`` fails on anything already there, a symlink included)
and with mode 0700, so no other user can race a file or a symlink into it.
A marker inside says which process owns it; after every ending the directory
is removed with everything in it, and one left behind by a power loss or a
killed iotui is found and removed at the next run on that target.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

PRIVATE_DIR_PREFIX = ".iotui-"
SHARED_FILE_NAME = "testfile"
MARKER_NAME = ".iotui-owner"
_PRIVATE_DIR_NAME = re.compile(r"\.iotui-[0-9a-f]{16}\Z")


class TestDirError(Exception):
    """The private test directory cannot be made; str() says why and what to do."""

    __test__ = False  # not a pytest class


def new_private_dir(target: Path) -> Path:
    """A fresh random name for a private directory inside ``target`` (not created)."""
    return Path(target) / f"{PRIVATE_DIR_PREFIX}{secrets.token_hex(8)}"


def new_test_file_path(directory: Path, run_id: str) -> Path:
    """The shared test file, inside a new private directory of ``directory`` (not created)."""
    return new_private_dir(directory) / SHARED_FILE_NAME


def is_private_dir_name(name: str) -> bool:
    return bool(_PRIVATE_DIR_NAME.match(name))


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def create_private_dir(path: Path, subdirs: Sequence[Path] = ()) -> None:
    """Create ``path`` exclusively with mode 0700, its owner marker and ``subdirs`` (inside it)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        raise TestDirError(f"{path} already exists; iotui will not use a directory it did not create.") from None
    except OSError as error:
        raise TestDirError(
            f"Cannot create iotui's test directory in {path.parent} ({error.strerror}); "
            "choose a directory you can write to."
        ) from None
    os.chmod(path, 0o700)  # whatever the umask
    marker = {"pid": os.getpid(), "boot_id": _boot_id()}
    descriptor = os.open(path / MARKER_NAME, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as marker_file:
        json.dump(marker, marker_file)
    for subdir in subdirs:
        subdir = Path(subdir)
        if path not in subdir.parents:
            raise TestDirError(f"{subdir} is not inside iotui's test directory {path}.")
        subdir.mkdir(mode=0o700, parents=True, exist_ok=True)


def remove_private_dir(path: Path) -> str | None:
    """Remove the directory and everything in it; a sentence when something could not be removed."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"Could not remove iotui's test directory {path} ({error.strerror}); remove it by hand."
    return None


def _owner_alive(marker: dict) -> bool:
    pid = marker.get("pid")
    if not isinstance(pid, int) or marker.get("boot_id") != _boot_id():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def leftovers(target: Path) -> list[Path]:
    """Private directories in ``target`` whose owning iotui is gone (a power loss, a kill)."""
    found = []
    try:
        entries = list(os.scandir(target))
    except OSError:
        return []
    for entry in entries:
        if not is_private_dir_name(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        try:
            marker = json.loads((Path(entry.path) / MARKER_NAME).read_text(encoding="utf-8"))
        except FileNotFoundError:
            marker = {}  # killed between mkdir and the marker: nobody owns it
        except (OSError, ValueError):
            continue
        if isinstance(marker, dict) and _owner_alive(marker):
            continue
        found.append(Path(entry.path))
    return found


def remove_leftovers(target: Path) -> list[Path]:
    """Remove :func:`leftovers`; returns the ones removed."""
    removed = []
    for path in leftovers(target):
        if remove_private_dir(path) is None:
            removed.append(path)
    return removed
