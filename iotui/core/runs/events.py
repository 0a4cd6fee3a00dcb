"""The events a session emits while it runs (fio or sysbench); the CLI prints them, the app posts them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from iotui.core.terminal_text import terminal_safe

if TYPE_CHECKING:
    from iotui.core.fio.intervals import IntervalSample
    from iotui.core.host.counters import HostSample
    from iotui.core.host.levels import Assessment
    from iotui.core.records.record import RunRecord

EventCallback = Callable[[object], None]


@dataclass(frozen=True)
class IntervalUpdate:
    """A new interval from fio, with the latest host figures beside it."""

    interval: IntervalSample
    host: HostSample | None
    row: dict[str, Any]
    elapsed_s: float
    groupid: int | None = None
    """fio's reporting group the interval belongs to (the plan's section of that index); None: unknown."""


@dataclass(frozen=True)
class SampleSettled:
    """An :class:`IntervalUpdate`'s row is final: no later second can change it (its interference
    mark is decided, a second after it at most). The stream writes its seconds from these."""

    update: IntervalUpdate


@dataclass(frozen=True)
class HostUpdate:
    """The once-a-second host sample and the responsiveness assessment."""

    host: HostSample
    assessment: Assessment | None


@dataclass(frozen=True)
class LogLine:
    source: str  # "stderr", "stdout" or "iotui"
    text: str


class EventLog:
    """Hands events to the caller and keeps the run's messages (the record's [[messages]]).

    Shared by the one-machine recorder and the multi-host session; each sets ``on_event``
    and ``messages`` in its constructor.
    """

    messages_kept = 1000
    """How many log lines the record keeps (the rest are still emitted)."""
    on_event: EventCallback
    messages: list[dict[str, str]]

    def _emit(self, event: object) -> None:
        try:
            self.on_event(event)
        except Exception as error:  # noqa: BLE001 - the caller's event handler: a drawing bug must not lose the run
            self.messages.append({"source": "iotui", "text": f"event handler failed: {error!r}"})

    def _log(self, source: str, text: str) -> None:
        text = terminal_safe(text, keep_newlines=True)  # fio's and a host's words reach a terminal and the record
        if len(self.messages) < self.messages_kept:
            self.messages.append({"source": source, "text": text})
        self._emit(LogLine(source, text))


@dataclass(frozen=True)
class RunFinished:
    """The run is over: its record, where it was saved, and the failure sentence if any.

    ``refused``: fio refused its options before any job started (``error`` says which and what
    fio accepts); nothing ran and the record was not saved.
    """

    record: RunRecord
    saved_path: Path | None
    error: str | None = None
    refused: bool = False
