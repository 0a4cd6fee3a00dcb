"""The iotui app: wiring only. Screens, app-wide keys, and the one worker that runs fio.

Everything the app needs from outside comes in through ``services`` (targets,
presets, the session factory, the runs directory), so tests and benchmarks
replay recorded fio documents through the very same screens.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.worker import WorkerState

from iotui.ui.app_calls import IotuiAppCalls
from iotui.ui.screens.home import HomeScreen
from iotui.ui.service_types import RunRequest
from iotui.ui.services import ServiceError, Services, lock_refusal
from iotui.ui.styles import HOME_CSS
from iotui.ui.workers import RUN_GROUP

# The run, results and history screens (and the fio session, the plot library) are
# imported when first needed, not at start: the home screen paints sooner.
if TYPE_CHECKING:
    from iotui.core.runs.protocols import Session
    from iotui.core.records.record import RunRecord
    from iotui.ui.driver import TerminalLost
    from iotui.ui.screens.run import RunScreen

# After "stop and quit", give fio this long to write its final report before leaving anyway.
QUIT_GRACE_S = 30.0


def _iotui_commands() -> type:
    from iotui.ui.palette import IotuiCommands

    return IotuiCommands


class IotuiApp(App[int]):
    """Home -> Run -> Results, History and Compare on top."""

    # Absolute, so subclasses defined elsewhere (benchmarks) find the one stylesheet.
    CSS_PATH = HOME_CSS
    TITLE = "iotui"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
        # Offered on Home only (check_action): sweep the preset and target chosen there.
        Binding("w", "sweep", "Sweep"),
        # The keys panel on every screen: F1 always, ? where no text field takes it; escape
        # closes it (before the screen's own escape, and only while it is open).
        Binding("f1", "toggle_keys", "Keys", show=False, priority=True),
        Binding("question_mark", "toggle_keys", "Keys", show=False),
        Binding("escape", "hide_keys", "Close keys", show=False, priority=True),
    ]
    # The palette (ctrl+p) holds iotui's own entries beside Textual's (the provider loads when opened).
    COMMANDS = App.COMMANDS | {_iotui_commands}

    def __init__(
        self,
        services: Services,
        *,
        target: str | None = None,
        preset: str | None = None,
    ) -> None:
        super().__init__()
        self.services = services
        self.initial_target = target
        self.initial_preset = preset
        self.quit_when_run_ends = False
        # The session of the run in progress (set by the run worker), for a signal to stop it.
        self.current_session: Session | None = None
        self.ended_by_signal: str | None = None
        self._painting_stopped = False
        if hasattr(services, "ask_left_out"):
            services.ask_left_out = self._ask_left_out

    def get_driver_class(self) -> type[Driver]:
        driver_class = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver_class is LinuxDriver:
            # The same driver, with an input thread that sleeps while no key comes (a tenth
            # of the app's CPU during a run went to its ten wake-ups a second).
            from iotui.ui.driver import QuietLinuxDriver

            return QuietLinuxDriver
        if (driver_class.__module__, driver_class.__name__) == ("textual.drivers.web_driver", "WebDriver"):
            # A closed browser tab stops the run and keeps its record, as a lost terminal does.
            from iotui.ui.web_driver import TabDriver

            return TabDriver
        return driver_class

    def get_default_screen(self) -> HomeScreen:
        # Home is the app's first screen itself, not pushed over an empty one: one screen
        # fewer to mount and style before the first frame.
        return HomeScreen(self.services, initial_target=self.initial_target, initial_preset=self.initial_preset)

    def on_mount(self) -> None:
        self._install_signal_handlers()

    # -- signals: SIGHUP (a dropped SSH session), SIGTERM, SIGINT ------------------------
    def _install_signal_handlers(self) -> None:
        import signal

        loop = asyncio.get_running_loop()
        for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, self.on_exit_signal, signum)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no such signal
                pass

    def on_unmount(self) -> None:
        import signal

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
            try:
                loop.remove_signal_handler(signum)
            except (NotImplementedError, RuntimeError, ValueError):
                pass

    def on_exit_signal(self, signum: int) -> None:
        """End fio, remove the test files, keep the partial record as stopped, then leave."""
        import signal

        if signum == signal.SIGHUP:
            # The terminal hung up (a dropped SSH session, a closed tmux pane): never wait on it again.
            self._terminal_gone()
        self.leave_stopping_run(f"signal:{signal.Signals(signum).name}")

    def on_terminal_lost(self, message: TerminalLost) -> None:
        """The terminal (or the browser tab) is gone: as for SIGHUP, nobody is left to ask."""
        self._terminal_gone()
        self.leave_stopping_run("terminal-lost")

    @property
    def terminal_lost(self) -> bool:
        """Whether the terminal went away (nothing is drawn or written to it again)."""
        return bool(getattr(self._driver, "terminal_lost", False)) or self._painting_stopped

    def _terminal_gone(self) -> None:
        mark_lost = getattr(self._driver, "mark_terminal_lost", None)
        if mark_lost is not None:
            mark_lost()
        if not self._painting_stopped:
            # Nobody sees a frame again: none is composed (the run still ends and is saved).
            self._painting_stopped = True
            self._begin_batch()

    def leave_stopping_run(self, ended_by: str) -> None:
        """Leave the app; a run or sweep in progress is stopped first (``ended_by`` kept in its record)."""
        self.ended_by_signal = self.ended_by_signal or ended_by
        if not self.run_in_progress() and not self._sweep_in_progress():
            self.exit(0)
            return
        self.quit_when_run_ends = True
        name = self.ended_by_signal
        session = self.current_session
        if session is not None:
            session.request_stop(name)
        from iotui.ui.screens.remedy import RemedyScreen
        from iotui.ui.screens.sweep import SweepScreen

        for screen in self.screen_stack:
            if isinstance(screen, (SweepScreen, RemedyScreen)):
                screen.stop_for_signal(name)
        self.set_timer(QUIT_GRACE_S, lambda: self.exit(0))

    def _sweep_in_progress(self) -> bool:
        from iotui.ui.screens.remedy import RemedyScreen
        from iotui.ui.screens.sweep import SweepScreen

        return any(isinstance(screen, (SweepScreen, RemedyScreen)) and screen.running for screen in self.screen_stack)

    # -- the run worker ---------------------------------------------------------
    @on(HomeScreen.RunRequested)
    def _start_run(self, message: HomeScreen.RunRequested) -> None:
        from iotui.ui.screens.run import RunScreen

        if self.run_in_progress():
            self.notify("A run is already in progress.", severity="warning")
            return
        screen = RunScreen(message.request, cpu_count=self.services.cpu_count)
        self.push_screen(screen)
        self.run_worker(
            self._drive_run(message.request, screen), name="fio run", group=RUN_GROUP, exit_on_error=False
        )

    async def _drive_run(self, request: RunRequest, screen: RunScreen) -> RunRecord | None:
        """Build the session and run it; every event becomes a message to the run screen."""
        from iotui.ui.messages import RunFailed, RunStarted, messages_for_event

        def on_event(event: object) -> None:
            for message in messages_for_event(event):
                screen.post_message(message)

        from iotui.core.runs.lock import RunLockHeld

        try:
            session = await self.services.make_session(request, on_event)
            self.current_session = session
            if self.ended_by_signal:  # a signal came while the session was being made
                session.request_stop(self.ended_by_signal)
            screen.post_message(RunStarted(session.plan, session))
            try:
                return await session.run()
            except RunLockHeld as error:
                if not await self._confirm_force(error):
                    screen.post_message(RunFailed(lock_refusal(error)))
                    return None
                session.force = True
                return await session.run()
        except ServiceError as error:
            screen.post_message(RunFailed(str(error)))
        except asyncio.CancelledError:
            screen.post_message(RunFailed("Stopped before fio started; nothing was recorded."))
            raise
        except Exception as error:  # noqa: BLE001 - the worker boundary: a bug reads as a sentence and the app keeps running
            screen.post_message(RunFailed(f"The run broke down: {error!r}"))
        finally:
            self.current_session = None
        return None

    async def _ask_left_out(self, left_out: list[tuple[str, str]], passed: int) -> bool:
        """Some hosts failed the check: start on those that passed? (from the run worker)"""
        from iotui.ui.screens.confirm import ConfirmScreen

        shown = [message for _host, message in left_out[:6]]
        more = [f"... and {len(left_out) - 6} more."] if len(left_out) > 6 else []
        question = f"Start on the {passed} hosts that passed, leaving these {len(left_out)} out (named in the record)?"
        return bool(await self.push_screen_wait(ConfirmScreen(*shown, *more, question)))  # type: ignore[arg-type]

    async def _confirm_force(self, error: object) -> bool:
        """Ask whether to run past the run that holds the machine (from a worker)."""
        from iotui.ui.screens.confirm import confirm_force

        holder = getattr(error, "holder", None)
        # Textual hints push_screen_wait with the app's own result type; this screen answers a bool.
        return bool(await self.push_screen_wait(confirm_force(holder.describe() if holder else str(error))))  # type: ignore[arg-type]

    def run_in_progress(self) -> bool:
        """Whether the run worker is still going."""
        return any(
            worker.group == RUN_GROUP and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in self.workers
        )

    def cancel_run(self) -> None:
        """End a run that has not started fio yet (nothing to keep)."""
        self.workers.cancel_group(self, RUN_GROUP)

    # -- screens --------------------------------------------------------------
    def show_results(self, record: RunRecord, saved_path: Path | None) -> None:
        """Called by the run screen when its run ended."""
        from iotui.ui.screens.results import ResultsScreen
        from iotui.ui.screens.run import RunScreen

        if self.quit_when_run_ends:
            self.exit(0)
            return
        if isinstance(self.screen, RunScreen):
            self.switch_screen(ResultsScreen(record, saved_path, self.services))
        else:
            self.push_screen(ResultsScreen(record, saved_path, self.services))

    def run_gone(self) -> None:
        """Called by the run screen when its run could not start."""
        from iotui.ui.screens.run import RunScreen

        if self.quit_when_run_ends:
            self.exit(0)
            return
        if isinstance(self.screen, RunScreen):
            self.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sweep":
            return isinstance(self.screen, HomeScreen)
        if action == "hide_keys":
            return self.keys_shown()
        return super().check_action(action, parameters)

    def keys_shown(self) -> bool:
        """Whether the keys panel is open on this screen."""
        return bool(self.screen.query("HelpPanel"))

    def action_toggle_keys(self) -> None:
        """The keys panel (Textual's help panel): open it, or close it when open."""
        if self.keys_shown():
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_hide_keys(self) -> None:
        self.action_hide_help_panel()

    def action_sweep(self) -> None:
        """Home's preset and target, swept over the preset's [sweep] values (editable there)."""
        from iotui.ui.screens.sweep import SweepScreen

        home = self.screen
        if not isinstance(home, HomeScreen):
            return
        if home.target is None or home.preset is None:
            self.notify("Choose a target (t) and a preset (p) first.", severity="warning")
            return
        if home.option_problem:
            self.notify(home.option_problem, title="Options", severity="error", markup=False)
            return
        if home.hosts_typed():
            # The Sweep screen runs its points here: never on this machine when hosts were asked for.
            self.notify(
                "The app's sweep runs on this machine: clear the hosts field (o) to sweep here, or sweep "
                f"the hosts with 'iotui sweep {home.preset.name} --hosts H1,H2'.",
                title="Sweep", severity="warning", markup=False,
            )
            return
        target = home.target  # as inspected when chosen: the sweep's points plan on it as it is
        self.push_screen(
            SweepScreen(self.services, home.preset, str(target.path), overrides=home.overrides, target_info=target)
        )

    # -- command palette entries ---------------------------------------------------
    def _home(self) -> HomeScreen | None:
        """Back on Home (from History, Results, Compare); None while a run or sweep is on."""
        if self.run_in_progress():
            self.notify("A run is in progress; this can wait until it ends.", severity="warning")
            return None
        while len(self.screen_stack) > 1 and not isinstance(self.screen, HomeScreen):
            self.pop_screen()
        return self.screen if isinstance(self.screen, HomeScreen) else None

    def run_preset_from_anywhere(self, name: str) -> None:
        home = self._home()
        if home is not None:
            home.run_preset(name)

    def choose_target_from_anywhere(self, path: str) -> None:
        home = self._home()
        if home is not None:
            home.choose_target(path)

    def sweep_from_anywhere(self) -> None:
        if self._home() is not None:
            self.call_after_refresh(self.action_sweep)

    def compare_last_two(self) -> None:
        """The newest saved run against the one before it (from the history index)."""
        from iotui.core.records.files import load_record
        from iotui.core.records.schema import RecordError
        from iotui.ui.screens.compare import CompareScreen

        try:
            self.services.sync_history()
            runs, _ = self.services.query_history("", 50)
        except ServiceError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        records = []
        for run in runs:
            if run.error:
                continue
            try:
                records.append(load_record(run.path))
            except RecordError:
                continue
            if len(records) == 2:
                break
        if len(records) < 2:
            self.notify("Compare needs two saved runs; run twice first.", severity="warning")
            return
        self.push_screen(CompareScreen(list(reversed(records)), self.services))

    def action_open_history(self) -> None:
        """History is built once and kept: opening it again shows the index's rows at once (it resyncs on resume)."""
        from iotui.ui.screens.history import HistoryScreen

        if not self.is_screen_installed("history"):
            self.install_screen(HistoryScreen(self.services), "history")
        history = self.get_screen("history")
        if history in self.screen_stack:  # opened from a screen History opened: go back to it
            while self.screen is not history:
                self.pop_screen()
            return
        self.push_screen(history)

    def action_home(self) -> None:
        """Back to the home screen, for a new run."""
        while len(self.screen_stack) > 1 and not isinstance(self.screen, HomeScreen):
            self.pop_screen()

    async def action_back(self) -> None:
        """One screen back, never past home."""
        if len(self.screen_stack) > 1:
            self.pop_screen()

    async def action_quit(self) -> None:
        if not self.run_in_progress():
            self.exit(0)
            return
        from iotui.ui.screens.confirm import confirm_quit
        from iotui.ui.screens.run import RunScreen

        def answered(stop_and_quit: bool | None) -> None:
            if not stop_and_quit:
                return
            if not self.run_in_progress():
                self.exit(0)
                return
            self.quit_when_run_ends = True
            from iotui.ui.screens.remedy import RemedyScreen
            from iotui.ui.screens.sweep import SweepScreen

            run_screen = next((s for s in self.screen_stack if isinstance(s, (RunScreen, SweepScreen, RemedyScreen))), None)
            if run_screen is not None:
                run_screen.action_stop()
            self.set_timer(QUIT_GRACE_S, lambda: self.exit(0))

        self.push_screen(confirm_quit(), answered)


def _answers_its_screens(app: IotuiApp) -> IotuiAppCalls:
    """mypy's check that the app makes every call its screens and palette reach it for."""
    return app
