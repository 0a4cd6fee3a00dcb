"""Where History's index lives: whether the file is iotui's own, SQLite's failures as codes, the
index in memory used instead of a file that is not (one per runs directory, for the process)."""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from stat import S_ISREG, S_ISVTX
from typing import Iterable, Iterator, Literal

COMPANIONS = ("-journal", "-wal", "-shm")

IndexNotUsed = Literal["not-own-index", "shared-directory", "read-only-directory", "disk-full"]
"""Why History listed from an index in memory: the file is another user's or writable by others;
the directory can be changed by other users; it cannot be written; the disk is full."""

IndexErrorCode = Literal["busy", "corrupt", "full", "unusable"]


class HistoryIndexError(Exception):
    """The index file could not be used: ``code`` says why, ``detail`` is SQLite's words."""

    def __init__(self, code: IndexErrorCode, path: Path, detail: str) -> None:
        super().__init__(f"{path}: {code} ({detail})")
        self.code: IndexErrorCode = code
        self.path = path
        self.detail = detail


def not_own(runs_dir: Path, path: Path) -> IndexNotUsed | None:
    """Why the index file in ``runs_dir`` must not be trusted (None: it is iotui's own, or can be made so).

    A row of the index decides what ``--prune`` deletes, so the file must be this user's alone:
    owned by the effective user and not writable by group or others, as its journals; and the
    directory must be this user's or root's, writable by no one else unless sticky (where no one
    else can rename or remove this user's files).
    """
    euid = os.geteuid()
    directory = os.stat(runs_dir)
    if directory.st_uid not in (euid, 0) or (directory.st_mode & 0o022 and not directory.st_mode & S_ISVTX):
        return "shared-directory"
    for candidate in (path, *(path.with_name(path.name + tail) for tail in COMPANIONS)):
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            continue
        if info.st_uid != euid or (S_ISREG(info.st_mode) and info.st_mode & 0o022):
            return "not-own-index"
    if not os.path.lexists(path) and not os.access(runs_dir, os.W_OK | os.X_OK):
        return "read-only-directory"
    return None


def error_code(error: sqlite3.Error) -> IndexErrorCode:
    """What an SQLite error means for the index: busy (wait, then say so), corrupt (rebuild), full, other."""
    primary = getattr(error, "sqlite_errorcode", 0) & 0xFF
    words = str(error).lower()
    if primary in (5, 6) or "locked" in words or "busy" in words:  # SQLITE_BUSY, SQLITE_LOCKED
        return "busy"
    if primary == 13 or "full" in words:  # SQLITE_FULL
        return "full"
    if primary in (11, 26) or "not a database" in words or "malformed" in words:  # SQLITE_CORRUPT, SQLITE_NOTADB
        return "corrupt"
    return "unusable"


@contextmanager
def translated(path: Path) -> Iterator[None]:
    """SQLite's errors on the index file as :class:`HistoryIndexError` with its code."""
    try:
        yield
    except sqlite3.Error as error:
        raise HistoryIndexError(error_code(error), path, str(error)) from None


def remove_index_files(path: Path, only: Iterable[Path] | None = None) -> None:
    """Remove the index and its journals (or just those in ``only``); never through a symlink's target."""
    for candidate in (path, *(path.with_name(path.name + tail) for tail in COMPANIONS)):
        if only is None or candidate in only:
            try:
                candidate.unlink()
            except FileNotFoundError:
                pass


def existing_index_files(path: Path) -> set[Path]:
    return {candidate for candidate in (path, *(path.with_name(path.name + tail) for tail in COMPANIONS))
            if os.path.lexists(candidate)}


# Indexes built in memory (the file was not iotui's own, or could not be written), one per runs
# directory for the life of the process; a lock, as the app syncs in a thread and queries in another.
_MEMORY: dict[Path, sqlite3.Connection] = {}
_MEMORY_LOCK = threading.RLock()


@contextmanager
def memory_index(runs_dir: Path) -> Iterator[sqlite3.Connection | None]:
    """The runs directory's index in memory (None: none built), held for one caller at a time."""
    with _MEMORY_LOCK:
        yield _MEMORY.get(Path(runs_dir).resolve())


def install_memory(runs_dir: Path, connection: sqlite3.Connection) -> None:
    """Make ``connection`` the runs directory's index in memory (closing the one it replaces)."""
    with _MEMORY_LOCK:
        replaced = _MEMORY.pop(Path(runs_dir).resolve(), None)
        _MEMORY[Path(runs_dir).resolve()] = connection
    if replaced is not None:
        replaced.close()


def forget_memory(runs_dir: Path) -> None:
    with _MEMORY_LOCK:
        connection = _MEMORY.pop(Path(runs_dir).resolve(), None)
        if connection is not None:
            connection.close()
