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
from typing import Any

from textual.message import Message

from iotui.core.host import HostSample
from iotui.core.intervals import IntervalSample
from iotui.core.record import RunRecord
from iotui.core.responsiveness import Assessment
from iotui.core.session import HostUpdate, IntervalUpdate, LogLine, RunFinished, RunPlan


@dataclass
class RunStarted(Message, bubble=False):
    """The session exists: its plan, and the handle to pause, resume or stop it."""

    plan: RunPlan
    handle: Any  # the RunSession: request_stop(), pause(), resume()


@dataclass
class IntervalArrived(Message, bubble=False):
    """One fio status interval, with the host figures sampled beside it."""

    interval: IntervalSample
    host: HostSample | None
    elapsed_s: float


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


@dataclass
class RunFailed(Message, bubble=False):
    """The run could not start or broke down; ``sentence`` says why and what to do."""

    sentence: str


def messages_for_event(event: object) -> list[Message]:
    """The messages that carry one session event (the worker posts them as they are)."""
    if isinstance(event, IntervalUpdate):
        return [IntervalArrived(event.interval, event.host, event.elapsed_s)]
    if isinstance(event, HostUpdate):
        messages: list[Message] = [HostSampled(event.host)]
        if event.assessment is not None:
            messages.append(ResponsivenessAssessed(event.assessment))
        return messages
    if isinstance(event, LogLine):
        return [FioLogged(event.source, event.text)]
    if isinstance(event, RunFinished):
        return [RunEnded(event.record, event.saved_path, event.error)]
    return []
