"""Widgets on their own, in a bare app: sizes follow content, texts say what they show."""

from __future__ import annotations

from textual.app import App, ComposeResult

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.host.responsiveness import Assessment, Level
from iotui.ui.widgets.figures_panel import FiguresPanel
from iotui.ui.widgets.responsiveness_chip import ResponsivenessChip, chip_text
from tests.conftest import fio_documents
from tests.ui.replay import RANDRW


class Bare(App):
    def __init__(self, widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


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


async def test_the_chip_widens_with_its_signal() -> None:
    chip = ResponsivenessChip()
    chip.styles.width = "auto"
    async with Bare(chip).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        chip.assessment = Assessment(Level.UNRESPONSIVE, "probe p99 75 ms", "...", "probe_p99_ms", True)
        await pilot.pause()
        assert chip.size.width == len(" UNRESPONSIVE · probe p99 75 ms ")
        assert chip.has_class("-unresponsive") and not chip.has_class("-ok")


def test_the_chip_reads_without_colour() -> None:
    assert chip_text(None, measuring=True) == "responsive: measuring…"
    assert chip_text(Assessment(Level.OK, None, "", None), measuring=False) == "responsive: OK"
    assert chip_text(Assessment(Level.SLUGGISH, "io some 12%", "", None), measuring=False) == "SLUGGISH · io some 12%"
