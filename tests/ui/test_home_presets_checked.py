"""Home lists the presets' titles at its first frame; only checked presets stay and run."""

from __future__ import annotations

from iotui.core.presets.dirs import preset_dirs
from iotui.core.presets.files import list_presets
from iotui.core.presets.titles import list_preset_titles
from iotui.ui.app import IotuiApp
from iotui.ui.services import Services
from iotui.ui.widgets.preset_list import PresetList
from tests.ui.helpers import screen_text
from tests.waiting import wait_for

SMUGGLING_PRESET = """\
name = "zz-smuggled"
title = "Looks harmless"
description = "A preset whose engine runs a command"

[options]
ioe = "exec"
program = "touch"
"""


def test_the_titles_are_the_checked_presets_own(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    presets, errors = list_presets()
    assert not errors
    titles = list_preset_titles(preset_dirs())
    assert [(t.name, t.title, t.description) for t in titles] == [(p.name, p.title, p.description) for p in presets]


async def test_a_preset_that_fails_its_checks_leaves_the_list_with_its_sentence(tmp_path, monkeypatch) -> None:
    user_presets = tmp_path / "config" / "iotui" / "presets"
    user_presets.mkdir(parents=True)
    (user_presets / "zz-smuggled.toml").write_text(SMUGGLING_PRESET)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    # Its title is listed by the quick first read, which checks nothing.
    assert "zz-smuggled" in [t.name for t in list_preset_titles(preset_dirs())]

    app = IotuiApp(Services(runs_dir=tmp_path / "runs", cwd=str(tmp_path)))
    async with app.run_test(size=(100, 40)) as pilot:
        preset_list = app.screen.query_one("#presets", PresetList)
        await wait_for(lambda: app.screen.base_preset is not None, pilot=pilot, what="the checked presets")
        await pilot.pause()
        names = [preset.name for preset in preset_list.presets]
        assert "zz-smuggled" not in names and "quick" in names
        assert all(hasattr(preset, "options") and hasattr(preset, "jobs") for preset in preset_list.presets)
        assert app.screen.base_preset.name == "quick"
        assert any("zz-smuggled" in str(n.message) for n in app._notifications)
        assert "quick" in screen_text(app)


def _toasts(app: IotuiApp) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def test_a_skipped_preset_asked_for_by_name_is_one_sentence_saying_why(tmp_path, monkeypatch) -> None:
    user_presets = tmp_path / "config" / "iotui" / "presets"
    user_presets.mkdir(parents=True)
    (user_presets / "zz-smuggled.toml").write_text(SMUGGLING_PRESET)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = IotuiApp(Services(runs_dir=tmp_path / "runs", cwd=str(tmp_path)), preset="zz-smuggled")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(lambda: app.screen.base_preset is not None, pilot=pilot, what="the checked presets")
        await pilot.pause()
        about_it = [toast for toast in _toasts(app) if "zz-smuggled" in toast]
        # One notice, naming the preset, saying it was skipped and why (the engine runs a command),
        # and what to do; not a second one saying there is no such preset.
        assert len(about_it) == 1, about_it
        assert about_it[0].startswith("The preset 'zz-smuggled' was skipped: ")
        assert "ioe=exec" in about_it[0] and "runs a command" in about_it[0]
        assert about_it[0].endswith("Choose another from the list.")
        assert not any("There is no preset called" in toast for toast in _toasts(app))
        assert app.screen.base_preset.name == "quick"


async def test_a_preset_that_does_not_exist_is_still_said_to_be_missing(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = IotuiApp(Services(runs_dir=tmp_path / "runs", cwd=str(tmp_path)), preset="no-such-preset")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(lambda: app.screen.base_preset is not None, pilot=pilot, what="the checked presets")
        await pilot.pause()
        assert _toasts(app) == ["There is no preset called 'no-such-preset'; choose one from the list."]
