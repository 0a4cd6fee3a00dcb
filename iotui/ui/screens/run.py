"""Run: fio live. Big figures, rolling sparklines, the responsiveness chip, fio's messages.

The screen owns every piece of run state; the worker in the app only posts
messages here. It redraws once per message (at most once per frame, as
Textual coalesces refreshes), which is once per status interval in practice.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen

from iotui.core.fio.intervals import IntervalSample
from iotui.ui.compositor import BandCompositor
from iotui.ui.live import PSI_TOOLTIP, LiveSeries, psi_legend
from iotui.ui.messages import (
    FioLogged,
    HostIntervalArrived,
    HostLevelAssessed,
    HostLost,
    HostSampled,
    IntervalArrived,
    ResponsivenessAssessed,
    RunEnded,
    RunFailed,
    RunStarted,
)
from iotui.ui.phases import RunPhase
from iotui.ui.service_types import RunRequest
from iotui.ui.widgets.host_rows import HostRows
from iotui.ui.widgets.live_run import LiveRun
from iotui.ui.widgets.responsiveness_chip import worst_host_assessment
from iotui.ui.widgets.log_panel import LogPanel
from iotui.ui.widgets.series_panel import SeriesPanel
from iotui.ui.widgets.throughput_plot import ThroughputPlot
from iotui.ui.widgets.key_bar import KeyBar
from iotui.ui.widgets.title_bar import TitleBar
from iotui.ui.styles import SCREENS_CSS

# A host sample waits at most this long for fio's next interval before it is drawn alone.
HOST_DRAW_LATEST_S = 1.5

if TYPE_CHECKING:
    from iotui.core.host.levels import Assessment
    from iotui.core.runs.protocols import Session, SessionPlan
    from iotui.ui.app_calls import IotuiAppCalls


class RunScreen(Screen):
    """One run in progress.

    Its state is held in ``var``s: they feed the widgets through ``data_bind``
    without repainting the whole screen each time one changes.
    """

    CSS_PATH = SCREENS_CSS

    BINDINGS = [
        Binding("p", "toggle_pause", "Pause/Resume"),
        Binding("s", "stop", "Stop"),
        Binding("q", "app.quit", "Quit"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]

    phase: var[RunPhase] = var(RunPhase.STARTING)
    """Where the run stands (the figures show it; pause and stop depend on it)."""
    # Bumped when fio's (resp. the host's) rings gain a value: only that panel redraws.
    fio_revision: var[int] = var(0)
    host_revision: var[int] = var(0)

    def __init__(self, request: RunRequest, *, cpu_count: int) -> None:
        super().__init__()
        # One frame a second: only the widgets and rows it changes are rendered.
        self._compositor = BandCompositor()
        self.request = request
        self.cpu_count = cpu_count
        self.live = LiveSeries()
        self.control: Session | None = None
        self.plan: SessionPlan | None = None
        self.numjobs: int | None = None
        self._host_pending = False
        self._host_levels: dict[str, Assessment | None] = {}
        self._host_timer: asyncio.TimerHandle | None = None
        self.sub_title = f"{request.preset.name} on {request.target_path}"
        if request.hosts:
            self.sub_title += f" on {len(request.hosts)} hosts"

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield LiveRun(
            figures_id="figures", chip_id="chip", estimated_s=self.request.estimated_s, id="run-top"
        ).data_bind(phase=RunScreen.phase)
        if self.request.hosts:
            host_rows = HostRows(list(self.request.hosts), id="host-rows")
            host_rows.border_title = "hosts (figures above: their aggregate)"
            yield host_rows
        yield ThroughputPlot(self.live, id="plot").data_bind(revision=RunScreen.fio_revision)
        with Horizontal(id="run-series"):
            yield SeriesPanel(
                self.live, self.live.fio_specs, title="fio", id="fio-series",
                placeholder="IOPS, BW and p99 once fio reports",
            ).data_bind(revision=RunScreen.fio_revision)
            host = SeriesPanel(
                self.live, self.live.host_specs, title="host · pressure (PSI)", id="host-series",
                legend=lambda: psi_legend(self.live.host_specs()),
            ).data_bind(revision=RunScreen.host_revision)
            host.tooltip = PSI_TOOLTIP
            yield host
        log = LogPanel(id="log", placeholder="fio's and iotui's messages appear here (none yet)")
        log.border_title = "messages"
        yield log
        yield KeyBar()

    @property
    def iotui_app(self) -> IotuiAppCalls:
        """The app, typed (this screen only ever runs inside it)."""
        return cast("IotuiAppCalls", self.app)

    @property
    def live_run(self) -> LiveRun:
        return self.query_one(LiveRun)

    @property
    def latest_interval(self) -> IntervalSample | None:
        """fio's latest interval, as the figures show it."""
        return self.live_run.interval

    # -- messages from the worker ---------------------------------------------
    @on(RunStarted)
    def _started(self, message: RunStarted) -> None:
        self.control = message.handle
        self.plan = message.plan
        self.numjobs = message.plan.numjobs
        # A local run's plan names its sections (a remote or sysbench plan does not).
        sections = getattr(message.plan, "sections", None)
        self.live_run.sections = sections if isinstance(sections, list) else ()
        if message.plan.estimated_duration_s is not None:
            self.live_run.estimated_s = message.plan.estimated_duration_s

    @on(IntervalArrived)
    def _interval(self, message: IntervalArrived) -> None:
        self.live.add_interval(message.interval)
        self.live_run.show_interval(
            message.interval, paused=message.paused, groupid=message.groupid, interference=message.interference
        )
        if self.phase is RunPhase.STARTING:
            self.phase = RunPhase.RUNNING
        self.fio_revision += 1
        self._draw_host_sample()

    @on(HostIntervalArrived)
    def _host_interval(self, message: HostIntervalArrived) -> None:
        self.query_one("#host-rows", HostRows).add_interval(message.host, message.interval)

    @on(HostLevelAssessed)
    def _host_level(self, message: HostLevelAssessed) -> None:
        self.query_one("#host-rows", HostRows).set_level(message.host, message.assessment, message.not_measured)
        # The chip: the least responsive host (this machine is not probed when fio runs on the hosts).
        self._host_levels[message.host] = message.assessment
        worst = worst_host_assessment(self._host_levels)
        if worst is not None or len(self._host_levels) == len(self.request.hosts):
            self.live_run.assessment = worst
            self.live_run.measuring = False

    @on(HostLost)
    def _host_lost(self, message: HostLost) -> None:
        self.query_one("#host-rows", HostRows).mark_failed(message.host, message.at_s)
        self.notify(f"{message.host} failed at {message.at_s:.1f} s; the other hosts go on.", severity="warning", markup=False)

    @on(HostSampled)
    def _host(self, message: HostSampled) -> None:
        self.live.add_host(message.host)
        self._host_pending = True
        if self.phase is not RunPhase.RUNNING:
            self._draw_host_sample()
            return
        # While fio reports every second, the host's sample is drawn with fio's next
        # interval: one frame a second instead of two (each frame costs the whole band
        # of the screen between the two panels); if fio is late, it is drawn anyway.
        if self._host_timer is None:
            # asyncio's own timer: a Textual Timer is a task of its own, started and
            # cancelled every second.
            self._host_timer = asyncio.get_running_loop().call_later(HOST_DRAW_LATEST_S, self._draw_host_sample)

    def _cancel_host_timer(self) -> None:
        if self._host_timer is not None:
            self._host_timer.cancel()
            self._host_timer = None

    def _draw_host_sample(self) -> None:
        self._cancel_host_timer()
        if not self.is_mounted:
            return
        if self._host_pending:
            self._host_pending = False
            self.host_revision += 1

    def on_unmount(self) -> None:
        self._cancel_host_timer()  # asyncio's timer does not end with the screen

    @on(ResponsivenessAssessed)
    def _assessed(self, message: ResponsivenessAssessed) -> None:
        self.live_run.show_assessment(
            message.assessment, numjobs=self.numjobs, cpu_count=self.cpu_count,
            keys="Press p to pause fio or s to stop it.", options=getattr(self.plan, "options", None),
        )

    @on(FioLogged)
    def _logged(self, message: FioLogged) -> None:
        self.query_one("#log", LogPanel).add(message.source, message.text)

    @on(RunEnded)
    def _ended(self, message: RunEnded) -> None:
        if message.refused:
            # Nothing ran and nothing was saved: no Results to show, the sentence says what fio wants.
            self._failed(RunFailed(message.error or "fio refused its options; nothing ran."))
            return
        self.phase = RunPhase.FINISHED
        if message.error:
            self.notify(message.error, title=f"Run {message.record.status}", severity="error", timeout=15, markup=False)
        self.app.call_later(self.iotui_app.show_results, message.record, message.saved_path)

    @on(RunFailed)
    def _failed(self, message: RunFailed) -> None:
        self.phase = RunPhase.FINISHED
        self.notify(message.sentence, title="The run did not start", severity="error", timeout=15, markup=False)
        self.app.call_later(self.iotui_app.run_gone)

    # -- keys -----------------------------------------------------------------
    def action_toggle_pause(self) -> None:
        if self.control is None or self.phase in (RunPhase.STARTING, RunPhase.STOPPING, RunPhase.FINISHED):
            self.notify("fio is not running yet; nothing to pause.", severity="warning")
            return
        if self.phase is RunPhase.PAUSED:
            if self.control.resume():
                self.phase = RunPhase.RUNNING
            else:
                self.notify("fio could not be resumed (it may have just ended).", severity="warning")
        elif self.control.pause():
            self.phase = RunPhase.PAUSED
        elif self.request.hosts:
            self.notify("The hosts could not be paused (the run may have just ended); s stops the run on every host.",
                        severity="warning")
        else:
            self.notify("fio could not be paused (it may have just ended).", severity="warning")

    def action_stop(self) -> None:
        if self.phase in (RunPhase.STOPPING, RunPhase.FINISHED):
            return
        self.phase = RunPhase.STOPPING
        if self.control is None:
            # The session is still being prepared (fio's version is being read): nothing to keep.
            self.iotui_app.cancel_run()
            return
        # During the baseline the session ends as "stopped" without starting fio.
        self.control.request_stop()
