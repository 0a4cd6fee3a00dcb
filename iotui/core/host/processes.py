"""Processes as /proc shows them: the CPU time of a process tree (fio and its job processes)
and whether a process is stopped (SIGSTOP from someone).

Read straight from /proc: psutil finds children by reading every process's
stat, which would make iotui's own CPU use show in the figures. psutil is the
fallback where /proc lacks what is needed.
"""

from __future__ import annotations

import os
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
