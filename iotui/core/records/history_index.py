"""An sqlite3 index of the runs directory, so History opens fast with tens of thousands of records.

The TOML records stay the source of truth: the index (``.iotui-index.sqlite3``
beside them) holds one row per record file with what History lists and
filters on, and the file's size and modification time. :func:`sync` brings it
up to date from the directory (new, changed and removed files) every time it
is opened, so a record written, edited or deleted by anything shows as it is.
A cold build reads every record's header tables (not its per-second samples,
:mod:`iotui.core.records.headers`) and reports its progress; once warm, a
sync is one directory scan. Every record iotui saves is added as it is saved
(:func:`index_saved`; a command that saves many, as ``iotui import`` does, through one
:class:`IndexBatch`), so History opens warm after any iotui command. A corrupt
index is rebuilt; a busy one (another iotui writing it) is waited for a bounded time, then
refused, never removed.

The index decides what History lists and ``--prune`` deletes, so it is used only when it is
iotui's own: the file (and its journals) owned by the effective user and writable by no one
else, in a directory no other user can change. Otherwise, and when the disk is too full to
write it, the index is built in memory from the records for this process, and the file is
neither read nor written. Before a prune deletes, each run is read again from its own file
(:func:`still_matching`), and every text read back from the index passes ``terminal_safe``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from stat import S_ISLNK, S_ISREG
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from iotui.core.records.record import RunRecord
from iotui.core.records.files import save_record
from iotui.core.records.headers import load_record_listing
from iotui.core.records.schema import RecordError
from iotui.core.records.index_store import (
    HistoryIndexError as HistoryIndexError, IndexNotUsed as IndexNotUsed, existing_index_files,
    forget_memory, install_memory, memory_index, not_own, remove_index_files, translated,
)
from iotui.core.records.index_rows import COLUMNS, IndexedRun as IndexedRun, indexed_run, is_record_file as is_record_file, row_for

INDEX_FILE_NAME = ".iotui-index.sqlite3"
INDEX_VERSION = 6  # 6: the hosts of a multi-host run
BUSY_TIMEOUT_S = 5.0
"""How long a connection waits for another iotui's write to the index before it gives up."""
ProgressCallback = Callable[[int, int], None]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs (
    name TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, run_id TEXT, preset TEXT, title TEXT,
    status TEXT, started TEXT, started_ts REAL, target TEXT, filesystem TEXT, device TEXT,
    read_iops TEXT, write_iops TEXT, p99_ns TEXT, notes TEXT, tags TEXT, forced INTEGER,
    error TEXT, search TEXT, paused_s REAL, responsiveness TEXT, mixed_iops TEXT, hosts TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_start ON runs (started_ts DESC);
"""


@dataclass(frozen=True)
class SyncResult:
    """What a sync did: records parsed (new or changed), removed, and how long it took."""

    parsed: int
    removed: int
    total: int
    seconds: float
    cold: bool
    not_used: IndexNotUsed | None = None
    """Why the index file was not used (the list was built in memory), or None when it was."""


def index_path(runs_dir: Path) -> Path:
    return Path(runs_dir) / INDEX_FILE_NAME


class IndexPathError(OSError):
    """The index path holds something that is not iotui's index file; str() is the sentence."""


def _no_symlinks(path: Path) -> None:
    """Never open the index or its journals through a symlink: another file would get iotui's tables.

    SQLite follows symlinks and has no way to refuse them from Python, so a symlink at the index's
    path (or its ``-journal``/``-wal``/``-shm``) is removed (the link only; what it names is not
    touched) and the index is built again as a new regular file, created with ``O_NOFOLLOW``.
    """
    for candidate in (path, *(path.with_name(path.name + tail) for tail in ("-journal", "-wal", "-shm"))):
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            continue
        if S_ISLNK(info.st_mode):
            candidate.unlink()
        elif not S_ISREG(info.st_mode):
            raise IndexPathError(
                errno.EEXIST, f"{candidate} is not a regular file, so it cannot be the history index; remove it"
            )
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:  # a symlink put there since the look above
            raise IndexPathError(errno.ELOOP, f"{path} became a symlink while it was opened; open History again") from None
        raise
    os.close(fd)


def _connect(runs_dir: Path) -> sqlite3.Connection:
    """The index file, opened (made if absent); a corrupt one is removed and made again.

    Raises :class:`HistoryIndexError` when it is busy beyond :data:`BUSY_TIMEOUT_S`, the disk is
    full, or it cannot be used; never removes an index that is only busy.
    """
    path = index_path(runs_dir)
    for attempt in (1, 2):
        _no_symlinks(path)
        connection = None
        try:
            with translated(index_path(runs_dir)):
                connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
                _prepare(connection)
            return connection
        except HistoryIndexError as error:
            if connection is not None:
                connection.close()
            if error.code != "corrupt" or attempt == 2:
                raise
            # A damaged index is only a cache of the records: start it again.
            remove_index_files(path)
    raise AssertionError("unreachable")


def _prepare(connection: sqlite3.Connection) -> None:
    """The tables, made or (another version's columns: the index is only a cache) made again."""
    connection.executescript(_SCHEMA)
    row = connection.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    if row is None or row[0] != str(INDEX_VERSION):
        connection.execute("DROP TABLE runs")
        connection.executescript(_SCHEMA)
        connection.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),))
        connection.commit()


def _sync_in_memory(
    runs_dir: Path, on_disk: dict[str, os.stat_result], progress: ProgressCallback | None
) -> tuple[int, int, bool]:
    """:func:`_sync_into` the index in memory; the first build is made aside and put in place
    when done, so a query meanwhile (the app's filter) is not held for the whole build."""
    with memory_index(runs_dir) as existing:
        if existing is not None:
            return _sync_into(existing, runs_dir, on_disk, progress)
    fresh = sqlite3.connect(":memory:", check_same_thread=False)
    _prepare(fresh)
    counts = _sync_into(fresh, runs_dir, on_disk, progress)
    install_memory(runs_dir, fresh)
    return counts


def sync(runs_dir: Path, progress: ProgressCallback | None = None) -> SyncResult:
    """Bring the index up to date with the record files; ``progress(done, to_parse)`` while parsing.

    Uses the index file when it is iotui's own, else (and when the disk is full) an index in
    memory, saying why in ``not_used``. Raises :class:`HistoryIndexError` when the file is busy
    or cannot be used, :class:`OSError` when the directory cannot be read.
    """
    began = time.perf_counter()
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return SyncResult(0, 0, 0, 0.0, False)
    on_disk: dict[str, os.stat_result] = {}
    with os.scandir(runs_dir) as entries:
        for entry in entries:
            if is_record_file(entry.name):
                try:
                    on_disk[entry.name] = entry.stat()
                except OSError:
                    continue
    not_used = not_own(runs_dir, index_path(runs_dir))
    if not_used is None:
        path = index_path(runs_dir)
        existed = existing_index_files(path)
        try:
            try:
                connection = _connect(runs_dir)
            except OSError as error:
                if error.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                raise HistoryIndexError("full", path, error.strerror or str(error)) from None
            try:
                with translated(index_path(runs_dir)):
                    parsed, removed, cold = _sync_into(connection, runs_dir, on_disk, progress)
            finally:
                connection.close()
            forget_memory(runs_dir)
            return SyncResult(parsed, removed, len(on_disk), time.perf_counter() - began, cold)
        except HistoryIndexError as error:
            if error.code != "full":
                raise
            # Nothing half-made left behind: what this run created goes (an index that was
            # there stays as it was: SQLite rolled the transaction back).
            remove_index_files(path, only=existing_index_files(path) - existed)
            not_used = "disk-full"
    parsed, removed, cold = _sync_in_memory(runs_dir, on_disk, progress)
    return SyncResult(parsed, removed, len(on_disk), time.perf_counter() - began, cold, not_used)


def _sync_into(
    connection: sqlite3.Connection, runs_dir: Path, on_disk: dict[str, os.stat_result], progress: ProgressCallback | None
) -> tuple[int, int, bool]:
    """(parsed, removed, cold): the index's rows made to follow the files, committed every 500 rows
    (so another iotui waiting on the index gets a turn within a cold build of thousands)."""
    try:
        return _follow_files(connection, runs_dir, on_disk, progress)
    except BaseException:
        connection.rollback()
        raise


def _follow_files(
    connection: sqlite3.Connection, runs_dir: Path, on_disk: dict[str, os.stat_result], progress: ProgressCallback | None
) -> tuple[int, int, bool]:
    known = {name: (mtime_ns, size) for name, mtime_ns, size in connection.execute("SELECT name, mtime_ns, size FROM runs")}
    cold = not known
    removed = [name for name in known if name not in on_disk]
    to_parse = [name for name, stat in on_disk.items() if known.get(name) != (stat.st_mtime_ns, stat.st_size)]
    connection.executemany("DELETE FROM runs WHERE name = ?", [(name,) for name in removed])
    rows = []
    for done, name in enumerate(to_parse, start=1):
        rows.append(_fresh_row(runs_dir, name, on_disk[name]))
        if len(rows) >= 500:
            _insert(connection, rows)
            connection.commit()
            rows = []
        if progress is not None and (done % 50 == 0 or done == len(to_parse)):
            progress(done, len(to_parse))
    _insert(connection, rows)
    connection.commit()
    return len(to_parse), len(removed), cold and bool(to_parse)


def _fresh_row(runs_dir: Path, name: str, stat: os.stat_result) -> tuple:
    """The index row of one record file, read from the file now."""
    hosts: list[str] | None = None
    try:
        (record, hosts), error = load_record_listing(runs_dir / name), None
    except RecordError as failure:
        record, error = None, str(failure)
    return row_for(name, stat, record, error, hosts)


def still_matching(
    runs_dir: Path, runs: list[IndexedRun], run_filter: RunFilter, now: float | None = None
) -> tuple[list[IndexedRun], list[IndexedRun]]:
    """(the runs that match ``run_filter`` when read again from their own files; those that do not).

    What a prune deletes is checked against the records, not only the index: a row whose file
    now says otherwise (another start, preset, tag...), is gone, or is not a plain record file
    name of ``runs_dir`` is kept out. The same conditions as :func:`query`, on fresh rows.
    """
    runs_dir = Path(runs_dir)
    fresh: dict[str, tuple] = {}
    for run in runs:
        name = run.path.name
        if run.path.parent != runs_dir or not is_record_file(name) or name in fresh:
            continue
        try:
            info = os.stat(runs_dir / name)
        except OSError:
            continue
        if S_ISREG(info.st_mode):
            fresh[name] = _fresh_row(runs_dir, name, info)
    where, values = _where(run_filter, now)
    check = sqlite3.connect(":memory:")
    try:
        check.executescript(_SCHEMA)
        _insert(check, list(fresh.values()))
        matching = {row[0] for row in check.execute(f"SELECT name FROM runs{where}", values)}
    finally:
        check.close()
    kept_in = [run for run in runs if run.path.parent == runs_dir and run.path.name in matching]
    kept_ids = {id(run) for run in kept_in}
    return kept_in, [run for run in runs if id(run) not in kept_ids]


def save_indexed(record: RunRecord, runs_dir: Path, fio_report: dict | None = None, *, durable: bool = True) -> Path:
    """:func:`save_record`, then the record in the index: how every record iotui makes is saved.

    ``durable=False`` as for :func:`save_record` (the caller syncs the lot once).
    """
    path = save_record(record, runs_dir, fio_report=fio_report, durable=durable)
    index_saved(path, record)
    return path


def index_saved(path: Path, record: RunRecord) -> None:
    """Add (or update) one record just written by iotui, so the next History opens warm."""
    with IndexBatch(Path(path).parent, chunk=1) as batch:
        batch.add(path, record)


class IndexBatch:
    """Records saved by one command put in the index together: one connection, a commit per chunk.

    An import of thousands of records opened the index, wrote one row and committed once per
    record; here rows wait in memory and go in ``chunk`` at a time, and the rest when the batch
    closes (also when the command is interrupted). The index is only a cache of the files: a row
    that never got in (the index could not be written, the process was killed) is found by the next
    :func:`sync` from the record's file, so a failure here is not an error.
    """

    def __init__(self, runs_dir: Path, *, chunk: int = 500) -> None:
        self.runs_dir = Path(runs_dir)
        self.chunk = chunk
        self._rows: list[tuple] = []
        self._connection: sqlite3.Connection | None = None
        self._broken = False

    def __enter__(self) -> IndexBatch:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def save(self, record: RunRecord, fio_report: dict | None = None, *, durable: bool = True) -> Path:
        """:func:`save_record` into the batch's runs directory, then the record's row in the batch."""
        path = save_record(record, self.runs_dir, fio_report=fio_report, durable=durable)
        self.add(path, record)
        return path

    def add(self, path: Path, record: RunRecord) -> None:
        path = Path(path)
        if self._broken or not is_record_file(path.name):
            return
        try:
            stat = path.stat()
        except OSError:
            return
        self._rows.append(row_for(path.name, stat, record, None))
        if len(self._rows) >= self.chunk:
            self.flush()

    def flush(self) -> None:
        """The waiting rows into the index, committed."""
        if not self._rows or self._broken:
            self._rows = []
            return
        rows, self._rows = self._rows, []
        try:
            if self._connection is None:
                if not_own(self.runs_dir, index_path(self.runs_dir)) is not None:
                    self._broken = True  # never written into: History builds its list in memory
                    return
                self._connection = _connect(self.runs_dir)
                # A cache that the next sync rebuilds from the files: no need to wait for the disk.
                self._connection.execute("PRAGMA synchronous = OFF")
            _insert(self._connection, rows)
            self._connection.commit()
        except (OSError, sqlite3.Error, HistoryIndexError):
            self._broken = True  # the next sync indexes these records from their files

    def close(self) -> None:
        try:
            self.flush()
        finally:
            if self._connection is not None:
                try:
                    self._connection.close()
                except sqlite3.Error:
                    pass
                self._connection = None


def _insert(connection: sqlite3.Connection, rows: list[tuple]) -> None:
    if rows:
        placeholders = ", ".join("?" for _ in COLUMNS)
        connection.executemany(f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) VALUES ({placeholders})", rows)


@dataclass(frozen=True)
class RunFilter:
    """Which runs: every word a literal substring of the row, and the optional whole-value conditions.

    ``preset``, ``status`` and ``tag`` match a whole value exactly; nothing in any of them, or in
    a word, is a pattern (``%`` and ``_`` are themselves), so a filter never selects more runs than
    it names, and ``--prune`` never deletes more.
    """

    words: tuple[str, ...] = ()
    preset: str | None = None
    status: str | None = None
    tag: str | None = None
    older_than_s: float | None = None

    @classmethod
    def from_text(cls, text: str, **kwargs: object) -> RunFilter:
        return cls(tuple(word for word in text.lower().split() if word), **kwargs)  # type: ignore[arg-type]


def _where(run_filter: RunFilter, now: float | None = None) -> tuple[str, list]:
    clauses: list[str] = []
    values: list = []
    for word in run_filter.words:
        clauses.append("instr(search, ?) > 0")
        values.append(word.lower())
    if run_filter.preset is not None:
        clauses.append("preset = ?")
        values.append(run_filter.preset)
    if run_filter.status is not None:
        clauses.append("status = ?")
        values.append(run_filter.status)
    if run_filter.tag is not None:
        # The whole tag, compared as a value: nothing in it is a pattern (``a_c`` is not ``abc``).
        clauses.append("EXISTS (SELECT 1 FROM json_each(runs.tags) WHERE json_each.value = ?)")
        values.append(run_filter.tag)
    if run_filter.older_than_s is not None:
        clauses.append("started_ts < ?")
        values.append((now if now is not None else time.time()) - run_filter.older_than_s)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", values


def query(runs_dir: Path, run_filter: RunFilter = RunFilter(), *, limit: int | None = None) -> tuple[list[IndexedRun], int]:
    """(the matching runs newest first, at most ``limit``; how many match in all). Call :func:`sync` first.

    Reads the index in memory where :func:`sync` built one, else the index file if it is iotui's own
    (one that is not: nothing, until a sync builds the list in memory).
    """
    runs_dir = Path(runs_dir)
    where, values = _where(run_filter)
    sql = f"SELECT {', '.join(COLUMNS)} FROM runs{where} ORDER BY started_ts DESC, name DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    with memory_index(runs_dir) as memory:
        if memory is not None:
            total = memory.execute(f"SELECT count(*) FROM runs{where}", values).fetchone()[0]
            rows = memory.execute(sql, values).fetchall()
            return [run for row in rows if (run := indexed_run(runs_dir, row)) is not None], int(total)
    if not index_path(runs_dir).exists() or not_own(runs_dir, index_path(runs_dir)) is not None:
        return [], 0
    connection = _connect(runs_dir)
    try:
        with translated(index_path(runs_dir)):
            total = connection.execute(f"SELECT count(*) FROM runs{where}", values).fetchone()[0]
            rows = connection.execute(sql, values).fetchall()
    finally:
        connection.close()
    return [run for row in rows if (run := indexed_run(runs_dir, row)) is not None], int(total)
