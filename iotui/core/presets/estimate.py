"""How long a preset runs and how much disk its test files take, from its options alone."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence, TypeVar

from iotui.core.fio.file_lists import file_list_parts
from iotui.core.fio.units import PERCENT_SIZE, fio_kb_base, parse_seconds, parse_size_bytes, upper_end
from iotui.core.presets.model import Preset, is_true, lookup_option, section_options

Number = TypeVar("Number", int, float)


def _section_seconds(options: Mapping[str, str]) -> float | None:
    runtime = parse_seconds(lookup_option(options, "runtime"))
    if runtime is None:
        return None  # size-bound: how long depends on the device
    ramp = parse_seconds(lookup_option(options, "ramp_time")) or 0.0
    start_delay = parse_seconds(upper_end(lookup_option(options, "startdelay"))) or 0.0
    return runtime + ramp + start_delay


# The kb_base fio reads an option's value with, by the option's name (see _kb_bases).
KbBase = Callable[[str], int]


def _kb_bases(preset: Preset) -> list[KbBase]:
    """Per section: the kb_base fio reads each option's value with.

    fio reads a value when it is given, with the kb_base in effect there: a
    [global] value with the global kb_base, a section's own values with the
    section's (iotui puts kb_base first in each part of the argv, as fio's
    job-file parser reads it first), so ``size=1M`` in [global] stays 1 MiB under
    a section's ``kb_base=1000``.
    """
    global_kb = fio_kb_base(lookup_option(preset.options, "kb_base"))
    if not preset.jobs:
        return [lambda key: global_kb]

    def reader(own: Mapping[str, str]) -> KbBase:
        own_kb = lookup_option(own, "kb_base")
        section_kb = global_kb if own_kb is None else fio_kb_base(own_kb)
        return lambda key: section_kb if lookup_option(own, key) is not None else global_kb

    return [reader(section.options) for section in preset.jobs]


class SizeUnknown(Exception):
    """A size (or count) iotui cannot read as fio reads it; str() is a clause after "because"."""


def _largest_size(options: Mapping[str, str], key: str, kb_base: KbBase) -> int | None:
    """``key``'s value in bytes as fio reads it (the largest part of a range ``a-b``, ``a:b``, ``a,b``).

    None when the option is not set; SizeUnknown when it is set and unreadable (a
    percentage of a file that does not exist yet, or a spelling fio reads otherwise).
    """
    value = lookup_option(options, key)
    if value is None:
        return None
    text = value.strip(" ")
    if PERCENT_SIZE.fullmatch(text):
        raise SizeUnknown(
            f"{key}={value} is a percentage of a file that does not exist yet (iotui makes the files in a new "
            "private test directory), so its size cannot be known; give a size such as 1G"
        )
    parts = [parse_size_bytes(part, kb_base=kb_base(key)) for part in re.split(r"[,:-]", text)]
    if not parts or any(part is None for part in parts):
        raise SizeUnknown(
            f"{key}={value} is not a size iotui reads exactly as fio does (such as 4k, 64M, 1G, 1GiB or "
            "0x100000; no fractions, no space before the unit)"
        )
    return max(part for part in parts if part is not None)


def _count(options: Mapping[str, str], key: str, kb_base: KbBase, default: int) -> int:
    """A whole number as fio reads it (fio's integers take the size suffixes too: nrfiles=1k is 1024)."""
    try:
        value = _largest_size(options, key, kb_base)
    except SizeUnknown:
        raise SizeUnknown(
            f"{key}={lookup_option(options, key)} is not a whole number fio reads (such as 1, 16, 64 or 1k)"
        ) from None
    if value is None:
        return default
    if value < 1:
        raise SizeUnknown(f"{key}={lookup_option(options, key)} is not a count of 1 or more")
    return value


def file_names(options: Mapping[str, str]) -> list[str]:
    """The names of a ``filename=a:b:c`` list (fio makes one file per name)."""
    value = lookup_option(options, "filename")
    return [part for part in file_list_parts(value) if part] if value is not None else []


def _section_disk(options: Mapping[str, str], kb_base: KbBase) -> tuple[tuple[str, str], int]:
    """(which files, bytes on disk) for one section, by its effective options; SizeUnknown when unknown.

    The files: ``("shared", "")`` for iotui's one shared test file (every job of
    every such section uses it, so numjobs does not multiply it); ``("file", NAME)``
    for a job's own ``filename=`` (its clones share it); ``("own", "")`` where
    fio names the files itself (``directory=`` or nrfiles > 1: each clone has
    its own, so numjobs multiplies). Files: nrfiles, or each name of a ``:``
    list. Size: ``filesize`` per file, else ``size`` (else ``io_size``) split
    over the files, plus offsets.
    """
    names = file_names(options)
    nrfiles = max(_count(options, "nrfiles", kb_base, 1), len(names))
    numjobs = _count(options, "numjobs", kb_base, 1)
    offset = _largest_size(options, "offset", kb_base) or 0
    increment = _largest_size(options, "offset_increment", kb_base) or 0
    reach = offset + (numjobs - 1) * increment
    filesize = _largest_size(options, "filesize", kb_base)
    size = _largest_size(options, "size", kb_base)
    if size is None:
        size = _largest_size(options, "io_size", kb_base)
    if filesize is not None:
        per_job = nrfiles * (reach + filesize)
    elif size is not None:
        per_job = size + nrfiles * reach
    else:
        raise SizeUnknown("it has no size (size=, filesize= or io_size=)")
    if "directory" in options or (nrfiles > 1 and not names):
        return ("own", ""), numjobs * per_job
    if names:
        return ("file", lookup_option(options, "filename") or ""), per_job
    return ("shared", ""), per_job


_BLOCK_SIZE_OPTIONS = ("bs", "bsrange", "bssplit")
_DEFAULT_BS = 4096


def _section_buffers(options: Mapping[str, str], kb_base: KbBase) -> tuple[int, str]:
    """(bytes of I/O buffers, how) for one section: numjobs x iodepth x the largest block size, twice
    with verify (fio keeps a buffer per I/O in flight, and verify reads each block back into another),
    plus numjobs x lockmem (memory each job pins)."""
    numjobs = _count(options, "numjobs", kb_base, 1)
    iodepth = _count(options, "iodepth", kb_base, 1)
    largest = 0
    for key in _BLOCK_SIZE_OPTIONS:
        value = lookup_option(options, key)
        if value is None:
            continue
        for piece in re.split(r"[,:-]", value.strip(" ")):
            size_text = piece.split("/", 1)[0]
            if not size_text:
                continue  # bs=,64k keeps fio's default for that direction
            size = parse_size_bytes(size_text, kb_base=kb_base(key))
            if size is None:
                raise SizeUnknown(f"{key}={value} is not a block size iotui reads exactly as fio does (such as 4k or 1M)")
            largest = max(largest, size)
    largest = largest or _DEFAULT_BS
    verify = str(lookup_option(options, "verify") or "0").strip(" ").lower() not in ("0", "none", "false", "")
    factor = 2 if verify else 1
    how = f"numjobs {numjobs} x iodepth {iodepth} x bs {largest:,} bytes" + (" x 2 (verify)" if verify else "")
    # lockmem: each job (every numjobs clone) allocates and mlock()s that much, which fio only caps at
    # the machine's RAM less 128 MiB; as root, lockmem=1000T pinned all but that and woke the OOM killer.
    locked = _largest_size(options, "lockmem", kb_base) or 0
    if locked:
        how += f" + numjobs {numjobs} x lockmem {locked:,} bytes"
    return numjobs * (iodepth * largest * factor + locked), how


def _sequential_groups(preset: Preset, values: Sequence[Number]) -> list[list[Number]]:
    """Sections that run at the same time, group by group (a stonewall starts a group)."""
    if preset.serial:
        return [[value] for value in values]
    groups: list[list[Number]] = []
    for index, value in enumerate(values):
        own = preset.jobs[index].options if preset.jobs else {}
        if not groups or is_true(lookup_option(own, "stonewall")) or "wait_for" in own:
            groups.append([])
        groups[-1].append(value)
    return groups


@dataclass(frozen=True)
class PlannedSection:
    """A section the run will have (one fio reporting group, in order): its first job's name and
    how long it runs (runtime + ramp_time + startdelay, its longest job's), None where its size ends it."""

    name: str
    seconds: float | None


def planned_sections(preset: Preset) -> list[PlannedSection]:
    """The sections in the order fio runs and numbers them (a stonewall starts the next)."""
    options_list = section_options(preset)
    names = [job.name for job in preset.jobs] if preset.jobs else [preset.name]
    indices = list(range(len(options_list)))
    planned = []
    for group in _sequential_groups(preset, indices):
        seconds = [_section_seconds(options_list[index]) for index in group]
        known = [value for value in seconds if value is not None]
        planned.append(PlannedSection(names[group[0]], max(known) if len(known) == len(seconds) else None))
    return planned


def estimate(preset: Preset) -> tuple[float | None, int | None]:
    """(duration in seconds, disk bytes for the test file); None where it cannot be known.

    Duration: runtime + ramp_time (+ startdelay) per section, summed over
    sections that run one after another; unknown when a section has no runtime
    (it ends when its size is done). Disk: each section's effective size
    (size, filesize, nrfiles, io_size, numjobs, offsets; see
    :func:`_section_disk`); sections on iotui's shared test file share it.
    Unknown when a size is a percentage or missing.
    """
    options_list = section_options(preset)
    seconds = [_section_seconds(options) for options in options_list]
    known_seconds = [value for value in seconds if value is not None]
    duration = None
    if len(known_seconds) == len(seconds):
        duration = float(sum(max(group) for group in _sequential_groups(preset, known_seconds)))
    disk_bytes, _ = disk_estimate(preset)
    return duration, disk_bytes


def disk_estimate(preset: Preset) -> tuple[int | None, str | None]:
    """(disk bytes for the run's files, None) or (None, why they cannot be known: a clause after "because").

    Each section's effective size (see :func:`_section_disk`); sections on the same
    shared or named file share it, files fio names are each section's own.
    """
    origin = str(preset.source) if preset.source else f"preset {preset.name}"
    largest: dict[tuple[str, str], int] = {}
    own = 0
    for index, (options, kb_base) in enumerate(zip(section_options(preset), _kb_bases(preset))):
        try:
            files, size_bytes = _section_disk(options, kb_base)
        except SizeUnknown as error:
            where = f"{origin} [{preset.jobs[index].name}]" if preset.jobs else origin
            return None, f"{where}: {error}"
        if files[0] == "own":
            own += size_bytes
        else:
            largest[files] = max(largest.get(files, 0), size_bytes)
    total = sum(largest.values()) + own
    return (total, None) if total else (None, f"{origin}: its size is 0")


def buffer_estimate(preset: Preset) -> tuple[int | None, str]:
    """(bytes of memory the run's I/O buffers take, how they add up) or (None, why unknown).

    Per section numjobs x iodepth x the largest block size (twice with verify);
    sections that run at the same time add up, and the largest group counts.
    """
    origin = str(preset.source) if preset.source else f"preset {preset.name}"
    figures: list[tuple[int, str]] = []
    for index, (options, kb_base) in enumerate(zip(section_options(preset), _kb_bases(preset))):
        try:
            figures.append(_section_buffers(options, kb_base))
        except SizeUnknown as error:
            where = f"{origin} [{preset.jobs[index].name}]" if preset.jobs else origin
            return None, f"{where}: {error}"
    groups = _sequential_groups(preset, list(range(len(figures))))
    largest = max(groups, key=lambda group: sum(figures[index][0] for index in group))
    return sum(figures[index][0] for index in largest), " + ".join(figures[index][1] for index in largest)


def _section_files(options: Mapping[str, str], kb_base: KbBase) -> tuple[tuple[str, str], int, str]:
    """(which files, how many, how they add up) for one section, keyed as :func:`_section_disk` keys them.

    iotui's shared test file is one file; a job's own ``filename=`` list is one
    file per name, shared by its clones; files fio names itself (``directory=``
    or nrfiles > 1) are numjobs x nrfiles.
    """
    names = file_names(options)
    nrfiles = max(_count(options, "nrfiles", kb_base, 1), len(names))
    numjobs = _count(options, "numjobs", kb_base, 1)
    if "directory" in options or (nrfiles > 1 and not names):
        return ("own", ""), numjobs * nrfiles, f"nrfiles {nrfiles:,} x numjobs {numjobs:,}"
    if names:
        # max(nrfiles, names), as the disk estimate counts them: never fewer than fio may make.
        return ("file", lookup_option(options, "filename") or ""), nrfiles, f"{nrfiles:,} files in filename="
    return ("shared", ""), 1, "1 shared test file"


def file_estimate(preset: Preset) -> tuple[int | None, str]:
    """(files the run creates, how they add up) or (None, why unknown: a clause after "because").

    Per section numjobs x nrfiles (or the names of a ``:`` list); sections on the
    same shared or named file share it, files fio names are each section's own,
    summed as :func:`disk_estimate` sums their bytes (fio leaves each section's
    files in place until the run ends).
    """
    origin = str(preset.source) if preset.source else f"preset {preset.name}"
    shared: dict[tuple[str, str], tuple[int, str]] = {}
    own: list[tuple[int, str]] = []
    for index, (options, kb_base) in enumerate(zip(section_options(preset), _kb_bases(preset))):
        where = f"[{preset.jobs[index].name}] " if preset.jobs else ""
        try:
            files, count, how = _section_files(options, kb_base)
        except SizeUnknown as error:
            return None, f"{origin} {where.strip()}".strip() + f": {error}"
        if files[0] == "own":
            own.append((count, where + how))
        elif count > shared.get(files, (0, ""))[0]:
            shared[files] = (count, where + how)
    figures = list(shared.values()) + own
    return sum(count for count, _ in figures), " + ".join(how for _, how in figures)
