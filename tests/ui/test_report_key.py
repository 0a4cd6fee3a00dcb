"""The ``x`` key writes ``iotui report``'s page beside the record (Results) or the first record (Compare) and says where."""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.core.records.files import load_record, save_record
from iotui.ui.app import IotuiApp
from iotui.ui.screens.compare import CompareScreen
from iotui.ui.screens.results import ResultsScreen
from tests.ui.helpers import MessageLog
from tests.ui.replay import ReplayServices
from tests.ui.test_compare_screen import run_record

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.slow  # the page draws its charts (a few seconds on a busy machine)


async def _press_x(app: IotuiApp, pilot, log: MessageLog) -> str:
    await pilot.press("x")
    await app.workers.wait_for_complete()
    await pilot.pause()
    said = [text for title, text in log.toasts() if title == "Report" and "Wrote" in text]
    assert said, log.toasts()
    return said[-1]


async def test_x_on_results_writes_the_runs_report_beside_its_record(tmp_path: Path) -> None:
    saved = save_record(run_record("aaaaaaaa01", 1, read_iops=10_000.0, read_p99_ns=100_000.0), tmp_path)
    record = load_record(saved)
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 40), message_hook=log) as pilot:
        await app.push_screen(ResultsScreen(record, saved, app.services))
        await pilot.pause()
        said = await _press_x(app, pilot, log)
    page = saved.with_suffix(".html")
    assert str(page) in said
    assert 'data-path="sections.0.read.iops" data-value="10000.0"' in page.read_text()


async def test_x_on_compare_writes_the_comparisons_report(tmp_path: Path) -> None:
    paths = [save_record(run_record(run_id, minute, read_iops=iops, read_p99_ns=100_000.0), tmp_path)
             for run_id, minute, iops in (("aaaaaaaa01", 1, 10_000.0), ("bbbbbbbb02", 2, 15_000.0))]
    records = [load_record(path) for path in paths]
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(120, 40), message_hook=log) as pilot:
        await app.push_screen(CompareScreen(records, app.services))
        await pilot.pause()
        said = await _press_x(app, pilot, log)
    (page,) = tmp_path.glob("compare-*.html")
    assert str(page) in said
    assert 'data-path="metrics.read.iops.b" data-value="15000.0"' in page.read_text()
