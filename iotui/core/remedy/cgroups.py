"""fio under a low cgroup I/O weight: a private cgroup iotui makes, starts fio inside, and removes.

The remedy ``cgroup-weight=N`` gives fio's processes the weight N where every other program has the
default 100: cgroup v2 ``io.weight`` (or ``io.bfq.weight``) where the v2 hierarchy has the ``io``
controller, else cgroup v1 ``blkio.bfq.weight`` (the bfq scheduler's) or ``blkio.weight`` (CFQ's).
The cgroup is ``iotui-remedy-PID`` at the top of the hierarchy; fio is started inside it (its
pid written to the cgroup's ``cgroup.procs`` before it runs, so every job it forks is inside too).

Before the cgroup is made, its path goes to a state file in the runtime directory
(``cgroups.json``); :meth:`CgroupChanges.remove` moves whatever still runs in the cgroup back to
the hierarchy's top, removes the cgroup and the file. It runs after each point, on
SIGINT/SIGTERM/SIGHUP and at exit; after a SIGKILL the next iotui command finds the file
(:func:`remove_left_behind`), sees its writer is gone, and removes the cgroup, saying so. The file
is trusted only when it is this user's and writable by no one else, and only cgroups named as iotui
names its own, under ``/sys/fs/cgroup``, are ever touched.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from iotui.core.runs.lock import LockHolder, is_alive, runtime_dir
from iotui.core.safe_files import ensure_folder, write_file

CGROUP_PREFIX = "cgroup-weight="
WEIGHT = 10  # a tenth of every other program's default weight (100), in v1's 1-1000 and v2's 1-10000
STATE_FILE_NAME = "cgroups.json"
CGROUP_ROOT = Path("/sys/fs/cgroup")
_OWN_NAME = re.compile(r"^iotui-remedy-[0-9]{1,10}$")
# How long a removal refused as busy is tried again (ending processes are listed until reaped).
REMOVE_BUSY_WAIT_S = 5.0

CgroupSkipCode = Literal["no-io-controller", "no-weight-file", "not-root"]


class CgroupError(Exception):
    """The private cgroup could not be made, weighted or removed: ``code`` and the facts."""

    def __init__(self, code: str, path: Path, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.code = code  # "make-failed", "weight-failed", "remove-failed"
        self.path = path
        self.detail = detail


@dataclass(frozen=True)
class Hierarchy:
    """Where iotui can make a weighted cgroup: the hierarchy's top and the weight file's name."""

    version: Literal[1, 2]
    root: Path  # /sys/fs/cgroup (v2) or /sys/fs/cgroup/blkio (v1)
    weight_file: str  # "io.weight", "blkio.bfq.weight", "blkio.weight"

    def lasting_command(self, weight: int) -> str:
        """What runs a heavy job under this weight beyond iotui."""
        if self.version == 2:
            return f"systemd-run --scope -p IOWeight={weight} CMD"
        place = self.root / "heavy"
        return (f"mkdir -p {place} && echo {weight} > {place / self.weight_file} && "
                f"sh -c 'echo $$ > {place / 'cgroup.procs'} && exec CMD'")


def _mounts(mounts_text: str | None) -> list[tuple[Path, str, set[str]]]:
    """(mount point, type, options) of each cgroup mount."""
    if mounts_text is None:
        try:
            mounts_text = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
    found = []
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
            found.append((Path(fields[1].replace("\\040", " ")), fields[2], set(fields[3].split(","))))
    return found


def _read_words(path: Path) -> set[str]:
    try:
        return set(path.read_text(encoding="ascii", errors="replace").split())
    except OSError:
        return set()


def find_hierarchy(mounts_text: str | None = None) -> Hierarchy | CgroupSkipCode:
    """The hierarchy whose I/O weight iotui can set, or why there is none (v2 first, then v1)."""
    mounts = _mounts(mounts_text)
    for point, kind, _options in mounts:
        if kind == "cgroup2" and "io" in _read_words(point / "cgroup.subtree_control"):
            return Hierarchy(2, point, "io.weight")
    for point, kind, options in mounts:
        if kind == "cgroup" and "blkio" in options:
            try:
                names = {entry.name for entry in point.iterdir()}
            except OSError:
                continue
            if any(name.startswith("blkio.bfq.") for name in names):
                return Hierarchy(1, point, "blkio.bfq.weight")
            if "blkio.weight" in names or "blkio.leaf_weight" in names:
                return Hierarchy(1, point, "blkio.weight")
            return "no-weight-file"
    return "no-io-controller"


def usable_hierarchy(is_root: bool, mounts_text: str | None = None) -> Hierarchy | CgroupSkipCode:
    """A hierarchy this process may make a cgroup in (as root: a delegated subtree is not looked for)."""
    found = find_hierarchy(mounts_text)
    if isinstance(found, str):
        return found
    if not is_root or not os.access(found.root, os.W_OK):
        return "not-root"
    return found


def state_path() -> Path:
    return runtime_dir() / STATE_FILE_NAME


def _process_started_at() -> float:
    import psutil

    return float(psutil.Process(os.getpid()).create_time())


def _is_own_cgroup(path: Path) -> bool:
    """A path iotui would have made: ``/sys/fs/cgroup[/CONTROLLER]/iotui-remedy-PID``."""
    try:
        relative = path.relative_to(CGROUP_ROOT)
    except ValueError:
        return False
    return bool(_OWN_NAME.match(path.name)) and len(relative.parts) in (1, 2) and ".." not in relative.parts


def _move_out(cgroup: Path) -> None:
    """Move every process in ``cgroup`` to its parent (a process may fork while being moved: go round)."""
    parent_procs = cgroup.parent / "cgroup.procs"
    for _ in range(20):
        pids = [word for word in _read_words(cgroup / "cgroup.procs") if word.isdigit()]
        if not pids:
            return
        for pid in pids:
            try:
                with open(parent_procs, "w", encoding="ascii") as handle:
                    handle.write(pid)
            except OSError:
                pass  # ended meanwhile, or ending: a zombie cannot be moved


def _move_out_and_remove(cgroup: Path, *, busy_wait_s: float = REMOVE_BUSY_WAIT_S) -> None:
    """Move every process still in ``cgroup`` to its parent, then remove it (gone already is fine).

    A process that is ending (fio's jobs, as fio ends once iotui is gone) stays listed in the
    cgroup until its parent reaps it and cannot be moved, so the removal is refused as busy
    for a moment: it is tried again until ``busy_wait_s`` has passed."""
    deadline = time.monotonic() + busy_wait_s
    while True:
        if not cgroup.exists():
            return
        _move_out(cgroup)
        try:
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno != errno.EBUSY or time.monotonic() >= deadline:
                raise CgroupError("remove-failed", cgroup, f"could not be removed ({error.strerror})") from error
        time.sleep(0.05)


class CgroupChanges:
    """The private cgroups of one process; every one is removed by :meth:`remove`."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_path()
        self.made: list[Path] = []

    def _save(self) -> None:
        ensure_folder(self.path.parent)
        os.chmod(self.path.parent, 0o700)
        data = {"pid": os.getpid(), "started_at": _process_started_at(), "cgroups": [str(p) for p in self.made]}
        write_file(self.path, (json.dumps(data, indent=1) + "\n").encode(), mode=0o600)

    def make(self, hierarchy: Hierarchy, weight: int) -> Path:
        """Make ``iotui-remedy-PID`` with ``weight``; its path is in the state file before it exists.
        Returns the ``cgroup.procs`` file fio's pid is written to."""
        cgroup = hierarchy.root / f"iotui-remedy-{os.getpid()}"
        if cgroup not in self.made:
            self.made.append(cgroup)
            self._save()
        try:
            cgroup.mkdir(exist_ok=True)
        except OSError as error:
            raise CgroupError("make-failed", cgroup, f"could not be made ({error.strerror})") from error
        weight_path = cgroup / hierarchy.weight_file
        if not weight_path.exists() and hierarchy.version == 2 and (cgroup / "io.bfq.weight").exists():
            weight_path = cgroup / "io.bfq.weight"
        try:
            with open(weight_path, "w", encoding="ascii") as handle:
                handle.write(str(weight))
        except OSError as error:
            self.remove()
            raise CgroupError("weight-failed", weight_path, f"{weight} could not be written ({error.strerror})") from error
        return cgroup / "cgroup.procs"

    def remove(self) -> list[Path]:
        """Remove every cgroup made (its processes moved out first), then the state file; those left."""
        failed = []
        for cgroup in list(self.made):
            try:
                _move_out_and_remove(cgroup)
            except CgroupError:
                failed.append(cgroup)
                continue
            self.made.remove(cgroup)
        if not self.made:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
        return failed


@dataclass(frozen=True)
class Removed:
    """What :func:`remove_left_behind` did: the cgroups it removed, or why it left the file alone."""

    cgroups: tuple[str, ...]
    refused: str | None = None
    failed: tuple[str, ...] = ()


def remove_left_behind(path: Path | None = None) -> Removed | None:
    """At start: remove the cgroups a killed iotui left; None when there is no file (or its writer runs)."""
    path = path or state_path()
    try:
        status = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o022:
        return Removed((), f"{path} is not this user's own file, so it was left alone")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pid, started_at, cgroups = int(data["pid"]), float(data.get("started_at", 0.0)), list(data["cgroups"])
    except (OSError, ValueError, KeyError, TypeError):
        return Removed((), f"{path} cannot be read as iotui's cgroup state, so it was left alone")
    if is_alive(LockHolder(pid, started_at, "", "", "", "")):
        return None
    removed: list[str] = []
    failed: list[str] = []
    for name in cgroups:
        cgroup = Path(str(name))
        if not _is_own_cgroup(cgroup):
            continue  # not a cgroup iotui names its own: never touched
        existed = cgroup.exists()
        try:
            _move_out_and_remove(cgroup)
        except CgroupError:
            failed.append(str(cgroup))
            continue
        if existed:
            removed.append(str(cgroup))
    if not failed:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
    return Removed(tuple(removed), failed=tuple(failed))
