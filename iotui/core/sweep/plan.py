"""Sweep plans: the cartesian product of varied keys, each point a preset and a target.

A sweep varies fio options (``--vary numjobs=1,2,4``), the target directory
(``--targets A,B``: one more varied key, ``target``) and, for the sysbench
study, the tool (``tool=fio,sysbench``). Before anything runs, the plan gives
the number of points, the estimated total time and the disk space the largest
point needs on each filesystem, and refuses a sweep the disk cannot hold.
Running the points is :mod:`iotui.core.sweep.runner`'s job; the analysis is
:mod:`iotui.core.sweep.analysis`'s.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.host.targets import files_problem, free_inodes
from iotui.core.presets.model import Preset
from iotui.core.sweep.values import (
    JOB_KEY,
    SPECIAL_KEYS,
    TARGET_KEY,
    TOOL_KEY,
    SweepAxis,
    SweepValueError,
    axes_from_table,
    merge_axes,
    parse_targets,
    parse_vary,
)

# The study preset that compares fio with real sysbench (seed 001).
SYSBENCH_COMPARE_PRESET = "sysbench-compare"
# Room left free beside the test file, as each run's own check requires.
FREE_SPACE_MARGIN_BYTES = 64 << 20
# Seconds each point spends around fio (planning, start, report, file removal).
POINT_OVERHEAD_S = 1.0
# A plan with more points than this asks first (CLI: --yes; app: a confirmation).
CONFIRM_POINTS = 10_000
# A plan with more points than this is refused before anything is made.
MAX_POINTS = 100_000


class SweepPlanError(Exception):
    """A sweep that must not start; str() says why and what to do, naming no flag.

    ``code`` names the fact for a front end that words it its own way
    (``"target-and-targets"``, ``"nothing-to-vary"`` with the preset's name as ``entry``,
    ``"value"``, ``"size-unknown"``: a point's size cannot be known, so its free space cannot be
    checked); ``source`` and ``entry`` are a rejected entry's, as on :class:`SweepValueError`.
    """

    def __init__(
        self, message: str, *, code: str | None = None, source: str | None = None, entry: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.source = source
        self.entry = entry


def point_count(axes: Sequence[SweepAxis]) -> int:
    """How many points the axes make, without making them."""
    count = 1
    for axis in axes:
        count *= len(axis.values)
    return count


@dataclass
class SweepPlan:
    """Everything decided before the first point runs."""

    preset: Preset  # after the command line's overrides
    axes: list[SweepAxis]
    params: list[dict[str, str]]
    default_target: str | None
    base: dict[str, object]
    notes: list[str] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        return [axis.key for axis in self.axes]

    @property
    def needs_confirmation(self) -> bool:
        """More than CONFIRM_POINTS points: the user is asked before anything runs."""
        return len(self.params) > CONFIRM_POINTS


@dataclass(frozen=True)
class SweepEstimate:
    """Time per point and the space the sweep needs, per filesystem."""

    duration_s: float | None  # None when a point has no runtime (a size-based preset)
    point_duration_s: dict[int, float]  # only the points whose time is known
    disk_bytes: int
    # (target shown to the user, bytes needed, free bytes or None, point that needs most)
    needs: tuple[tuple[str, int, int | None, dict[str, str]], ...] = ()
    # (target shown to the user, files its largest point creates, how they add up, that point)
    files: tuple[tuple[str, int, str, dict[str, str]], ...] = ()


def cartesian(axes: Sequence[SweepAxis]) -> list[dict[str, str]]:
    """Every combination, the first key varying slowest (the studies' table order)."""
    if not axes:
        return [{}]
    return [dict(zip([a.key for a in axes], values)) for values in itertools.product(*(a.values for a in axes))]


def make_base(
    *,
    preset_name: str | None,
    job_file: str | None,
    target: str | None,
    runtime_s: float | None = None,
    size: str | None = None,
    sets: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """How each point's preset is made: what ``--resume`` compares to find the same sweep."""
    return {
        "preset": preset_name or "",
        "job_file": str(Path(job_file).expanduser().resolve()) if job_file else "",
        "target": str(Path(target).expanduser().resolve()) if target else "",
        "runtime_s": float(runtime_s) if runtime_s is not None else None,
        "size": size or None,
        "sets": dict(sets or {}),
    }


def plan_sweep(
    preset: Preset,
    *,
    vary: Sequence[str] = (),
    targets: str | None = None,
    target: str | None = None,
    base: Mapping[str, object] | None = None,
    sysbench_available: bool = False,
) -> SweepPlan:
    """Axes from ``--vary`` (else the preset's ``[sweep]`` table) and ``--targets``; the points."""
    notes: list[str] = []
    try:
        if vary:
            axes = [parse_vary(text) for text in vary]
        else:
            axes = axes_from_table(preset.sweep, f"preset {preset.name}")
        if targets:
            if target:
                raise SweepPlanError("Give either one target or a list of targets, not both.", code="target-and-targets")
            axes = [axis for axis in axes if axis.key != TARGET_KEY]
            axes = merge_axes(axes, [parse_targets(targets)])
        else:
            axes = merge_axes(axes)
    except SweepValueError as error:
        raise SweepPlanError(str(error), code="value", source=error.source, entry=error.entry) from None
    sections = [section.name for section in preset.jobs]
    if preset.name == SYSBENCH_COMPARE_PRESET and not any(axis.key == TOOL_KEY for axis in axes):
        if sysbench_available:
            if len(sections) > 1 and not any(axis.key == JOB_KEY for axis in axes):
                # sysbench runs one workload at a time: each job section becomes a point.
                axes.insert(0, SweepAxis(JOB_KEY, tuple(sections)))
            axes.append(SweepAxis(TOOL_KEY, ("fio", "sysbench")))
            notes.append("sysbench is installed: each point also runs with real sysbench fileio (tool=sysbench).")
        else:
            notes.append("sysbench is not installed, so only fio runs; install sysbench to compare with it.")
    axes = _checked_axes(preset, axes)
    for axis in axes:
        if axis.key == JOB_KEY:
            unknown = [value for value in axis.values if value not in sections]
            if unknown:
                raise SweepPlanError(
                    f"The preset {preset.name} has no job section {unknown[0]!r}; its sections are: {', '.join(sections)}."
                )
    if any(axis.key == TOOL_KEY and "sysbench" in axis.values for axis in axes) and not sysbench_available:
        raise SweepPlanError(
            "tool=sysbench needs sysbench, which is not installed: install it (for example "
            "'sudo apt-get install sysbench') or drop it from the varied values."
        )
    if not axes:
        raise SweepPlanError(
            f"Nothing to vary: give KEY=V1,V2 (for example numjobs=1,2,4,8); "
            f"the preset {preset.name} has no [sweep] defaults.",
            code="nothing-to-vary",
            entry=preset.name,
        )
    count = point_count(axes)
    if count > MAX_POINTS:
        raise SweepPlanError(
            f"The sweep would have {count:,} points ({' x '.join(str(len(axis.values)) for axis in axes)}); "
            f"iotui runs at most {MAX_POINTS:,} in one sweep. Vary fewer values."
        )
    return SweepPlan(
        preset=preset,
        axes=axes,
        params=cartesian(axes),
        default_target=target,
        base=dict(base or {}),
        notes=notes,
    )


def _checked_axes(preset: Preset, axes: list[SweepAxis]) -> list[SweepAxis]:
    """Every varied fio option through the one policy, by fio's canonical name (``ioe=...``
    is ``ioengine``); a key varied twice under two names is refused. A refusal names the key
    as typed and says ``source="vary"``, so each front end names where it was typed."""
    from iotui.core.fio import policy as safety

    engines = [preset.options.get("ioengine", "")]
    engines += [section.options.get("ioengine", "") for section in preset.jobs]
    checked: list[SweepAxis] = []
    for axis in axes:
        if axis.key in SPECIAL_KEYS:
            checked.append(axis)
            continue
        canonical = axis.key
        for value in axis.values:
            try:
                ((canonical, _),) = safety.check_options(
                    {axis.key: value}, axis.key, engines=[e for e in engines if e]
                ).items()
            except safety.PolicyError as error:
                raise SweepPlanError(str(error), code=error.code, source="vary", entry=axis.key) from None
        checked.append(SweepAxis(canonical, axis.values))
    try:
        return merge_axes(checked)
    except SweepValueError as error:
        raise SweepPlanError(str(error)) from None


def fio_options(params: Mapping[str, str]) -> dict[str, str]:
    """The varied values that are fio options (not the target, the tool or the job section)."""
    return {key: value for key, value in params.items() if key not in SPECIAL_KEYS}


def preset_for_point(preset: Preset, params: Mapping[str, str]) -> Preset:
    """The base preset with the point's fio options set (as ``--set`` would).

    ``job=NAME`` keeps only that job section (with the global options), so a
    multi-section preset can be compared section by section.
    """
    from iotui.core.presets.overrides import with_overrides
    if JOB_KEY in params:
        chosen = tuple(section for section in preset.jobs if section.name == params[JOB_KEY])
        if not chosen:
            raise SweepPlanError(f"The preset {preset.name} has no job section {params[JOB_KEY]!r}.")
        preset = dataclasses.replace(preset, jobs=chosen)
    options = fio_options(params)
    if not options:
        return preset
    return with_overrides(preset, sets=options)


def target_for_point(plan: SweepPlan, params: Mapping[str, str]) -> str | None:
    return params.get(TARGET_KEY, plan.default_target)


def tool_for_point(params: Mapping[str, str]) -> str:
    return params.get(TOOL_KEY, "fio")


def _filesystem_key(path: Path) -> int | None:
    """The filesystem a target lives on (st_dev), None for a raw device or a missing path."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if stat.S_ISBLK(info.st_mode):
        return None
    return info.st_dev


def estimate_sweep(plan: SweepPlan, *, baseline_s: float = 0.0) -> SweepEstimate:
    """Each point's estimated seconds (fio's runtime plus baseline and start-up) and the space needed.

    Points run one after another and each removes its file, so a filesystem
    needs room for its largest point, not the sum.
    """
    from iotui.core.presets import argv as command
    from iotui.core.presets.estimate import disk_estimate, estimate, file_estimate
    from iotui.core.presets.model import PresetError
    point_duration: dict[int, float] = {}
    largest: dict[int | str, tuple[str, int, dict[str, str]]] = {}
    most_files: dict[int | str, tuple[str, int, str, dict[str, str]]] = {}
    for index, params in enumerate(plan.params):
        target_text = target_for_point(plan, params) or os.getcwd()
        target_path = Path(target_text).expanduser()
        try:
            # Each point's job names and size as its run will check them (its options are already the
            # policy's canonical names and judged spellings: the preset's loader and with_overrides).
            point_preset = preset_for_point(plan.preset, params)
            command.check_job_names(point_preset)
            duration_s, _ = estimate(point_preset)
            disk_bytes, unknown = disk_estimate(point_preset)
            if disk_bytes is None and _filesystem_key(target_path) is not None:
                raise SweepPlanError(f"{unknown}, so iotui cannot check the free space.", code="size-unknown")
            needed = int(disk_bytes or 0)
            files, files_how = file_estimate(point_preset)
            if files is None and _filesystem_key(target_path) is not None:
                raise SweepPlanError(f"{files_how}, so iotui cannot check the files it creates")
        except (PresetError, SweepPlanError) as error:  # a refused option: say which point
            code = error.code if isinstance(error, SweepPlanError) else None
            raise SweepPlanError(f"The point {_describe(params)} cannot be planned: {error}", code=code) from None
        if duration_s is not None:
            point_duration[index] = float(duration_s) + baseline_s + POINT_OVERHEAD_S
        key = _filesystem_key(target_path) or str(target_path)
        if key not in largest or needed > largest[key][1]:
            largest[key] = (str(target_path), needed, dict(params))
        if files and (key not in most_files or files > most_files[key][1]):
            most_files[key] = (str(target_path), files, files_how, dict(params))
    needs = []
    for shown, needed, params in largest.values():
        free = _free_bytes(Path(shown))
        needs.append((shown, needed, free, params))
    return SweepEstimate(
        duration_s=sum(point_duration.values()) if len(point_duration) == len(plan.params) else None,
        point_duration_s=point_duration,
        disk_bytes=max((needed for _, needed, _, _ in needs), default=0),
        needs=tuple(needs),
        files=tuple(most_files.values()),
    )


def _free_bytes(path: Path) -> int | None:
    try:
        if stat.S_ISBLK(os.stat(path).st_mode):
            return None
        return shutil.disk_usage(path).free
    except OSError:
        return None


def _describe(params: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in params.items()) or "(no varied key)"


def check_space(estimate: SweepEstimate) -> None:
    """Refuse a sweep whose largest point does not fit where it runs."""
    for shown, needed, free, params in estimate.needs:
        if not Path(shown).exists():
            raise SweepPlanError(f"The target {shown} does not exist; create it or choose another target.")
        if free is not None and needed + FREE_SPACE_MARGIN_BYTES > free:
            raise SweepPlanError(
                f"The sweep needs {fmt.size_bytes(needed)} free in {shown} (for the point {_describe(params)}), "
                f"but only {fmt.size_bytes(free)} is free; free some space, choose another target, "
                "or give a smaller size."
            )
    for shown, files, how, params in estimate.files:
        problem = files_problem(files, how, free_inodes(Path(shown)), shown)
        if problem:
            raise SweepPlanError(f"The point {_describe(params)} cannot run: {problem}")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def describe_estimate(plan: SweepPlan, estimate: SweepEstimate, pending: Sequence[int] | None = None) -> str:
    """The line printed before a sweep starts (``pending``: indices still to run, on resume)."""
    points = len(plan.params)
    indices = list(range(points)) if pending is None else list(pending)
    if all(index in estimate.point_duration_s for index in indices):
        time_text = f"about {fmt.duration_s(sum(estimate.point_duration_s[index] for index in indices))}"
    else:
        time_text = "time unknown (a point has no runtime: it runs until its file is written and read)"
    head = _count(points, "point") if len(indices) == points else f"{_count(points, 'point')}, {len(indices)} still to run"
    keys = " x ".join(f"{axis.key} ({len(axis.values)})" for axis in plan.axes)
    space = ", ".join(f"{fmt.size_bytes(needed)} in {shown}" for shown, needed, _, _ in estimate.needs) or "none"
    return f"Sweep of {plan.preset.name}: {head} over {keys}, {time_text}; disk space needed: {space}."


def preset_estimate(preset: Preset) -> tuple[float | None, int | None]:
    """(seconds, disk bytes) a preset takes as listed: for a sweep preset its whole sweep (each point in
    turn, with its start-up, and the disk of its largest point, since each point removes its file), else
    its one run's. None where it cannot be known."""
    from iotui.core.presets.estimate import estimate
    from iotui.core.presets.model import PresetError

    if not preset.sweep:
        return estimate(preset)
    try:
        points = [estimate(preset_for_point(preset, params)) for params in cartesian(axes_from_table(preset.sweep, preset.name))]
    except (SweepValueError, SweepPlanError, PresetError):
        return None, None
    durations = [duration_s for duration_s, _ in points]
    disks = [disk_bytes for _, disk_bytes in points]
    duration = None if None in durations else sum(float(d or 0) + POINT_OVERHEAD_S for d in durations)
    disk = None if None in disks else max(int(d or 0) for d in disks)
    return duration, disk
