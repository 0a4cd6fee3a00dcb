"""The responsiveness verdict in the chip: the signal that crossed, its value and the threshold."""

from __future__ import annotations

from iotui.core.host.levels import ResponsivenessMonitor
from iotui.core.host.io_probe import IoProbeStats
from iotui.ui.app import IotuiApp
from iotui.ui.widgets.cpu_summary import start_up_text
from iotui.ui.widgets.responsiveness_chip import ResponsivenessChip, chip_text
from tests.fakes.io_probe import QUIET_IO
from tests.ui.helpers import screen_text
from tests.ui.replay import CALM_HOST, ReplayServices
from tests.waiting import wait_for

PRESSURE = {
    "responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 312.0, "cause_unit": "ms",
    "cause_threshold": 110.0, "io_probe_write_p99_ms_max": 312.0, "probe_p99_ms_max": 3.1,
}
VERDICT = "io write p99 312 ms > 110 ms"


def test_the_chip_names_what_crossed_and_never_a_signal_below_its_threshold() -> None:
    monitor = ResponsivenessMonitor(io_baseline=IoProbeStats(0.4, 10.0, 4.0, 4.0))
    flood = IoProbeStats(read_p99_ms=40.0, write_p99_ms=312.0, read_iops=4.0, write_iops=4.0)
    for _ in range(3):
        assessment = monitor.update(CALM_HOST, None, flood)
    assert chip_text(assessment, measuring=False) == f"SLUGGISH · {VERDICT}"
    easing = monitor.update(CALM_HOST, None, IoProbeStats(0.4, 70.0, 4.0, 4.0))
    assert chip_text(easing, measuring=False) == "SLUGGISH · easing off · io write p99 was 312 ms"
    assert chip_text(monitor.update(CALM_HOST, None, QUIET_IO), measuring=False).startswith("SLUGGISH")


async def test_the_live_chip_shows_the_crossing(tmp_path) -> None:
    from tests.fakes.io_probe import STALLED_IO
    from tests.ui.replay import RANDRW, ReplayRunner
    from tests.conftest import fio_documents
    from tests.ui.helpers import MessageLog
    from iotui.ui.messages import ResponsivenessAssessed

    log = MessageLog()
    services = ReplayServices(
        tmp_path,
        runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=1),
        io_probe_samples=[QUIET_IO, QUIET_IO, STALLED_IO],
    )
    app = IotuiApp(services)
    async with app.run_test(size=(100, 30), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: any(m.assessment.level.value == "unresponsive" for m in log.of(ResponsivenessAssessed)),
                       what="an unresponsive assessment", pilot=pilot)
        await pilot.pause()
        chip = app.screen.query_one(ResponsivenessChip)
        assert chip.has_class("-unresponsive")
        assert "UNRESPONSIVE · io write p99 1500 ms > 1000 ms" in screen_text(app)
        await pilot.press("s")
        await wait_for(lambda: not app.screen.query(ResponsivenessChip), what="the run to end", pilot=pilot)


def test_results_show_the_slowest_program_start_beside_its_figure_at_rest() -> None:
    assert start_up_text({"app_start_ms_max": 2300.0, "app_start_baseline_ms": 130.0}) == "2.30s (130ms at rest)"
    assert start_up_text({"app_start_ms_max": 45.0}) == "45.0ms"
    assert start_up_text({}) is None
