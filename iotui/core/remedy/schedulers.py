"""Changing a device's I/O scheduler, and undoing every change whatever happens.

Before iotui writes a scheduler to ``/sys/block/DEV/queue/scheduler`` it writes the device's
original scheduler to a state file in the runtime directory (``schedulers.json``, the run
lock's folder). :meth:`SchedulerChanges.restore` writes every original back and removes the
file; it runs after each point, on SIGINT/SIGTERM/SIGHUP (a lost terminal is a SIGHUP) and at
exit. After a SIGKILL nothing of this process runs: the next iotui command finds the file
(:func:`restore_left_behind`), sees its writer is gone, restores and says so.

The state file decides what root writes to sysfs, so it is trusted only when it is this user's,
writable by no one else, and names scheduler files under ``/sys/block`` with a scheduler name
their device offers; anything else is refused and left alone, with a fact saying why.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotui.core.host.device_facts import SYS, disk_dir_of, selected_scheduler
from iotui.core.runs.lock import LockHolder, is_alive, runtime_dir
from iotui.core.safe_files import ensure_folder, write_file

STATE_FILE_NAME = "schedulers.json"
_SCHEDULER_FILE = re.compile(r"^/sys/block/[A-Za-z0-9._:-]+/queue/scheduler$")
_SCHEDULER_NAME = re.compile(r"^[a-z0-9_-]{1,32}$")


class SchedulerError(Exception):
    """A scheduler could not be read, changed or restored: ``code`` and the facts."""

    def __init__(self, code: str, device: str, detail: str) -> None:
        super().__init__(f"{device}: {detail}")
        self.code = code  # "no-device", "no-scheduler", "not-offered", "write-failed", "state-file"
        self.device = device
        self.detail = detail


@dataclass(frozen=True)
class Device:
    """A whole disk under a target and its scheduler file."""

    name: str  # "vda", "loop3"
    scheduler_file: Path

    def offered(self) -> list[str]:
        """The schedulers its kernel offers (``none mq-deadline kyber bfq``)."""
        return [word.strip("[]") for word in _read(self.scheduler_file).split()]

    def current(self) -> str:
        text = _read(self.scheduler_file)
        chosen = selected_scheduler(text)
        if chosen is None:
            raise SchedulerError("no-scheduler", self.name, f"{self.scheduler_file} names no scheduler ({text!r})")
        return chosen


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError as error:
        raise SchedulerError("no-scheduler", path.parent.parent.name, f"{path} cannot be read ({error.strerror})") from error


def device_of(target: Path, sys_root: Path = SYS) -> Device | None:
    """The whole disk whose scheduler governs a target's I/O; None where there is none to change
    (a tmpfs or network filesystem, a device mapper stack whose queue has no scheduler choice)."""
    disk = disk_dir_of(target, sys_root)
    if disk is None:
        return None
    scheduler_file = disk / "queue" / "scheduler"
    if not scheduler_file.exists():
        return None
    try:
        if len(Device(disk.name, scheduler_file).offered()) < 2:
            return None  # nothing to choose (a dm device offers only "none")
    except SchedulerError:
        return None
    return Device(disk.name, Path("/sys/block") / disk.name / "queue" / "scheduler")


def state_path() -> Path:
    return runtime_dir() / STATE_FILE_NAME


def _process_started_at() -> float:
    import psutil

    return float(psutil.Process(os.getpid()).create_time())


class SchedulerChanges:
    """The scheduler changes of one process; every one is undone by :meth:`restore`."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_path()
        self.originals: dict[str, str] = {}  # scheduler file -> its scheduler before iotui's first change

    def _save(self) -> None:
        ensure_folder(self.path.parent)
        os.chmod(self.path.parent, 0o700)
        data = {"pid": os.getpid(), "started_at": _process_started_at(), "originals": self.originals}
        write_file(self.path, (json.dumps(data, indent=1) + "\n").encode(), mode=0o600)

    def change(self, device: Device, scheduler: str) -> None:
        """Set ``scheduler`` on ``device``; its original is in the state file before the write."""
        offered = device.offered()
        if scheduler not in offered:
            raise SchedulerError("not-offered", device.name, f"offers {' '.join(offered)}, not {scheduler}")
        key = str(device.scheduler_file)
        if key not in self.originals:
            self.originals[key] = device.current()
            self._save()
        _write(device.scheduler_file, scheduler, device.name)

    def restore(self) -> list[str]:
        """Write every original back, then remove the state file; the devices it could not restore."""
        failed = []
        for key, original in list(self.originals.items()):
            try:
                _write(Path(key), original, Path(key).parent.parent.name)
            except SchedulerError:
                failed.append(key)
                continue
            del self.originals[key]
        if not self.originals:
            _remove(self.path)
        return failed


def _write(scheduler_file: Path, scheduler: str, name: str) -> None:
    try:
        with open(scheduler_file, "w", encoding="ascii") as handle:
            handle.write(scheduler)
    except OSError as error:
        raise SchedulerError("write-failed", name, f"{scheduler} could not be set ({error.strerror})") from error


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


@dataclass(frozen=True)
class Restored:
    """What :func:`restore_left_behind` did: each device and the scheduler it has again."""

    devices: dict[str, str]
    refused: str | None = None  # why a state file was left alone
    failed: tuple[str, ...] = ()  # devices whose original could not be written back (the file is kept)


def restore_left_behind(path: Path | None = None) -> Restored | None:
    """At start: restore the originals a killed iotui left in the state file; None when there is none
    (or its writer still runs: its changes are its own to undo)."""
    path = path or state_path()
    try:
        status = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o022:
        return Restored({}, f"{path} is not this user's own file, so it was left alone")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pid, started_at, originals = int(data["pid"]), float(data.get("started_at", 0.0)), dict(data["originals"])
    except (OSError, ValueError, KeyError, TypeError):
        return Restored({}, f"{path} cannot be read as iotui's scheduler state, so it was left alone")
    if is_alive(LockHolder(pid, started_at, "", "", "", "")):
        return None
    restored: dict[str, str] = {}
    failed: list[str] = []
    for key, original in originals.items():
        name = Path(str(key)).parent.parent.name
        if not _SCHEDULER_FILE.match(str(key)) or not _SCHEDULER_NAME.match(str(original)):
            continue  # not a scheduler file, or not a scheduler's name: never written
        device = Device(name, Path(str(key)))
        try:
            if not Path(str(key)).exists():
                continue  # the device is gone (a loop device detached): nothing to restore
            if original in device.offered():
                _write(device.scheduler_file, str(original), name)
                restored[name] = str(original)
        except SchedulerError:
            failed.append(name)
    if not failed:
        _remove(path)
    return Restored(restored, failed=tuple(failed))


class UndoOnSignals:
    """While inside: SIGINT, SIGTERM and SIGHUP (a lost terminal) first restore every scheduler,
    then act as they did before (SIGINT raises KeyboardInterrupt; the others end the process);
    leaving restores too, whatever the way out."""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")

    def __init__(self, changes: SchedulerChanges) -> None:
        self.changes = changes
        self._previous: dict[int, Any] = {}  # what each signal did before

    def _handle(self, signum: int, frame: Any) -> None:
        import signal

        self.changes.restore()
        previous = self._previous.get(signum, signal.SIG_DFL)
        if callable(previous):
            previous(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL if previous != signal.SIG_IGN else signal.SIG_IGN)
        if previous != signal.SIG_IGN:
            os.kill(os.getpid(), signum)

    def __enter__(self) -> SchedulerChanges:
        import signal

        for name in self.SIGNALS:
            number = getattr(signal, name, None)
            if number is not None:
                self._previous[number] = signal.signal(number, self._handle)
        return self.changes

    def __exit__(self, *exc_info: object) -> None:
        import signal

        try:
            self.changes.restore()
        finally:
            for number, previous in self._previous.items():
                signal.signal(number, previous)
            self._previous.clear()
