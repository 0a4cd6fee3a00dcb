"""Processes as /proc shows them: the CPU time of a process tree (fio and its job processes),
whether a process is stopped (SIGSTOP from someone), and which processes moved bytes to or
from storage (/proc/PID/io, read only while another program's I/O is suspected).

Read straight from /proc: psutil finds children by reading every process's
stat, which would make iotui's own CPU use show in the figures. psutil is the
fallback where /proc lacks what is needed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import psutil

from iotui.core.host.proc_files import read_text as _read_text


def _clock_ticks_per_s() -> float:
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100.0  # USER_HZ on every Linux architecture in use


def _proc_cpu_ticks(proc_root: Path, pid: int) -> tuple[float, float] | None:
    """(own user+system, reaped children's user+system) in clock ticks from /proc/PID/stat."""
    text = _read_text(f"{proc_root}/{pid}/stat")
    if text is None:
        return None
    # The command name may hold spaces and parentheses: fields start after the last ")".
    fields_after_name = text[text.rfind(")") + 2 :].split()
    try:
        utime, stime, cutime, cstime = (float(fields_after_name[i]) for i in (11, 12, 13, 14))
    except (IndexError, ValueError):
        return None
    return utime + stime, cutime + cstime


def _proc_children(proc_root: Path, pid: int) -> list[int] | None:
    """Direct children of every thread of `pid`; None where the kernel lacks the file."""
    # Every second during a run: plain names and os.listdir rather than Path objects and a glob.
    task_dir = f"{proc_root}/{pid}/task"
    try:
        tasks = os.listdir(task_dir)
    except OSError:
        return None  # the process is gone
    children: list[int] = []
    found_a_file = False
    for task in tasks:
        text = _read_text(f"{task_dir}/{task}/children")
        if text is None:
            continue
        found_a_file = True
        children.extend(int(child) for child in text.split() if child.isdigit())
    if not found_a_file:
        return None  # no CONFIG_PROC_CHILDREN, or the process is gone
    return children


def _process_tree_cpu_s_from_proc(pid: int, proc_root: Path) -> float | None:
    root = _proc_cpu_ticks(proc_root, pid)
    if root is None:
        return None
    own_ticks, reaped_ticks = root
    # reaped_ticks holds job processes fio already waited for; the live ones are walked.
    total_ticks = own_ticks + reaped_ticks
    pending = _proc_children(proc_root, pid)
    if pending is None:
        return None
    seen = {pid}
    while pending:
        child = pending.pop()
        if child in seen:
            continue
        seen.add(child)
        ticks = _proc_cpu_ticks(proc_root, child)
        if ticks is None:
            continue  # exited between the two reads
        total_ticks += ticks[0]
        pending.extend(_proc_children(proc_root, child) or [])
    return total_ticks / _clock_ticks_per_s()


def _process_tree_cpu_s_from_psutil(pid: int) -> float | None:
    try:
        root = psutil.Process(pid)
        times = root.cpu_times()
        total_s = times.user + times.system + times.children_user + times.children_system
        for child in root.children(recursive=True):
            try:
                child_times = child.cpu_times()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            total_s += child_times.user + child_times.system
        return total_s
    except (psutil.Error, OSError):
        return None


def read_process_tree_cpu_s(pid: int, proc_root: Path = Path("/proc")) -> float | None:
    """User + system CPU seconds of `pid` and all its descendants, reaped ones included.

    Reads /proc/PID/stat and /proc/PID/task/*/children directly: psutil finds children
    by reading every process's stat (tens of ms a call on a desktop), which would make
    iotui's own CPU use show in the figures. psutil remains the fallback where /proc
    lacks the children files (older kernels, non-Linux). `None` when the process is gone.
    """
    from_proc = _process_tree_cpu_s_from_proc(pid, proc_root)
    if from_proc is not None:
        return from_proc
    if (proc_root / str(pid)).exists():
        # Linux without CONFIG_PROC_CHILDREN: psutil can still find the children.
        return _process_tree_cpu_s_from_psutil(pid)
    if (proc_root / "self").exists():
        return None  # a Linux /proc without this pid: the process is gone
    return _process_tree_cpu_s_from_psutil(pid)


def process_stopped(pid: int, proc_root: Path = Path("/proc")) -> bool:
    """Is the process stopped (state T: SIGSTOP from someone)? Linux /proc; False elsewhere."""
    text = _read_text(proc_root / str(pid) / "stat")
    if text is None:
        return False
    return text.rpartition(")")[2].split()[:1] == ["T"]

# -- who moved bytes: /proc/PID/io -------------------------------------------------------
# ``read_bytes`` and ``write_bytes`` count the bytes a process caused to reach the storage
# layer (page cache hits and pipes left out). The kernel shows them for the same user's
# processes, or every process to root; the others are skipped. A scan walks every process
# (about 2 small reads each), so it runs only while another program's I/O is suspected,
# at most once per second.


@dataclass(frozen=True)
class ProcessIo:
    """Bytes one process moved since the previous look (or since it started, when it started during the run)."""

    pid: int
    name: str
    read_bytes: int
    write_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.read_bytes + self.write_bytes


@dataclass(frozen=True)
class _Stat:
    name: str
    ppid: int
    start_ticks: int


def _stat(proc_root: Path, pid: int) -> _Stat | None:
    text = _read_text(f"{proc_root}/{pid}/stat")
    if text is None:
        return None
    name = text[text.find("(") + 1 : text.rfind(")")]
    fields = text[text.rfind(")") + 2 :].split()
    try:
        return _Stat(name, int(fields[1]), int(fields[19]))
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class _Seen:
    """A process at the previous look: its counts then, its parent and its name."""

    start_ticks: int
    read_bytes: int
    write_bytes: int
    parent: int
    name: str


@dataclass(frozen=True)
class _Ended:
    """A parent's children that ended since the previous look: the busiest one's pid and name,
    the bytes last seen of them all."""

    pid: int
    name: str
    read_bytes: int
    write_bytes: int


def _io(proc_root: Path, pid: int) -> tuple[int, int] | None:
    text = _read_text(f"{proc_root}/{pid}/io")
    if text is None:
        return None
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("read_bytes", "write_bytes"):
            try:
                values[key] = int(value)
            except ValueError:
                return None
    if len(values) != 2:
        return None
    return values["read_bytes"], values["write_bytes"]


def _uptime_ticks(proc_root: Path) -> int | None:
    text = _read_text(f"{proc_root}/uptime")
    try:
        return int(float(text.split()[0]) * os.sysconf("SC_CLK_TCK")) if text else None
    except (IndexError, ValueError, OSError):
        return None


class ProcessIoScanner:
    """Bytes per process between looks, leaving out fio's process tree and iotui's own processes.

    A process that started after the scanner was made counts from zero; one that was
    already running counts from the first look that finds it (its earlier I/O is not this run's).
    """

    def __init__(self, own_pids: set[int], fio_pid: int | None, proc_root: Path = Path("/proc")) -> None:
        self.proc_root = proc_root
        self._own = set(own_pids)
        self._fio_pid = fio_pid
        self._started_ticks = _uptime_ticks(proc_root)
        self._last: dict[int, _Seen] = {}
        self.scans = 0

    def scan(self) -> list[ProcessIo]:
        """Every visible process's bytes since the previous look, most first (none that moved nothing)."""
        self.scans += 1
        stats: dict[int, _Stat] = {}
        for entry in os.listdir(self.proc_root):
            if entry.isdigit() and (stat := _stat(self.proc_root, int(entry))) is not None:
                stats[int(entry)] = stat
        skipped = self._skipped(stats)
        reaped = self._reaped(stats)
        moved: list[ProcessIo] = []
        seen: dict[int, _Seen] = {}
        for pid, stat in stats.items():
            if pid in skipped or (counts := _io(self.proc_root, pid)) is None:
                continue
            read_bytes, write_bytes = counts
            seen[pid] = _Seen(stat.start_ticks, read_bytes, write_bytes, stat.ppid, stat.name)
            before = self._last.get(pid)
            ended = reaped.get(pid)
            if before is not None and before.start_ticks == stat.start_ticks:
                # A child that ended since is added to its parent's counts by the kernel: not the parent's I/O.
                base_read = before.read_bytes + (ended.read_bytes if ended else 0)
                base_write = before.write_bytes + (ended.write_bytes if ended else 0)
            elif self._started_ticks is not None and stat.start_ticks >= self._started_ticks:
                base_read = base_write = 0
            else:
                continue  # running before the run and not looked at yet: this look is its baseline
            # Where a child ended since the last look, the parent's rise holds the child's last bytes
            # (moved after that look, added at reaping) and cannot be told from the parent's own: it is
            # credited to the child, as a shell or a test runner waiting on a dd seldom writes itself.
            who = (ended.pid, ended.name) if ended else (pid, stat.name)
            delta = ProcessIo(who[0], who[1], max(0, read_bytes - base_read), max(0, write_bytes - base_write))
            if delta.total_bytes:
                moved.append(delta)
        self._last = seen
        return sorted(moved, key=lambda found: found.total_bytes, reverse=True)

    def _reaped(self, stats: dict[int, _Stat]) -> dict[int, _Ended]:
        """Per parent, its children that have ended since the previous look: the bytes last seen of
        them all, and the one that moved most (whose name the parent's rise is given under)."""
        ended: dict[int, list[tuple[int, _Seen]]] = {}
        for pid, last in self._last.items():
            now = stats.get(pid)
            if now is None or now.start_ticks != last.start_ticks:
                ended.setdefault(last.parent, []).append((pid, last))
        reaped: dict[int, _Ended] = {}
        for parent, children in ended.items():
            pid, busiest = max(children, key=lambda child: child[1].read_bytes + child[1].write_bytes)
            reaped[parent] = _Ended(pid, busiest.name, sum(child.read_bytes for _, child in children),
                                    sum(child.write_bytes for _, child in children))
        return reaped

    def _skipped(self, stats: dict[int, _Stat]) -> set[int]:
        """fio and every process under it; iotui itself and its own helpers (the probes' children)."""
        children: dict[int, list[int]] = {}
        for pid, stat in stats.items():
            children.setdefault(stat.ppid, []).append(pid)
        skipped = set(self._own)
        pending = [self._fio_pid] if self._fio_pid is not None else []
        while pending:
            pid = pending.pop()
            if pid not in skipped or pid == self._fio_pid:
                skipped.add(pid)
                pending.extend(child for child in children.get(pid, []) if child not in skipped)
        return skipped
