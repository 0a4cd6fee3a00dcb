"""The part of the Sweep screen that follows a running sweep: the worker and its messages.

A worker drives the core's SweepRunner and only posts messages; the handlers here
own every state change they bring: the progress, the current point live, the
points (the chart, the heat map, the table and the across-points panel follow
them), and the sweet spot and balanced point when it is done. The Sweep screen
(screens/sweep.py) adds the layout, the planning and the keys on top.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from iotui.core import format as fmt
from iotui.core.runs.lock import RunLockHeld
from iotui.core.sweep.analysis import PointResult, SweepAnalysis
from iotui.core.sweep.record import SweepRecordError
from iotui.core.sweep.values import SweepAxis
from iotui.ui.compositor import BandCompositor
from iotui.ui.live import LiveSeries
from iotui.ui.messages import (
    FioLogged,
    HostSampled,
    IntervalArrived,
    ResponsivenessAssessed,
    RunEnded,
    SweepBegan,
    SweepEnded,
    SweepFailed,
    SweepPointBegan,
    SweepPointEnded,
    sweep_messages_for_event,
)
from iotui.ui.phases import RunPhase, SweepPhase
from iotui.ui.point_series import PointSeries
from iotui.ui.screens.confirm import confirm_force
from iotui.ui.services import Overrides, ServiceError, Services, SweepSetup, lock_refusal
from iotui.ui.sweep_text import planning_text, resume_command
from iotui.ui.widgets.live_run import LiveRun
from iotui.ui.widgets.log_panel import LogPanel
from iotui.ui.widgets.sweep_findings import SweepFindings, describe_params
from iotui.ui.styles import SCREENS_CSS

if TYPE_CHECKING:
    from iotui.core.presets.model import Preset
    from iotui.core.sweep.record import SweepRecord
    from iotui.core.sweep.runner import SweepRunner
    from iotui.core.sweep.slo import Slo
    from iotui.ui.app_calls import IotuiAppCalls

ACTIVE_PHASES = (SweepPhase.RUNNING, SweepPhase.STOPPING)


class SweepProgressScreen(Screen):
    """A sweep's state in ``var``s bound to the widgets, and the handlers of the worker's messages."""

    CSS_PATH = SCREENS_CSS

    phase: var[SweepPhase] = var(SweepPhase.PLANNING)
    """Where the sweep stands (keys and layout depend on it)."""
    points: var[tuple[PointResult, ...]] = var((), always_update=True)
    axes: var[tuple[SweepAxis, ...]] = var(())
    analysis: var[SweepAnalysis | None] = var(None)
    point_phase: var[RunPhase] = var(RunPhase.STARTING)
    """Where the current point stands (its figures show it)."""
    points_revision: var[int] = var(0)
    """Bumped when a point finished: the across-points panel redraws its changed lines."""

    def __init__(self, services: Services, preset: Preset, target_path: str, overrides: Overrides) -> None:
        super().__init__()
        # One frame a second while a point runs: only the widgets and rows it changes are rendered.
        self._compositor = BandCompositor()
        self.services = services
        self.preset = preset
        self.target_path = target_path
        self.overrides = overrides
        self.setup: SweepSetup | None = None
        self.plan_problem: str | None = None
        self.control: SweepRunner | None = None
        self.live = LiveSeries()
        """The current point's per-second figures (counted; the figures panel shows the latest)."""
        self.point_series = PointSeries()
        """Each finished point's own figures, for the across-points panel."""
        self.sweep: SweepRecord | None = None
        self.current_params: dict[str, str] = {}
        self.current_number = 0
        self.total = 0
        self.time_left_at_point_start_s: float | None = None
        # Wall-clock seconds since the current point's session started (baseline included),
        # as the sweep's time left is estimated.
        self.point_wall_s: float | None = None
        self.numjobs: int | None = None
        self.slo: Slo | None = None  # the latency target typed before starting, if any
        self.point_options: dict[str, str] | None = None

    @property
    def iotui_app(self) -> IotuiAppCalls:
        """The app, typed (this screen only ever runs inside it)."""
        return cast("IotuiAppCalls", self.app)

    @property
    def live_run(self) -> LiveRun:
        return self.query_one(LiveRun)

    def watch_points(self, points: tuple[PointResult, ...]) -> None:
        if self.point_series.set_points(points):
            self.points_revision += 1

    def _show_layout(self) -> None:
        keys = len(self.axes)
        # The chart appears with the first finished point; the heat map shows its grid from the start.
        finished = any(point.status not in ("pending", "running") for point in self.points)
        self.query_one("#sweep-chart").display = keys == 1 and finished
        self.query_one("#sweep-heatmap").display = keys == 2
        self.query_one("#sweep-live").display = self.phase in ACTIVE_PHASES
        self.query_one("#sweep-history").display = self.point_series.finished > 0
        self.query_one("#sweep-progress").display = self.phase is not SweepPhase.PLANNING

    def _show_status(self) -> None:
        self.query_one("#sweep-status", Static).update(self._status_text())

    def _status_text(self) -> Text:
        phase = self.phase
        if phase is SweepPhase.PLANNING:
            return planning_text(self.preset, self.setup, self.plan_problem)
        if phase in ACTIVE_PHASES:
            text = Text(f"Point {self.current_number} of {self.total}: ", style="bold")
            text.append(describe_params(self.current_params))
            left = self._time_left_s()
            if left is not None:
                text.append(f" · about {fmt.duration_s(left)} left")
            if phase is SweepPhase.STOPPING:
                text.append("\nStopping: the current point keeps its partial record, then the sweep is saved.",
                            style="bold")
            return text
        if phase is SweepPhase.FAILED:
            return Text(self.plan_problem or "The sweep broke down.", style="bold")
        done = sum(1 for point in self.points if point.status == "completed")
        if phase is SweepPhase.STOPPED:
            return Text(f"Stopped after {done} of {len(self.points)} points; the sweep record is saved.", style="bold")
        return Text(f"Done: {done} of {len(self.points)} points completed.", style="bold")

    def resume_command(self) -> str:
        """The ``iotui sweep`` command that finds this sweep record and runs its remaining points."""
        axes = self.setup.plan.axes if self.setup is not None else []
        return resume_command(self.preset.name, self.target_path, axes, self.overrides, self.services.runs_dir)

    def _time_left_s(self) -> float | None:
        if self.time_left_at_point_start_s is None:
            return None
        return max(0.0, self.time_left_at_point_start_s - (self.point_wall_s or 0.0))


    # -- the worker --------------------------------------------------------------------
    async def _drive(self, setup: SweepSetup) -> None:
        """Run the sweep; every event becomes a message to this screen."""

        def on_event(event: object) -> None:
            for message in sweep_messages_for_event(event):
                self.post_message(message)

        try:
            runner = self.services.make_sweep_runner(setup, on_event, slo=self.slo)
            self.post_message(SweepBegan(runner))
            try:
                await runner.run()
            except RunLockHeld as error:
                if not await self.app.push_screen_wait(confirm_force(error.holder.describe())):
                    raise ServiceError(lock_refusal(error)) from None
                runner.force = True
                await runner.run()
        except (ServiceError, SweepRecordError) as error:
            self.post_message(SweepFailed(str(error)))
        except asyncio.CancelledError:
            self.post_message(SweepFailed("The sweep was cancelled; its record keeps the points that finished."))
            raise
        except Exception as error:  # a bug must read as a sentence and leave the app running
            self.post_message(SweepFailed(f"The sweep broke down: {error!r}"))


    # -- messages from the worker ---------------------------------------------------------
    @on(SweepBegan)
    def _began(self, message: SweepBegan) -> None:
        self.control = message.handle
        if self.phase is SweepPhase.STOPPING:  # s was pressed before the runner existed
            message.handle.request_stop()

    @on(SweepPointBegan)
    def _point_began(self, message: SweepPointBegan) -> None:
        self.current_params = message.params
        self.current_number = message.number
        self.total = message.total
        self.time_left_at_point_start_s = message.time_left_s
        self.point_wall_s = None
        self.numjobs = message.numjobs
        self.point_options = message.options
        self.live_run.begin(message.estimated_s)
        if self.phase is not SweepPhase.STOPPING:
            self.point_phase = RunPhase.STARTING
        self._set_point(message.index, PointResult(params=dict(message.params), status="running"))
        self._show_status()

    @on(IntervalArrived)
    def _interval(self, message: IntervalArrived) -> None:
        self.live.add_interval(message.interval)
        if self.live.intervals_seen == 1:
            self._show_layout()
        self.live_run.show_interval(message.interval, paused=message.paused, interference=message.interference)
        self.point_wall_s = message.elapsed_s
        if self.point_phase is RunPhase.STARTING:
            self.point_phase = RunPhase.RUNNING
        self._show_status()

    @on(HostSampled)
    def _host(self, message: HostSampled) -> None:
        self.live.add_host(message.host)

    @on(ResponsivenessAssessed)
    def _assessed(self, message: ResponsivenessAssessed) -> None:
        self.live_run.show_assessment(
            message.assessment, numjobs=self.numjobs, cpu_count=self.services.cpu_count,
            keys="Press s to stop the sweep.", options=self.point_options,
        )

    @on(FioLogged)
    def _logged(self, message: FioLogged) -> None:
        self._log(message.source, message.text)

    @on(RunEnded)
    def _point_run_ended(self, message: RunEnded) -> None:
        if message.error:
            self._log("iotui", f"point {self.current_number}: {message.error}")

    def _log(self, source: str, text: str) -> None:
        log = self.query_one("#sweep-log", LogPanel)
        log.display = True
        log.add(source, text)

    @on(SweepPointEnded)
    def _point_ended(self, message: SweepPointEnded) -> None:
        self._set_point(message.index, message.result)
        if message.status == "failed" and message.error:
            self._log("iotui", f"point {message.number} failed: {message.error}")
        self.query_one("#sweep-progress", ProgressBar).update(
            progress=sum(1 for point in self.points if point.status not in ("pending", "running"))
        )
        self._show_layout()
        self._show_status()

    @on(SweepEnded)
    def _ended(self, message: SweepEnded) -> None:
        self.sweep = message.sweep
        self.points = tuple(message.sweep.results())
        self.analysis = message.analysis
        self.phase = SweepPhase.STOPPED if message.stopped else SweepPhase.DONE
        self._finish()

    @on(SweepFailed)
    def _failed(self, message: SweepFailed) -> None:
        if self.phase in (SweepPhase.DONE, SweepPhase.STOPPED):
            return
        self.plan_problem = message.sentence
        self.phase = SweepPhase.FAILED
        self.notify(message.sentence, title="The sweep stopped", severity="error", timeout=15, markup=False)
        self._finish()

    def _finish(self) -> None:
        self.control = None
        self._show_layout()
        self._show_status()
        findings = self.query_one(SweepFindings)
        findings.record_path = str(self.sweep.path) if self.sweep is not None and self.sweep.path else None
        findings.resume_command = self.resume_command() if self.phase is SweepPhase.STOPPED else None
        self.refresh_bindings()
        if self.iotui_app.quit_when_run_ends:
            self.app.exit(0)

    def _set_point(self, index: int, result: PointResult) -> None:
        points = list(self.points)
        if 0 <= index < len(points):
            points[index] = result
            self.points = tuple(points)

