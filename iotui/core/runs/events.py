"""The events a session emits while it runs (fio or sysbench); the CLI prints them, the app posts them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from iotui.core.fio.intervals import IntervalSample
    from iotui.core.host.counters import HostSample
    from iotui.core.host.levels import Assessment
    from iotui.core.runs.record import RunRecord

EventCallback = Callable[[object], None]


@dataclass(frozen=True)
class IntervalUpdate:
    """A new interval from fio, with the latest host figures beside it."""

    interval: IntervalSample
    host: HostSample | None
    row: dict[str, Any]
    elapsed_s: float


@dataclass(frozen=True)
class HostUpdate:
    """The once-a-second host sample and the responsiveness assessment."""

    host: HostSample
    assessment: Assessment | None


@dataclass(frozen=True)
class LogLine:
    source: str  # "stderr", "stdout" or "iotui"
    text: str


@dataclass(frozen=True)
class RunFinished:
    record: RunRecord
    saved_path: Path | None
    error: str | None = None
