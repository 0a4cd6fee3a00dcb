"""The stream's events: one frozen value per thing that happened, and its JSON line.

``iotui run --json-stream`` writes :func:`to_json` of each event as one line;
``iotui.api`` yields the events themselves, so the two cannot drift. Every event
has ``event`` (its kind) and ``t_s`` (seconds since the stream began, on iotui's
clock). A ``second``'s ``sample`` is the record's own sample row, the same
mapping the recorder keeps (its ``t_s`` is the sample's time, as in the record).
The format is described by docs/stream.schema.json; ``stream_version`` in
``start`` changes when a key changes meaning or goes away.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, Mapping

STREAM_VERSION = 1

HostState = Literal["failed", "left-out", "stopped"]


@dataclass(frozen=True)
class Start:
    """The plan: what runs where, before the first figure (a sweep's: no argv, no version; each
    point's record has its own)."""

    kind: ClassVar[str] = "start"
    t_s: float
    preset: str
    target: Mapping[str, Any]
    fio_argv: list[str]
    fio_version: str | None
    hosts: list[str] = field(default_factory=list)
    sweep_points: int | None = None
    stream_version: int = STREAM_VERSION


@dataclass(frozen=True)
class Second:
    """One sample row: one section's second (``host`` None: the run's own row, the aggregate with --hosts)."""

    kind: ClassVar[str] = "second"
    t_s: float
    section: int | None
    sample: Mapping[str, Any]
    host: str | None = None
    point: int | None = None
    completed_ios: Mapping[str, int] = field(default_factory=dict)
    """fio's I/Os completed in this row, per direction (its ``total_ios`` grew by this much)."""


@dataclass(frozen=True)
class Section:
    """A section's final figures, as the record's ``[[sections]]`` table (``host``: that host's own)."""

    kind: ClassVar[str] = "section"
    t_s: float
    section: int
    figures: Mapping[str, Any]
    host: str | None = None
    point: int | None = None


@dataclass(frozen=True)
class RunWarning:
    """One of the record's warnings."""

    kind: ClassVar[str] = "warning"
    t_s: float
    code: str
    message: str
    point: int | None = None


@dataclass(frozen=True)
class Host:
    """A host failed during the run, was left out before it, or was stopped."""

    kind: ClassVar[str] = "host"
    t_s: float
    host: str
    state: HostState
    reason: str


@dataclass(frozen=True)
class Point:
    """A sweep point ended: its values, status, record and figures."""

    kind: ClassVar[str] = "point"
    t_s: float
    index: int
    params: Mapping[str, str]
    status: str
    record: str | None
    result: Mapping[str, Any]
    error: str | None = None


@dataclass(frozen=True)
class End:
    """The run (or sweep) ended: its status, why it ended early, and where its record is."""

    kind: ClassVar[str] = "end"
    t_s: float
    status: str
    ended_by: str | None
    record: str | None
    error: str | None = None


StreamEvent = Start | Second | Section | RunWarning | Host | Point | End


def as_saved(value: Any) -> Any:
    """A value as the record's TOML holds it: no None and no NaN, inside tables and arrays too."""
    if isinstance(value, Mapping):
        return {
            str(key): as_saved(item) for key, item in value.items()
            if item is not None and not (isinstance(item, float) and item != item)
        }
    if isinstance(value, (list, tuple)):
        return [as_saved(item) for item in value if item is not None]
    return value


def to_json(event: StreamEvent) -> dict[str, Any]:
    """The event as the stream's JSON object: ``event`` first, then its fields (None ones left out
    where they are optional context: ``host``, ``point``, ``error``, ``sweep_points``)."""
    out: dict[str, Any] = {"event": event.kind}
    for item in fields(event):
        value = getattr(event, item.name)
        if value is None and item.name in ("host", "point", "error", "sweep_points"):
            continue
        out[item.name] = value
    return out


def to_line(event: StreamEvent) -> str:
    """One line of the stream (no newline); values JSON cannot hold (dates) are written as text."""
    return json.dumps(to_json(event), default=str, separators=(",", ":"), allow_nan=False)
