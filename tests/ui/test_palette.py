"""The command palette's iotui entries, used by keyboard alone at 80x24."""

from __future__ import annotations

from textual.command import CommandPalette

from iotui.ui.app import IotuiApp
from iotui.ui.screens.history import HistoryScreen
from tests.ui.helpers import screen_text, settle
from tests.ui.replay import ReplayServices
from tests.waiting import wait_for


async def palette(pilot, text: str) -> None:
    await pilot.press("ctrl+p")
    await wait_for(lambda: isinstance(pilot.app.screen, CommandPalette), pilot=pilot, what="the palette")
    await pilot.press(*text)


async def test_the_palette_lists_iotuis_entries_with_help_lines(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await palette(pilot, "run preset rnd")
        await wait_for(lambda: "Run preset rnd4k-q1t1" in screen_text(app), pilot=pilot, what="the preset's entry")
        await pilot.press("escape")
        await pilot.pause()
        await palette(pilot, "history")
        await wait_for(lambda: "Open History" in screen_text(app), pilot=pilot, what="the History entry")
        assert "filter, open, mark and compare" in screen_text(app)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, HistoryScreen), pilot=pilot, what="History")


async def test_run_preset_from_the_palette_runs_that_preset(tmp_path) -> None:
    services = ReplayServices(tmp_path)
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await palette(pilot, "run preset rnd4k-q1t1")
        await wait_for(lambda: "Run preset rnd4k-q1t1" in screen_text(app), pilot=pilot, what="the entry")
        await pilot.press("enter")
        await wait_for(lambda: services.requests, pilot=pilot, what="the run to be asked for")
        await settle(pilot)
        assert [request.preset.name for request in services.requests] == ["rnd4k-q1t1"]


async def test_a_theme_is_picked_from_the_palette(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await palette(pilot, "theme nord")
        await wait_for(lambda: "Theme nord" in screen_text(app), pilot=pilot, what="the theme entry")
        await pilot.press("enter")
        await wait_for(lambda: app.theme == "nord", pilot=pilot, what="the nord theme")
