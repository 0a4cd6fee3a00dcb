"""What to try when the machine stops responding: a sentence that fits the run.

The suggestion follows the cause the levels named and what the run is made of, so it
never asks for fewer jobs when there is one, nor a lower iodepth when it is 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from iotui.core.host.levels import Assessment, Level


@dataclass(frozen=True)
class RunShape:
    """The facts of a run a suggestion depends on."""

    numjobs: int = 1
    iodepth: int = 1
    direct: bool = False
    writes: bool = False
    cpu_count: int = 1


def _option(options: Mapping[str, object], key: str) -> list[str]:
    """Every value given for `key`: global, or a section's own ("<section>.<key>")."""
    return [str(value) for name, value in options.items() if name == key or name.endswith("." + key)]


def _largest_int(values: list[str], default: int) -> int:
    numbers = []
    for value in values:
        try:
            numbers.append(int(str(value).strip()))
        except ValueError:
            continue
    return max(numbers, default=default)


def run_shape(options: Mapping[str, object], cpu_count: int, numjobs: int | None = None) -> RunShape:
    """A `RunShape` from a run's effective fio options (strings, as records keep them)."""
    rws = _option(options, "rw") or _option(options, "readwrite")
    directs = _option(options, "direct")
    buffered = _option(options, "buffered")
    direct = bool(directs) and all(value.strip() == "1" for value in directs) and not any(
        value.strip() == "1" for value in buffered
    )
    return RunShape(
        numjobs=numjobs if numjobs is not None else _largest_int(_option(options, "numjobs"), 1),
        iodepth=_largest_int(_option(options, "iodepth"), 1),
        direct=direct,
        writes=any("write" in value or value.strip() in ("rw", "randrw", "trim") for value in rws),
        cpu_count=max(1, cpu_count),
    )


def suggestion(shape: RunShape, cause: str | None) -> str:
    """One sentence: the likely reason and what to try; "" for no cause."""
    if cause is None:
        return ""
    jobs = shape.numjobs > 1
    if cause == "psi_memory_full":
        fewer = "fewer jobs, " if jobs else ""
        return (
            "Memory is short: fio's buffers (numjobs x iodepth x block size) and other programs "
            f"leave too little RAM; try {fewer}a lower iodepth or a smaller block size."
        )
    if cause == "wakeup":
        if shape.numjobs > shape.cpu_count:
            return f"numjobs ({shape.numjobs}) is above the core count ({shape.cpu_count}): try fewer jobs."
        return (
            "Wake-ups run late: the CPUs are busy with fio or another program; limit fio's CPU "
            "share (nice=19, or cpus_allowed to leave a core free)."
        )
    # An I/O cause: other programs' reads or saves wait behind fio's I/O.
    if shape.writes and not shape.direct:
        return (
            "fio's buffered writes fill the page cache and its writeback delays every other "
            "program's I/O: use direct I/O (direct=1), or a smaller dirty budget "
            "(vm.dirty_bytes and vm.dirty_background_bytes)."
        )
    queue = []
    if shape.iodepth > 1:
        queue.append(f"a lower iodepth (now {shape.iodepth})")
    if jobs:
        queue.append(f"fewer jobs (now {shape.numjobs})")
    if queue:
        return (
            "fio's queue keeps the disk busy and other programs wait behind it: try "
            + " or ".join(queue) + ", or cap the rate (rate_iops)."
        )
    return (
        "Even one I/O at a time from fio delays other programs on this disk: cap the rate "
        "(rate_iops), or test a disk the desktop does not use."
    )


def likely_cause(numjobs: int | None, cpu_count: int, assessment: Assessment, shape: RunShape | None = None) -> str:
    """A sentence naming the likely cause of a bad level and what to try; "" when OK."""
    if assessment.level is Level.OK:
        return ""
    if shape is None:
        shape = RunShape(numjobs=numjobs or 1, cpu_count=cpu_count)
    return suggestion(shape, assessment.cause)
