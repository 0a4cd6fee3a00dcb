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
