"""The one writer of every file iotui makes: records, fio's reports beside them, sweep records,
report pages, chart files, exported tables and caches.

Its promises:

- a file is written whole or not at all: the bytes go to a temp file in the same directory,
  ``.iotui-tmp-<pid>-<8 hex>-<name>``, created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (never
  through a symlink, never over anything already there), fsynced, then renamed to its name;
- a name that holds something other than a regular file (a device such as ``/dev/null``, a FIFO,
  a socket, a directory, a symlink) is refused with :class:`UnsafeFileError`, never renamed over
  and never written through;
- several files that belong together (a record and fio's report beside it) are all written to
  temp files first and renamed only when every one is complete, so a full disk leaves none of them;
- temp files whose writer is gone (killed during a save) are removed the first time this process
  writes into that directory, and so are the ``.NAME.XXXXXXXX.tmp`` files older iotui versions left.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import time
from pathlib import Path
from typing import Literal, Sequence

TEMP_PREFIX = ".iotui-tmp-"
_TEMP_NAME = re.compile(r"^\.iotui-tmp-(\d+)-[0-9a-f]{8}-")
# What ``tempfile.mkstemp(prefix=".NAME.", suffix=".tmp")`` made in iotui before this writer.
_OLD_TEMP_NAME = re.compile(r"^\..+\.(?:toml|json|html)\.[a-z0-9_]{8}\.tmp$")
OLD_TEMP_AGE_S = 15 * 60  # an old-style temp file carries no pid: only one this stale is surely orphaned
_NAME_MAX_BYTES = 255

UnsafeCode = Literal["not-regular-file", "folder-is-symlink", "not-a-folder"]

_CLEANED_DIRECTORIES: set[str] = set()


class UnsafeFileError(OSError):
    """A place iotui will not write: ``code``, the ``path`` and what is there (``kind``).

    An OSError, so every caller that reports a failed write reports this one too; ``strerror``
    is the fact in a few words, for callers that word it themselves."""

    def __init__(self, code: UnsafeCode, path: Path, kind: str) -> None:
        fact = f"{kind}, not a regular file" if code == "not-regular-file" else (
            "a symbolic link, not a folder" if code == "folder-is-symlink" else f"{kind}, not a folder"
        )
        super().__init__(errno.EEXIST, fact, str(path))
        self.code: UnsafeCode = code
        self.path = Path(path)
        self.kind = kind

    def __str__(self) -> str:
        return f"{self.path} is {self.strerror}"


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words."""
    for test, words in (
        (stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"),
        (stat.S_ISREG, "a regular file"),
    ):
        if test(mode):
            return words
    return "a special file"


def check_file_place(path: Path, *, dir_fd: int | None = None) -> bool:
    """Refuse a name that holds anything but a regular file; whether a regular file is there.

    With ``dir_fd``, ``path``'s name is looked up in that open directory."""
    try:
        info = os.stat(path.name if dir_fd is not None else path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFileError("not-regular-file", path, kind_of(info.st_mode))
    return True


def ensure_folder(folder: Path) -> None:
    """Make ``folder`` (and its parents) if missing; refuse one that is a symlink or not a folder.

    For folders iotui writes many files into (a report's charts): a link planted there would send
    them to wherever it points."""
    if not os.path.lexists(folder):
        folder.mkdir(parents=True, exist_ok=True)
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeFileError("folder-is-symlink", folder, "a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeFileError("not-a-folder", folder, kind_of(info.st_mode))


def temp_name(name: str, pid: int | None = None) -> str:
    """The recognisable temp name for ``name``: the writer's pid, 8 random hex digits, the name."""
    head = f"{TEMP_PREFIX}{os.getpid() if pid is None else pid}-{secrets.token_hex(4)}-"
    tail = name.encode("utf-8")[: _NAME_MAX_BYTES - len(head)].decode("utf-8", errors="ignore")
    return head + tail


def write_file(path: Path, data: bytes, *, durable: bool = True, mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` whole or not at all (see the module's promises).

    ``mode`` is masked by the umask as ``open()`` does; ``durable=False`` leaves out the fsyncs
    (a bulk import syncs once at its end)."""
    write_files([(Path(path), data)], durable=durable, mode=mode)


def write_files(items: Sequence[tuple[Path, bytes]], *, durable: bool = True, mode: int = 0o666) -> None:
    """Write files that belong together: every temp file complete before the first rename, renamed
    in the order given (the last one is the file that names the others: a record after its report).

    Raises OSError (:class:`UnsafeFileError` for a name that is not a regular file); on any failure
    no temp file is left, and no file that this call created stays behind."""
    directories: dict[str, int] = {}
    temps: list[tuple[Path, int, str]] = []  # (final path, directory fd, temp name)
    renamed: list[tuple[Path, int, bool]] = []  # (final path, directory fd, it existed before)
    try:
        for path, data in items:
            path = Path(path)
            parent = str(path.parent)
            if parent not in directories:
                directories[parent] = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                remove_stale_temp_files(path.parent)
            dir_fd = directories[parent]
            check_file_place(path, dir_fd=dir_fd)
            name = temp_name(path.name)
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
            temps.append((path, dir_fd, name))
            try:
                _write_all(fd, data)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
        for path, dir_fd, name in temps:
            existed = check_file_place(path, dir_fd=dir_fd)  # again: something may have been put there meanwhile
            os.rename(name, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            renamed.append((path, dir_fd, existed))
        temps = []
        if durable:
            for dir_fd in directories.values():
                _fsync_quietly(dir_fd)
    except BaseException:  # also on cancellation: the temp files go, the error goes on
        for path, dir_fd, name in temps:
            if not any(done == path for done, _, _ in renamed):
                _unlink_quietly(name, dir_fd)
        for path, dir_fd, existed in renamed:
            if not existed:  # a report whose record could not be written does not stay alone
                _unlink_quietly(path.name, dir_fd)
        raise
    finally:
        for dir_fd in directories.values():
            os.close(dir_fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[: 1 << 24]):]


def _fsync_quietly(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass


def _unlink_quietly(name: str, dir_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def writer_alive(pid: int) -> bool:
    """Whether the process ``pid`` exists (owned by anyone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temp_files(directory: Path, *, force: bool = False) -> list[Path]:
    """Remove the temp files in ``directory`` whose writer is gone; once per process and directory
    unless ``force``. Returns what was removed; a directory that cannot be read is left alone."""
    key = str(directory)
    if key in _CLEANED_DIRECTORIES and not force:
        return []
    _CLEANED_DIRECTORIES.add(key)
    removed: list[Path] = []
    now_s = time.time()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith("."):
            continue
        match = _TEMP_NAME.match(entry.name)
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            continue
        if match:
            stale = not writer_alive(int(match.group(1)))
        else:
            stale = bool(_OLD_TEMP_NAME.match(entry.name)) and stat.S_ISREG(info.st_mode) and now_s - info.st_mtime > OLD_TEMP_AGE_S
        if stale:
            try:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except OSError:
                pass
    return removed
