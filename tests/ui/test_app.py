"""The app as a whole: how it is started, colours, themes, 200x50, the headless path."""

from __future__ import annotations

import subprocess
import sys

from textual.command import CommandPalette

from iotui.cli_options import AppOptions
from iotui.ui.app import IotuiApp
from iotui.ui.screens.home import HomeScreen
from tests.ui.helpers import screen_text
from tests.ui.replay import ReplayServices


def test_headless_commands_never_import_textual() -> None:
    code = (
        "import sys, iotui.cli, iotui.cli_common, iotui.commands.run, iotui.commands.app, iotui.ui.services, "
        "iotui.ui.live, iotui.ui.comparison; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'textual_plotext')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_run_app_passes_the_command_line_to_the_app(monkeypatch, tmp_path) -> None:
    from iotui.commands.app import run_app

    seen = {}

    def fake_run(self):
        seen.update(target=self.initial_target, preset=self.initial_preset, runs_dir=self.services.runs_dir,
                    fio=self.services.fio)
        return 0

    monkeypatch.setattr(IotuiApp, "run", fake_run)
    options = AppOptions(target="/data", preset="quick", runs_dir=str(tmp_path), fio="/opt/fio")
    assert run_app(options) == 0
    assert seen == {"target": "/data", "preset": "quick", "runs_dir": tmp_path, "fio": "/opt/fio"}


def test_runs_dir_comes_from_the_environment(monkeypatch, tmp_path) -> None:
    from iotui.commands.app import run_app

    seen = {}
    monkeypatch.setattr(IotuiApp, "run", lambda self: seen.setdefault("runs_dir", self.services.runs_dir) and 0)
    monkeypatch.setenv("IOTUI_RUNS_DIR", str(tmp_path / "env-runs"))
    run_app(AppOptions())
    assert seen["runs_dir"] == tmp_path / "env-runs"


async def test_no_color_is_respected(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.no_color
        svg = app.export_screenshot()
    # Monochrome: no accent colour of the default theme survives in the drawing.
    assert "#ffa62b" not in svg.lower()


async def test_themes_are_in_the_command_palette(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        await pilot.pause()
        app.theme = "textual-light"
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert "quick" in screen_text(app)


async def test_every_home_action_is_in_the_footer(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        for key, label in (("r", "Run"), ("t", "Targets"), ("p", "Presets"), ("o", "Hosts"), ("e", "Options"),
                           ("h", "History"), ("q", "Quit"), ("w", "Sweep")):
            assert f"{key} {label}" in footer
        # At 80 columns the palette's key gives way to the screen's own (ctrl+p still opens it);
        # where there is room it is shown again.
        assert "^p palette" not in footer
        await pilot.resize_terminal(100, 24)
        await pilot.pause()
        await pilot.pause()
        assert "^p palette" in screen_text(app).splitlines()[-1]


async def test_a_big_terminal_gets_big_figures_and_a_chart(tmp_path) -> None:
    from tests.conftest import fio_documents
    from tests.waiting import wait_for
    from tests.ui.replay import RANDRW, ReplayRunner

    services = ReplayServices(tmp_path, runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=3))
    app = IotuiApp(services)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert app.screen.has_class("-wide")
        await pilot.press("r")
        await wait_for(lambda: app.screen.live.intervals_seen >= 3, pilot=pilot, what="three intervals")
        await pilot.pause()
        assert app.screen.has_class("-tall")
        text = screen_text(app)
        # The chart's title says what its axis spans: as many seconds as fio has reported, not "2 minutes".
        assert f"IOPS, last {app.screen.live.intervals_seen} s" in text
        assert "┏━┓" in text or "╺━┓" in text or "┃" in text  # three-line digits
        await pilot.press("s")
        await app.workers.wait_for_complete()
