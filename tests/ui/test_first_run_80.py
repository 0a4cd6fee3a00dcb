"""The first run a newcomer makes, at 80x24: the desktop preset's Results show every figure whole."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from iotui.core import format as fmt
from iotui.core.fio.intervals import IntervalDeriver, IntervalSample
from iotui.core.host.levels import Assessment, Level
from iotui.core.presets.estimate import planned_sections
from iotui.core.presets.files import find_preset
from iotui.core.runs.plan import RunPlan, effective_options
from iotui.core.records.direction_figures import section_figures
from iotui.core.records.record import RunRecord
from iotui.ui.app import IotuiApp
from iotui.ui.messages import IntervalArrived, ResponsivenessAssessed, RunStarted
from iotui.ui.screens.run import RunScreen
from iotui.ui.service_types import RunRequest
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.widgets.desktop_table import DesktopTable
from iotui.ui.widgets.history_table import HistoryTable
from iotui.ui.widgets.section_table import SectionTable
from tests.ui.helpers import MessageLog, screen_text, widget_text
from tests.ui.replay import RANDRW, TARGETS, FakeJob, FakePreset, ReplayServices, synthetic_documents
from tests.waiting import wait_for

MIB = 1 << 20
# The desktop preset's eight sections, with figures as wide as a fast disk gives them:
# (section, MiB/s, IOPS, mean ns, p99 ns, steady table). Its 5 s sections are too short to
# judge; with ``--runtime 30`` they are judged, so the column holds each kind of verdict.
STEADY = {"reached": True, "after_s": 12.0, "method": "window"}
UNSETTLED = {"reached": False, "method": "window"}
TOO_SHORT = {"reached": False, "method": "window", "judged_s": 4, "window_s": 10}
DESKTOP_FIGURES = [
    ("seq1m-q8t1-read", 1013.4, 1013.4, 7_712_000.0, 12_649_000.0, STEADY),
    ("seq1m-q8t1-write", 12345.6, 12345.6, 648_000.0, 1_237_000.0, UNSETTLED),
    ("seq1m-q1t1-read", 845.2, 845.2, 1_182_000.0, 2_311_000.0, STEADY),
    ("seq1m-q1t1-write", 731.9, 731.9, 1_364_000.0, 3_556_000.0, None),
    ("rnd4k-q32t1-read", 1496.1, 383_001.0, 83_400.0, 176_128.0, STEADY),
    ("rnd4k-q32t1-write", 1202.7, 307_891.0, 103_900.0, 4_751_360.0, UNSETTLED),
    ("rnd4k-q1t1-read", 58.3, 14_925.0, 66_900.0, 99_840.0, STEADY),
    ("rnd4k-q1t1-write", 212.4, 54_374.0, 18_300.0, 41_216.0, TOO_SHORT),
]


def desktop_record() -> RunRecord:
    sections: list[dict] = []
    for index, (name, mib, iops, mean, p99, steady) in enumerate(DESKTOP_FIGURES):
        direction = name.rsplit("-", 1)[1]
        section: dict = {
            "name": name, "jobs": [name], "groupid": index,
            "options": {"bs": "1m" if name.startswith("seq") else "4k", "iodepth": re.findall(r"-q(\d+)t", name)[0],
                        "numjobs": "1"},
            direction: {"iops": iops, "bw_bytes": mib * MIB, "io_bytes": 1, "total_ios": 1,
                        "lat_mean_ns": mean, "lat_p99_ns": p99},
        }
        if steady is not None:
            section["steady"] = steady
        sections.append(section)
    return RunRecord(
        run={"id": "e" * 16, "preset": "desktop", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc), "duration_s": 40.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 4, "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "sda", "mount_options": ""},
        sections=sections,
    )


def _lines(app: IotuiApp, widget) -> list[str]:
    x, y, width, height = widget.region
    strips = app.screen._compositor.render_strips()[y: y + height]
    return [strip.text[x: x + width] for strip in strips]


async def _results(app: IotuiApp, pilot, record: RunRecord) -> None:
    app.push_screen(ResultsScreen(record, None, app.services))
    for _ in range(4):
        await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_desktop_figure_is_whole(tmp_path: Path, size: tuple[int, int]) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    record = desktop_record()
    async with app.run_test(size=size) as pilot:
        await _results(app, pilot, record)
        lines = _lines(app, app.screen.query_one(DesktopTable))
        assert not any("…" in line for line in lines), "\n".join(lines)
        for name, mib, iops, mean, p99, _steady in DESKTOP_FIGURES:
            wanted = [fmt.mib_per_s(mib * MIB), fmt.count(iops), fmt.latency_ns(mean), fmt.latency_ns(p99)]
            # Each section's row, found by its own four figures in order, each a whole cell.
            row = [line for line in lines if all(f" {figure} " in f" {line} " for figure in wanted)]
            assert len(row) == 1, (name, wanted, "\n".join(lines))
            cells = row[0].split()
            positions = [cells.index(figure) for figure in wanted]
            assert positions == sorted(positions), (name, cells)


async def test_at_80_columns_the_steady_column_is_a_mark_with_a_legend(tmp_path: Path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await _results(app, pilot, desktop_record())
        lines = _lines(app, app.screen.query_one(DesktopTable))
        text = "\n".join(lines)
        assert "steady after" not in text
        marks = [line.split()[-2] for line in lines if "ms" in line or "µs" in line]
        assert marks == ["✓", "✗", "✓", "·", "✓", "✗", "✓", "?"], text
        assert "✓ steady" in text and "✗ not steady" in text and "· not judged" in text
        assert "? too short to judge" in text


async def test_at_120_columns_the_steady_column_keeps_its_words_and_the_full_bar(tmp_path: Path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await _results(app, pilot, desktop_record())
        text = "\n".join(_lines(app, app.screen.query_one(DesktopTable)))
        assert "steady after 12 s" in text and "not steady" in text and "too short to judge" in text
        assert "█" * 20 in text  # the best row (seq1m-q8t1-write)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_section_figure_is_whole(tmp_path: Path, size: tuple[int, int]) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    record = desktop_record()
    async with app.run_test(size=size) as pilot:
        await _results(app, pilot, record)
        table = app.screen.query_one(SectionTable)
        app.screen.query_one("#results").scroll_to_widget(table, animate=False, top=True)

        def every_row_shown() -> list[str] | None:
            # The scroll lands at a later refresh, which a busy machine makes later than one pause.
            shown = _lines(app, table)
            names_shown = all(any(f" {section['name']} " in f" {line} " for line in shown) for section in record.sections)
            return shown if names_shown else None

        lines = await wait_for(every_row_shown, what="the scrolled table showing every section", pilot=pilot)
        assert not any("…" in line for line in lines), "\n".join(lines)
        for section in record.sections:
            (figures,) = section_figures(section)
            wanted = [fmt.iops(figures.iops), fmt.bytes_per_s(figures.bw_bytes), fmt.latency_ns(figures.lat_mean_ns),
                      fmt.latency_ns(figures.lat_p99_ns)]
            row = next(line for line in lines if f" {section['name']} " in f" {line} ")
            for figure in wanted:
                assert f" {figure} " in f" {row} ", (section["name"], figure, row)


# -- the live view of a desktop run -------------------------------------------------------


def _desktop_plan() -> RunPlan:
    preset = find_preset("desktop")
    return RunPlan(
        preset_name="desktop", argv=["fio"], options=effective_options(preset), target_path=Path("/home/ada/bench"),
        test_file=None, target={"path": "/home/ada/bench"}, numjobs=1, estimated_duration_s=40.0,
        title=preset.title, sections=planned_sections(preset),
    )


def _desktop_run_screen() -> RunScreen:
    preset = find_preset("desktop")
    shown = FakePreset(preset.name, preset.title, preset.description, preset.tells, dict(preset.options),
                       [FakeJob(job.name, dict(job.options)) for job in preset.jobs])
    request = RunRequest(shown, TARGETS[0], 40.0)
    return RunScreen(request, cpu_count=8)


def _intervals(seconds: int) -> list[IntervalSample]:
    deriver = IntervalDeriver()
    intervals = [deriver.feed(doc) for doc in synthetic_documents(seconds, RANDRW)]
    return [interval for interval in intervals if interval is not None]


async def test_the_live_view_names_the_running_section_its_position_and_time_left(tmp_path: Path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    runtime_s = float(find_preset("desktop").options["runtime"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _desktop_run_screen()
        await app.push_screen(screen)
        screen.post_message(RunStarted(_desktop_plan(), None))
        # Sections 1 and 2 (groupids 0, 1) ran 5 s each; the third (seq1m-q1t1-read) is 2 s in.
        intervals = _intervals(14)[:12]
        groupids = [0] * 5 + [1] * 5 + [2] * 2
        for interval, groupid in zip(intervals, groupids):
            screen.post_message(IntervalArrived(interval, None, interval.t_s, groupid=groupid))
        for _ in range(3):
            await pilot.pause()
        third_started_s = intervals[10].t_s - intervals[10].dt_s
        in_third_s = intervals[-1].t_s - third_started_s
        assert round(in_third_s) == 2
        expected = f"3/8 SEQ1M Q1T1 read · {runtime_s - in_third_s:.0f} s left"
        assert expected in screen_text(app), screen_text(app)


async def test_the_chip_never_wraps_at_80_columns(tmp_path: Path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _desktop_run_screen()
        await app.push_screen(screen)
        screen.post_message(RunStarted(_desktop_plan(), None))
        for interval in _intervals(3):
            screen.post_message(IntervalArrived(interval, None, interval.t_s, groupid=0))
        screen.post_message(ResponsivenessAssessed(Assessment(
            Level.SLUGGISH, "io write p99 697 ms > 101 ms", "The machine is sluggish: ...", "io_probe_write_p99_ms",
            True, "io_probe_write", 697.0, "ms")))
        for _ in range(3):
            await pilot.pause()
        chip = screen.query_one("#chip")
        assert chip.size.height == 1
        assert widget_text(app, chip) == "SLUGGISH · io write p99 697 ms"


async def test_the_unresponsive_notice_names_the_running_sections_iodepth(tmp_path: Path) -> None:
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        screen = _desktop_run_screen()
        await app.push_screen(screen)
        screen.post_message(RunStarted(_desktop_plan(), None))
        for interval in _intervals(3):
            # seq1m-q8t1-read (iodepth 8), while rnd4k-q32t1-* later run at iodepth 32.
            screen.post_message(IntervalArrived(interval, None, interval.t_s, groupid=0))
        screen.post_message(ResponsivenessAssessed(Assessment(
            Level.UNRESPONSIVE, "io write p99 1500 ms > 1002 ms", "The machine is not responding: a small write took "
            "1500 ms, over the limit of 1002 ms.", "io_probe_write_p99_ms", True, "io_probe_write", 1500.0, "ms")))
        for _ in range(3):
            await pilot.pause()
        (toast,) = [text for title, text in log.toasts() if title == "The machine is not responding"]
        assert "iodepth (now 8)" in toast and "32" not in toast, toast


# -- History and the keys ------------------------------------------------------------------


async def test_the_history_filter_done_finds_the_runs_the_table_shows_as_done(tmp_path: Path) -> None:
    from tests.ui.test_history import _runs, open_history

    _runs(tmp_path)  # three completed runs, shown as "done", and a bad file
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        table = app.screen.query_one(HistoryTable)
        shown_done = [entry.path for entry in table.shown if entry.record is not None and entry.record.status == "completed"]
        assert len(shown_done) == 3
        assert all(line.rstrip().endswith("done") for line in screen_text(app).splitlines() if "quick" in line)
        await pilot.press(*"done")
        await pilot.pause()
        assert [entry.path for entry in table.shown] == shown_done


async def test_the_history_legend_is_one_line_at_80_columns(tmp_path: Path) -> None:
    from tests.ui.test_history import _runs, open_history

    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        legend = app.screen.query_one("#history-legend")
        assert legend.size.height == 1
        text = widget_text(app, legend)
        for mark in ("↑", "↓", "‖ paused", "~ sluggish", "! unresponsive", "m mixed"):
            assert mark in text, text


@pytest.mark.parametrize("key", ["question_mark", "f1"])
async def test_question_mark_and_f1_open_the_keys_and_escape_closes_them(tmp_path: Path, key: str) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        home = app.screen
        await pilot.press(key)
        await pilot.pause()
        assert app.screen.query("HelpPanel"), "the keys panel did not open"
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query("HelpPanel"), "escape left the keys panel open"
        assert app.screen is home


async def test_the_keys_panel_opens_on_results_and_escape_closes_it_before_going_back(tmp_path: Path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await _results(app, pilot, desktop_record())
        results = app.screen
        await pilot.press("f1")
        await pilot.pause()
        assert results.query("HelpPanel")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is results and not results.query("HelpPanel")
        await pilot.press("escape")  # then escape goes back, as before
        await pilot.pause()
        assert app.screen is not results


async def test_the_footer_keeps_every_key_of_home_at_80_columns(tmp_path: Path) -> None:
    from iotui.ui.widgets.key_bar import KeyBar

    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        footer = widget_text(app, bar)
        for _key, display, description, _action, _enabled, _tooltip, _palette in bar.shown_keys():
            assert f"{display} {description}" in footer, (display, description, footer)
        assert "w Sweep" in footer, footer
        for screen_key in ("h", None):  # History, then Results
            if screen_key:
                from tests.ui.test_history import open_history

                await open_history(pilot)
            else:
                await _results(app, pilot, desktop_record())
            bar = app.screen.query_one(KeyBar)
            footer = widget_text(app, bar)
            shown = [(display, description) for _k, display, description, *_rest in bar.shown_keys()]
            assert len(shown) >= 5
            for display, description in shown:
                assert f"{display} {description}" in footer, (display, description, footer)


def test_the_section_line_says_ending_once_its_time_is_up_and_nothing_for_one_section() -> None:
    from iotui.core.presets.estimate import PlannedSection
    from iotui.ui.widgets.live_run import section_line

    sections = [PlannedSection("seq1m-q8t1-read", 5.0), PlannedSection("fill", None)]
    assert section_line(sections, 0, 5.4) == "1/2 SEQ1M Q8T1 read · ending"  # fio still laying out its file
    assert section_line(sections, 1, 3.0) == "2/2 fill"  # its size ends it: no time left to give
    assert section_line(sections[:1], 0, 1.0) == ""  # one section: the clock says it all
