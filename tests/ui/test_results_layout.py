"""Results on a big terminal: the options the run used and the whole run's chart fill the screen."""

from __future__ import annotations

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.fio.summary import sample_row
from iotui.core.records.record import RunRecord
from iotui.ui.app import IotuiApp
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.widgets.cpu_summary import CpuSummary
from tests.conftest import fio_documents
from tests.ui.helpers import screen_text, widget_text
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


# One section's CPU figures as a real quick run left them.
SECTION_FIGURES = {
    "cpu": {"user_pct": 37.5, "system_pct": 32.1, "iowait_pct": 0.3, "ctx_switches_per_s": 12_700.0,
            "interrupts_per_s": 6_800.0, "iops_per_fio_core": 125_000.0, "iops_per_busy_core": 35_500.0,
            "fio_user_pct": 3.5, "fio_system_pct": 24.7},
    "pressure": {"responsiveness": "ok", "probe_p99_ms_max": 5.31},
}


async def test_below_100_columns_the_cpu_panel_goes_under_the_directions_with_its_figures_whole(tmp_path) -> None:
    # Beside the per-direction figures at 80 columns it had a dozen columns: "CPU usr 37…".
    for columns, rows, under in ((80, 50, True), (99, 50, True), (100, 50, False), (160, 45, False)):
        app = IotuiApp(ReplayServices(tmp_path))
        async with app.run_test(size=(columns, rows)) as pilot:
            await app.push_screen(ResultsScreen(_record(), None, app.services))
            await pilot.pause()
            cpu_panel = app.screen.query_one("#cpu", CpuSummary)
            cpu_panel.show_section(SECTION_FIGURES)
            await pilot.pause()
            directions = app.screen.query_one("#directions").region
            cpu = cpu_panel.region
            if under:
                assert cpu.y >= directions.bottom and cpu.x == directions.x, (columns, cpu, directions)
            else:
                assert cpu.y == directions.y and cpu.x >= directions.right, (columns, cpu, directions)
            shown = widget_text(app, cpu_panel)
            for figure in ("CPU usr 37.5%", "fio usr/sys 3.5%/24.7%", "IOPS/busy core 35.5k", "wake-up p99 max 5.31ms"):
                assert figure in shown, (columns, figure, shown)
