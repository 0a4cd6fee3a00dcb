"""App-wide messages: what the run worker posts to the run screen.

The worker only translates the session's events into these and posts them; the
run screen owns every state change (STYLE.md, conventions 2 and 3). Messages
that carry a point of a series are never dropped; the responsiveness level is
"latest wins", so a burst of assessments collapses into the newest one unless
one of them changed the level.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from iotui.core.host.counters import HostSample
from iotui.core.fio.intervals import IntervalSample
from iotui.core.records.record import RunRecord
from iotui.core.host.levels import Assessment
from iotui.core.remote.host_probes import HostLevel
from iotui.core.remote.session import AggregateUpdate, HostFailed, HostIntervalUpdate
from iotui.core.runs.events import HostUpdate, IntervalUpdate, LogLine, RunFinished
from iotui.core.runs.protocols import Session, SessionPlan
from iotui.core.sweep.analysis import SweepAnalysis
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.runner import PointFinished, PointStarted, SweepFinished

if TYPE_CHECKING:
    from iotui.core.sweep.record import SweepRecord
    from iotui.core.sweep.runner import SweepRunner


@dataclass
class RunStarted(Message, bubble=False):
    """The session exists: its plan, and the handle to pause, resume or stop it."""

    plan: SessionPlan
    handle: Session | None  # None only where a screen is shown without a run (snapshots)


@dataclass
class IntervalArrived(Message, bubble=False):
    """One fio status interval, with the host figures sampled beside it."""

    interval: IntervalSample
    host: HostSample | None
    elapsed_s: float
    paused: bool = False
    """A pause fell in this interval: its record sample is marked and left out of the figures."""
    groupid: int | None = None
    """fio's reporting group running then: the index of the plan's section (None: unknown)."""
    interference: bool = False
    """Another program's I/O shares the device now (a stretch of it: see core/interference.py)."""


@dataclass
class HostSampled(Message, bubble=False):
    """One second of host figures (CPU, rates, device, pressure)."""

    host: HostSample


@dataclass
class ResponsivenessAssessed(Message, bubble=False):
    """The responsiveness level after the latest host sample."""

    assessment: Assessment

    def can_replace(self, message: Message) -> bool:
        # Only the newest level matters to the chip, but a change must reach the
        # screen (it raises the Unresponsive toast), so changes are never dropped.
        return isinstance(message, ResponsivenessAssessed) and not self.assessment.changed


@dataclass
class FioLogged(Message, bubble=False):
    """A line from fio (stderr, stray stdout) or from iotui itself (warnings)."""

    source: str
    text: str


@dataclass
class RunEnded(Message, bubble=False):
    """The session finished: the record, where it was saved, and any failure sentence."""

    record: RunRecord
    saved_path: Path | None
    error: str | None
    refused: bool = False
    """fio refused its options before any job started: nothing ran, nothing was saved."""


@dataclass
class RunFailed(Message, bubble=False):
    """The run could not start or broke down; ``sentence`` says why and what to do."""

    sentence: str


@dataclass
class HostIntervalArrived(Message, bubble=False):
    """Multi-host: one host's own interval (the aggregate comes as IntervalArrived)."""

    host: str
    interval: IntervalSample


@dataclass
class HostLost(Message, bubble=False):
    """Multi-host: a host failed mid-run; the others go on."""

    host: str
    at_s: float


@dataclass
class HostLevelAssessed(Message, bubble=False):
    """Multi-host: one host's responsiveness this second, from its own probes (None: not
    measured there, ``not_measured`` says why)."""

    host: str
    assessment: Assessment | None
    not_measured: str | None = None


def messages_for_event(event: object) -> list[Message]:
    """The messages that carry one session event (the worker posts them as they are)."""
    if isinstance(event, IntervalUpdate):
        return [IntervalArrived(event.interval, event.host, event.elapsed_s, event.interval.paused, event.groupid,
                                event.row.get("interference") is True)]
    if isinstance(event, AggregateUpdate):
        return [IntervalArrived(event.aggregate.sample, None, event.elapsed_s, bool(event.row.get("paused")))]
    if isinstance(event, HostIntervalUpdate):
        return [HostIntervalArrived(event.host, event.interval.sample)]
    if isinstance(event, HostFailed):
        return [HostLost(event.host, event.at_s)]
    if isinstance(event, HostLevel):
        return [HostLevelAssessed(event.host, event.assessment, event.not_measured)]
    if isinstance(event, HostUpdate):
        messages: list[Message] = [HostSampled(event.host)]
        if event.assessment is not None:
            messages.append(ResponsivenessAssessed(event.assessment))
        return messages
    if isinstance(event, LogLine):
        return [FioLogged(event.source, event.text)]
    if isinstance(event, RunFinished):
        return [RunEnded(event.record, event.saved_path, event.error, event.refused)]
    return []


# -- sweeps: the sweep worker posts these to the sweep screen (and a point's own run messages above) --


@dataclass
class SweepBegan(Message, bubble=False):
    """The sweep runner exists: the handle to stop it."""

    handle: SweepRunner


@dataclass
class SweepPointBegan(Message, bubble=False):
    """Point ``number`` of ``total`` is starting; ``time_left_s`` includes it."""

    index: int
    params: dict[str, str]
    number: int
    total: int
    time_left_s: float | None
    estimated_s: float | None
    numjobs: int | None = None
    """The point's numjobs (to name too many jobs as the cause when the machine stops responding)."""
    options: dict[str, str] | None = None
    """The point's effective fio options (so what to try fits the point, as on the Run screen)."""


@dataclass
class SweepPointEnded(Message, bubble=False):
    """A point ended (completed, stopped, failed, or back to pending when stopped before fio started)."""

    index: int
    status: str
    error: str
    result: PointResult
    number: int
    total: int
    time_left_s: float | None


@dataclass
class SweepEnded(Message, bubble=False):
    """Every point ran, or the sweep was stopped; the record is saved."""

    sweep: SweepRecord
    analysis: SweepAnalysis
    stopped: bool


@dataclass
class SweepFailed(Message, bubble=False):
    """The sweep broke down; ``sentence`` says why and what to do."""

    sentence: str


def sweep_messages_for_event(event: object) -> list[Message]:
    """The messages that carry one sweep runner event (its points' run events included)."""
    if isinstance(event, PointStarted):
        plan = getattr(event.session, "plan", None)
        estimated_s = getattr(plan, "estimated_duration_s", None)
        return [SweepPointBegan(event.point.index, dict(event.point.params), event.number, event.total,
                                event.time_left_s, estimated_s, getattr(plan, "numjobs", None),
                                dict(getattr(plan, "options", None) or {}) if plan is not None else None)]
    if isinstance(event, PointFinished):
        point = event.point
        return [SweepPointEnded(point.index, point.status, point.error, point.point_result(), event.number,
                                event.total, event.time_left_s)]
    if isinstance(event, SweepFinished):
        return [SweepEnded(event.sweep, event.analysis, event.stopped)]
    return messages_for_event(event)
