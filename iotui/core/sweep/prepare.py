"""One sweep preparation and one point factory, for the command line and the app alike.

:func:`prepare_sweep` plans the points, estimates their time and space and judges
the space; :func:`fresh_sweep_record` is the record a new sweep starts from; and
:func:`point_starter` builds each point's session through the core's one entry
(:func:`~iotui.core.start.start_run`, or :func:`~iotui.core.start.start_sysbench_run`
for a ``tool=sysbench`` point). Each front end words the refusals its own way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Awaitable, Callable, Sequence

from iotui.core.fio.policy import PolicyError
from iotui.core.presets.model import PresetError
from iotui.core.runs.events import EventCallback
from iotui.core.start import StartError, StartRequest, start_run, start_sysbench_run
from iotui.core.sweep.plan import (
    TARGET_KEY,
    SweepEstimate,
    SweepPlan,
    SweepPlanError,
    check_space,
    estimate_sweep,
    plan_sweep,
    preset_for_point,
    target_for_point,
    tool_for_point,
)
from iotui.core.sweep.record import SweepPointState, SweepRecord
from iotui.core.sweep.runner import PointSession, StartPoint, SweepPointError

if TYPE_CHECKING:
    from iotui.core.presets.model import Preset
    from iotui.core.runs.protocols import Session

# How a point's fio session is started from its request: the core's one entry, or a test's replay.
StartSession = Callable[[StartRequest, EventCallback], Awaitable["Session"]]


@dataclass(frozen=True)
class SweepPreparation:
    """A sweep planned and estimated, before anything runs."""

    plan: SweepPlan
    estimate: SweepEstimate
    space_refusal: SweepPlanError | None = None
    """Why the sweep must not start: its largest point does not fit where it runs (None: it fits)."""


def prepare_sweep(
    preset: Preset,
    *,
    vary: Sequence[str],
    base: dict[str, object],
    target: str | None = None,
    targets: str | None = None,
    sysbench_available: bool = False,
    baseline_s: float = 0.0,
) -> SweepPreparation:
    """The points, their estimate and the space judged. A plan that cannot be made raises
    :class:`SweepPlanError` (naming the entry as typed); a preset whose estimate cannot be made
    raises the core's own error (PresetError, PolicyError, ValueError, OverflowError)."""
    plan = plan_sweep(
        preset, vary=vary, targets=targets, target=target, base=dict(base), sysbench_available=sysbench_available
    )
    estimate = estimate_sweep(plan, baseline_s=max(0.0, baseline_s))
    try:
        check_space(estimate)
    except SweepPlanError as error:
        return SweepPreparation(plan, estimate, error)
    return SweepPreparation(plan, estimate)


def fresh_sweep_record(preparation: SweepPreparation) -> SweepRecord:
    """A new sweep record of every point, with the estimate it started under."""
    plan = preparation.plan
    sweep = SweepRecord.new(plan.preset.name, plan.preset.title, plan.axes, plan.params, plan.base)
    sweep.estimated_duration_s = preparation.estimate.duration_s
    sweep.estimated_disk_bytes = preparation.estimate.disk_bytes
    return sweep


def point_starter(
    plan: SweepPlan,
    request: StartRequest,
    *,
    word: Callable[[StartError], str],
    start: StartSession = start_run,
) -> StartPoint:
    """Each point's session: the point's preset and target on the sweep's ``request`` (its runs
    directory, fio, hosts...). A fio point goes through ``start`` (the core's one entry, on this
    machine or on every host); a sysbench point runs on this machine. A point that cannot start
    is a :class:`SweepPointError` with ``word``'s sentence; the sweep goes on."""

    async def start_point(point: SweepPointState, emit: EventCallback) -> PointSession:
        try:
            point_preset = preset_for_point(plan.preset, point.params)
        except (SweepPlanError, PresetError, PolicyError) as error:  # a refused point
            raise SweepPointError(str(error)) from None
        # The sweep's own target (the request's, in its one form: as chosen on Home, not inspected
        # again) unless the point names one: that one is the user's text, inspected by its plan.
        own_target = TARGET_KEY not in point.params and request.target is not None
        point_target = request.target if own_target else target_for_point(plan, point.params)
        point_request = replace(request, preset=point_preset, target=point_target)
        try:
            if tool_for_point(point.params) == "sysbench":
                return start_sysbench_run(point_request, emit)
            return await start(point_request, emit)
        except StartError as error:
            raise SweepPointError(word(error)) from None

    return start_point
