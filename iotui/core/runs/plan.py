"""Preset + target -> a RunPlan, with every refusal decided before fio starts."""

from __future__ import annotations

import os
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotui.core.presets import argv as command
from iotui.core.fio import policy as safety
from iotui.core.fio.units import parse_size_bytes
from iotui.core.host import targets as target_checks
from iotui.core.host.block_devices import backing_devices
from iotui.core.host.device_facts import target_device_facts
from iotui.core.host.memory import buffers_problem, mem_available_bytes
from iotui.core.records.cache_check import engines_of, without_cache_warnings
from iotui.core.presets.estimate import (
    PlannedSection, buffer_estimate, disk_estimate, estimate, file_estimate, planned_sections,
)
from iotui.core.presets.model import Preset, section_options, uses_direct_io
from iotui.core.runs.test_dir import new_test_file_path


@dataclass
class RunPlan:
    """Everything decided before fio starts."""

    preset_name: str
    argv: list[str]
    options: dict[str, str]
    target_path: Path
    """The target's resolved path (its TargetInfo's, resolved once from the user's text)."""
    test_file: Path | None
    target: dict[str, Any]
    warnings: list[tuple[str, str]] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    numjobs: int | None = None
    # Every file fio will use (nrfiles=N gives N numbered files); empty: just test_file.
    test_files: list[Path] = field(default_factory=list)
    estimated_duration_s: float | None = None
    title: str = ""
    # iotui's private test directory inside the target (mode 0700, random name), removed after the run.
    private_dir: Path | None = None
    # Directories inside it that the job's own relative names need.
    private_subdirs: list[Path] = field(default_factory=list)
    # The sections fio will report, in order (fio's groupid is the index): what the live view names.
    sections: list[PlannedSection] = field(default_factory=list)


class PlanError(Exception):
    """A run that must not start; str() says why, naming no command-line flag.

    ``code``, where a front end adds what to do in its own terms: the target's
    (:class:`~iotui.core.host.targets.TargetError`'s ``code``, such as ``target-missing``) or
    ``size-unknown`` (the run's size cannot be known, so its free space cannot be checked).
    """

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def effective_options(preset: Preset) -> dict[str, str]:
    """The record's ``[options]``: global options, then ``section.key`` per job section.

    A single-section preset's options are merged into the global ones, since
    that is what fio ran.
    """
    options = {key: str(value) for key, value in preset.options.items()}
    if len(preset.jobs) == 1:
        options.update({key: str(value) for key, value in preset.jobs[0].options.items()})
    else:
        for section in preset.jobs:
            for key, value in section.options.items():
                options[f"{section.name}.{key}"] = str(value)
    return options


def _option(preset: Preset, key: str) -> str | None:
    value = preset.options.get(key)
    if value is None and len(preset.jobs) == 1:
        value = preset.jobs[0].options.get(key)
    return value


def _numjobs(preset: Preset) -> int | None:
    values = [_option(preset, "numjobs")] + [s.options.get("numjobs") for s in preset.jobs]
    # As fio reads an integer (numjobs=0x4 is 4, numjobs=1k is 1024).
    counts = [count for value in values if value is not None
              and (count := parse_size_bytes(safety.fio_value(str(value)))) is not None]
    return max(counts) if counts else 1


def make_plan(
    preset: Preset,
    target: target_checks.TargetInfo | str | os.PathLike[str] | None,
    *,
    fio_binary: str,
    allow_cache: bool = False,
    run_id: str | None = None,
    private_dir_name: str | None = None,
    preview: bool = False,
) -> RunPlan:
    """Validate the options and the target; decide the test file and fio's argv.

    ``target``: the target as chosen (a TargetInfo: the app's, previewed on every option edit and then
    run; only its free space is read again), or the user's text (None: the current directory),
    inspected here. Either way it is one value from here on, its path resolved once
    (:func:`~iotui.core.host.targets.chosen_target`).
    ``preview``: a plan only shown (Home's command, on every option edit): the devices the sampler
    counts and the disk's sysfs facts for the record, which only a run needs, are not read.
    """
    run_id = run_id or uuid.uuid4().hex
    try:
        # Every option in the one spelling the policy judged, which is the one fio receives and the
        # estimates read; job names that can become file names checked.
        preset = command.checked_preset(preset)
    except safety.PolicyError as error:
        raise PlanError(str(error)) from None
    try:
        info = target_checks.chosen_target(target)
    except target_checks.TargetError as error:
        raise PlanError(str(error), code=error.code) from None
    target_path = info.path  # resolved once, by chosen_target
    direct = uses_direct_io(preset)
    read_only = not safety.is_write_workload(section_options(preset))
    needs_bytes, unknown = disk_estimate(preset)
    if needs_bytes is None and not info.is_block_device:
        raise PlanError(f"{unknown}, so iotui cannot check the free space before the run.", code="size-unknown")
    needs_files, files_how = file_estimate(preset)
    if needs_files is None and not info.is_block_device:
        raise PlanError(f"{files_how}, so iotui cannot check the files the run creates.")
    buffers_bytes, how = buffer_estimate(preset)
    if buffers_bytes is None:
        raise PlanError(f"{how}, so iotui cannot check the memory the run's I/O buffers take.")
    memory_problem = buffers_problem(buffers_bytes, how, mem_available_bytes())
    if memory_problem:
        raise PlanError(memory_problem)
    try:
        warnings = target_checks.check_target(
            info, needs_bytes=needs_bytes, direct=direct, read_only=read_only, allow_cache=allow_cache,
            needs_files=None if info.is_block_device else needs_files, files_how=files_how,
        )
        # No page cache is involved where no engine moves file data (null, cpuio, network).
        warnings = without_cache_warnings(warnings, engines_of(section_options(preset)))
    except target_checks.TargetError as error:
        raise PlanError(str(error), code=error.code) from None
    is_block_device = info.is_block_device
    test_files: list[Path] = []
    private_dir: Path | None = None
    private_subdirs: list[Path] = []
    try:
        if is_block_device:
            test_file = None
            argv = command.build_fio_argv(
                preset, block_device=target_path, fio_binary=fio_binary, readonly=True
            )
        else:
            test_file = new_test_file_path(target_path, run_id)
            if private_dir_name:  # a preview shows a placeholder name
                test_file = target_path / private_dir_name / test_file.name
            private_dir = test_file.parent
            argv = command.build_fio_argv(preset, test_file=test_file, fio_binary=fio_binary)
            test_files = command.created_file_paths(preset, test_file)
            private_subdirs = command.placement_dirs(preset, private_dir)
    except safety.PolicyError as error:
        raise PlanError(str(error)) from None
    devices = [] if preview else _devices_for(target_path, is_block_device)
    duration_s, _ = estimate(preset)
    target_table: dict[str, str | int | bool | None] = {
        "path": str(target_path),
        "filesystem": info.filesystem or "unknown",
        "device": info.device or "unknown",
        "mount_options": info.mount_options or "",
        "model": info.model,
        "rotational": info.rotational,
        "block_device": is_block_device,
    }
    for key, value in ({} if preview else target_device_facts(target_path)).items():
        if target_table.get(key) is None:
            target_table[key] = value
    return RunPlan(
        preset_name=preset.name,
        title=preset.title,
        argv=argv,
        options=effective_options(preset),
        target_path=target_path,
        test_file=test_file,
        test_files=test_files,
        target=target_table,
        warnings=list(warnings),
        devices=devices,
        numjobs=_numjobs(preset),
        estimated_duration_s=duration_s,
        private_dir=private_dir,
        private_subdirs=private_subdirs,
        sections=planned_sections(preset),
    )


def _devices_for(target_path: Path, is_block_device: bool) -> list[str]:
    """The devices the host sampler counts; ``target_path`` is already resolved."""
    if is_block_device:
        try:
            if stat.S_ISBLK(os.stat(target_path).st_mode):
                return [target_path.name]
        except OSError:
            return []
    return backing_devices(target_path)  # never raises: unknown devices are []
