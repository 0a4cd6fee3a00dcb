"""Remedies: a saved run's workload as it is and under each remedy (``iotui remedy`` from Results).

A worker makes the core's RemedyRun (services.make_remedy), asks before it may change the
scheduler of a disk that also holds ``/`` or ``$HOME``, runs it and only posts messages; the
handlers here show each point's progress, then the table and the verdict. Every change is undone
by the core: after each point, on s, when the app is stopped by a signal, and at the end.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Static

from iotui.core.records.files import load_record
from iotui.core.remedy.plan import REMEDY_KEY, Skipped
from iotui.core.remedy.table import remedy_rows, sweep_verdict
from iotui.core.remedy.words import NARROW_STEPS, remedy_words, table_cells, table_headers, verdict_sentence
from iotui.core.runs.lock import RunLockHeld
from iotui.core.sweep.record import SweepRecordError
from iotui.core.sweep.runner import PointFinished, PointStarted
from iotui.core.table import Column, fit_table
from iotui.ui.screens.confirm import Answer, ConfirmScreen
from iotui.ui.services import ServiceError, Services, lock_refusal
from iotui.ui.styles import SCREENS_CSS
from iotui.ui.widgets.key_bar import KeyBar
from iotui.ui.widgets.title_bar import TitleBar
from iotui.ui.workers import RUN_GROUP

if TYPE_CHECKING:
    from iotui.core.records.record import RunRecord
    from iotui.core.remedy.run import RemedyRun
    from iotui.core.sweep.record import SweepRecord

RemedyPhase = Literal["asking", "running", "stopping", "done", "stopped", "failed"]


def skipped_words(skipped: Skipped, declined: bool) -> str:
    """A remedy not tried, in the app's terms."""
    if skipped.code == "system-disk":
        how = "you chose to leave it as it is" if declined else "it was not confirmed"
        return f"The I/O schedulers of {skipped.device} are not tried: it also holds {skipped.holds}, and {how}."
    if skipped.code == "no-block-device":
        return "The I/O schedulers are not tried: the target is on no block device whose scheduler can be chosen."
    if skipped.remedy == "cgroup" and skipped.code == "not-root":
        return "The cgroup weight is not tried: making a cgroup needs root (start iotui with sudo)."
    if skipped.code == "not-root":
        return f"The I/O schedulers of {skipped.device} are not tried: changing one needs root (start iotui with sudo)."
    return "The cgroup weight is not tried: no cgroup hierarchy here offers an I/O weight."


@dataclass
class RemedyBegan(Message):
    """The remedy run is planned (and confirmed) and starts."""

    remedy: RemedyRun
    declined: bool


@dataclass
class RemedyPointChanged(Message):
    number: int
    total: int
    remedy: str
    status: str
    error: str | None = None


@dataclass
class RemedyEnded(Message):
    """The run ended: its sweep record, or the sentence that says why there is none."""

    sweep: SweepRecord | None
    sentence: str | None = None


class RemedyScreen(Screen):
    """A saved run's remedies: progress while they run, then the table and the verdict."""

    CSS_PATH = SCREENS_CSS

    BINDINGS = [
        Binding("s", "stop", "Stop"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]

    phase: var[RemedyPhase] = var("asking")
    """Where the remedy run stands (s and escape depend on it)."""

    def __init__(self, services: Services, record: RunRecord) -> None:
        super().__init__()
        self.services = services
        self.record = record
        self.remedy: RemedyRun | None = None
        self.points: dict[str, str] = {}  # remedy -> its status line
        self.sweep: SweepRecord | None = None
        self.sub_title = f"remedies: {record.preset}"

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="remedy"):
            yield Static(self._heading(), id="remedy-heading")
            yield Static("", id="remedy-skipped")
            yield Static("", id="remedy-progress")
            table = Static("", id="remedy-table")
            table.border_title = "remedies"
            table.display = False
            yield table
            yield Static("", id="remedy-verdict")
        yield KeyBar()

    def _heading(self) -> Text:
        text = Text("Trying what helps: ", style="bold")
        text.append(f"{self.record.preset} on {self.record.target.get('path', '?')}, as it is and under each remedy "
                    f"({self.services.remedy_runtime_s:g} s of fio each, plus the baseline).")
        return text

    def on_mount(self) -> None:
        self.run_worker(self._drive(), name="remedy", group=RUN_GROUP, exit_on_error=False)

    @property
    def running(self) -> bool:
        return self.phase in ("asking", "running", "stopping")

    # -- the worker -----------------------------------------------------------------------
    def _on_event(self, event: object) -> None:
        if isinstance(event, PointStarted):
            self.post_message(RemedyPointChanged(event.number, event.total, event.point.params[REMEDY_KEY], "running"))
        elif isinstance(event, PointFinished):
            self.post_message(RemedyPointChanged(event.number, event.total, event.point.params[REMEDY_KEY],
                                                 event.point.status, event.point.error))

    async def _drive(self) -> None:
        try:
            remedy = self.services.make_remedy(self.record, self._on_event)
            declined = False
            if any(skipped.code == "system-disk" for skipped in remedy.plan.skipped):
                system = next(skipped for skipped in remedy.plan.skipped if skipped.code == "system-disk")
                question = ConfirmScreen(
                    f"{system.device} also holds {system.holds}: try its other I/O schedulers too?",
                    "Each is set for its own point only and put back after it, also if iotui is stopped or killed.",
                    yes=Answer("y", "Try them"), no=Answer("n,escape", "Leave it"),
                )
                if await self.app.push_screen_wait(question):
                    remedy = self.services.make_remedy(self.record, self._on_event, allow_system_disk=True)
                else:
                    declined = True
            self.post_message(RemedyBegan(remedy, declined))
            sweep = await remedy.run()
        except ServiceError as error:
            self.post_message(RemedyEnded(None, str(error)))
        except RunLockHeld as error:
            self.post_message(RemedyEnded(None, lock_refusal(error)))
        except SweepRecordError as error:
            self.post_message(RemedyEnded(None, str(error)))
        except asyncio.CancelledError:
            self.post_message(RemedyEnded(None, "The remedy run was cancelled; every change is undone."))
            raise
        except Exception as error:  # noqa: BLE001 - the worker boundary: a bug reads as a sentence
            self.post_message(RemedyEnded(None, f"The remedy run broke down: {error!r}"))
        else:
            self.post_message(RemedyEnded(sweep))

    # -- messages -------------------------------------------------------------------------
    @on(RemedyBegan)
    def _began(self, message: RemedyBegan) -> None:
        self.remedy = message.remedy
        if self.phase == "asking":
            self.phase = "running"
        else:  # stopped while asking
            message.remedy.stop("user")
        skipped = [skipped_words(item, message.declined) for item in message.remedy.plan.skipped]
        self.query_one("#remedy-skipped", Static).update("\n".join(skipped))
        self.points = {value: f"{remedy_words(value)}: waiting" for value in message.remedy.plan.values}
        self._show_progress()

    @on(RemedyPointChanged)
    def _point(self, message: RemedyPointChanged) -> None:
        status = message.status + (f" ({message.error})" if message.error else "")
        self.points[message.remedy] = f"[{message.number}/{message.total}] {remedy_words(message.remedy)}: {status}"
        self._show_progress()

    def _show_progress(self) -> None:
        self.query_one("#remedy-progress", Static).update("\n".join(self.points.values()))

    @on(RemedyEnded)
    def _ended(self, message: RemedyEnded) -> None:
        if message.sweep is None:
            self.phase = "failed"
            self.query_one("#remedy-verdict", Static).update(Text(message.sentence or "", style="bold"))
            self.notify(message.sentence or "", title="Remedies", severity="error", markup=False)
        else:
            self.sweep = message.sweep
            self.phase = "stopped" if message.sweep.status == "stopped" or self.phase == "stopping" else "done"
            self._show_table(message.sweep)
        self.refresh_bindings()
        if getattr(self.app, "quit_when_run_ends", False):
            self.app.exit(0)

    def _show_table(self, sweep: SweepRecord) -> None:
        rows = remedy_rows(sweep, load_record)
        headers = table_headers()
        columns = [Column(headers[0]), *(Column(header, "right") for header in headers[1:-1]), Column(headers[-1])]
        table = self.query_one("#remedy-table", Static)
        width = max(40, self.size.width - 6)  # the screen's padding and the table's border
        table.update("\n".join(fit_table(columns, table_cells(rows), width, NARROW_STEPS)))
        table.display = True
        text = Text(verdict_sentence(sweep_verdict(sweep, rows)))
        if self.phase == "stopped":
            text.append("\nStopped: the points that ran are in the table; every change is undone.", style="bold")
        if sweep.path is not None:
            text.append(f"\nSaved: {sweep.path}")
        self.query_one("#remedy-verdict", Static).update(text)

    # -- keys -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":
            return self.phase == "running"
        if action == "back":
            return not self.running
        return True

    def watch_phase(self) -> None:
        self.refresh_bindings()

    def stop_for_signal(self, ended_by: str) -> None:
        """A signal reached the app: put everything back and stop, as s does."""
        self.action_stop(ended_by)

    def action_stop(self, ended_by: str = "user") -> None:
        if self.phase not in ("asking", "running"):
            return
        self.phase = "stopping"
        if self.remedy is not None:
            self.remedy.stop(ended_by)

    def action_back(self) -> None:
        if not self.running:
            self.app.pop_screen()
