"""The sweep screen: points and estimate before starting, a replayed sweep to the sweet spot, stop, refusals.

Each point's fio is a ReplayRunner (tests/ui/replay.py) through the real
RunSession and the real SweepRunner; the points differ only in the summary
fio reports (IOPS and p99 scaled per point), which is what the analysis reads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.core.presets.overrides import with_overrides
from iotui.core.presets.files import find_preset
from iotui.core.sweep.record import load_sweep
from iotui.ui.app import IotuiApp
from iotui.ui.live import SPARK_BARS
from iotui.ui.messages import SweepEnded, SweepPointEnded
from iotui.ui.screens.sweep import SweepScreen
from iotui.ui.services import Services
from tests.fakes.io_probe import QUIET_IO, STALLED_IO
from tests.ui.helpers import MessageLog, screen_text, settle
from tests.ui.replay import CALM_HOST, RANDRW, STALLED_HOST, ReplayRunner, ReplayServices, synthetic_documents
from tests.waiting import wait_for

PRESET = "numjobs-scaling-quick"


def scaled_documents(iops_scale: float, latency_scale: float) -> list[dict]:
    """Six recorded-shape documents whose reported IOPS, bandwidth and percentiles are scaled."""
    documents = synthetic_documents(6, RANDRW)
    for document in documents:
        for job in document["jobs"]:
            for direction in ("read", "write"):
                stats = job.get(direction)
                if not isinstance(stats, dict):
                    continue
                stats["iops"] = stats.get("iops", 0) * iops_scale
                stats["bw_bytes"] = int(stats.get("bw_bytes", 0) * iops_scale)
                percentiles = (stats.get("clat_ns") or {}).get("percentile") or {}
                for key in percentiles:
                    percentiles[key] = int(percentiles[key] * latency_scale)
    return documents


class SweepReplayServices(ReplayServices):
    """The real preset (with the real [sweep] defaults and planning); point k replays ``scales[k]``."""

    def __init__(self, runs_dir: Path, scales: list[tuple[float, float]], *, hold_after: int | None = None) -> None:
        self.scales = scales
        self.hold_after = hold_after
        super().__init__(runs_dir, runner_factory=self._runner)

    def _runner(self) -> ReplayRunner:
        iops_scale, latency_scale = self.scales[min(len(self.runners), len(self.scales) - 1)]
        return ReplayRunner(scaled_documents(iops_scale, latency_scale), delay_s=0.01, hold_after=self.hold_after)

    def list_presets(self):
        return [with_overrides(find_preset(PRESET), runtime_s=1, size="16M")], []

    def apply_overrides(self, preset, overrides):
        return Services.apply_overrides(self, preset, overrides)


def _app(tmp_path: Path, services: SweepReplayServices) -> IotuiApp:
    target = tmp_path / "target"
    target.mkdir(exist_ok=True)
    return IotuiApp(services, target=str(target), preset=PRESET)


async def _open_sweep(pilot, *edit_keys: str) -> SweepScreen:
    """The sweep screen for Home's preset and target, then (v) the keys that edit its values
    ``numjobs=1,2,4,8``, and enter. (Home's w is tested once, below.)"""
    app = pilot.app
    await pilot.pause()
    # Pushed from the app's own task, so the message hook sees the screen's messages.
    app.call_later(app.push_screen, SweepScreen(app.services, app.services.list_presets()[0][0], app.initial_target))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SweepScreen)
    if edit_keys:
        await pilot.press("v", *edit_keys, "enter")
        await pilot.pause()
    return screen


TWO_POINTS = ("end", "backspace", "backspace", "backspace", "backspace")  # numjobs=1,2,4,8 -> numjobs=1,2


async def test_w_with_hosts_typed_on_home_says_the_sweep_runs_here_and_starts_nothing(tmp_path) -> None:
    # It opened the sweep and ran every point on this machine, the hosts typed on Home left aside.
    log = MessageLog()
    app = _app(tmp_path, SweepReplayServices(tmp_path / "runs", [(1, 1)]))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("o", *"h1,h2", "escape", "w")
        await pilot.pause()
        assert not isinstance(app.screen, SweepScreen)
        assert any("iotui sweep" in text and "--hosts" in text for text in log.notifications())


async def test_w_on_home_shows_the_presets_points_time_and_space(tmp_path) -> None:
    app = _app(tmp_path, SweepReplayServices(tmp_path / "runs", [(1, 1)]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SweepScreen)
        assert screen.target_path == str(tmp_path / "target")
        text = screen_text(app)
        assert "numjobs=1,2,4,8" in text  # the preset's [sweep] defaults
        assert "4 points over numjobs (4), about 20s" in " ".join(text.split())  # 4 x (1 s + 1 s ramp + overhead)
        assert "16.0MiB in" in text
        assert [point.params for point in screen.points] == [{"numjobs": v} for v in ("1", "2", "4", "8")]
        footer = text.splitlines()[-1]
        assert "⏎ Start" in footer and "v Values" in footer and "esc Back" in footer


async def test_a_replayed_two_point_sweep_ends_with_its_sweet_spot(tmp_path) -> None:
    runs_dir = tmp_path / "runs"
    # numjobs=2 doubles IOPS (so it is the sweet spot) at 1.5x the p99.
    services = SweepReplayServices(runs_dir, [(1, 1), (2, 1.5)])
    log = MessageLog()
    app = _app(tmp_path, services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        screen = await _open_sweep(pilot, *TWO_POINTS)
        assert "2 points over numjobs (2)" in " ".join(screen_text(app).split())
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "done"
        ended = log.of(SweepEnded)
        assert len(ended) == 1 and ended[0].analysis.sweet_spot.params == {"numjobs": "2"}
        assert [m.status for m in log.of(SweepPointEnded)] == ["completed", "completed"]
        text = " ".join(screen_text(app).split())
        assert "Done: 2 of 2 points completed." in text
        assert "★ Sweet spot: numjobs=2." in text
        assert "◆ Balanced: numjobs=" in text
        sweep = load_sweep(next(runs_dir.glob("*.sweep.toml")))
        assert sweep.status == "completed" and [p.status for p in sweep.points] == ["completed", "completed"]
        assert len(list(runs_dir.glob("*-numjobs-scaling-quick-*.toml"))) == 3  # two runs and the sweep
        await pilot.press("end")
        await pilot.pause()
        assert "★ sweet spot" in screen_text(app)  # marked in the points table


async def test_stop_keeps_the_partial_point_and_saves_the_sweep(tmp_path) -> None:
    runs_dir = tmp_path / "runs"
    services = SweepReplayServices(runs_dir, [(1, 1)], hold_after=2)  # each point waits after 2 reports
    log = MessageLog()
    app = _app(tmp_path, services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        screen = await _open_sweep(pilot, *TWO_POINTS)
        await pilot.press("enter")
        await wait_for(lambda: screen.live.intervals_seen >= 1, pilot=pilot, what="the first point's first interval")
        assert "Point 1 of 2: numjobs=1" in screen_text(app)
        await pilot.press("escape")  # not while it runs
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("s")
        await settle(pilot)
        assert screen.phase == "stopped"
        text = " ".join(screen_text(app).split())
        assert "Stopped after 0 of 2 points" in text
        # A long temporary path may be broken across lines at 80 columns: compared without the breaks.
        expected = f"To go on from here: iotui sweep {PRESET} --target {tmp_path / 'target'} --vary numjobs=1,2"
        assert "".join(expected.split()) in "".join(text.split())
        assert screen.resume_command().endswith(f"--runs-dir {runs_dir} --resume")
        sweep = load_sweep(next(runs_dir.glob("*.sweep.toml")))
        assert sweep.status == "stopped"
        assert [p.status for p in sweep.points] == ["stopped", "pending"]
        assert sweep.points[0].record  # the partial record is kept
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SweepScreen)


async def test_a_sweep_the_disk_cannot_hold_is_refused(tmp_path) -> None:
    services = SweepReplayServices(tmp_path / "runs", [(1, 1)])
    services.list_presets = lambda: ([with_overrides(find_preset(PRESET), runtime_s=1, size="900T")], [])
    log = MessageLog()
    app = _app(tmp_path, services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await _open_sweep(pilot)
        assert "This sweep cannot start: The sweep needs" in " ".join(screen_text(app).split())
        await pilot.press("enter")
        await pilot.pause()
        assert any("free" in text for text in log.notifications())
        assert services.runners == [] and not app.run_in_progress()


async def test_values_that_cannot_be_read_are_a_sentence(tmp_path) -> None:
    app = _app(tmp_path, SweepReplayServices(tmp_path / "runs", [(1, 1)]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_sweep(pilot, "home", *["right"] * len("numjobs"), "ctrl+k")  # -> numjobs
        assert screen.setup is None and screen.points == ()
        assert "'numjobs' should look like KEY=V1,V2 (for example numjobs=1,2,4,8)" in " ".join(screen_text(app).split())
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and screen.phase == "planning" and not app.run_in_progress()


async def test_quit_during_a_sweep_asks_then_stops_it_and_leaves(tmp_path) -> None:
    runs_dir = tmp_path / "runs"
    app = _app(tmp_path, SweepReplayServices(runs_dir, [(1, 1)], hold_after=2))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_sweep(pilot, *TWO_POINTS)
        await pilot.press("enter")
        await wait_for(lambda: screen.live.intervals_seen >= 1, pilot=pilot, what="the first point's first interval")
        await pilot.press("q")
        await pilot.pause()
        assert "A run is in progress." in screen_text(app)
        await pilot.press("y")
        await wait_for(lambda: not screen.phase.active, pilot=pilot, what="the sweep to end (then the app leaves)")
        assert screen.phase == "stopped"
    assert app.return_code == 0
    assert load_sweep(next(runs_dir.glob("*.sweep.toml"))).status == "stopped"


async def test_unresponsive_during_a_point_names_the_cause_as_on_the_run_screen(tmp_path) -> None:
    services = SweepReplayServices(tmp_path / "runs", [(1, 1)], hold_after=1)
    services.sampler_samples = [CALM_HOST, STALLED_HOST]  # io full 45%: context, not a trigger
    services.io_probe_samples = [QUIET_IO, STALLED_IO]  # other programs' saves take 1.5 s
    services.plan_numjobs = 16
    log = MessageLog()
    app = _app(tmp_path, services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        screen = await _open_sweep(pilot, *TWO_POINTS)
        await pilot.press("enter")
        await wait_for(
            lambda: any(title == "The machine is not responding" for title, _ in log.toasts()),
            pilot=pilot, what="the not-responding toast",
        )
        toasts = [text for title, text in log.toasts() if title == "The machine is not responding"]
        assert len(toasts) == 1
        assert toasts[0].startswith(
            "A small write + fdatasync by another program took 1500 ms, over the limit of 1000 ms."
        )
        # The point's own options (iodepth 32) and its 16 jobs, as on the Run screen.
        assert "try a lower iodepth (now 32) or fewer jobs (now 16)" in toasts[0]
        assert toasts[0].endswith("Press s to stop the sweep.")
        await pilot.press("s")
        await settle(pilot)
        assert screen.phase == "stopped"


async def test_a_latency_target_names_its_point_in_the_findings_and_on_the_chart(tmp_path) -> None:
    services = SweepReplayServices(tmp_path / "runs", [(1, 1), (2, 1.5)])
    log = MessageLog()
    app = _app(tmp_path, services)
    async with app.run_test(size=(100, 40), message_hook=log) as pilot:
        screen = await _open_sweep(pilot, *TWO_POINTS)
        screen.query_one("#sweep-slo").value = "read p99<=10s"
        screen.query_one("#sweep-body").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "done"
        ended = log.of(SweepEnded)
        assert ended[0].analysis.slo is not None and ended[0].analysis.slo.params == {"numjobs": "2"}
        text = " ".join(screen_text(app).split())
        assert "✓ Best under read p99<=10s: numjobs=2 gives the most read IOPS that meet read p99 <= 10.0s" in text
        chart = screen.query_one("#sweep-chart")
        assert "✓ read p99<=10s" in chart.plt.build()


async def test_a_latency_target_that_does_not_read_is_refused_before_starting(tmp_path) -> None:
    app = _app(tmp_path, SweepReplayServices(tmp_path / "runs", [(1, 1)]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_sweep(pilot, *TWO_POINTS)
        screen.query_one("#sweep-slo").value = "read p95<=1ms"
        screen.query_one("#sweep-body").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert screen.phase == "planning"
        assert any("'p95'" in str(n.message) for n in app._notifications)
        assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").glob("*.sweep.toml"))


async def test_the_across_points_panel_shows_each_points_own_figures(tmp_path) -> None:
    from iotui.core import format as fmt
    from iotui.ui.widgets.series_panel import SeriesPanel

    services = SweepReplayServices(tmp_path / "runs", [(1, 1), (2, 1.5)])  # numjobs=2: twice the IOPS
    app = _app(tmp_path, services)
    async with app.run_test(size=(100, 45)) as pilot:  # the panel shows on tall terminals
        screen = await _open_sweep(pilot, *TWO_POINTS)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "done"
        first, second = screen.points
        assert second.read_iops == pytest.approx(2 * first.read_iops)
        panel = screen.query_one("#sweep-series", SeriesPanel)
        assert "one cell per finished point" in str(panel.border_title)
        lines = {line[:9].strip(): line for line in (panel.render_line(y).text for y in range(6))}
        assert set(lines) == {"IOPS r", "BW r", "p99 r", "IOPS w", "BW w", "p99 w"}
        # The newest cell and the figure beside it are the last point's, not a second between sections.
        assert lines["IOPS r"].rstrip().endswith(fmt.iops(second.read_iops))
        assert lines["p99 w"].rstrip().endswith(fmt.latency_ns(second.write_lat_p99_ns))
        spark = lines["IOPS r"][9:].rstrip()[: -len(fmt.iops(second.read_iops))].rstrip()
        assert spark.lstrip() == SPARK_BARS[3] + SPARK_BARS[-1]  # 2 cells: half the top, then the top
