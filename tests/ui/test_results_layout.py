"""Results on a big terminal: the options the run used and the whole run's chart fill the screen."""

from __future__ import annotations

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.fio.summary import sample_row
from iotui.core.runs.record import RunRecord
from iotui.ui.app import IotuiApp
from iotui.ui.screens.results import ResultsScreen
from tests.conftest import fio_documents
from tests.ui.helpers import screen_text
from tests.ui.replay import CALM_HOST, RANDRW, ReplayServices


def _record() -> RunRecord:
    deriver = IntervalDeriver()
    intervals = [interval for doc in fio_documents(RANDRW) if (interval := deriver.feed(doc)) is not None]
    return RunRecord(
        run={"id": "0123456789abcdef", "preset": "quick", "title": "quick · runtime 10s", "status": "completed",
             "duration_s": 10.0, "fio_version": "fio-3.33", "fio_argv": ["fio"], "fio_report": "x.fio.json"},
        host={"hostname": "h", "system": "Linux", "kernel": "6.1.0", "cpu_model": "c", "cpu_count": 2,
              "mem_total_bytes": 2**30},
        target={"path": "/home/ada/bench", "filesystem": "ext4", "device": "nvme0n1p2", "mount_options": "rw"},
        options={"rw": "randrw", "bs": "4k", "iodepth": "16", "runtime": "10", "time_based": ""},
        summary={"read": {"iops": 200.0, "bw_bytes": 819200.0, "lat_mean_ns": 120000.0, "lat_p99_ns": 326000},
                 "write": {"iops": 200.0, "bw_bytes": 819200.0, "lat_mean_ns": 150000.0, "lat_p99_ns": 326000}},
        samples=[sample_row(interval, CALM_HOST) for interval in intervals],
    )


async def test_results_at_160x45_show_the_options_and_the_run_and_leave_no_empty_half(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(160, 45)) as pilot:
        await app.push_screen(ResultsScreen(_record(), None, app.services))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        text = "\n".join(lines)
        assert "quick · runtime 10s completed" in text  # the effective title
        assert "options used" in text and "rw=randrw  bs=4k  iodepth=16  runtime=10  time_based" in text
        assert "IOPS over the whole run" in text and "seconds since fio started" in text
        blank = [line for line in lines[1:-1] if not line.strip()]
        assert len(blank) <= 3, f"{len(blank)} blank rows"


async def test_results_at_80x24_keep_the_figures_first_and_leave_the_chart_out(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ResultsScreen(_record(), None, app.services))
        await pilot.pause()
        assert not app.screen.query_one("#run-chart").display
        assert "lat p99" in screen_text(app)
