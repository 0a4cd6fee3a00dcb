"""One remedy run, for ``iotui remedy`` and the app alike: the plan, the sweep record with its one
``remedy`` axis, each point's change (a scheduler set, the idle class, fio inside a weighted cgroup)
and every change undone after its point, on :meth:`RemedyRun.stop` and at the end, however it ends.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping

from iotui.core.fio.runner import FioRunner
from iotui.core.presets.model import Preset
from iotui.core.records.record import RunRecord
from iotui.core.remedy.cgroups import CgroupChanges, CgroupError
from iotui.core.remedy.plan import (
    REMEDY_KEY, RemedyPlan, cgroup_weight_of, fio_overrides, plan_remedies, scheduler_of,
)
from iotui.core.remedy.schedulers import SchedulerChanges, SchedulerError
from iotui.core.runs.events import EventCallback
from iotui.core.runs.session import RunSession
from iotui.core.start import StartError, StartRequest, start_run
from iotui.core.sweep.plan import make_base, preset_for_point
from iotui.core.sweep.record import SweepPointState, SweepRecord
from iotui.core.sweep.runner import PointSession, StartPoint, SweepPointError, SweepRunner

DEFAULT_POINT_RUNTIME = "15"  # seconds of fio per remedy: enough for the level's 3 s rise and a few starts


class Undo:
    """Every change of a remedy run: the schedulers set and the cgroups made; :meth:`all` undoes both."""

    def __init__(self) -> None:
        self.schedulers = SchedulerChanges()
        self.cgroups = CgroupChanges()

    def all(self) -> None:
        self.schedulers.restore()
        self.cgroups.remove()


class _RestoringSession:
    """A point's session whose change is undone as soon as the point ends, however it ends."""

    def __init__(self, session: PointSession, undo: Undo) -> None:
        self.session = session
        self.undo = undo
        self.runner = getattr(session, "runner", "no runner attribute")

    async def run(self) -> RunRecord:
        try:
            return await self.session.run()
        finally:
            self.undo.all()

    def request_stop(self, ended_by: str = "user") -> None:
        self.session.request_stop(ended_by)


def _start_inside(session: PointSession, procs_file: Path) -> None:
    """fio of this local session starts inside the cgroup whose ``cgroup.procs`` is ``procs_file``."""
    if not isinstance(session, RunSession):
        raise SweepPointError("the cgroup weight applies to a local fio run only")
    private_dir = session.plan.private_dir
    session.runner_factory = lambda argv: FioRunner(
        argv, cwd=str(private_dir) if private_dir else None, cleanup_dir=private_dir, cgroup_procs=str(procs_file))


def _start_point(request: StartRequest, preset: Preset, plan: RemedyPlan, undo: Undo,
                 word: Callable[[StartError], str]) -> StartPoint:
    async def start_point(point: SweepPointState, emit: EventCallback) -> PointSession:
        value = point.params[REMEDY_KEY]
        point_preset = preset_for_point(preset, fio_overrides(value)) if fio_overrides(value) else preset
        scheduler = scheduler_of(value)
        weight = cgroup_weight_of(value)
        if scheduler is not None and plan.device is not None:
            try:
                undo.schedulers.change(plan.device, scheduler)
            except (SchedulerError, OSError) as error:
                raise SweepPointError(f"the scheduler could not be set: {error}") from None
        try:
            session = await start_run(replace(request, preset=point_preset), emit)
        except StartError as error:
            undo.all()
            raise SweepPointError(word(error)) from None
        if weight is not None and plan.cgroup is not None:
            try:
                _start_inside(session, undo.cgroups.make(plan.cgroup, weight))
            except SweepPointError:
                undo.all()
                raise
            except (CgroupError, OSError) as error:
                undo.all()
                raise SweepPointError(f"the cgroup could not be made: {error}") from None
        return _RestoringSession(session, undo)

    return start_point


@dataclass(frozen=True)
class RemedyWorkload:
    """What a remedy run runs: the workload (overrides applied), where, and how it is named in the record."""

    preset: Preset
    target: Path
    runs_dir: Path
    runtime_s: float = float(DEFAULT_POINT_RUNTIME)
    preset_name: str | None = None
    job_file: str | None = None
    size: str | None = None
    sets: Mapping[str, str] | None = None
    allow_system_disk: bool = False


class RemedyRun:
    """The plan, the sweep record and its runner; :meth:`run` runs every point, undoing each change."""

    def __init__(self, workload: RemedyWorkload, request: StartRequest, *, on_event: Callable[[object], None],
                 word: Callable[[StartError], str], force: bool = False, lock_by: str = "iotui remedy",
                 plan: RemedyPlan | None = None) -> None:
        self.workload = workload
        self.plan = plan or plan_remedies(workload.target, allow_system_disk=workload.allow_system_disk)
        base = make_base(preset_name=workload.preset_name, job_file=workload.job_file, target=str(workload.target),
                         runtime_s=workload.runtime_s, size=workload.size, sets=dict(workload.sets or {}))
        base["remedy_device"] = self.plan.device.name if self.plan.device is not None else ""
        if self.plan.cgroup is not None:
            base["remedy_cgroup_root"] = str(self.plan.cgroup.root)
            base["remedy_cgroup_weight_file"] = self.plan.cgroup.weight_file
        preset = workload.preset
        self.sweep = SweepRecord.new(preset.name, preset.title, [self.plan.axis],
                                     [{REMEDY_KEY: value} for value in self.plan.values], base)
        self.undo = Undo()
        point_request = replace(request, target=str(workload.target), runs_dir=workload.runs_dir)
        self.runner = SweepRunner(self.sweep, start_point=_start_point(point_request, preset, self.plan, self.undo, word),
                                  runs_dir=workload.runs_dir, on_event=on_event, force=force, lock_by=lock_by)

    async def run(self) -> SweepRecord:
        try:
            return await self.runner.run()
        finally:
            self.undo.all()

    def stop(self, ended_by: str = "user") -> None:
        """Put the machine back first (scheduler, cgroup), then stop the point; its partial record is kept."""
        self.undo.all()
        self.runner.request_stop(ended_by)


# Options a saved run's record holds that its remedy sets itself (per point) or that name no workload.
_NOT_CARRIED = frozenset({"runtime", "time_based", "prioclass", "prio"})


def record_workload(record: RunRecord, preset: Preset, runs_dir: Path, *, runtime_s: float,
                    allow_system_disk: bool = False) -> RemedyWorkload:
    """A saved run's workload for ``iotui remedy``: its preset with the global options the run
    changed (as ``--set`` would), ``runtime_s`` of fio per remedy, on the run's own target.
    PresetError or PolicyError where an option is refused."""
    from iotui.core.presets.overrides import with_overrides

    sets = {key: str(value) for key, value in record.options.items()
            if key not in _NOT_CARRIED and str(preset.options.get(key, "\0")) != str(value)}
    changed = with_overrides(preset, runtime_s=runtime_s, sets=sets or None)
    target = Path(str(record.target.get("path") or "."))
    return RemedyWorkload(changed, target, runs_dir, runtime_s, preset_name=preset.name, sets=sets,
                          allow_system_disk=allow_system_disk)
