"""The live screens' compositor sends the terminal exactly what Textual's own sends, for any update."""

from __future__ import annotations

import random
from functools import partial

import pytest
from rich.console import Console
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

from iotui.ui.app import IotuiApp
from iotui.ui.compositor import BandCompositor
from iotui.ui.messages import HostSampled, IntervalArrived
from iotui.ui.screens.run import RunScreen
from tests.conftest import fio_documents
from tests.ui.helpers import MessageLog
from tests.ui.replay import RANDRW, ReplayRunner, ReplayServices
from tests.waiting import wait_for


def terminal_bytes(compositor: Compositor, regions: list[Region], get_renders, console: Console) -> str:
    """What a partial update of ``regions`` writes to the terminal, with ``get_renders`` choosing the renders."""
    crop = Region.from_union(regions).intersection(compositor.size.region)
    spans = list(compositor._regions_to_spans(regions))
    rendered_lines = {y for y, _, _ in spans}
    compositor._get_renders = partial(get_renders, compositor)  # type: ignore[method-assign]
    try:
        chops = compositor._render_chops(crop, rendered_lines.__contains__)
    finally:
        del compositor._get_renders
    return ChopsUpdate(chops, spans, [cut_set[1:] for cut_set in compositor.cuts]).render_segments(console)


def random_regions(rng: random.Random, width: int, height: int) -> list[Region]:
    regions = []
    for _ in range(rng.randint(1, 6)):
        x, y = rng.randrange(width), rng.randrange(height)
        regions.append(Region(x, y, rng.randint(1, width - x), rng.randint(1, min(4, height - y))))
    return regions


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_every_update_of_the_run_screen_reaches_the_terminal_as_textual_draws_it(tmp_path, size) -> None:
    log = MessageLog()
    documents = fio_documents(RANDRW)
    services = ReplayServices(tmp_path, runner_factory=lambda: ReplayRunner(documents, hold_after=4, first_delay_s=0.3))
    app = IotuiApp(services)
    async with app.run_test(size=size, message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: len(log.of(IntervalArrived)) >= 4 and log.of(HostSampled), pilot=pilot, what="four intervals")
        app.notify("a toast on its own layer, over the panels")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        compositor = screen._compositor
        assert isinstance(compositor, BandCompositor)
        console = app.console
        width, height = size
        # The frame a live second makes (figures' lines and both panels' sparklines), the
        # whole screen, single cells, the key bar, then random sets of regions.
        figures = screen.query_one("#figures").region
        fio_series = screen.query_one("#fio-series").region
        host_series = screen.query_one("#host-series").region
        updates = [
            [Region(figures.x, figures.y + 1, figures.width, 1), fio_series, host_series],
            [Region(0, 0, width, height)],
            [Region(0, height - 1, width, 1)],
            [Region(width - 1, 0, 1, 1), Region(0, height - 1, 1, 1)],
        ]
        rng = random.Random(20261124)
        updates += [random_regions(rng, width, height) for _ in range(300)]
        differing = [
            regions for regions in updates
            if terminal_bytes(compositor, regions, BandCompositor._get_renders, console)
            != terminal_bytes(compositor, regions, Compositor._get_renders, console)
        ]
        assert differing == []
        # Not an empty comparison: the live frame's update writes the figures and the sparklines.
        frame = terminal_bytes(compositor, updates[0], BandCompositor._get_renders, console)
        assert "IOPS r" in frame and "CPU usr" in frame
        await pilot.press("s")
