#!/usr/bin/env python3
"""Make the README's screenshots from real fio runs: home, a live run, results, history, compare, a sweep.

Drives the real app (real presets, real fio, real host sampling) with Textual's
Pilot and saves SVGs next to this script. Two short runs of the ``quick``
preset go into a throw-away runs directory, so history has two rows and the
second run can be compared with the first.

    python screenshots/make_screenshots.py [--target DIR] [--size 80x24] [--runtime 12]

Files: home.svg, run.svg, results.svg, compare.svg, history.svg at --size,
run-large.svg, a live run on a 160x48 terminal (three-line figures, IOPS chart),
and sweep.svg, a finished sweep on a 120x45 terminal: the ``quick`` preset (one
section, so each point has one set of figures) limited to 500 IOPS per job and
direction (rate_iops), over numjobs 1,2, so the chart shows IOPS doubling and the
sweet spot lands on numjobs=2.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from iotui.ui.app import IotuiApp  # noqa: E402
from iotui.ui.screens.results import ResultsScreen  # noqa: E402
from iotui.ui.screens.run import RunScreen  # noqa: E402
from iotui.ui.screens.sweep import SweepScreen  # noqa: E402
from iotui.ui.services import Services  # noqa: E402


async def _until(pilot, condition, timeout_s: float) -> None:
    """Let the app work until ``condition()`` holds or the time is up."""
    waited_s = 0.0
    while not condition() and waited_s < timeout_s:
        await pilot.pause(0.1)
        waited_s += 0.1
    if not condition():
        raise SystemExit("make_screenshots: the app did not get there in time; is fio installed?")


async def _run_once(pilot, runtime_s: int, size: str) -> None:
    """Edit runtime and size on the home screen, start, wait for the results."""
    app = pilot.app
    await pilot.press("e", *str(runtime_s), "tab", *size, "escape")
    await pilot.pause()
    await pilot.press("r")
    await _until(pilot, lambda: isinstance(app.screen, ResultsScreen), runtime_s + 30)


FIRST_RUN_S = 8  # the earlier run that the compare screen sets beside the captured one
LARGE_SIZE = (160, 48)
SWEEP_SIZE = (120, 45)
SWEEP_PRESET = "quick"
SWEEP_VARY = "numjobs=1,2"
SWEEP_RUNTIME_S = 3
SWEEP_RATE_IOPS = "500"  # per job: twice the jobs, twice the IOPS


async def _live_run(pilot, runtime_s: int) -> None:
    """Start the run and wait until most of it has been drawn."""
    app = pilot.app
    await pilot.press("r")
    await _until(
        pilot,
        lambda: isinstance(app.screen, RunScreen) and app.screen.live.intervals_seen >= runtime_s - 3,
        runtime_s + 30,
    )
    await pilot.pause()


async def make(target: Path, out: Path, size: tuple[int, int], runtime_s: int) -> list[Path]:
    runs_dir = Path(tempfile.mkdtemp(prefix="iotui-screens-runs-"))
    saved: list[Path] = []
    app = IotuiApp(Services(runs_dir=runs_dir), target=str(target), preset="quick")

    def shot(name: str) -> None:
        saved.append(Path(app.save_screenshot(f"{name}.svg", str(out))))

    try:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await _run_once(pilot, FIRST_RUN_S, "64M")
            await pilot.press("n")
            await pilot.pause()
            await pilot.press("e", "ctrl+a", "ctrl+k", *str(runtime_s), "tab", "ctrl+a", "ctrl+k", *"64M", "escape")
            await pilot.pause()
            shot("home")
            await _live_run(pilot, runtime_s)
            shot("run")
            await _until(pilot, lambda: isinstance(app.screen, ResultsScreen), runtime_s + 30)
            await pilot.pause()
            shot("results")
            await pilot.press("c")
            await pilot.pause()
            shot("compare")
            await pilot.press("escape", "h")
            await pilot.pause()
            shot("history")
        app = IotuiApp(Services(runs_dir=runs_dir), target=str(target), preset="quick")
        async with app.run_test(size=LARGE_SIZE) as pilot:
            await pilot.pause()
            await pilot.press("e", *str(runtime_s), "tab", *"64M", "escape")
            await _live_run(pilot, runtime_s)
            shot("run-large")
            await pilot.press("s")
            await _until(pilot, lambda: isinstance(app.screen, ResultsScreen), 30)
            await pilot.pause()
        app = IotuiApp(Services(runs_dir=runs_dir), target=str(target), preset=SWEEP_PRESET)
        async with app.run_test(size=SWEEP_SIZE) as pilot:
            await _sweep(pilot, target)
            shot("sweep")
    finally:
        shutil.rmtree(runs_dir, ignore_errors=True)
    return saved


async def _sweep(pilot, target: Path) -> None:
    """Open the sweep screen on a rate-limited preset (Home cannot set rate_iops), start it, wait for the end."""
    from iotui.core.runs.overrides import with_overrides
    from iotui.core.runs.preset_files import find_preset

    app = pilot.app
    preset = with_overrides(
        find_preset(SWEEP_PRESET), runtime_s=SWEEP_RUNTIME_S, size="64M", sets={"rate_iops": SWEEP_RATE_IOPS}
    )
    await pilot.pause()
    screen = SweepScreen(app.services, preset, str(target), vary=SWEEP_VARY)
    await app.push_screen(screen)
    await pilot.pause()
    await pilot.press("enter")
    await _until(pilot, lambda: screen.phase in ("done", "stopped", "failed"), 120)
    await pilot.pause(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", help="directory on a disk to test (default: a temporary one in /var/tmp)")
    parser.add_argument("--size", default="80x24", help="terminal size, COLUMNSxROWS (default 80x24)")
    parser.add_argument("--runtime", type=int, default=12, help="seconds of the captured runs (default 12)")
    args = parser.parse_args()
    columns, rows = (int(part) for part in args.size.lower().split("x"))
    made_target = args.target is None
    target = Path(args.target) if args.target else Path(tempfile.mkdtemp(prefix="iotui-demo-", dir="/var/tmp"))
    try:
        for path in asyncio.run(make(target, HERE, (columns, rows), args.runtime)):
            print(path)
    finally:
        if made_target:
            shutil.rmtree(target, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
