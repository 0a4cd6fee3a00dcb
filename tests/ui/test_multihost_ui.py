"""Multi-host in the app: the hosts field on Home and the per-host rows of the Run screen."""

from __future__ import annotations

from iotui.core.fio.intervals import DirectionInterval, IntervalSample
from iotui.ui.app import IotuiApp
from iotui.ui.screens.home import HomeScreen
from iotui.ui.widgets.host_rows import HostRows
from tests.ui.helpers import MessageLog, screen_text, settle
from tests.ui.replay import ReplayServices


async def test_hosts_typed_or_completed_from_the_ssh_config_reach_the_run_request(tmp_path) -> None:
    services = ReplayServices(tmp_path)
    services.ssh_hosts = lambda: ["nfs1", "nfs2", "ceph-client"]
    log = MessageLog()
    app = IotuiApp(services)
    async with app.run_test(size=(100, 40), message_hook=log) as pilot:
        await pilot.pause()
        assert "ssh config: nfs1, nfs2, ceph-client" in screen_text(app)
        await pilot.press("o", "n", "f", "s", "1", ",", "n")
        await pilot.pause()
        await pilot.press("right")  # takes the ssh config's next host: nfs2
        assert app.screen.query_one("#hosts").value == "nfs1,nfs2"
        await pilot.press("enter", "r")
        await pilot.pause()
        requested = log.of(HomeScreen.RunRequested)
        assert requested and requested[0].request.hosts == ("nfs1", "nfs2")


async def test_the_switch_beside_the_hosts_field_turns_the_host_probes_off_for_the_run(tmp_path) -> None:
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        assert "host probes on" in screen_text(app)  # beside the hosts field, at 80x24
        await pilot.press("o", *"h1,h2", "tab")  # from the hosts field to the switch
        assert app.focused is not None and app.focused.id == "host-probes"
        await pilot.press("space")
        await pilot.pause()
        assert "host probes off" in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        requested = log.of(HomeScreen.RunRequested)
        assert requested and requested[0].request.hosts == ("h1", "h2")
        assert requested[0].request.host_probes is False


async def test_the_host_probes_are_on_unless_turned_off(tmp_path) -> None:
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("o", *"h1", "enter", "r")
        await pilot.pause()
        requested = log.of(HomeScreen.RunRequested)
        assert requested and requested[0].request.host_probes is True


async def test_a_bad_host_is_refused_with_a_sentence(tmp_path) -> None:
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 40), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("o", *"h1,-oProxyCommand=x", "enter", "r")
        await pilot.pause()
        assert not log.of(HomeScreen.RunRequested)
        assert any("not an ssh destination" in text for text in log.notifications())


def _interval(iops: float) -> IntervalSample:
    figures = DirectionInterval(int(iops), iops, iops * 4096, 1000.0, 800, 3000, {"p99": 2000})
    return IntervalSample(t_s=1.0, dt_s=1.0, directions={"write": figures})


def test_each_host_row_says_how_fresh_its_figures_are() -> None:
    rows = HostRows(["h1", "h2", "h3"])
    rows.rows["h1"].interval, rows.rows["h1"].arrived_monotonic = _interval(500), 100.0
    rows.rows["h2"].interval, rows.rows["h2"].arrived_monotonic = _interval(480), 98.3
    rows.rows["h3"].failed_at_s = 2.5
    lines = rows.render_rows(now=100.2).plain.splitlines()
    assert lines[0].startswith("● h1") and "write 500 IOPS" in lines[0]
    assert lines[1].startswith("○ h2")  # nothing for 1.9 s: stale after 1.6 s
    assert lines[2] == "✗ h3  failed at 2.5 s"
    assert rows.render_rows(now=101.7).plain.splitlines()[0].startswith("○ h1")


def test_each_host_row_ends_with_that_hosts_level_and_cause() -> None:
    from iotui.core.host.levels import ResponsivenessMonitor
    from iotui.core.host.wakeup_probe import ProbeStats

    rows = HostRows(["h1", "h2", "h3"])
    for name in ("h1", "h2", "h3"):
        rows.rows[name].interval, rows.rows[name].arrived_monotonic = _interval(500), 100.0
    # h1 at rest; h2's wake-ups 250 ms late against 2 ms at rest (past 100 ms + its own 2 ms).
    calm = ResponsivenessMonitor(ProbeStats(1.0, 2.0, 3.0, 100))
    late = ResponsivenessMonitor(ProbeStats(1.0, 2.0, 3.0, 100))
    rows.set_level("h1", calm.update(None, ProbeStats(1.0, 2.0, 3.0, 100)))
    rows.set_level("h2", late.update(None, ProbeStats(200.0, 250.0, 300.0, 100)))
    lines = rows.render_rows(now=100.2).plain.splitlines()
    assert lines[0].endswith("  ok")
    assert lines[1].endswith("  unresponsive: wake-up p99 250 ms > 102 ms")
    assert "ok" not in lines[2] and "responsive" not in lines[2]  # no probe there: no level shown


async def test_results_of_a_multi_host_run_list_each_host_of_the_picked_section_and_name_the_slowest(tmp_path) -> None:
    from tests.ui.test_results_sections import blocksize_record

    from iotui.ui.screens.results import ResultsScreen
    from iotui.ui.widgets.section_table import SectionTable

    record = blocksize_record()

    def host(name: str, iops: tuple[float, float, float], failed: float | None = None) -> dict:
        sections = [
            {"name": s["name"], "read": {**s["read"], "iops": value, "lat_p99_ns": 1000.0 * value}}
            for s, value in zip(record.sections, iops)
        ]
        entry = {"name": name, "tool_version": "fio-3.33", "exit_status": 0, "sections": sections, "samples": []}
        if failed is not None:
            entry["failed_at_s"] = failed
        return entry

    record.hosts = [host("nfs1", (9_000.0, 3_000.0, 270.0)), host("nfs2", (10_200.0, 3_300.0, 277.0)),
                    host("nfs3", (12.0, 1.0, 1.0), failed=2.5)]
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.push_screen(ResultsScreen(record, None, app.services))
        await pilot.pause()
        table = app.screen.query_one("#hosts-table")
        text = table.render().plain  # type: ignore[union-attr]
        assert "nfs1" in text and "9.0k" in text and "10.2k" in text and "failed at 2.5 s" in text
        assert "slowest: nfs1 (fewest IOPS" in text  # the failed host is never the slowest
        app.screen.query_one(SectionTable).move_cursor(row=1)
        await pilot.pause()
        text = app.screen.query_one("#hosts-table").render().plain  # type: ignore[union-attr]
        assert "3.0k" in text and "3.3k" in text and "slowest: nfs1" in text
        assert "section 2" in str(app.screen.query_one("#hosts-table").border_title)


async def test_the_hosts_table_of_a_one_section_run_is_titled_by_its_hosts_only(tmp_path) -> None:
    # It read "2 hosts in per direction": the one-section title of the figures below it.
    from tests.ui.test_results_sections import blocksize_record

    from iotui.ui.screens.results import ResultsScreen

    record = blocksize_record()
    record.sections = record.sections[:1]
    section = record.sections[0]
    record.hosts = [
        {"name": name, "exit_status": 0, "sections": [{"name": section["name"], "read": dict(section["read"])}],
         "samples": []}
        for name in ("h1", "h2")
    ]
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.push_screen(ResultsScreen(record, None, app.services))
        await pilot.pause()
        assert str(app.screen.query_one("#hosts-table").border_title) == "2 hosts"


async def test_the_chip_of_a_multi_host_run_shows_the_worst_host_level(tmp_path) -> None:
    # The chip said "responsive: measuring…" the whole run: this machine is not probed when fio
    # runs on the hosts, while each host's row had its level.
    from iotui.core.host.levels import ResponsivenessMonitor
    from iotui.core.host.wakeup_probe import ProbeStats
    from iotui.ui.messages import HostLevelAssessed
    from iotui.ui.screens.run import RunScreen
    from iotui.ui.service_types import RunRequest
    from iotui.ui.widgets.responsiveness_chip import ResponsivenessChip, chip_text
    from tests.ui.replay import PRESETS, TARGETS

    calm = ResponsivenessMonitor(ProbeStats(1.0, 2.0, 3.0, 100))
    late = ResponsivenessMonitor(ProbeStats(1.0, 2.0, 3.0, 100))
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RunScreen(RunRequest(PRESETS[0], TARGETS[0], 20.0, ("h1", "h2", "h3")), cpu_count=2)
        await app.push_screen(screen)
        await pilot.pause()
        chip = screen.query_one("#chip", ResponsivenessChip)
        screen.post_message(HostLevelAssessed("h3", None, "no python3"))
        screen.post_message(HostLevelAssessed("h1", calm.update(None, ProbeStats(1.0, 2.0, 3.0, 100))))
        await settle(pilot)
        assert chip_text(chip.assessment, chip.measuring) == "responsive: OK"
        screen.post_message(HostLevelAssessed("h2", late.update(None, ProbeStats(200.0, 250.0, 300.0, 100))))
        await settle(pilot)
        assert chip_text(chip.assessment, chip.measuring) == "UNRESPONSIVE · h2 wake-up p99 250 ms > 102 ms"
