"""One run at a time per machine: a lock file in the runtime directory naming its holder.

Two benchmarks on one machine disturb each other's figures without a word, so
every run (``iotui run``, ``iotui sweep``, the app, each browser tab of
``iotui serve``) takes this lock before it creates its test file. The file
holds the holder as JSON: pid, the process's start time (so a reused pid is
not mistaken for the holder), preset, target, what started it and when. A
holder whose process is gone is stale and is taken over.

``force`` runs anyway past a live holder: the forcing run is recorded in the
lock file, and both runs' records say so (``run.forced = true``). When the
holder ends while a forced run still goes on, that run becomes the holder.

Within one process the lock is re-entrant: a sweep holds it and each of its
points takes it again. Reads and writes of the file are serialised with
``fcntl.flock``; the file is emptied, never removed, when the last run ends.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from iotui.core.records.record import RunRecord

LOCK_FILE_NAME = "run.lock"


@dataclass(frozen=True)
class LockHolder:
    """A run that holds (or forced its way past) the lock."""

    pid: int
    started_at: float  # the process's start time (seconds since the epoch), to tell a reused pid
    preset: str
    target: str
    by: str  # what started it: "iotui run", "iotui sweep", "the app", ...
    since: str  # ISO time (UTC) the run took the lock
    overlapped: bool = False  # another run was forced past this one (or this one was forced)

    def describe(self) -> str:
        """The facts, for a sentence: who holds the machine, doing what, since when."""
        return f"pid {self.pid} ({self.by}) runs preset {self.preset} on {self.target} since {self.since}"

    @classmethod
    def from_dict(cls, data: object) -> LockHolder | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                pid=int(data["pid"]),
                started_at=float(data.get("started_at", 0.0)),
                preset=str(data.get("preset", "?")),
                target=str(data.get("target", "?")),
                by=str(data.get("by", "iotui")),
                since=str(data.get("since", "?")),
                overlapped=bool(data.get("overlapped", False)),
            )
        except (KeyError, TypeError, ValueError):
            return None


class RunLockHeld(Exception):
    """Another live run holds the lock; ``holder`` says which."""

    def __init__(self, holder: LockHolder, lock_path: Path) -> None:
        super().__init__(f"another run holds {lock_path}: {holder.describe()}")
        self.holder = holder
        self.lock_path = lock_path


class RunLockError(Exception):
    """The lock file cannot be read or written (the runtime directory is not usable)."""


def runtime_dir() -> Path:
    """``$XDG_RUNTIME_DIR/iotui``, or a per-user directory in the temporary directory."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and Path(base).is_dir() and os.access(base, os.W_OK):
        return Path(base) / "iotui"
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"iotui-{uid}"


def lock_path() -> Path:
    return runtime_dir() / LOCK_FILE_NAME


def _process_started_at(pid: int) -> float | None:
    """When ``pid`` started, or None when no such live process exists (zombies count as gone)."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(process.create_time())
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    except psutil.AccessDenied:
        return 0.0  # alive, start time unknown


def is_alive(holder: LockHolder) -> bool:
    """Whether the holder's process still runs (and is the same process, not a reused pid)."""
    started_at = _process_started_at(holder.pid)
    if started_at is None:
        return False
    if started_at and holder.started_at and abs(started_at - holder.started_at) > 2.0:
        return False
    return True


@dataclass
class _LockState:
    """What the lock file says: the holder and the runs forced past it."""

    holder: LockHolder | None = None
    forced: list[LockHolder] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> _LockState:
        if not text.strip():
            return cls()
        try:
            data = json.loads(text)
        except ValueError:
            return cls()  # garbage: nobody holds it
        if not isinstance(data, dict):
            return cls()
        forced = [h for h in (LockHolder.from_dict(item) for item in data.get("forced") or []) if h]
        return cls(LockHolder.from_dict(data.get("holder")), forced)

    def dump(self) -> str:
        if self.holder is None and not self.forced:
            return ""
        return json.dumps(
            {"holder": asdict(self.holder) if self.holder else None, "forced": [asdict(h) for h in self.forced]},
            indent=1,
        ) + "\n"

    def drop_dead(self) -> None:
        if self.holder is not None and not is_alive(self.holder):
            self.holder = None
        self.forced = [holder for holder in self.forced if is_alive(holder)]
        if self.holder is None and self.forced:
            self.holder, self.forced = self.forced[0], self.forced[1:]


def _check_own(path: Path, is_kind: Callable[[int], bool], kind: str, status: os.stat_result | None = None) -> None:
    """``path`` is ``kind`` (never a link), this user's, and writable by no one else: the lock decides
    whether a run starts, so it is trusted only when it is iotui's own (an OSError says why not)."""
    status = status or os.lstat(path)
    if not is_kind(status.st_mode):
        raise OSError(f"it is not {kind}")
    if hasattr(os, "geteuid") and status.st_uid != os.geteuid():
        raise OSError(f"it belongs to user {status.st_uid}, not to this user; remove it or set XDG_RUNTIME_DIR")
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise OSError("others can write it; remove it or set XDG_RUNTIME_DIR")


class _LockFile:
    """The lock file, opened and flock'ed for one read-modify-write."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> _LockFile:
        import fcntl

        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _check_own(self.path.parent, stat.S_ISDIR, "a folder")
            # No link followed: in a shared temporary directory another user may have made the folder or
            # planted a link at the lock's name, and root would truncate whatever it names.
            self.descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise RunLockError(f"cannot open the run lock {self.path} ({error.strerror or error})") from None
        try:
            _check_own(self.path, stat.S_ISREG, "a regular file", os.fstat(self.descriptor))
        except OSError as error:
            os.close(self.descriptor)
            raise RunLockError(f"cannot open the run lock {self.path} ({error.strerror or error})") from None
        fcntl.flock(self.descriptor, fcntl.LOCK_EX)
        return self

    def read(self) -> _LockState:
        os.lseek(self.descriptor, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(self.descriptor, 65536):
            chunks.append(chunk)
        return _LockState.parse(b"".join(chunks).decode("utf-8", errors="replace"))

    def write(self, state: _LockState) -> None:
        data = state.dump().encode("utf-8")
        os.lseek(self.descriptor, 0, os.SEEK_SET)
        os.ftruncate(self.descriptor, 0)
        os.write(self.descriptor, data)

    def __exit__(self, *exc: object) -> None:
        import fcntl

        fcntl.flock(self.descriptor, fcntl.LOCK_UN)
        os.close(self.descriptor)


class RunLock:
    """This process's hold on the machine; ``release()`` (or ``with``) gives it back."""

    # This process's current hold, shared by nested acquisitions (a sweep and its points).
    _current: RunLock | None = None

    def __init__(self, path: Path, me: LockHolder, forced_past: LockHolder | None) -> None:
        self.path = path
        self.me = me
        self.forced_past = forced_past  # the holder this run was forced past, if any
        self.depth = 1

    @property
    def forced(self) -> bool:
        """Whether this run was started past another run's lock."""
        return self.forced_past is not None

    def overlapped(self) -> bool:
        """Whether another run ran beside this one: it forced past us, or we forced past it."""
        if self.forced:
            return True
        try:
            with _LockFile(self.path) as lock_file:
                state = lock_file.read()
        except RunLockError:
            return False
        mine = [h for h in [state.holder, *state.forced] if h is not None and h.pid == self.me.pid]
        return any(holder.overlapped for holder in mine)

    def release(self) -> None:
        self.depth -= 1
        if self.depth > 0:
            return
        if RunLock._current is self:
            RunLock._current = None
        try:
            with _LockFile(self.path) as lock_file:
                state = lock_file.read()
                if state.holder is not None and state.holder.pid == self.me.pid:
                    state.holder = None
                state.forced = [holder for holder in state.forced if holder.pid != self.me.pid]
                state.drop_dead()
                lock_file.write(state)
        except RunLockError:
            pass

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def acquire_run_lock(*, preset: str, target: str, by: str, force: bool = False, path: Path | None = None) -> RunLock:
    """Take the machine for one run (or a sweep), or raise :class:`RunLockHeld` naming the holder.

    A holder whose process is gone is taken over. With ``force`` a live holder
    is run past: both runs are marked as overlapped.
    """
    path = path or lock_path()
    current = RunLock._current
    if current is not None and current.me.pid == os.getpid() and current.path == path:
        current.depth += 1
        return current
    pid = os.getpid()
    me = LockHolder(
        pid=pid,
        started_at=_process_started_at(pid) or 0.0,
        preset=preset,
        target=target,
        by=by,
        since=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    )
    with _LockFile(path) as lock_file:
        state = lock_file.read()
        state.drop_dead()
        holder = state.holder
        if holder is None or holder.pid == pid:
            state.holder = me
            forced_past = None
        elif not force:
            raise RunLockHeld(holder, path)
        else:
            forced_past = holder
            me = LockHolder(**{**asdict(me), "overlapped": True})
            state.holder = LockHolder(**{**asdict(holder), "overlapped": True})
            state.forced.append(me)
        lock_file.write(state)
    lock = RunLock(path, me, forced_past)
    RunLock._current = lock
    return lock


def current_holder(path: Path | None = None) -> LockHolder | None:
    """The live holder of the lock, if any (nothing is changed)."""
    path = path or lock_path()
    if not path.exists():
        return None
    try:
        with _LockFile(path) as lock_file:
            state = lock_file.read()
    except RunLockError:
        return None
    state.drop_dead()
    return state.holder


def mark_overlap(record: RunRecord, lock: RunLock | None) -> None:
    """Say in ``record`` that another run ran beside it (``run.forced = true`` and a warning)."""
    if lock is None or not lock.overlapped():
        return
    record.run["forced"] = True
    if lock.forced_past is not None:
        message = (
            f"Started anyway (forced) while another run held the machine ({lock.forced_past.describe()}); "
            "both runs' figures may be disturbed."
        )
    else:
        message = "Another run was forced to start while this one ran; its figures may be disturbed."
    record.add_warning("forced", message)
