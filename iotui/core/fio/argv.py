"""Preset + test file -> fio's argv. iotui, not the preset, decides the file."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Mapping

from iotui.core.fio import policy as safety
from iotui.core.runs.presets import Preset, PresetPolicyError, estimate, section_options

# What iotui needs from fio's output: cumulative json+ every second, no ETA line.
OUTPUT_ARGS = ("--output-format=json+", "--status-interval=1", "--eta=never")
# Jobs as threads of one fio process: forked job processes each call setsid(),
# so signals to fio's process group (pause, stop, the end of iotui) would miss
# them and a job could outlive iotui. Threads share the process's fate.
PROCESS_ARGS = ("--thread",)


def _option_args(options: Mapping[str, str]) -> list[str]:
    args = []
    for key, value in options.items():
        # An empty value is a flag, as in a job file (time_based, group_reporting).
        args.append(f"--{key}" if value == "" else f"--{key}={value}")
    return args


def _file_count(options: Mapping[str, str]) -> int:
    for key in ("nrfiles", "nr_files"):
        if key in options:
            text = options[key].strip()
            return int(text) if text.isdigit() and int(text) > 0 else 1
    return 1


def _fio_filename(paths: list[Path]) -> str:
    # fio splits --filename on ':'; a colon inside a path is escaped with a backslash.
    return ":".join(str(path).replace(":", "\\:") for path in paths)


def created_file_paths(preset: Preset, test_file: Path) -> list[Path]:
    """Every file fio creates for this preset: the test file, or ``<test file>.0``... for nrfiles=N.

    The caller that creates and removes the test file removes all of these.
    """
    counts = sorted({_file_count(options) for options in section_options(preset)})
    paths: list[Path] = []
    for count in counts:
        paths += _numbered(test_file, count)
    return list(dict.fromkeys(paths))


def _numbered(test_file: Path, count: int) -> list[Path]:
    if count == 1:
        return [test_file]
    return [test_file.with_name(f"{test_file.name}.{index}") for index in range(count)]


def _check(preset: Preset) -> None:
    origin = str(preset.source) if preset.source else f"preset {preset.name}"
    try:
        safety.check_options(preset.options, origin)
        for section in preset.jobs:
            safety.check_options(section.options, f"{origin} [{section.name}]")
    except safety.PolicyError as error:
        raise PresetPolicyError(str(error)) from None


def build_fio_argv(
    preset: Preset,
    *,
    test_file: Path | None = None,
    block_device: Path | None = None,
    fio_binary: str = "fio",
    readonly: bool = False,
) -> list[str]:
    """The exact command: fio, output options, the file, globals, then each job section.

    Sections after the first get ``--stonewall`` (they run one after another)
    unless the preset is a job file that keeps fio's own ordering. A raw block
    device always runs with ``--readonly``. The option policy is applied again
    here, so no Preset, however it was made, reaches fio with a refused option.

    ``nrfiles=N`` (N > 1) needs N files (fio given one ``--filename`` would
    silently use that one): fio gets ``<test file>.0`` ... ``<test file>.N-1``,
    which :func:`created_file_paths` lists for the caller to remove.
    """
    if (test_file is None) == (block_device is None):
        raise ValueError("give exactly one of test_file or block_device")
    _check(preset)
    argv = [fio_binary, *OUTPUT_ARGS, *PROCESS_ARGS]
    if readonly or block_device is not None:
        argv.append("--readonly")
    global_files = _file_count(preset.options)
    if block_device is not None:
        argv.append(f"--filename={_fio_filename([block_device])}")
    else:
        assert test_file is not None
        argv.append(f"--filename={_fio_filename(_numbered(test_file, global_files))}")
    argv += _option_args(preset.options)
    sections = preset.jobs or ()
    if not sections:
        argv.append(f"--name={preset.name}")
    for index, section in enumerate(sections):
        argv.append(f"--name={section.name}")
        if index > 0 and preset.serial:
            argv.append("--stonewall")
        if test_file is not None:
            count = _file_count(section.options) if any(
                key in section.options for key in ("nrfiles", "nr_files")
            ) else global_files
            if count != global_files:
                argv.append(f"--filename={_fio_filename(_numbered(test_file, count))}")
        argv += _option_args(section.options)
    return argv


def format_command(argv: list[str]) -> str:
    """Shell-quoted, for display and copy-paste."""
    return " ".join(shlex.quote(arg) for arg in argv)


def required_bytes(preset: Preset) -> int | None:
    """Disk space the test file needs (all jobs share it); None when a size is unknown."""
    return estimate(preset)[1]
