"""One run with real fio through the whole app: live IOPS on screen, then a saved record."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from iotui.core import format as fmt
from iotui.core.host import targets as target_checks
from iotui.core.records.files import load_record
from iotui.ui.app import IotuiApp
from iotui.ui.messages import IntervalArrived, RunEnded
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.screens.run import RunScreen
from iotui.ui.services import Services
from tests.conftest import requires_fio
from tests.ui.helpers import MessageLog, screen_text, settle
from tests.waiting import wait_for


@pytest.fixture
def disk_directory(tmp_path: Path):
    """A directory on a disk: tmp_path, unless it is memory (iotui refuses tmpfs)."""
    if target_checks.inspect_target(tmp_path).filesystem not in ("tmpfs", "ramfs"):
        yield tmp_path / "target"
        return
    directory = Path(tempfile.mkdtemp(prefix="iotui-ui-fio-", dir=Path(__file__).parent))
    try:
        yield directory / "target"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@requires_fio
async def test_real_fio_shows_live_iops_and_saves_the_record(tmp_path, disk_directory) -> None:
    target = disk_directory
    target.mkdir()
    runs_dir = tmp_path / "runs"
    log = MessageLog()
    app = IotuiApp(Services(runs_dir=runs_dir, baseline_s=0.0), target=str(target), preset="quick")
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("e", *"3", "tab", *"16M", "escape")  # 3 s on a 16 MiB file
        await pilot.pause()
        assert "--runtime=3" in app.screen.preview.command and "--size=16M" in app.screen.preview.command
        await pilot.press("r")
        # Until the second interval is on screen (fio prints one a second).
        await wait_for(lambda: len(log.of(IntervalArrived)) >= 2 or log.of(RunEnded), pilot=pilot,
                       what="fio's second status interval")
        await pilot.pause()
        intervals = log.of(IntervalArrived)
        assert intervals, "fio printed no status interval"
        if isinstance(app.screen, RunScreen):
            shown = fmt.iops(app.screen.latest_interval.directions["read"].iops)
            assert f"read {shown}" in " ".join(screen_text(app).split())
        await settle(pilot)
        ended = log.of(RunEnded)[0]
        assert ended.error is None
        assert isinstance(app.screen, ResultsScreen)
        assert "completed" in screen_text(app)
    record = load_record(ended.saved_path)
    assert record.status == "completed" and record.preset == "quick"
    assert record.metric("read", "iops") and record.metric("read", "iops") > 0
    assert len(record.samples) >= 2
    assert not list(target.glob(".iotui-*")), "the test file was left behind"
