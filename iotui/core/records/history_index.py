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
:class:`IndexBatch`), so History opens warm after any iotui command. An index
that cannot be opened is rebuilt.
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import sqlite3
from stat import S_ISLNK, S_ISREG
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from iotui.core import format as fmt
from iotui.core.records.direction_figures import direction_figures, worst_p99_ns
from iotui.core.records.record import RunRecord
from iotui.core.records.files import save_record
from iotui.core.records.headers import load_record_listing
from iotui.core.records.schema import RecordError
from iotui.core.terminal_text import terminal_safe

INDEX_FILE_NAME = ".iotui-index.sqlite3"
INDEX_VERSION = 6  # 6: the hosts of a multi-host run
ProgressCallback = Callable[[int, int], None]

_COLUMNS = (
    "name", "mtime_ns", "size", "run_id", "preset", "title", "status", "started", "started_ts",
    "target", "filesystem", "device", "read_iops", "write_iops", "p99_ns", "notes", "tags", "forced",
    "error", "search", "paused_s", "responsiveness", "mixed_iops", "hosts",
)
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
class IndexedRun:
    """One record file as History lists it (``error`` set: the file does not load)."""

    path: Path
    run_id: str
    preset: str
    title: str
    status: str
    started: dt.datetime | None
    target: str
    filesystem: str
    device: str
    read_iops: tuple[float | None, ...]
    """One value per section (fio's reporting group), in fio's order; nothing summed across them."""
    write_iops: tuple[float | None, ...]
    p99_ns: tuple[float | None, ...]
    """Each section's higher p99 of its directions (they ran at the same time)."""
    paused_s: float | None
    notes: str
    tags: tuple[str, ...]
    forced: bool
    error: str | None
    responsiveness: str = ""
    """The worst level above ok and its cause (``sluggish io_probe_write``); empty when ok or unknown."""
    mixed_iops: tuple[float | None, ...] = ()
    """fio's ``mixed`` direction (unified_rw_reporting) per section: reads and writes as one, never a read."""
    hosts: tuple[str, ...] = ()
    """The hosts a multi-host run ran on (``[[hosts]]`` names); empty for a run on this machine."""

    def where(self) -> str:
        """Where it ran: the target path, or ``2 hosts: h1,h2`` for a run on hosts."""
        return fmt.hosts(self.hosts) if self.hosts else self.target

    def to_json_dict(self) -> dict:
        return {
            "path": str(self.path), "id": self.run_id, "preset": self.preset, "title": self.title,
            "status": self.status, "started": self.started.isoformat() if self.started else None,
            "target": self.target, "filesystem": self.filesystem, "device": self.device,
            "sections_read_iops": list(self.read_iops), "sections_write_iops": list(self.write_iops),
            "sections_p99_ns": list(self.p99_ns), "sections_mixed_iops": list(self.mixed_iops),
            "paused_s": self.paused_s,
            "notes": self.notes, "tags": list(self.tags), "forced": self.forced, "error": self.error,
            "responsiveness": self.responsiveness or None, "hosts": list(self.hosts),
        }


@dataclass(frozen=True)
class SyncResult:
    """What a sync did: records parsed (new or changed), removed, and how long it took."""

    parsed: int
    removed: int
    total: int
    seconds: float
    cold: bool


def index_path(runs_dir: Path) -> Path:
    return Path(runs_dir) / INDEX_FILE_NAME


def is_record_file(name: str) -> bool:
    """A run record of the directory (not a sweep record, not a hidden or temporary file)."""
    return name.endswith(".toml") and not name.startswith(".") and not name.endswith(".sweep.toml")


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
    path = index_path(runs_dir)
    for attempt in (1, 2):
        _no_symlinks(path)
        try:
            connection = sqlite3.connect(path, timeout=10)
            connection.executescript(_SCHEMA)
            row = connection.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if row is None or row[0] != str(INDEX_VERSION):
                # Another version's columns: the index is only a cache, so build it again.
                connection.execute("DROP TABLE runs")
                connection.executescript(_SCHEMA)
                connection.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(INDEX_VERSION),))
                connection.commit()
            return connection
        except sqlite3.DatabaseError:
            # A damaged index is only a cache of the records: start it again.
            if attempt == 2:
                raise
            try:
                connection.close()
            except sqlite3.Error:
                pass
            path.unlink(missing_ok=True)
    raise AssertionError("unreachable")


def _row_for(
    name: str, stat: os.stat_result, record: RunRecord | None, error: str | None, hosts: list[str] | None = None
) -> tuple:
    """The index row; ``hosts``: the record's host names where its ``hosts`` were not read."""
    if record is None:
        # A file's name (and so its refusal) comes from whoever wrote the directory: shown safe.
        error = terminal_safe(error or "")
        search = f"{name} bad file {error or ''}".lower()
        return (name, stat.st_mtime_ns, stat.st_size, "", "", "", "bad file", "", stat.st_mtime,
                "", "", "", "[]", "[]", "[]", "", "[]", 0, error or "", search, None, "", "[]", "[]")
    started = record.started
    sections = list(record.sections)
    notes = str(record.run.get("notes") or "")
    raw_tags = record.run.get("tags") or []
    tag_list = [str(tag) for tag in raw_tags] if isinstance(raw_tags, list) else [str(raw_tags)]
    tags = " ".join(tag_list)
    target = str(record.target.get("path", ""))
    date = started.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M") if started else ""
    title = str(record.run.get("title") or "")
    responsiveness = _verdict(record.pressure)
    # Names from the file: shown, so stripped of terminal escapes as every outside text is.
    host_names = [terminal_safe(str(host)) for host in (hosts if hosts is not None else _host_names(record))]
    search = " ".join(
        [name, record.preset, title, target, record.status, responsiveness, str(record.target.get("filesystem", "")),
         str(record.target.get("device", "")), date, notes, tags, record.id, *host_names]
    ).lower()
    return (
        name, stat.st_mtime_ns, stat.st_size, record.id, record.preset, title, record.status,
        started.isoformat() if started else "", started.timestamp() if started else stat.st_mtime,
        target, str(record.target.get("filesystem", "")), str(record.target.get("device", "")),
        json.dumps(_sections_iops(sections, "read")), json.dumps(_sections_iops(sections, "write")),
        json.dumps([worst_p99_ns(section) for section in sections]), notes, json.dumps(tag_list),
        1 if record.run.get("forced") else 0, None, search, record.paused_s or None, responsiveness,
        json.dumps(_sections_iops(sections, "mixed")), json.dumps(host_names),
    )


def _host_names(record: RunRecord) -> list[str]:
    return [str(host.get("name", "")) for host in record.hosts]


def _verdict(pressure: dict) -> str:
    """The run's worst responsiveness level above ok, with the signal behind it: ``sluggish io_probe_write``."""
    level = str((pressure or {}).get("responsiveness") or "")
    if level in ("", "ok"):
        return ""
    cause = str(pressure.get("cause") or "")
    return f"{level} {cause}".strip()


def _sections_iops(sections: list[dict[str, object]], direction: str) -> list[float | None]:
    """One direction's IOPS per section, in fio's order (None where a section did no such I/O)."""
    return [figures.iops if (figures := direction_figures(section, direction)) else None for section in sections]


def sync(runs_dir: Path, progress: ProgressCallback | None = None) -> SyncResult:
    """Bring the index up to date with the record files; ``progress(done, to_parse)`` while parsing."""
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
    connection = _connect(runs_dir)
    try:
        known = {name: (mtime_ns, size) for name, mtime_ns, size in connection.execute("SELECT name, mtime_ns, size FROM runs")}
        cold = not known
        removed = [name for name in known if name not in on_disk]
        to_parse = [name for name, stat in on_disk.items() if known.get(name) != (stat.st_mtime_ns, stat.st_size)]
        connection.executemany("DELETE FROM runs WHERE name = ?", [(name,) for name in removed])
        rows = []
        for done, name in enumerate(to_parse, start=1):
            hosts: list[str] | None = None
            try:
                (record, hosts), error = load_record_listing(runs_dir / name), None
            except RecordError as failure:
                record, error = None, str(failure)
            rows.append(_row_for(name, on_disk[name], record, error, hosts))
            if len(rows) >= 500:
                _insert(connection, rows)
                rows = []
            if progress is not None and (done % 50 == 0 or done == len(to_parse)):
                progress(done, len(to_parse))
        _insert(connection, rows)
        connection.commit()
    finally:
        connection.close()
    return SyncResult(len(to_parse), len(removed), len(on_disk), time.perf_counter() - began, cold and bool(to_parse))


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
        self._rows.append(_row_for(path.name, stat, record, None))
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
                self._connection = _connect(self.runs_dir)
                # A cache that the next sync rebuilds from the files: no need to wait for the disk.
                self._connection.execute("PRAGMA synchronous = OFF")
            _insert(self._connection, rows)
            self._connection.commit()
        except (OSError, sqlite3.Error):
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
        placeholders = ", ".join("?" for _ in _COLUMNS)
        connection.executemany(f"INSERT OR REPLACE INTO runs ({', '.join(_COLUMNS)}) VALUES ({placeholders})", rows)


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
    """(the matching runs newest first, at most ``limit``; how many match in all). Call :func:`sync` first."""
    runs_dir = Path(runs_dir)
    if not index_path(runs_dir).exists():
        return [], 0
    where, values = _where(run_filter)
    connection = _connect(runs_dir)
    try:
        total = connection.execute(f"SELECT count(*) FROM runs{where}", values).fetchone()[0]
        sql = f"SELECT {', '.join(_COLUMNS)} FROM runs{where} ORDER BY started_ts DESC, name DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = connection.execute(sql, values).fetchall()
    finally:
        connection.close()
    return [_indexed(runs_dir, row) for row in rows], int(total)


def _indexed(runs_dir: Path, row: Iterable) -> IndexedRun:
    data = dict(zip(_COLUMNS, row))
    started = dt.datetime.fromisoformat(data["started"]) if data["started"] else None
    return IndexedRun(
        path=runs_dir / data["name"], run_id=data["run_id"] or "", preset=data["preset"] or "",
        title=data["title"] or "", status=data["status"] or "", started=started, target=data["target"] or "",
        filesystem=data["filesystem"] or "", device=data["device"] or "",
        read_iops=tuple(json.loads(data["read_iops"] or "[]")), write_iops=tuple(json.loads(data["write_iops"] or "[]")),
        p99_ns=tuple(json.loads(data["p99_ns"] or "[]")), paused_s=data["paused_s"], notes=data["notes"] or "",
        tags=tuple(json.loads(data["tags"] or "[]")), forced=bool(data["forced"]), error=data["error"] or None,
        responsiveness=data["responsiveness"] or "", mixed_iops=tuple(json.loads(data["mixed_iops"] or "[]")),
        hosts=tuple(json.loads(data["hosts"] or "[]")),
    )
