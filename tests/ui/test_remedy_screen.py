"""Remedies from Results, with real fio: r (and the palette's entry) on a run whose level rose run its
workload as it is and under each remedy on its target, with progress, the table and the verdict; a
disk that also holds / is changed only after the app's confirmation. The key shows only where it
applies, and keeps its place in the footer at 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from iotui.core.remedy.schedulers import device_of
from iotui.core.sweep.record import load_sweep
from iotui.ui.app import IotuiApp
from iotui.ui.screens.confirm import ConfirmScreen
from iotui.ui.screens.remedy import RemedyScreen
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.services import Services
from iotui.ui.widgets.key_bar import KeyBar
from tests.conftest import requires_fio
from tests.ui.helpers import screen_text
from tests.ui.test_palette import palette
from tests.waiting import wait_for

pytestmark = [pytest.mark.fio, requires_fio, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent.parent


def _real_run(tmp_path: Path, level: str) -> tuple[Path, Path]:
    """A real short run of quick on a tmp target, saved; its record's level set to ``level``
    (a real rise cannot be ordered on a shared machine: this is the case the key is for)."""
    target = tmp_path / "target"
    target.mkdir()
    runs = tmp_path / "runs"
    made = subprocess.run([sys.executable, "-m", "iotui", "run", "quick", "--runtime", "1", "--size", "8M",
                           "--set", "numjobs=2", "--baseline", "1", "--target", str(target), "--runs-dir", str(runs)],
                          cwd=REPO, capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert made.returncode == 0, made.stderr
    path = next(runs.glob("*.toml"))
    text = path.read_text()
    assert 'responsiveness = "ok"' in text
    path.write_text(text.replace('responsiveness = "ok"', f'responsiveness = "{level}"', 1))
    return path, runs


def _app(runs: Path) -> IotuiApp:
    services = Services(runs_dir=runs, baseline_s=1.0)
    services.remedy_runtime_s = 1.0
    return IotuiApp(services)


def _keys(app: IotuiApp) -> list[str]:
    return [key[0] for key in app.screen.query_one(KeyBar).shown_keys()]


def _on_the_system_disk(path: Path) -> bool:
    here, root = device_of(path), device_of(Path("/"))
    return os.geteuid() == 0 and here is not None and root is not None and here.name == root.name


async def _answer_if_asked(app: IotuiApp, pilot, key: str) -> bool:
    """Answer the system disk's question with ``key`` where it is asked; whether it was."""
    await wait_for(lambda: isinstance(app.screen, ConfirmScreen) or (
        isinstance(app.screen, RemedyScreen) and app.screen.phase != "asking"), pilot=pilot,
        what="the question or the run")
    if not isinstance(app.screen, ConfirmScreen):
        return False
    assert "also holds /" in screen_text(app)
    await pilot.press(key)
    return True


async def test_r_on_results_of_a_risen_run_tries_its_remedies_and_shows_the_table(tmp_path: Path) -> None:
    path, runs = _real_run(tmp_path, "sluggish")
    record = load_record(path)
    device = device_of(Path(record.target["path"]))
    scheduler_before = device.current() if device is not None else None
    app = _app(runs)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        app.push_screen(ResultsScreen(record, path, app.services))
        await wait_for(lambda: isinstance(app.screen, ResultsScreen), pilot=pilot, what="Results")
        await pilot.pause()
        assert "r" in _keys(app)  # at 80 columns, beside every other key of Results
        assert "r Remedy" in screen_text(app).splitlines()[-1]
        await pilot.press("r")
        await wait_for(lambda: isinstance(app.screen, (RemedyScreen, ConfirmScreen)), pilot=pilot, what="Remedies")
        asked = await _answer_if_asked(app, pilot, "n")
        assert asked == _on_the_system_disk(Path(record.target["path"]))
        screen = app.screen
        assert isinstance(screen, RemedyScreen)
        await wait_for(lambda: screen.phase in ("done", "failed"), pilot=pilot, timeout_s=180, what="the remedies")
        assert screen.phase == "done", screen_text(app)
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
        header = next(line for line in text.splitlines() if "remedy " in line and "IOPS" in line)
        assert "start-up p99" in header and "level" in header and "…" not in text  # fits 80 columns
        assert "as-is" in text and "idle I/O class" in text
        assert screen.sweep is not None and screen.sweep.path is not None
        sweep = load_sweep(screen.sweep.path)
        values = [point.params["remedy"] for point in sweep.points]
        assert values[0] == "as-is" and "prioclass=3" in values
        assert all(point.status == "completed" for point in sweep.points)
        assert sweep.base["preset"] == "quick" and Path(str(sweep.base["target"])) == Path(record.target["path"])
        first = load_record(sweep.path.parent / str(sweep.points[0].record))
        assert first.options["numjobs"] == "2" and first.options["runtime"] == "1"  # the run's workload, short
        if asked:  # declined: the disk that holds / is never changed
            assert not any(value.startswith("scheduler=") for value in values)
            assert "it also holds /, and you chose to leave it as it is" in " ".join(text.split())
        if device is not None:
            assert device.current() == scheduler_before
        await pilot.press("escape")
        await wait_for(lambda: isinstance(app.screen, ResultsScreen), pilot=pilot, what="back on Results")


async def test_the_palette_entry_starts_them_and_a_confirmed_system_disk_is_tried(tmp_path: Path) -> None:
    path, runs = _real_run(tmp_path, "unresponsive")
    record = load_record(path)
    device = device_of(Path(record.target["path"]))
    scheduler_before = device.current() if device is not None else None
    app = _app(runs)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        app.push_screen(ResultsScreen(record, path, app.services))
        await wait_for(lambda: isinstance(app.screen, ResultsScreen), pilot=pilot, what="Results")
        await palette(pilot, "try remedies")
        await wait_for(lambda: "Try remedies for this run" in screen_text(app), pilot=pilot, what="the entry")
        await pilot.press("enter")
        asked = await _answer_if_asked(app, pilot, "y")
        await wait_for(lambda: isinstance(app.screen, RemedyScreen) and app.screen.remedy is not None, pilot=pilot,
                       what="the remedy run")
        screen = app.screen
        assert isinstance(screen, RemedyScreen) and screen.remedy is not None
        if asked:  # confirmed: the disk's other schedulers are among the points
            assert any(value.startswith("scheduler=") for value in screen.remedy.plan.values)
        # Stopped during its first point (as-is): nothing was changed, the partial table is shown.
        await wait_for(lambda: "as-is: running" in screen_text(app), pilot=pilot, timeout_s=60, what="as-is running")
        await pilot.press("s")
        await wait_for(lambda: screen.phase in ("stopped", "done", "failed"), pilot=pilot, timeout_s=120,
                       what="the stop")
        assert screen.phase == "stopped", screen_text(app)
        await pilot.pause()
        assert "Stopped: the points that ran are in the table" in " ".join(screen_text(app).split())
        if device is not None:
            assert device.current() == scheduler_before


async def test_no_remedy_key_or_entry_where_the_level_did_not_rise(tmp_path: Path) -> None:
    path, runs = _real_run(tmp_path, "ok")
    app = _app(runs)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        app.push_screen(ResultsScreen(load_record(path), path, app.services))
        await wait_for(lambda: isinstance(app.screen, ResultsScreen), pilot=pilot, what="Results")
        await pilot.pause()
        assert "r" not in _keys(app) and "Remedy" not in screen_text(app).splitlines()[-1]
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        await palette(pilot, "try remedies")
        await pilot.pause()
        await pilot.pause()
        assert "Try remedies for this run" not in screen_text(app)


@pytest.mark.skipif(os.geteuid() != 0, reason="the cgroup weight needs root")
async def test_a_signal_to_the_app_during_the_cgroup_point_removes_the_cgroup_and_leaves(tmp_path: Path) -> None:
    import signal

    from iotui.core.remedy.cgroups import Hierarchy, usable_hierarchy

    hierarchy = usable_hierarchy(True)
    if not isinstance(hierarchy, Hierarchy):
        pytest.skip("no cgroup hierarchy here offers an I/O weight")
    path, runs = _real_run(tmp_path, "sluggish")
    app = _app(runs)
    app.services.remedy_runtime_s = 4.0
    cgroup = hierarchy.root / f"iotui-remedy-{os.getpid()}"  # the app runs in this process
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        app.push_screen(ResultsScreen(load_record(path), path, app.services))
        await wait_for(lambda: isinstance(app.screen, ResultsScreen), pilot=pilot, what="Results")
        await pilot.press("r")
        await _answer_if_asked(app, pilot, "n")
        await wait_for(lambda: (cgroup / "cgroup.procs").exists() and (cgroup / "cgroup.procs").read_text().split(),
                       pilot=pilot, timeout_s=120, what="fio inside iotui's cgroup")
        app.on_exit_signal(signal.SIGTERM)
        assert not cgroup.exists()  # at once, first of all: not when the point ends
        await wait_for(lambda: not app.is_running, pilot=pilot, timeout_s=60, what="the app to leave")
    assert not cgroup.exists()
