"""Preset + private test directory -> fio's argv. iotui, not the preset, decides where files go.

Every file fio touches lives in iotui's private test directory (created
inside the target with mode 0700 and a random name, removed after the run):
the one shared test file by default, ``directory=`` plus fio's own naming
where a job asks for ``nrfiles`` > 1, and a job file's relative ``filename=``
and ``directory=`` placed inside it. Only canonical option names (already
resolved and judged by :mod:`iotui.core.fio.policy`) reach the argv.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Mapping

from iotui.core.fio import policy as safety
from iotui.core.fio.file_lists import SPECIAL_FILES, file_list_parts
from iotui.core.fio.units import parse_size_bytes
from iotui.core.presets.estimate import estimate
from iotui.core.presets.model import NAME_PATTERN, JobSection, Preset, PresetPolicyError, section_options

# What iotui needs from fio's output: cumulative json+ every second, no ETA line.
OUTPUT_ARGS = ("--output-format=json+", "--status-interval=1", "--eta=never")
# Jobs as threads of one fio process: forked job processes each call setsid(),
# so signals to fio's process group (pause, stop, the end of iotui) would miss
# them and a job could outlive iotui. Threads share the process's fate.
PROCESS_ARGS = ("--thread",)
PLACEMENT = ("filename", "directory")


_FIRST = {"ioengine": 0, "kb_base": 1}


def _option_args(options: Mapping[str, str]) -> list[str]:
    args = []
    # The engine first: fio's command line knows an engine's own options only after --ioengine.
    # Then kb_base: fio reads each size when it is given, with the kb_base set before it (its job-file
    # parser reads kb_base first), so the sizes mean what the estimates read.
    ordered = sorted(options.items(), key=lambda item: _FIRST.get(item[0], len(_FIRST)))
    for key, value in ordered:
        # An empty value is a flag, as in a job file (time_based, group_reporting).
        args.append(f"--{key}" if value == "" else f"--{key}={value}")
    return args


def file_count(options: Mapping[str, str]) -> int:
    """nrfiles as fio reads it (an integer takes size suffixes and hex: 0x10, 1k), else 1."""
    count = parse_size_bytes(safety.fio_value(options.get("nrfiles", "1")))
    return count if count is not None and count > 0 else 1


def _escape(path: str) -> str:
    # fio splits filename and directory on ':'; a colon inside a path is escaped with a backslash.
    return path.replace(":", "\\:")


def _parts(value: str) -> list[str]:
    return [part for part in file_list_parts(value) if part]


def _inside(private_dir: Path, relative: str) -> Path:
    return private_dir / PurePosixPath(relative)


def section_placement(options: Mapping[str, str], private_dir: Path, test_file: Path) -> dict[str, str]:
    """``filename``/``directory`` for one section's effective options, inside ``private_dir``.

    Relative names are placed inside the private directory (with a
    ``directory=`` they stay relative to it, as fio reads them); /dev/null and
    /dev/zero stay. Without either, the shared test file, or for nrfiles > 1
    the private directory with fio's own file names.
    """
    placement: dict[str, str] = {}
    directory = options.get("directory")
    filename = options.get("filename")
    if directory is not None:
        placement["directory"] = ":".join(_escape(str(_inside(private_dir, part))) for part in _parts(directory))
    if filename is not None:
        parts = []
        for part in _parts(filename):
            if part in SPECIAL_FILES or directory is not None:
                parts.append(part)
            else:
                parts.append(_escape(str(_inside(private_dir, part))))
        placement["filename"] = ":".join(parts)
    if not placement:
        if file_count(options) > 1:
            placement["directory"] = _escape(str(private_dir))
        else:
            placement["filename"] = _escape(str(test_file))
    return placement


def uses_shared_file(preset: Preset) -> bool:
    """Does a section use iotui's one shared test file (no placement of its own, one file)?"""
    return any(
        not any(key in options for key in PLACEMENT) and file_count(options) == 1
        for options in section_options(preset)
    )


def placement_dirs(preset: Preset, private_dir: Path) -> list[Path]:
    """Directories inside ``private_dir`` the job's own names need (created before fio starts)."""
    needed: list[Path] = []
    for options in section_options(preset):
        directory = options.get("directory")
        bases = [_inside(private_dir, part) for part in _parts(directory)] if directory else [private_dir]
        needed += bases
        for part in _parts(options.get("filename", "")):
            if part not in SPECIAL_FILES:
                for base in bases:
                    needed.append((base / PurePosixPath(part)).parent)
        file_format = options.get("filename_format")
        if file_format:
            for base in bases:
                needed.append((base / PurePosixPath(file_format)).parent)
    return [path for path in dict.fromkeys(needed) if path != private_dir]


def created_file_paths(preset: Preset, test_file: Path) -> list[Path]:
    """The files iotui creates itself before fio starts: the shared test file, when used."""
    return [test_file] if uses_shared_file(preset) else []


def name_in_file_names(options: Mapping[str, str]) -> bool:
    """Can fio make a section's job name part of a file name ($jobname.$jobnum.$filenum), by its
    effective options: no filename= of its own (a directory= or nrfiles > 1, where iotui gives no
    file), nrfiles > 1, or a filename_format with $jobname."""
    if "$jobname" in options.get("filename_format", ""):
        return True
    if file_count(options) > 1:
        return True
    return "filename" not in options and "directory" in options


def _check_job_name(name: str, options: Mapping[str, str], origin: str) -> None:
    if not name_in_file_names(options) or NAME_PATTERN.fullmatch(name):
        return
    reason = (
        "fio makes the job's name part of its file names here (no filename= of its own, nrfiles > 1 or a "
        "filename_format with $jobname), and such a name must match ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ('/' and "
        "'..' would reach outside iotui's private test directory)"
    )
    raise PresetPolicyError(
        f"{origin}: the job name {name!r} (its section header or name=) is refused because {reason}. Rename "
        f"the job, or give it a filename= of its own. {safety.FIO_DIRECTLY}",
        code="refused-value",
        facts={"origin": origin, "given": "name", "option": "name", "value": name, "reason": reason,
               "candidates": []},
        key="name",
    )


def checked_preset(preset: Preset) -> Preset:
    """``preset`` with every option by its canonical name in the one spelling the policy judged (the
    spelling fio receives), and every job name that can become part of a file name checked."""
    origin = str(preset.source) if preset.source else f"preset {preset.name}"
    try:
        options = safety.check_options(preset.options, origin)
        engines = [options.get("ioengine", "")]
        jobs = tuple(
            JobSection(section.name, safety.check_options(
                section.options, f"{origin} [{section.name}]", engines=[e for e in engines if e]))
            for section in preset.jobs
        )
    except safety.PolicyError as error:
        raise PresetPolicyError.of(error) from None
    checked = replace(preset, options=options, jobs=jobs)
    if checked == preset:
        # Already in the judged spelling (a plan's preset, checked again by build_fio_argv): the same
        # value, with what it has built (its merged sections) kept.
        checked = preset
    check_job_names(checked)
    return checked


def check_job_names(preset: Preset) -> None:
    """Every job name of a preset whose options are canonical that fio may make part of a file name
    matches the preset name rule, else PresetPolicyError (what :func:`checked_preset` checks of names)."""
    origin = str(preset.source) if preset.source else f"preset {preset.name}"
    if not preset.jobs:
        _check_job_name(preset.name, preset.options, origin)
    for section, options in zip(preset.jobs, preset.merged_sections):
        _check_job_name(section.name, options, f"{origin} [{section.name}]")


def build_fio_argv(
    preset: Preset,
    *,
    test_file: Path | None = None,
    block_device: Path | None = None,
    fio_binary: str = "fio",
    readonly: bool = False,
) -> list[str]:
    """The exact command: fio, output options, globals, then each job section with its files.

    ``test_file``: the shared test file inside iotui's private test directory
    (its parent); every file a section uses is placed in that directory
    (:func:`section_placement`). Sections after the first get ``--stonewall``
    unless the preset is a job file that keeps fio's own ordering. A raw block
    device always runs with ``--readonly`` and takes no placement of the job's.
    The option policy is applied again here (:func:`checked_preset`), so no
    Preset, however it was made, reaches fio with a refused option, and fio
    receives each value in the spelling that was judged.
    """
    if (test_file is None) == (block_device is None):
        raise ValueError("give exactly one of test_file or block_device")
    preset = checked_preset(preset)
    argv = [fio_binary, *OUTPUT_ARGS, *PROCESS_ARGS]
    if readonly or block_device is not None:
        argv.append("--readonly")
    global_options = {key: value for key, value in preset.options.items() if key not in PLACEMENT and key != "name"}
    if block_device is not None:
        if any(key in options for options in section_options(preset) for key in PLACEMENT):
            raise PresetPolicyError(
                f"{preset.source or preset.name}: the job names files of its own (filename=/directory=), "
                "which needs a directory target, not a raw device.",
                code="refused-value", facts={"option": "filename", "reason": "raw device target"},
            )
        argv.append(f"--filename={_escape(str(block_device))}")
    argv += _option_args(global_options)
    sections = preset.jobs or ()
    if not sections:
        argv.append(f"--name={preset.name}")
        if test_file is not None:
            argv += _option_args(section_placement(preset.options, test_file.parent, test_file))
    for index, (section, effective) in enumerate(zip(sections, preset.merged_sections)):
        argv.append(f"--name={section.name}")
        if index > 0 and preset.serial:
            argv.append("--stonewall")
        own = {key: value for key, value in section.options.items() if key not in PLACEMENT and key != "name"}
        if test_file is not None:
            own = {**section_placement(effective, test_file.parent, test_file), **own}
        argv += _option_args(own)
    return argv


def format_command(argv: list[str]) -> str:
    """Shell-quoted, for display and copy-paste."""
    return " ".join(shlex.quote(arg) for arg in argv)


def required_bytes(preset: Preset) -> int | None:
    """Disk space the run's files need (see :func:`iotui.core.presets.estimate.estimate`); None when unknown."""
    return estimate(preset)[1]
