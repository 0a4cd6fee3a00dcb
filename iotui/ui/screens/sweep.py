"""Sweep: one preset over several values of fio options, point after point, then the sweet spot.

Before starting it shows the points (the preset's ``[sweep]`` defaults, edited
as ``KEY=V1,V2`` text), the estimated time and the disk space, and refuses
with a sentence when the disk cannot hold it. Then a worker drives the core's
SweepRunner and only posts messages; this screen owns every state change: the
progress, the current point live, a chart that grows as points finish, and
the sweet spot and balanced point when it is done.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, ProgressBar, Static

from iotui.core import format as fmt
from iotui.core.sweep.analysis import PointResult, SweepAnalysis
from iotui.core.runs.lock import RunLockHeld
from iotui.core.sweep.record import SweepRecordError
from iotui.core.sweep.values import SweepAxis
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
from iotui.ui.screens.confirm_force import ConfirmForceScreen
from iotui.ui.services import Overrides, ServiceError, Services, SweepSetup, lock_refusal
from iotui.ui.sweep_text import default_vary_text, planning_text, resume_command
from iotui.ui.workers import RUN_GROUP
from iotui.ui.phases import RunPhase, SweepPhase
from iotui.ui.widgets.live_run import LiveRun
from iotui.ui.widgets.log_panel import LogPanel
from iotui.ui.widgets.series_panel import SeriesPanel
from iotui.ui.widgets.sweep_chart import SweepChart
from iotui.ui.widgets.sweep_heatmap import SweepHeatmap
from iotui.ui.widgets.sweep_findings import SweepFindings, describe_params
from iotui.ui.widgets.sweep_points import SweepPoints

if TYPE_CHECKING:
    from iotui.ui.app import IotuiApp

ACTIVE_PHASES = (SweepPhase.RUNNING, SweepPhase.STOPPING)


class SweepScreen(Screen):
    """Plans, runs and explains one sweep; its state lives in ``var``s bound to the widgets."""

    BINDINGS = [
        Binding("enter", "start", "Start"),
        Binding("v", "edit_values", "Values"),
        Binding("s", "stop", "Stop"),
        Binding("e", "export", "Export"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]
    AUTO_FOCUS = "#sweep-body"

    phase: var[SweepPhase] = var(SweepPhase.PLANNING)
    """Where the sweep stands (keys and layout depend on it)."""
    points: var[tuple[PointResult, ...]] = var((), always_update=True)
    axes: var[tuple[SweepAxis, ...]] = var(())
    analysis: var[SweepAnalysis | None] = var(None)
    point_phase: var[RunPhase] = var(RunPhase.STARTING)
    """Where the current point stands (its figures show it)."""
    fio_revision: var[int] = var(0)

    def __init__(
        self,
        services: Services,
        preset: Any,
        target_path: str,
        *,
        overrides: Overrides | None = None,
        vary: str | None = None,
    ) -> None:
        super().__init__()
        self.services = services
        self.preset = preset
        self.target_path = target_path
        self.overrides = overrides or Overrides()
        self.initial_vary = default_vary_text(preset) if vary is None else vary
        self.setup: SweepSetup | None = None
        # The user said yes to a plan of more points than CONFIRM_POINTS (reset on each new plan).
        self.confirmed_points = False
        self.plan_problem: str | None = None
        self.control: Any = None
        self.live = LiveSeries()
        self.sweep: Any = None
        self.current_params: dict[str, str] = {}
        self.current_number = 0
        self.total = 0
        self.time_left_at_point_start_s: float | None = None
        # Wall-clock seconds since the current point's session started (baseline included),
        # as the sweep's time left is estimated.
        self.point_wall_s: float | None = None
        self.numjobs: int | None = None
        self.slo: Any = None  # the latency target typed before starting (core Slo), if any
        self.point_options: dict[str, str] | None = None
        self.sub_title = f"sweep: {preset.name} on {target_path}"

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        with Vertical(id="sweep-top"):
            yield Input(
                self.initial_vary,
                placeholder="what to vary: KEY=V1,V2 (e.g. numjobs=1,2,4,8); several keys separated by ;",
                id="sweep-vary",
                compact=True,
            )
            yield Input(
                placeholder="latency target (optional): e.g. read p99<=1ms names the most IOPS that meet it",
                id="sweep-slo",
                compact=True,
            )
            yield Static(id="sweep-status")
            yield ProgressBar(id="sweep-progress", show_eta=False)
        with VerticalScroll(id="sweep-body"):
            yield SweepFindings(id="sweep-analysis").data_bind(analysis=SweepScreen.analysis)
            yield LiveRun(figures_id="sweep-figures", chip_id="sweep-chip", id="sweep-live").data_bind(
                phase=SweepScreen.point_phase
            )
            with Vertical(id="sweep-history"):  # shown once fio reported; the series only on tall terminals
                yield SeriesPanel(self.live, self.live.fio_specs, title="fio, across points", id="sweep-series").data_bind(
                    revision=SweepScreen.fio_revision
                )
            yield SweepChart(id="sweep-chart").data_bind(
                points=SweepScreen.points, axes=SweepScreen.axes, analysis=SweepScreen.analysis
            )
            yield SweepHeatmap(id="sweep-heatmap").data_bind(
                points=SweepScreen.points, axes=SweepScreen.axes, analysis=SweepScreen.analysis
            )
            points = SweepPoints(id="sweep-points").data_bind(
                points=SweepScreen.points, axes=SweepScreen.axes, analysis=SweepScreen.analysis
            )
            points.border_title = "points"
            yield points
            log = LogPanel(id="sweep-log")
            log.border_title = "messages"
            yield log
        yield Footer()

    @property
    def iotui_app(self) -> IotuiApp:
        """The app, typed (this screen only ever runs inside it)."""
        return cast("IotuiApp", self.app)

    @property
    def live_run(self) -> LiveRun:
        return self.query_one(LiveRun)

    def on_mount(self) -> None:
        self.query_one("#sweep-log").display = False
        self._plan(self.initial_vary)
        if not self.initial_vary:  # no [sweep] defaults: straight to typing the values
            self.query_one("#sweep-vary", Input).focus()

    # -- planning --------------------------------------------------------------------
    @on(Input.Changed, "#sweep-vary")
    def _vary_changed(self, event: Input.Changed) -> None:
        if self.phase is SweepPhase.PLANNING:
            self._plan(event.value)

    @on(Input.Submitted, "#sweep-vary")
    @on(Input.Submitted, "#sweep-slo")
    def _vary_submitted(self) -> None:
        self.query_one("#sweep-body").focus()  # enter again starts: a typo never starts a long sweep

    def _plan(self, vary_text: str) -> None:
        try:
            self.confirmed_points = False
            self.setup = self.services.plan_sweep(self.preset, self.target_path, vary_text, self.overrides)
            self.plan_problem = None
        except ServiceError as error:
            self.setup, self.plan_problem = None, str(error)
        except Exception as error:  # a bug must read as a sentence
            self.setup, self.plan_problem = None, f"This sweep cannot be planned: {error!r}"
        # Typing replans at every key: redraw the chart and the table only when the points change.
        axes = tuple(self.setup.plan.axes) if self.setup is not None else ()
        points = tuple(PointResult(params=dict(params), status="pending") for params in self.setup.points) \
            if self.setup is not None else ()
        if axes != self.axes or points != self.points:
            self.axes, self.points = axes, points
        self._show_layout()
        self._show_status()

    def _show_layout(self) -> None:
        keys = len(self.axes)
        # The chart appears with the first finished point; the heat map shows its grid from the start.
        finished = any(point.status not in ("pending", "running") for point in self.points)
        self.query_one("#sweep-chart").display = keys == 1 and finished
        self.query_one("#sweep-heatmap").display = keys == 2
        self.query_one("#sweep-live").display = self.phase in ACTIVE_PHASES
        self.query_one("#sweep-history").display = self.live.intervals_seen > 0
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
    def action_start(self) -> None:
        if self.phase is not SweepPhase.PLANNING:
            return
        if self.setup is None:
            self.notify(self.plan_problem or "Type what to vary first.", title="Sweep", severity="error", markup=False)
            return
        if self.setup.refusal:
            self.notify(self.setup.refusal, title="This sweep cannot start", severity="error", timeout=10, markup=False)
            return
        if self.iotui_app.run_in_progress():
            self.notify("A run is already in progress.", severity="warning")
            return
        try:
            self.slo = self.services.parse_slo(self.query_one("#sweep-slo", Input).value)
        except ServiceError as error:
            self.notify(str(error), title="Latency target", severity="error", timeout=10, markup=False)
            return
        if self.setup.plan.needs_confirmation and not self.confirmed_points:
            from iotui.ui.screens.confirm_points import ConfirmPointsScreen

            def answered(run_them: bool | None) -> None:
                if run_them:
                    self.confirmed_points = True
                    self.action_start()

            self.app.push_screen(ConfirmPointsScreen(len(self.setup.points)), answered)
            return
        self.phase = SweepPhase.RUNNING
        self.total = len(self.setup.points)
        self.query_one("#sweep-vary", Input).disabled = True
        self.query_one("#sweep-slo", Input).disabled = True
        progress = self.query_one("#sweep-progress", ProgressBar)
        progress.update(total=self.total, progress=0)
        self._show_layout()
        self._show_status()
        self.query_one("#sweep-body").focus()
        self.run_worker(self._drive(self.setup), name="sweep", group=RUN_GROUP, exit_on_error=False)

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
                if not await self.app.push_screen_wait(ConfirmForceScreen(error.holder.describe())):
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
        self.live_run.show_interval(message.interval)
        self.point_wall_s = message.elapsed_s
        if self.point_phase is RunPhase.STARTING:
            self.point_phase = RunPhase.RUNNING
        self.fio_revision += 1
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

    # -- keys ---------------------------------------------------------------------------
    def watch_phase(self) -> None:
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("start", "edit_values"):
            return self.phase is SweepPhase.PLANNING
        if action == "stop":
            return self.phase in ACTIVE_PHASES
        if action == "export":
            return self.phase in (SweepPhase.DONE, SweepPhase.STOPPED) and self.sweep is not None
        return True

    @property
    def running(self) -> bool:
        """A sweep is running or stopping."""
        return self.phase in ACTIVE_PHASES

    def stop_for_signal(self, ended_by: str) -> None:
        """A signal reached the app: stop as s does, the current point's record saying which signal."""
        self.action_stop(ended_by)

    def action_stop(self, ended_by: str = "user") -> None:
        if self.phase is not SweepPhase.RUNNING:
            return
        self.phase = SweepPhase.STOPPING
        self.point_phase = RunPhase.STOPPING
        self._show_status()
        if self.control is not None:
            self.control.request_stop(ended_by)

    def action_export(self) -> None:
        """Copy the sweep's markdown table and analysis and write them next to the sweep record."""
        from iotui.core.sweep.output import sweep_markdown

        if self.sweep is None or self.analysis is None:
            return
        text = sweep_markdown(self.sweep, self.analysis)
        self.app.copy_to_clipboard(text)
        name = self.sweep.path.name.removesuffix(".sweep.toml") if self.sweep.path else f"sweep-{self.sweep.id[:8]}"
        try:
            path = self.services.write_export(f"{name}.md", text)
        except ServiceError as error:
            self.notify(f"Copied the table to the clipboard, but {error}", severity="error", markup=False)
            return
        self.notify(f"Wrote the markdown table to {path} and copied it to the clipboard.", title="Exported",
                    markup=False)

    def action_edit_values(self) -> None:
        self.query_one("#sweep-vary", Input).focus()

    def action_back(self) -> None:
        if self.focused in (self.query_one("#sweep-vary", Input), self.query_one("#sweep-slo", Input)):
            self.query_one("#sweep-body").focus()
            return
        if self.phase in ACTIVE_PHASES:
            self.notify("The sweep is running: press s to stop it first (the current point keeps its partial record).",
                        severity="warning")
            return
        self.app.pop_screen()
