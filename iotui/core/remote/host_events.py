"""What a multi-host run tells its caller, and the small helpers its session shares.

The session (:mod:`iotui.core.remote.session`) emits these to its callback; the command line
and the app draw them.
"""

from __future__ import annotations

from dataclasses import dataclass

from iotui.core.remote.alignment import AggregateSample, HostInterval
from iotui.core.remote.lifeline import HostEvent
from iotui.core.remote.record import HostState

SampleRow = dict[str, object]
"""A sample row as the record keeps it: figures, counts, a level's word, the paused mark."""

QueuedEvent = tuple[str, HostEvent | None, float]
"""(host, its event or None once its runner ended, iotui's monotonic clock at arrival)."""


@dataclass(frozen=True)
class HostIntervalUpdate:
    """One host's new interval (its own figures)."""

    host: str
    interval: HostInterval
    row: SampleRow
    groupid: int | None = None
    """fio's reporting group the row belongs to (its section in the record)."""


@dataclass(frozen=True)
class AggregateUpdate:
    """The aggregate of the hosts' latest intervals, with how many hosts it holds."""

    aggregate: AggregateSample
    row: SampleRow
    elapsed_s: float
    groupid: int | None = None
    """The section the aggregate row belongs to (its section in the record)."""


@dataclass(frozen=True)
class HostFailed:
    host: str
    at_s: float
    reason: str


HOST_LINES_KEPT = 200
"""A host's latest lines kept for the sentence that says why it failed (a host may send millions)."""


def keep_line(state: HostState, text: str) -> None:
    state.lines.append(text)
    if len(state.lines) > 2 * HOST_LINES_KEPT:
        del state.lines[:-HOST_LINES_KEPT]

