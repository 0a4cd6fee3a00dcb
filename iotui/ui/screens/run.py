"""Run: fio live. Big figures, rolling sparklines, the responsiveness chip, fio's messages.

The screen owns every piece of run state; the worker in the app only posts
messages here. It redraws once per message (at most once per frame, as
Textual coalesces refreshes), which is once per status interval in practice.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header

from iotui.core.host.responsiveness import Level, likely_cause
from iotui.ui.live import HOST_SPECS, LiveSeries
from iotui.ui.messages import (
    FioLogged,
    HostSampled,
    IntervalArrived,
    ResponsivenessAssessed,
    RunEnded,
    RunFailed,
    RunStarted,
)
from iotui.ui.services import RunRequest
from iotui.ui.widgets.figures_panel import FiguresPanel
from iotui.ui.widgets.log_panel import LogPanel
from iotui.ui.widgets.responsiveness_chip import ResponsivenessChip
from iotui.ui.widgets.series_panel import SeriesPanel
from iotui.ui.widgets.throughput_plot import ThroughputPlot


class RunScreen(Screen):
    """One run in progress.

    Its state is held in ``var``s: they feed the widgets through ``data_bind``
    without repainting the whole screen each time one changes.
    """

    BINDINGS = [
        Binding("p", "toggle_pause", "Pause/Resume"),
        Binding("s", "stop", "Stop"),
        Binding("q", "app.quit", "Quit"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]

    phase: var[str] = var("starting")
    latest_interval: var[Any] = var(None, always_update=True)
    elapsed_s: var[float | None] = var(None)
    estimated_s: var[float | None] = var(None)
    assessment: var[Any] = var(None, always_update=True)
    measuring: var[bool] = var(True)
    # Bumped when fio's (resp. the host's) rings gain a value: only that panel redraws.
    fio_revision: var[int] = var(0)
    host_revision: var[int] = var(0)

    def __init__(self, request: RunRequest, *, cpu_count: int) -> None:
        super().__init__()
        self.request = request
        self.cpu_count = cpu_count
        self.live = LiveSeries()
        self.control: Any = None
        self.plan: Any = None
        self.numjobs: int | None = None
        self.set_reactive(RunScreen.estimated_s, request.estimated_s)
        self.sub_title = f"{request.preset.name} on {request.target_path}"

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        with Horizontal(id="run-top"):
            yield FiguresPanel(id="figures").data_bind(
                interval=RunScreen.latest_interval,
                elapsed_s=RunScreen.elapsed_s,
                estimated_s=RunScreen.estimated_s,
                phase=RunScreen.phase,
            )
            yield ResponsivenessChip(id="chip").data_bind(
                assessment=RunScreen.assessment, measuring=RunScreen.measuring
            )
        yield ThroughputPlot(self.live, id="plot").data_bind(revision=RunScreen.fio_revision)
        with Horizontal(id="run-series"):
            yield SeriesPanel(self.live, self.live.fio_specs, title="fio", id="fio-series").data_bind(
                revision=RunScreen.fio_revision
            )
            yield SeriesPanel(
                self.live, lambda: list(HOST_SPECS), title="host · pressure (PSI)", id="host-series"
            ).data_bind(revision=RunScreen.host_revision)
        log = LogPanel(id="log")
        log.border_title = "messages"
        yield log
        yield Footer()

    @property
    def in_progress(self) -> bool:
        """Whether fio may still be running (the quit question depends on it)."""
        return self.phase not in ("finished",)

    # -- messages from the worker ---------------------------------------------
    @on(RunStarted)
    def _started(self, message: RunStarted) -> None:
        self.control = message.handle
        self.plan = message.plan
        self.numjobs = message.plan.numjobs
        if message.plan.estimated_duration_s is not None:
            self.estimated_s = message.plan.estimated_duration_s

    @on(IntervalArrived)
    def _interval(self, message: IntervalArrived) -> None:
        self.live.add_interval(message.interval)
        self.latest_interval = message.interval
        self.elapsed_s = message.interval.t_s
        if self.phase == "starting":
            self.phase = "running"
        self.fio_revision += 1

    @on(HostSampled)
    def _host(self, message: HostSampled) -> None:
        self.live.add_host(message.host)
        self.host_revision += 1

    @on(ResponsivenessAssessed)
    def _assessed(self, message: ResponsivenessAssessed) -> None:
        assessment = message.assessment
        self.assessment = assessment
        self.measuring = False
        if assessment.changed and assessment.level is Level.UNRESPONSIVE:
            cause = likely_cause(self.numjobs, self.cpu_count, assessment)
            # The title already says "not responding": keep what the figure means.
            meaning = assessment.sentence.split(": ", 1)[-1]
            self.notify(
                " ".join(part for part in (meaning[:1].upper() + meaning[1:], cause, "Press p to pause fio or s to stop it.") if part),
                title="The machine is not responding",
                severity="error",
                timeout=15,
                markup=False,
            )

    @on(FioLogged)
    def _logged(self, message: FioLogged) -> None:
        self.query_one("#log", LogPanel).add(message.source, message.text)

    @on(RunEnded)
    def _ended(self, message: RunEnded) -> None:
        self.phase = "finished"
        if message.error:
            self.notify(message.error, title=f"Run {message.record.status}", severity="error", timeout=15, markup=False)
        self.app.call_later(self.app.show_results, message.record, message.saved_path)  # type: ignore[attr-defined]

    @on(RunFailed)
    def _failed(self, message: RunFailed) -> None:
        self.phase = "finished"
        self.notify(message.sentence, title="The run did not start", severity="error", timeout=15, markup=False)
        self.app.call_later(self.app.run_gone)  # type: ignore[attr-defined]

    # -- keys -----------------------------------------------------------------
    def action_toggle_pause(self) -> None:
        if self.control is None or self.phase in ("starting", "stopping", "finished"):
            self.notify("fio is not running yet; nothing to pause.", severity="warning")
            return
        if self.phase == "paused":
            if self.control.resume():
                self.phase = "running"
        elif self.control.pause():
            self.phase = "paused"
        else:
            self.notify("fio could not be paused (it may have just ended).", severity="warning")

    def action_stop(self) -> None:
        if self.phase in ("stopping", "finished"):
            return
        self.phase = "stopping"
        if self.control is None:
            # The session is still being prepared (fio's version is being read): nothing to keep.
            self.app.cancel_run()  # type: ignore[attr-defined]
            return
        # During the baseline the session ends as "stopped" without starting fio.
        self.control.request_stop()
