"""Sweep: one preset over several values of fio options, point after point, then the sweet spot.

Before starting it shows the points (the preset's ``[sweep]`` defaults, edited
as ``KEY=V1,V2`` text), the estimated time and the disk space, and refuses
with a sentence when the disk cannot hold it. Then a worker drives the core's
SweepRunner and only posts messages (screens/sweep_progress.py handles them):
the progress, the current point live, a chart that grows as points finish, and
the sweet spot and balanced point when it is done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, ProgressBar, Static

from iotui.ui.point_series import points_span
from iotui.ui.screens.sweep_progress import ACTIVE_PHASES, SweepProgressScreen
from iotui.ui.report_key import write_report_in_background
from iotui.ui.services import Overrides, ServiceError, Services
from iotui.ui.sweep_text import default_vary_text
from iotui.ui.workers import RUN_GROUP
from iotui.ui.phases import RunPhase, SweepPhase
from iotui.ui.widgets.live_run import LiveRun
from iotui.ui.widgets.log_panel import LogPanel
from iotui.ui.widgets.series_panel import SeriesPanel
from iotui.ui.widgets.sweep_chart import SweepChart
from iotui.ui.widgets.sweep_heatmap import SweepHeatmap
from iotui.ui.widgets.sweep_findings import SweepFindings
from iotui.ui.widgets.sweep_points import SweepPoints
from iotui.core.sweep.analysis import PointResult
from iotui.ui.widgets.key_bar import KeyBar
from iotui.ui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from iotui.core.host.targets import TargetInfo
    from iotui.core.presets.model import Preset


class SweepScreen(SweepProgressScreen):
    """Plans, runs and explains one sweep; its state lives in ``var``s bound to the widgets."""

    BINDINGS = [
        Binding("enter", "start", "Start"),
        Binding("v", "edit_values", "Values"),
        Binding("s", "stop", "Stop"),
        Binding("e", "export", "Export"),
        Binding("x", "report", "HTML"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]
    AUTO_FOCUS = "#sweep-body"

    def __init__(
        self,
        services: Services,
        preset: Preset,
        target_path: str,
        *,
        overrides: Overrides | None = None,
        vary: str | None = None,
        target_info: TargetInfo | None = None,
    ) -> None:
        super().__init__(services, preset, target_path, overrides or Overrides())
        # Home's chosen target as inspected when chosen: the points on it plan without inspecting it again.
        self.target_info = target_info
        self.initial_vary = default_vary_text(preset) if vary is None else vary
        # The user said yes to a plan of more points than CONFIRM_POINTS (reset on each new plan).
        self.confirmed_points = False
        self.sub_title = f"sweep: {preset.name} on {target_path}"

    def compose(self) -> ComposeResult:
        yield TitleBar()
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
            with Vertical(id="sweep-history"):  # shown once a point finished; the series only on tall terminals
                yield SeriesPanel(
                    self.point_series, self.point_series.fio_specs, title="fio, across points", span=points_span,
                    id="sweep-series",
                ).data_bind(revision=SweepScreen.points_revision)
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
        yield KeyBar()

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
            self.setup = self.services.plan_sweep(
                self.preset, self.target_path, vary_text, self.overrides, target_info=self.target_info
            )
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
            from iotui.ui.screens.confirm import confirm_points

            def answered(run_them: bool | None) -> None:
                if run_them:
                    self.confirmed_points = True
                    self.action_start()

            self.app.push_screen(confirm_points(len(self.setup.points)), answered)
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

    def action_report(self) -> None:
        """Write ``iotui report``'s page of the sweep beside its sweep record."""
        if self.sweep is None or self.analysis is None:
            self.notify("The report comes when the sweep has points to show.", severity="warning")
            return
        sweep = self.sweep
        write_report_in_background(self, lambda: self.services.write_report(sweep=sweep))

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
