"""A preset whose value fio refuses, run from the app with real fio: one sentence naming the option
and what fio accepts, back to Home, and no record in the runs directory (nothing in History)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.ui.app import IotuiApp
from iotui.ui.messages import RunEnded, RunFailed
from iotui.ui.screens.home import HomeScreen
from iotui.ui.services import Services
from tests.conftest import requires_fio
from tests.ui.helpers import MessageLog, settle
from tests.ui.test_real_fio import disk_directory  # noqa: F401  (fixture)
from tests.waiting import wait_for

THINKING = """\
name = "thinking"
title = "Reads with a think time fio cannot read"
description = "4 KiB reads whose thinktime is not a number"

[options]
ioengine = "psync"
rw = "read"
bs = "4k"
size = "1M"
runtime = 1
thinktime = "abc"
"""


@requires_fio
@pytest.mark.fio
@pytest.mark.slow
async def test_the_app_says_what_fio_accepts_and_saves_no_record(tmp_path, disk_directory, monkeypatch) -> None:  # noqa: F811
    config = tmp_path / "config"
    (config / "iotui" / "presets").mkdir(parents=True)
    (config / "iotui" / "presets" / "thinking.toml").write_text(THINKING)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    target = disk_directory
    target.mkdir()
    runs_dir = tmp_path / "runs"
    log = MessageLog()
    app = IotuiApp(Services(runs_dir=runs_dir, baseline_s=0.0), target=str(target), preset="thinking")
    async with app.run_test(size=(100, 30), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: log.of(RunEnded) or log.of(RunFailed), pilot=pilot, what="the run to end", timeout_s=60)
        await settle(pilot)
        [ended] = log.of(RunEnded)
        assert ended.refused and ended.saved_path is None
        said = [text for text in log.notifications() if "thinktime" in text]
        assert said == [
            "fio refused thinktime=abc before any job started, so nothing ran and no record was saved; thinktime "
            "takes a whole number of 0 or more, such as 100 or 4k."
        ], log.notifications()
        assert isinstance(app.screen, HomeScreen)  # no Results of a run that did not happen
    assert sorted(Path(runs_dir).glob("*.toml")) == []
    assert not list(Path(target).glob(".iotui-*")), "the test file was left behind"
