"""SIGHUP (a dropped SSH session), SIGTERM and SIGINT to the app during a real fio run: fio ends,
the test files go, the partial record is saved as stopped with the signal, the app leaves."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from iotui.ui.app import IotuiApp
from iotui.ui.messages import IntervalArrived
from iotui.ui.services import Services
from tests.conftest import requires_fio
from tests.ui.helpers import MessageLog
from tests.waiting import wait_for

pytestmark = [pytest.mark.fio, requires_fio]


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
async def test_a_signal_to_the_app_stops_fio_keeps_the_record_and_leaves_no_file(tmp_path: Path, signum: int) -> None:
    target = tmp_path / "target"
    target.mkdir()
    runs_dir = tmp_path / "runs"
    log = MessageLog()
    app = IotuiApp(Services(runs_dir=runs_dir, baseline_s=0.0), target=str(target), preset="quick")
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("e", *"30", "tab", *"16M", "escape")  # long enough that only the signal ends it
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: log.of(IntervalArrived), pilot=pilot, what="fio's first status interval")
        assert list(target.glob(".iotui-*")), "the private test directory should exist during the run"
        os.kill(os.getpid(), signum)  # reaches the app's handler on its event loop
        await wait_for(lambda: not app.is_running or list(runs_dir.glob("*.toml")), pilot=pilot,
                       what="the app to save the record and leave", timeout_s=60)
    records = list(runs_dir.glob("*.toml"))
    assert len(records) == 1
    record = load_record(records[0])
    assert record.status == "stopped" and record.run["ended_by"] == f"signal:{signal.Signals(signum).name}"
    assert list(target.iterdir()) == []
