"""A session's (or a sweep's) events become the stream's events, in one place.

The CLI's ``--json-stream`` and ``iotui.api`` both read a run through a
:class:`StreamTranslator`, so the lines and the Python values cannot drift. A
``second`` is made from the very sample row the session keeps for the record
(a copy taken once the row is final, with its section), never computed again.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from iotui.core.fio.intervals import IntervalSample
from iotui.core.remote.session import MultiHostSession
from iotui.core.runs.session import RunSession
from iotui.core.remote.host_events import AggregateUpdate, HostFailed, HostIntervalUpdate
from iotui.core.records.record import RunRecord
from iotui.core.runs.events import RunFinished, SampleSettled
from iotui.core.stream.events import as_saved, End, Host, Point, Second, Section, Start, StreamEvent, RunWarning
from iotui.core.sweep.record import SweepRecord
from iotui.core.sweep.runner import PointFinished, PointStarted, SweepFinished


def _sample(row: Mapping[str, Any], section: int | None) -> dict[str, Any]:
    """The record's row as it will be saved: the row's keys, then its section (the record adds it last)."""
    sample = dict(as_saved(row))
    if section is not None:
        sample["section"] = section
    return sample


def _ios(interval: IntervalSample) -> dict[str, int]:
    return {direction: figures.ios for direction, figures in interval.directions.items()}


class MetricsFeed:
    """A session's events (or a sweep point's) as metrics: for a caller that writes no stream (the app)."""

    def __init__(self, sink: Callable[[StreamEvent], None]) -> None:
        self.translator = StreamTranslator()
        self.sink = sink

    def begin(self, session: object) -> None:
        """The run's ``start`` (its preset), once its session is made."""
        if isinstance(session, (RunSession, MultiHostSession)):
            for event in self.translator.run_start(session):
                self.sink(event)

    def __call__(self, event: object) -> None:
        for item in self.translator.translate(event):
            self.sink(item)


class StreamTranslator:
    """Turns the events of one run (or one sweep, ``sweep=True``) into stream events, in order.

    ``ended_by`` is read when the run ends: what stopped it from outside the session
    (``stream-closed``) where the record does not say.
    """

    def __init__(self, *, sweep: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.sweep = sweep
        self._clock = clock
        self._started = clock()
        self._point: int | None = None
        self.record: RunRecord | None = None
        self._ended_by: str | None = None
        self.saved_path: Path | None = None

    def t_s(self) -> float:
        return round(self._clock() - self._started, 3)

    def start(
        self, *, preset: str, target: Mapping[str, Any], fio_argv: list[str], fio_version: str | None,
        hosts: list[str] | None = None, left_out: list[tuple[str, str]] | None = None, sweep_points: int | None = None,
    ) -> list[StreamEvent]:
        """The ``start`` event (and a ``host`` event per host left out before the run)."""
        events: list[StreamEvent] = [Start(
            self.t_s(), preset, dict(target), list(fio_argv), fio_version, list(hosts or []), sweep_points,
        )]
        events += [Host(self.t_s(), host, "left-out", reason) for host, reason in left_out or []]
        return events

    def run_start(self, session: RunSession | MultiHostSession) -> list[StreamEvent]:
        """``start`` for a local run or a run on hosts (each host's facts under ``target.hosts``)."""
        if isinstance(session, MultiHostSession):
            plan = session.plan
            facts = {name: dataclasses.asdict(found) for name, found in plan.facts.items()}
            versions = sorted({found.tool_version for found in plan.facts.values()})
            target: dict[str, Any] = {"path": plan.target, "hosts": facts}
            return self.start(
                preset=plan.preset_name, target=as_saved(target), fio_argv=["fio", *plan.fio_args],
                fio_version=", ".join(versions) or "unknown", hosts=list(plan.hosts), left_out=list(plan.left_out),
            )
        return self.start(
            preset=session.plan.preset_name, target=as_saved(session.plan.target), fio_argv=list(session.plan.argv),
            fio_version=session.fio_version,
        )

    def sweep_start(self, sweep: SweepRecord, hosts: list[str] | None = None) -> list[StreamEvent]:
        """``start`` for a sweep: its preset, base target and number of points."""
        target = as_saved({"path": sweep.base.get("target") or None, "axes": {axis.key: list(axis.values) for axis in sweep.axes}})
        return self.start(
            preset=sweep.preset, target=target, fio_argv=[], fio_version=None, hosts=hosts, sweep_points=len(sweep.points),
        )

    def _section_of(self, groupid: int | None) -> int | None:
        """fio's reporting groups are numbered from 0 in order, as the record's sections are;
        a row of no known group is in the first."""
        return groupid if groupid is not None else 0

    def translate(self, event: object) -> list[StreamEvent]:
        """The stream events one session or sweep event makes (none for most)."""
        if isinstance(event, SampleSettled):
            update = event.update
            section = self._section_of(update.interval.groupid)
            return [Second(self.t_s(), section, _sample(update.row, section), point=self._point,
                           completed_ios=_ios(update.interval))]
        if isinstance(event, HostIntervalUpdate):
            section = self._section_of(event.groupid)
            return [Second(self.t_s(), section, _sample(event.row, section), host=event.host, point=self._point,
                           completed_ios=_ios(event.interval.sample))]
        if isinstance(event, AggregateUpdate):
            section = self._section_of(event.groupid)
            return [Second(self.t_s(), section, _sample(event.row, section), point=self._point,
                           completed_ios=_ios(event.aggregate.sample))]
        if isinstance(event, HostFailed):
            return [Host(self.t_s(), event.host, "failed", event.reason)]
        if isinstance(event, RunFinished):
            return self._finished(event)
        if isinstance(event, PointStarted):
            self._point = event.point.index
            return []
        if isinstance(event, PointFinished):
            point = event.point
            self._point = None
            path = event.record.path if event.record is not None else None
            return [Point(
                self.t_s(), point.index, dict(point.params), point.status, str(path.absolute()) if path else None,
                as_saved(point.result), point.error or None,
            )]
        if isinstance(event, SweepFinished):
            path = event.sweep.path
            ended_by = (self._ended_by or "user") if event.stopped else None
            return [End(self.t_s(), event.sweep.status, ended_by, str(path.absolute()) if path else None)]
        return []

    def _finished(self, event: RunFinished) -> list[StreamEvent]:
        record = event.record
        self.record, self.saved_path = record, event.saved_path
        t_s = self.t_s()
        events: list[StreamEvent] = [
            Section(t_s, index, as_saved(section), point=self._point) for index, section in enumerate(record.sections)
        ]
        for entry in record.hosts:
            for index, section in enumerate(entry.get("sections") or []):
                events.append(Section(t_s, index, as_saved(section), host=str(entry.get("name")), point=self._point))
        events += [
            RunWarning(t_s, str(warning.get("code")), str(warning.get("message")), point=self._point)
            for warning in record.warnings
        ]
        if record.hosts and record.status == "stopped":
            events += [
                Host(t_s, str(entry.get("name")), "stopped", f"the run was stopped ({record.run.get('ended_by') or 'user'})")
                for entry in record.hosts if "failed_at_s" not in entry
            ]
        ended_by = record.run.get("ended_by")
        if ended_by:
            self._ended_by = str(ended_by)
        if not self.sweep:
            events.append(End(
                t_s, record.status, str(ended_by) if ended_by else None,
                str(event.saved_path.absolute()) if event.saved_path else None, event.error,
            ))
        return events
