"""The key bar shows the screen's keys and is rebuilt only when they change."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from iotui.ui.app import IotuiApp
from iotui.ui.widgets.key_bar import KeyBar
from tests.ui.helpers import screen_text
from tests.ui.replay import ReplayServices


def _keys(app: IotuiApp) -> list[FooterKey]:
    return list(app.screen.query_one(KeyBar).query(FooterKey))


async def test_the_bar_shows_what_the_screen_binds(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        shown = {key.key for key in _keys(app)}
        # Home's own keys that are shown, the app's sweep key and the palette's.
        assert {"r", "t", "p", "o", "e", "h", "q", "w", "ctrl+p"} <= shown
        assert "escape" not in shown  # "Done" only while an option field has focus
        assert "ctrl+q" not in shown  # bound with show=False


async def test_moving_between_the_lists_keeps_the_same_keys(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        before = _keys(app)
        await pilot.press("t")
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        after = _keys(app)
        # The same widgets: nothing was rebuilt, as the keys did not change.
        assert [id(key) for key in after] == [id(key) for key in before]


async def test_a_new_key_is_shown_when_it_becomes_active(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")  # into the option fields: escape (Done) is offered
        await pilot.pause()
        await pilot.pause()
        assert "escape" in {key.key for key in _keys(app)}
        assert "Done" in screen_text(app).splitlines()[-1]
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert "escape" not in {key.key for key in _keys(app)}
