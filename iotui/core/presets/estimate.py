"""How long a preset runs and how much disk its test files take, from its options alone."""

from __future__ import annotations

from typing import Mapping

from iotui.core.fio.units import parse_seconds, parse_size_bytes, upper_end, whole_number
from iotui.core.presets.model import Preset, is_true, lookup_option, section_options

def _section_seconds(options: Mapping[str, str]) -> float | None:
    runtime = parse_seconds(lookup_option(options, "runtime"))
    if runtime is None:
        return None  # size-bound: how long depends on the device
    ramp = parse_seconds(lookup_option(options, "ramp_time")) or 0.0
    start_delay = parse_seconds(upper_end(lookup_option(options, "startdelay"))) or 0.0
    return runtime + ramp + start_delay


def _section_disk(options: Mapping[str, str]) -> tuple[tuple[str, str], int] | None:
    """(which files, bytes on disk) for one section, by its effective options.

    The files: ``("shared", "")`` for iotui's one shared test file (every job of
    every such section uses it, so numjobs does not multiply it); ``("file", NAME)``
    for a job's own ``filename=`` (its clones share it); ``("own", "")`` where
    fio names the files itself (``directory=`` or nrfiles > 1: each clone has
    its own, so numjobs multiplies). Size: ``filesize`` per file, else ``size``
    (else ``io_size``) split over the files, plus offsets. None when a size is
    unknown (a percentage, or none given).
    """
    kb_base = 1000 if (lookup_option(options, "kb_base") or "").strip() == "1000" else 1024
    nrfiles = whole_number(lookup_option(options, "nrfiles"), 1)
    numjobs = whole_number(lookup_option(options, "numjobs"), 1)
    if not nrfiles or not numjobs:
        return None
    offset = parse_size_bytes(lookup_option(options, "offset"), kb_base=kb_base) or 0
    increment = parse_size_bytes(lookup_option(options, "offset_increment"), kb_base=kb_base) or 0
    reach = offset + (numjobs - 1) * increment
    filesize = parse_size_bytes(upper_end(lookup_option(options, "filesize")), kb_base=kb_base)
    size = parse_size_bytes(lookup_option(options, "size"), kb_base=kb_base)
    if size is None:
        size = parse_size_bytes(lookup_option(options, "io_size"), kb_base=kb_base)
    if filesize is not None:
        per_job = nrfiles * (reach + filesize)
    elif size is not None:
        per_job = size + nrfiles * reach
    else:
        return None
    if "directory" in options or nrfiles > 1:
        return ("own", ""), numjobs * per_job
    filename = lookup_option(options, "filename")
    if filename is not None:
        return ("file", filename), per_job
    return ("shared", ""), per_job


def _sequential_groups(preset: Preset, values: list[float]) -> list[list[float]]:
    """Sections that run at the same time, group by group (a stonewall starts a group)."""
    if preset.serial:
        return [[value] for value in values]
    groups: list[list[float]] = []
    for index, value in enumerate(values):
        own = preset.jobs[index].options if preset.jobs else {}
        if not groups or is_true(lookup_option(own, "stonewall")) or "wait_for" in own:
            groups.append([])
        groups[-1].append(value)
    return groups


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
    disks = [_section_disk(options) for options in options_list]
    known_disks = [disk for disk in disks if disk is not None]
    disk_bytes = None
    if known_disks and len(known_disks) == len(disks):
        # Sections on the same shared or named file share it; files fio names are each section's own.
        largest: dict[tuple[str, str], int] = {}
        own = 0
        for files, size_bytes in known_disks:
            if files[0] == "own":
                own += size_bytes
            else:
                largest[files] = max(largest.get(files, 0), size_bytes)
        disk_bytes = (sum(largest.values()) + own) or None
    return duration, disk_bytes
