"""What to try when the machine stops responding: a sentence that fits the run.

The suggestion follows the cause the levels named and what the run is made of, so it
never asks for fewer jobs when there is one, nor a lower iodepth when it is 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import Mapping

from iotui.core.host.levels import Assessment, Level
from iotui.core.host.section_pressure import SectionedRecord
from iotui.core.numbers import number


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


# Advice that fits the evidence: the sections where the level rose, with their own knobs.
#
# A run-wide suggestion took the largest iodepth of the whole run ("try a lower iodepth
# (now 32)") even where the machine was sluggish only during a section with iodepth 8,
# and blamed fio's queue while another program was writing to the disk. What follows
# reads each section's own `pressure` and seconds: which sections rose above OK, with
# what cause, with which iodepth, numjobs and rate, and whether the disk did writes that
# were not fio's (nor the I/O probe's) while fio only read.

# Device writes per second, beyond fio's and the probe's, that say another program was writing.
OUTSIDE_WRITES_MIN_IOPS = 50.0
# A probe write is a 4 KiB write and an fdatasync: with the journal's commit, a few device writes.
DEVICE_WRITES_PER_PROBE_WRITE = 4.0
# The most sections named one by one in a warning; the rest are counted.
SECTIONS_NAMED = 3


@dataclass(frozen=True)
class RaisedSection:
    """A section during which the level rose above OK, with its own knobs and evidence."""

    name: str
    level: str
    cause: str | None
    shape: RunShape
    rate: str | None  # "rate_iops=200" / "rate=50m" as the section ran it; None without a cap
    bs: str | None
    outside_write_iops: float | None  # device writes/s that were neither fio's nor the probe's; None: not judged
    first: bool = False  # the run's first section: fio lays out its test file then (buffered writes)


def _outside_write_iops(section: Mapping[str, object], samples: Sequence[Mapping[str, object]]) -> float | None:
    """The median device writes/s not made by fio or the probe, over the section's seconds above OK.

    Judged only where fio wrote nothing in the section (a read section): a write section's own
    writes reach the device split and merged, so its count cannot be told apart from another's.
    """
    if any(key in section for key in ("write", "trim", "mixed")):
        return None
    raised = [sample for sample in samples if sample.get("responsiveness") not in (None, "ok")]
    outside = []
    for sample in raised:
        device = number(sample.get("device_write_iops"))
        if device is None or (number(sample.get("write_iops")) or 0.0) > 0:
            continue
        probe = number(sample.get("io_probe_write_iops")) or 0.0
        outside.append(max(0.0, device - DEVICE_WRITES_PER_PROBE_WRITE * probe))
    return median(outside) if outside else None


def _rate(options: Mapping[str, object]) -> str | None:
    for key in ("rate_iops", "rate"):
        value = str(options.get(key, "")).strip()
        if value and value not in ("0", "0,0"):
            return f"{key}={value}"
    return None


def raised_sections(record: SectionedRecord, cpu_count: int) -> list[RaisedSection]:
    """The sections whose own `pressure` rose above OK, in run order, each with its own knobs."""
    raised: list[RaisedSection] = []
    for index, section in enumerate(record.sections):
        pressure = section.get("pressure")
        if not isinstance(pressure, Mapping) or pressure.get("responsiveness") in (None, "ok"):
            continue
        found = section.get("options")
        options: Mapping[str, object] = found if isinstance(found, Mapping) else {}
        cause = pressure.get("cause")
        raised.append(RaisedSection(
            name=str(section.get("name", index)),
            level=str(pressure["responsiveness"]),
            cause=str(cause) if cause else None,
            shape=run_shape(options, cpu_count),
            rate=_rate(options),
            bs=str(options["bs"]) if options.get("bs") else None,
            outside_write_iops=_outside_write_iops(section, record.section_samples(index)),
            first=index == 0,
        ))
    return raised


def _io_advice(section: RaisedSection) -> str:
    """What to try in one section where other programs' I/O waited behind fio's."""
    shape = section.shape
    if section.outside_write_iops is not None and section.outside_write_iops >= OUTSIDE_WRITES_MIN_IOPS:
        if section.first:
            # fio lays out a new test file with buffered writes before its first section; their
            # writeback reaches the disk while that section reads.
            return (
                f"During {section.name} fio only read, yet the disk took about {section.outside_write_iops:,.0f} "
                "writes/s: the writeback of the test file fio laid out just before, or another program "
                "writing; not fio's queue. Run again with the file already laid out, or when the disk is quiet."
            )
        return (
            f"During {section.name} fio only read, yet the disk took about {section.outside_write_iops:,.0f} "
            "writes/s that were not fio's: another program was writing, and its writes, not fio's queue, "
            "are the likely cause; run again when the disk is quiet, or test a disk nothing else uses."
        )
    if shape.writes and not shape.direct:
        return (
            f"During {section.name} fio's buffered writes filled the page cache and its writeback delayed "
            "every other program's I/O: use direct I/O there (direct=1), or a smaller dirty budget "
            "(vm.dirty_bytes and vm.dirty_background_bytes)."
        )
    queue = []
    if shape.iodepth > 1:
        queue.append(f"a lower iodepth (now {shape.iodepth})")
    if shape.numjobs > 1:
        queue.append(f"fewer jobs (now {shape.numjobs})")
    rate = f"a lower rate (now {section.rate})" if section.rate else "cap the rate (rate_iops)"
    setting = f"iodepth {shape.iodepth}, numjobs {shape.numjobs}" + (f", {section.rate}" if section.rate else "")
    return (
        f"During {section.name} ({setting}) fio's I/O kept the disk busy and other programs waited "
        f"behind it: try {' or '.join(queue) + ', or ' if queue else ''}{rate} in that section."
    )


def _memory_advice(section: RaisedSection) -> str:
    shape = section.shape
    knobs = []
    if shape.numjobs > 1:
        knobs.append(f"fewer jobs (now {shape.numjobs})")
    if shape.iodepth > 1:
        knobs.append(f"a lower iodepth (now {shape.iodepth})")
    knobs.append(f"a smaller block size (now {section.bs})" if section.bs else "a smaller block size")
    return (
        f"During {section.name} memory was short: fio's buffers (numjobs x iodepth x block size) and other "
        f"programs left too little RAM; try {', '.join(knobs[:-1]) + ' or ' if len(knobs) > 1 else ''}{knobs[-1]} "
        "in that section, or close other programs."
    )


def section_advice(raised: Sequence[RaisedSection]) -> str:
    """What to try, section by section, where the level rose; "" when no section did."""
    if not raised:
        return ""
    named = list(raised[:SECTIONS_NAMED])
    sentences = []
    for section in named:
        if section.cause == "psi_memory_full":
            sentences.append(_memory_advice(section))
        elif section.cause == "wakeup":
            sentences.append(f"During {section.name}: {suggestion(section.shape, 'wakeup')}")
        elif section.cause is not None:
            sentences.append(_io_advice(section))
    left = len(raised) - len(named)
    if left:
        sentences.append(f"The level rose in {left} more section{'s' if left > 1 else ''} too (see each section's pressure).")
    return " ".join(sentences)
