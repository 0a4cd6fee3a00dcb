"""Widgets on their own, in a bare app: sizes follow content, texts say what they show."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

from textual.pilot import Pilot

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.host.responsiveness import Assessment, Level
from iotui.ui.phases import RunPhase
from iotui.ui.styles import HOME_CSS, SCREENS_CSS
from iotui.ui.live import HOST_SPECS, SPARK_BARS, LiveSeries
from iotui.ui.widgets.figures_panel import FiguresPanel, figures_lines
from iotui.ui.widgets.responsiveness_chip import ResponsivenessChip, chip_text
from iotui.ui.widgets.series_panel import SeriesPanel
from tests.conftest import fio_documents
from tests.ui.replay import CALM_HOST, RANDRW
from tests.ui.helpers import Bare, widget_text


def _interval():
    deriver = IntervalDeriver()
    return [i for doc in fio_documents(RANDRW) if (i := deriver.feed(doc))][-1]


async def test_the_figures_panel_grows_when_the_first_interval_arrives() -> None:
    panel = FiguresPanel()
    panel.styles.height = "auto"
    async with Bare(panel).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert panel.size.height == 2  # the clock and "waiting for fio's first status report"
        panel.interval = _interval()
        await pilot.pause()
        assert panel.size.height == 4  # the clock, the header, read and write


async def test_the_figures_panel_grows_when_its_clock_wraps_and_keeps_its_height_until_the_next_run() -> None:
    panel = FiguresPanel()
    panel.styles.height = "auto"
    panel.styles.width = 40
    async with Bare(panel).run_test(size=(80, 24)) as pilot:
        panel.interval = _interval()
        panel.elapsed_s, panel.estimated_s, panel.phase = 8.0, 20.0, "running"
        await pilot.pause()
        assert panel.size.height == 4  # "elapsed 8s · remaining 12s · running", the header, read and write
        panel.steady = "not steady: IOPS rising 40%"
        await pilot.pause()
        assert panel.size.height == 5  # the judgement wraps to a line of its own, whole
        assert panel.render_line(1).text.strip() == "not steady: IOPS rising 40%"
        panel.steady = ""
        await pilot.pause()
        # The panels below do not move up each time a line goes: a blank line instead.
        assert panel.size.height == 5
        screen = [strip.text.rstrip() for strip in pilot.app.screen._compositor.render_strips()]
        assert screen[0] == "elapsed 8s · remaining 12s · running"
        assert screen[1].startswith(" ") and "IOPS" in screen[1]
        assert screen[4] == ""
        panel.interval = None  # a new run (a sweep's next point)
        await pilot.pause()
        assert panel.size.height == 2


async def test_a_section_of_another_direction_repaints_the_figures_without_a_new_layout() -> None:
    # The desktop preset: a read section, then a write section, then read again.
    both = _interval()
    read_only = replace(both, directions={"read": both.directions["read"]})
    write_only = replace(both, directions={"write": both.directions["write"]})
    panel = FiguresPanel()
    panel.styles.height = "auto"
    async with Bare(panel).run_test(size=(80, 24)) as pilot:
        panel.interval, panel.elapsed_s, panel.phase = read_only, 5.0, "running"
        await pilot.pause()
        assert panel.size.height == 3  # the clock, the header, read
        layouts: list[bool] = []
        refresh = panel.refresh
        panel.refresh = lambda *regions, **kwargs: (layouts.append(kwargs.get("layout", False)), refresh(*regions, **kwargs))[1]
        for interval, elapsed_s in ((write_only, 6.0), (read_only, 7.0)):
            panel.interval, panel.elapsed_s = interval, elapsed_s
            await pilot.pause()
            shown = [strip.text.rstrip() for strip in pilot.app.screen._compositor.render_strips()][:3]
            assert shown[2] == figures_lines(interval).plain.splitlines()[1].rstrip()
        assert layouts and not any(layouts)
        assert panel.size.height == 3


async def test_the_figures_panel_repaints_the_lines_that_changed_and_only_those() -> None:
    deriver = IntervalDeriver()
    intervals = [i for doc in fio_documents(RANDRW) if (i := deriver.feed(doc))]
    before, after = intervals[-2], intervals[-1]
    assert figures_lines(before).plain.splitlines()[1:] != figures_lines(after).plain.splitlines()[1:]
    panel = FiguresPanel()
    panel.styles.height = "auto"
    async with Bare(panel).run_test(size=(80, 24)) as pilot:
        panel.interval, panel.elapsed_s, panel.estimated_s, panel.phase = before, 8.0, 20.0, "running"
        await pilot.pause(0.1)
        drawn: list[int] = []
        draw = panel.render_line
        panel.render_line = lambda y: (drawn.append(y), draw(y))[1]
        panel.interval, panel.elapsed_s = after, 9.0
        await pilot.pause(0.1)
        changed = [
            y for y, (old, new) in enumerate(zip(
                ["elapsed 8s"] + figures_lines(before).plain.splitlines(),
                ["elapsed 9s"] + figures_lines(after).plain.splitlines(),
            )) if old != new
        ]
        assert 1 not in drawn  # the header kept its words
        assert sorted(set(drawn)) == changed
        screen = [strip.text for strip in pilot.app.screen._compositor.render_strips()]
        assert screen[0].startswith("elapsed 9s · remaining 11s · running")
        assert screen[1:4] == [line.ljust(80) for line in figures_lines(after).plain.splitlines()]


async def test_the_chip_widens_with_its_signal() -> None:
    chip = ResponsivenessChip()
    chip.styles.width = "auto"
    async with Bare(chip).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        chip.assessment = Assessment(Level.UNRESPONSIVE, "probe p99 75 ms", "...", "probe_p99_ms", True)
        await pilot.pause()
        assert chip.size.width == len(" UNRESPONSIVE · probe p99 75 ms ")
        assert chip.has_class("-unresponsive") and not chip.has_class("-ok")


async def test_the_chip_keeps_its_width_while_the_level_stays() -> None:
    chip = ResponsivenessChip()
    chip.styles.width = "auto"
    async with Bare(chip).run_test(size=(80, 24)) as pilot:
        chip.assessment = Assessment(Level.SLUGGISH, "io some 12%", "...", "psi_io_some_pct", True)
        await pilot.pause()
        wide = len(" SLUGGISH · io some 12% ")
        assert chip.size.width == wide
        layouts = []
        original_refresh = chip.refresh

        def counting_refresh(*regions, layout=False, **kwargs):
            layouts.append(layout)
            return original_refresh(*regions, layout=layout, **kwargs)

        chip.refresh = counting_refresh
        chip.assessment = Assessment(Level.SLUGGISH, "io some 9%", "...", "psi_io_some_pct", False)
        await pilot.pause()
        # A digit shorter at the same level: repainted in place, the screen is not laid out again.
        assert chip.size.width == wide and not any(layouts)
        assert "SLUGGISH · io some 9%" in chip.render()
        chip.assessment = Assessment(Level.OK, None, "...", None, True)
        await pilot.pause()
        assert chip.size.width == len(" responsive: OK ")


def test_the_chip_reads_without_colour() -> None:
    assert chip_text(None, measuring=True) == "responsive: measuring…"
    assert chip_text(Assessment(Level.OK, None, "", None), measuring=False) == "responsive: OK"
    assert chip_text(Assessment(Level.SLUGGISH, "io some 12%", "", None), measuring=False) == "SLUGGISH · io some 12%"


async def test_series_lines_repaint_only_when_what_they_show_changes() -> None:
    live = LiveSeries()
    for _ in range(live.capacity):
        live.add_host(CALM_HOST)
    panel = SeriesPanel(live, lambda: list(HOST_SPECS), title="host")

    class Styled(Bare):
        CSS_PATH = [HOME_CSS, SCREENS_CSS]  # as on the run screen

    async with Styled(panel).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert panel.size.height == len(HOST_SPECS)
        drawn: list[int] = []
        original = panel.render_line

        def counting_render_line(y: int):
            drawn.append(y)
            return original(y)

        panel.render_line = counting_render_line
        live.add_host(CALM_HOST)  # two minutes of the same figures, and one more
        panel.revision += 1
        await pilot.pause()
        assert drawn == []
        live.add_host(replace(CALM_HOST, cpu_user_pct=80.0))
        panel.revision += 1
        await pilot.pause()
        row = [spec.key for spec in HOST_SPECS].index("cpu_user_pct")
        assert drawn == [row]
        line = original(row).text
        assert line.startswith("CPU usr") and line.rstrip().endswith("80.0%")


async def test_after_n_one_second_samples_n_cells_are_filled_and_the_newest_is_beside_them() -> None:
    live = LiveSeries()
    panel = SeriesPanel(live, lambda: list(HOST_SPECS), title="host")
    cpu_user = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 75.0]  # seven one-second samples

    class Styled(Bare):
        CSS_PATH = [HOME_CSS, SCREENS_CSS]

    async with Styled(panel).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        # 80 columns less the padding (2), the label (9), the value (10) and its spaces (2): 57 cells.
        assert panel.border_title == "host · last 57 s"
        for value in cpu_user:
            live.add_host(replace(CALM_HOST, cpu_user_pct=value))
            panel.revision += 1
            await pilot.pause()
        row = [spec.key for spec in HOST_SPECS].index("cpu_user_pct")
        line = panel.render_line(row).text
        spark = line[9:9 + 57]
        assert spark[:50] == " " * 50  # 57 cells, 7 samples: the 50 on the left are empty
        # One cell per sample, on a 0-100% scale of 8 bars: 10% is bar 0, ..., 75% bar 5; newest on the right.
        assert spark[50:] == "".join(SPARK_BARS[i] for i in (0, 1, 2, 3, 3, 4, 5))
        assert line[9 + 57:].strip() == "75.0%"  # the value beside is the newest cell's sample

    async with Styled(SeriesPanel(live, lambda: list(HOST_SPECS), title="host")).run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert pilot.app.widget.border_title == "host · last 2 min 17 s"  # 160 - 23 = 137 cells


async def test_a_panel_with_no_figure_yet_says_what_will_appear() -> None:
    live = LiveSeries()
    panel = SeriesPanel(live, live.fio_specs, title="fio", placeholder="IOPS per direction, from fio's first report")
    panel.styles.height = "auto"
    async with Bare(panel).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert panel.size.height == 1
        assert panel.render_line(0).text.strip() == "IOPS per direction, from fio's first report"
        live.add_interval(_interval())
        panel.revision += 1
        await pilot.pause()
        assert panel.size.height == 6  # read and write: IOPS, BW, p99 each
        assert panel.render_line(0).text.startswith("IOPS r")


LONG_LEVEL = "SLUGGISH · easing off · wake-up p99 was 25 ms"


@asynccontextmanager
async def _running_with_a_long_level(size: tuple[int, int]) -> AsyncIterator[Pilot]:
    """The run screen's live view at ``size``, styled as there, with an interval and a long level."""
    from iotui.ui.widgets.live_run import LiveRun

    live_run = LiveRun(figures_id="figures", chip_id="chip", estimated_s=40.0, id="run-top")

    class Styled(Bare):
        CSS_PATH = [HOME_CSS, SCREENS_CSS]  # as on the run screen

    async with Styled(live_run).run_test(size=size) as pilot:
        live_run.phase = RunPhase.RUNNING
        live_run.show_interval(_interval())
        easing = Assessment(Level.SLUGGISH, "easing off · wake-up p99 was 25 ms", "...", "wakeup_p99_ms", True, easing=True)
        live_run.show_assessment(easing, numjobs=1, cpu_count=2, keys="")
        await pilot.pause()
        yield pilot


async def test_a_long_responsiveness_chip_never_wraps_nor_crops_the_figures_at_80_columns() -> None:
    async with _running_with_a_long_level((80, 24)) as pilot:
        screen = "\n".join(strip.text for strip in pilot.app.screen._compositor.render_strips())
        for line in figures_lines(_interval()).plain.splitlines():
            assert line.rstrip() in screen  # every figure whole, its unit included
        chip = pilot.app.screen.query_one("#chip")
        # One line: the level and the signal's first part (the whole level is in the tooltip).
        assert chip.size.height == 1 and widget_text(pilot.app, chip) == "SLUGGISH · easing off"


async def test_on_a_tall_terminal_a_long_chip_leaves_the_three_line_figures_their_room() -> None:
    # The chip was left all but 46 columns, what the one-line figures need: at 100x40 the
    # 3-line digits need more, and the chip cut them ("KiB…", digits halved).
    from rich.measure import Measurement

    from iotui.ui.widgets.figures_panel import figures_table

    async with _running_with_a_long_level((100, 40)) as pilot:
        console = pilot.app.console
        needed = Measurement.get(console, console.options, figures_table(_interval(), big=True)).maximum
        figures = pilot.app.screen.query_one("#figures")
        assert figures.region.width >= needed, (figures.region, needed)
        chip = pilot.app.screen.query_one("#chip")
        assert chip.region.x >= figures.region.right
        assert chip.size.height == 1 and LONG_LEVEL.startswith(widget_text(pilot.app, chip)[:10])


async def test_the_live_view_says_when_another_programs_io_shares_the_device() -> None:
    from iotui.core.runs.events import IntervalUpdate
    from iotui.ui.messages import IntervalArrived, messages_for_event
    from iotui.ui.widgets.live_run import LiveRun

    interval = _interval()
    [arrived] = messages_for_event(IntervalUpdate(interval, None, {"t_s": 1.0, "interference": True}, 1.0))
    assert isinstance(arrived, IntervalArrived) and arrived.interference is True
    live_run = LiveRun(figures_id="figures", chip_id="chip", estimated_s=40.0, id="run-top")
    async with Bare(live_run).run_test(size=(80, 24)) as pilot:
        live_run.phase = RunPhase.RUNNING
        live_run.show_interval(interval, interference=arrived.interference)
        await pilot.pause()
        screen = "\n".join(strip.text for strip in pilot.app.screen._compositor.render_strips())
        assert "another program's I/O on the device" in screen
        live_run.show_interval(replace(interval, t_s=interval.t_s + 1))  # it has stopped
        await pilot.pause()
        screen = "\n".join(strip.text for strip in pilot.app.screen._compositor.render_strips())
        assert "another program's I/O" not in screen and "steady state" in screen
