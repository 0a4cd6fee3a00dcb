"""Preset + test file -> fio's argv. iotui, not the preset, decides the file."""

from __future__ import annotations

import shlex
from pathlib import Path

from iotui.core.presets import Preset, estimate

# What iotui needs from fio's output: cumulative json+ every second, no ETA line.
OUTPUT_ARGS = ("--output-format=json+", "--status-interval=1", "--eta=never")


def _option_args(options: dict[str, str]) -> list[str]:
    args = []
    for key, value in options.items():
        # An empty value is a flag, as in a job file (time_based, group_reporting).
        args.append(f"--{key}" if value == "" else f"--{key}={value}")
    return args


def build_fio_argv(
    preset: Preset,
    *,
    test_file: Path | None = None,
    block_device: Path | None = None,
    fio_binary: str = "fio",
    readonly: bool = False,
) -> list[str]:
    """The exact command: fio, output options, the file, globals, then each job section."""
    if (test_file is None) == (block_device is None):
        raise ValueError("give exactly one of test_file or block_device")
    argv = [fio_binary, *OUTPUT_ARGS]
    if readonly or block_device is not None:
        argv.append("--readonly")
    argv.append(f"--filename={test_file if test_file is not None else block_device}")
    argv += _option_args(preset.options)
    for index, section in enumerate(preset.jobs):
        argv.append(f"--name={section.name}")
        if index > 0:
            # Sections run one after another, like the studies' scripts.
            argv.append("--stonewall")
        argv += _option_args(section.options)
    return argv


def format_command(argv: list[str]) -> str:
    """Shell-quoted, for display and copy-paste."""
    return " ".join(shlex.quote(arg) for arg in argv)


def required_bytes(preset: Preset) -> int | None:
    """Disk space the test file needs (the largest section size)."""
    return estimate(preset)[1]
