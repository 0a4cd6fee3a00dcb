"""Runs a sweep's points one after another, saving the sweep record after each.

:class:`SweepRunner` is what both ``iotui sweep`` and a Sweep screen drive. It
knows nothing about fio: a ``start_point`` callback builds each point's session
(a fio :class:`~iotui.core.runs.session.RunSession`, or a sysbench session), so the
CLI, the app and the tests each plug in their own. Events go to ``on_event``:
the sweep's own (below) and every event of the current point's session,
unchanged, so a screen can show the current run live.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable, Protocol

from iotui.core.runs.lock import acquire_run_lock
from iotui.core.records.record import RunRecord
from iotui.core.sweep.analysis import SweepAnalysis, analyze
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.record import SweepPointState, SweepRecord, relative_record_path, save_sweep
from iotui.core.sweep.slo import Slo

EventCallback = Callable[[object], None]


class PointSession(Protocol):
    """What a point's session must offer (RunSession and SysbenchSession do)."""

    async def run(self) -> RunRecord: ...
    def request_stop(self, ended_by: str = "user") -> None: ...


class SweepPointError(Exception):
    """A point that cannot start (refused plan, missing tool); the sweep goes on."""


StartPoint = Callable[[SweepPointState, EventCallback], Awaitable[PointSession]]


# -- events -------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepStarted:
    sweep: SweepRecord
    points_total: int
    points_to_run: int
    estimated_s: float | None


@dataclass(frozen=True)
class PointStarted:
    """Point ``number`` of ``total`` (1-based, counting finished ones) is starting."""

    point: SweepPointState
    number: int
    total: int
    time_left_s: float | None
    session: PointSession


@dataclass(frozen=True)
class PointFinished:
    """A point ended (completed, stopped or failed); ``record`` is None when it never ran."""

    point: SweepPointState
    record: RunRecord | None
    number: int
    total: int
    time_left_s: float | None


@dataclass(frozen=True)
class SweepFinished:
    sweep: SweepRecord
    analysis: SweepAnalysis
    stopped: bool


class SweepRunner:
    """Run the pending points of ``sweep``; ``await run()`` returns the updated record.

    ``estimates_s`` maps a point index to its estimated seconds (for time left);
    ``runs_dir`` None means nothing is saved (a dry screen preview, a test).
    ``slo``: a latency target; the final analysis names the best point under it.
    ``on_hosts``: every point runs on other hosts over ssh (``iotui sweep --hosts``), none on this machine.
    """

    def __init__(
        self,
        sweep: SweepRecord,
        *,
        start_point: StartPoint,
        runs_dir: Path | None,
        on_event: EventCallback | None = None,
        estimates_s: dict[int, float] | None = None,
        slo: Slo | None = None,
        force: bool = False,
        lock_by: str = "iotui sweep",
        on_hosts: bool = False,
    ) -> None:
        self.sweep = sweep
        self.slo = slo
        # The sweep holds the machine's run lock (core.runs.lock) from its first point to its last,
        # unless every point runs on hosts: the lock guards this machine's disks, as for one multi-host run.
        self.on_hosts = on_hosts
        self.force = force
        self.lock_by = lock_by
        self.start_point = start_point
        self.runs_dir = Path(runs_dir) if runs_dir is not None else None
        self.on_event = on_event or (lambda event: None)
        self.estimates_s = dict(estimates_s or {})
        self.stop_requested = False
        self.current: PointSession | None = None
        self._point_task: asyncio.Future | None = None
        self._estimated_done_s = 0.0
        self._actual_done_s = 0.0

    # -- control ---------------------------------------------------------------------
    def request_stop(self, ended_by: str = "user") -> None:
        """Stop the current point (its partial record is kept) and run no more.

        ``ended_by``: who asked (``user``, ``signal:SIGHUP``...), for the point's record.

        A fio session still in its responsiveness baseline (no fio process yet)
        is cancelled instead: nothing was measured, and the point stays pending.
        """
        self.stop_requested = True
        if self.current is None:
            return
        if getattr(self.current, "runner", "no runner attribute") is None and self._point_task is not None:
            self._point_task.cancel()
        else:
            self.current.request_stop(ended_by)

    # -- helpers ----------------------------------------------------------------------
    def _emit(self, event: object) -> None:
        try:
            self.on_event(event)
        except Exception:  # noqa: BLE001 - the caller's event handler: a drawing bug must not lose the sweep
            pass

    def _save(self) -> None:
        if self.runs_dir is not None:
            save_sweep(self.sweep, self.runs_dir)

    def time_left_s(self, remaining: list[SweepPointState]) -> float | None:
        """Estimated seconds for ``remaining``, scaled by how the finished points compared."""
        estimates = [self.estimates_s.get(point.index) for point in remaining]
        if any(estimate is None for estimate in estimates):
            return None
        total = float(sum(estimate or 0.0 for estimate in estimates))
        if self._estimated_done_s > 0:
            total *= self._actual_done_s / self._estimated_done_s
        return total

    def _record_point(self, point: SweepPointState, record: RunRecord, duration_s: float) -> None:
        point.status = record.status if record.status in ("completed", "stopped", "failed") else "failed"
        point.duration_s = round(duration_s, 3)
        if record.path is not None:
            base_dir = self.sweep.path.parent if self.sweep.path is not None else (self.runs_dir or Path.cwd())
            point.record = relative_record_path(record.path, base_dir)
        point.set_result(PointResult.from_record(record, point.params, str(record.path) if record.path else None))
        failure = next((w["message"] for w in record.warnings if w.get("code") == "failed"), "")
        point.error = failure if point.status == "failed" else ""

    # -- the sweep -------------------------------------------------------------------------
    async def run(self) -> SweepRecord:
        """Run the pending points; :class:`RunLockHeld` when another run holds the machine (a sweep
        whose points all run on hosts takes no lock: fio never touches this machine's disks)."""
        if self.on_hosts:
            return await self._run_points()
        target = str(self.sweep.base.get("target") or "") or "(each point's target)"
        lock = acquire_run_lock(preset=f"{self.sweep.preset} (sweep)", target=target, by=self.lock_by, force=self.force)
        try:
            return await self._run_points()
        finally:
            lock.release()

    async def _run_points(self) -> SweepRecord:
        to_run = self.sweep.pending()
        total = len(self.sweep.points)
        done = total - len(to_run)
        self.sweep.status = "running"
        self._save()
        self._emit(SweepStarted(self.sweep, total, len(to_run), self.time_left_s(to_run)))
        try:
            for position, point in enumerate(to_run):
                if self.stop_requested:
                    break
                number = done + position + 1
                await self._run_point(point, number, total, to_run[position + 1 :])
        except asyncio.CancelledError:
            self.stop_requested = True
            self.sweep.status = "stopped"
            self._save()
            raise
        self.sweep.status = self._final_status()
        self._save()
        analysis = analyze(self.sweep.results(), self.sweep.axes, self.slo)
        self._emit(SweepFinished(self.sweep, analysis, self.sweep.status == "stopped"))
        return self.sweep

    def _final_status(self) -> str:
        """completed: every point completed; failed: all ran, some failed; else stopped."""
        statuses = {point.status for point in self.sweep.points}
        if statuses <= {"completed"}:
            return "completed"
        if self.stop_requested or statuses & {"pending", "running", "stopped"}:
            return "stopped"
        return "failed"

    async def _run_point(self, point: SweepPointState, number: int, total: int, after: list[SweepPointState]) -> None:
        started = time.monotonic()
        point.status = "running"
        point.error = ""
        self._save()
        try:
            session = await self.start_point(point, self._emit)
        except SweepPointError as error:
            point.status = "failed"
            point.error = str(error)
            point.result = {}
            point.sections = []
            self._save()
            self._emit(PointFinished(point, None, number, total, self.time_left_s(after)))
            return
        self.current = session
        self._emit(PointStarted(point, number, total, self.time_left_s([point, *after]), session))
        if self.stop_requested:  # Ctrl-C arrived while the point was being planned
            session.request_stop()
        self._point_task = asyncio.ensure_future(session.run())
        try:
            record = await self._point_task
        except asyncio.CancelledError:
            if not (self.stop_requested and self._point_task.cancelled()):
                raise  # the sweep itself was cancelled
            point.status = "pending"  # stopped before fio started: run it again on resume
            self._save()
            self._emit(PointFinished(point, None, number, total, self.time_left_s([point, *after])))
            return
        finally:
            self.current = None
            self._point_task = None
        duration_s = time.monotonic() - started
        self._record_point(point, record, duration_s)
        estimate = self.estimates_s.get(point.index)
        if estimate and point.status == "completed":
            self._estimated_done_s += estimate
            self._actual_done_s += duration_s
        self._save()
        self._emit(PointFinished(point, record, number, total, self.time_left_s(after)))
