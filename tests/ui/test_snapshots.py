"""Snapshots of home, a run fed by a recorded fio capture, and results, at 80x24.

Deterministic by construction: fixed targets, presets, host figures and record
(tests/ui/replay.py); the run screen's clock is fio's own interval time, so no
wall clock is read; nothing that blinks has focus. Update them deliberately with
``pytest tests/ui/test_snapshots.py --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Static

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.records.record import RunRecord
from iotui.core.host.responsiveness import Assessment, Level
from iotui.core.runs.plan import RunPlan

from iotui.ui.app import IotuiApp
from iotui.ui.messages import FioLogged, HostSampled, IntervalArrived, ResponsivenessAssessed, RunStarted
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.screens.run import RunScreen
from iotui.ui.service_types import RunRequest
from iotui.ui.widgets.history_table import HistoryTable
from tests.ui.replay import CALM_HOST, PRESETS, RANDRW, TARGETS, ReplayServices, synthetic_documents

RUNS_DIR = Path("/home/ada/.local/share/iotui/runs")


def _app() -> IotuiApp:
    return IotuiApp(ReplayServices(RUNS_DIR))


def test_home(snap_compare) -> None:
    assert snap_compare(_app(), terminal_size=(80, 24))


def test_run_fed_by_a_recorded_capture(snap_compare) -> None:
    async def feed(pilot) -> None:
        request = RunRequest(PRESETS[0], TARGETS[0], 20.0)
        screen = RunScreen(request, cpu_count=8)
        await pilot.app.push_screen(screen)
        plan = RunPlan(
            preset_name="quick", argv=["fio"], options={}, target_path=Path("/home/ada/bench"), test_file=None,
            target={"path": "/home/ada/bench"}, numjobs=1, estimated_duration_s=20.0, title="Quick check",
        )
        screen.post_message(RunStarted(plan, None))
        screen.post_message(FioLogged("iotui", "warning [fs-note]: a note from iotui about the target"))
        deriver = IntervalDeriver()
        # The recorded capture's interval shapes, in varying multiples, for 45 s of history.
        documents = synthetic_documents(45, RANDRW, multipliers=[2, 3, 3, 4, 5, 4, 3, 2, 2, 3])
        for second, doc in enumerate(documents):
            interval = deriver.feed(doc)
            host = replace(
                CALM_HOST,
                cpu_user_pct=10.0 + second % 7,
                psi_io_some_pct=float(second % 13),
                device_read_iops=150.0 + 40 * (second % 5),
            )
            # The host's sample first, then fio's interval of the same second: the screen draws
            # both in one frame (a host sample that no interval follows waits up to
            # HOST_DRAW_LATEST_S; tests/ui/test_run.py checks that it is drawn alone).
            screen.post_message(HostSampled(host))
            if interval is not None:
                screen.post_message(IntervalArrived(interval, host, interval.t_s))
        screen.post_message(
            ResponsivenessAssessed(
                Assessment(Level.SLUGGISH, "io some 5.0%", "The machine is sluggish (easing off): ...",
                           "psi_io_some_pct", True)
            )
        )
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=feed)


def _record() -> RunRecord:
    return RunRecord(
        run={"id": "0123456789abcdef", "preset": "quick", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 9, 30, tzinfo=dt.timezone.utc), "duration_s": 22.4,
             "fio_version": "fio-3.33", "fio_argv": ["fio"], "fio_report": "x.fio.json"},
        host={"hostname": "ada-desktop", "system": "Linux", "kernel": "6.8.0", "cpu_model": "AMD Ryzen 7 5800X",
              "cpu_count": 16, "mem_total_bytes": 32 * 2**30},
        target={"path": "/home/ada/bench", "filesystem": "ext4", "device": "nvme0n1p2", "mount_options": "rw"},
        options={"ioengine": "libaio", "direct": "1", "rw": "randrw", "rwmixread": "70", "bs": "4k",
                 "iodepth": "16", "size": "256M", "runtime": "20", "time_based": ""},
        summary={
            "read": {"iops": 61234.5, "bw_bytes": 250_816_000.0, "io_bytes": 1, "total_ios": 1,
                     "lat_mean_ns": 182_000.0, "lat_p50_ns": 160_768, "lat_p99_ns": 585_728,
                     "lat_p99_9_ns": 1_269_760, "lat_max_ns": 9_502_720},
            "write": {"iops": 26243.1, "bw_bytes": 107_491_000.0, "io_bytes": 1, "total_ios": 1,
                      "lat_mean_ns": 201_000.0, "lat_p50_ns": 175_104, "lat_p99_ns": 643_072,
                      "lat_p99_9_ns": 1_433_600, "lat_max_ns": 10_027_008},
            "cpu": {"user_pct": 6.1, "system_pct": 14.8, "iowait_pct": 2.2, "ctx_switches_per_s": 88_400.0,
                    "interrupts_per_s": 61_200.0, "fio_cpu_cores": 1.3, "iops_per_fio_core": 67_290.0,
                    "iops_per_busy_core": 24_900.0},
            "pressure": {"responsiveness": "sluggish", "probe_p99_ms_max": 18.4},
        },
        warnings=[{"code": "fs-btrfs", "message": "An example warning, shown as the record carries it."}],
    )


def test_results(snap_compare) -> None:
    async def show(pilot) -> None:
        app = pilot.app
        await app.push_screen(ResultsScreen(_record(), RUNS_DIR / "20261121-093000-quick-01234567.toml", app.services))
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=show)


# -- the first run a newcomer makes: desktop at 80x24 and 120x40 ----------------------------

FIRST_RUN_SIZES = [(80, 24), (120, 40)]


def test_first_run_home_at_120x40(snap_compare) -> None:
    # (test_home is Home at 80x24.)
    assert snap_compare(_app(), terminal_size=(120, 40))


@pytest.mark.parametrize("size", FIRST_RUN_SIZES)
def test_first_run_live_desktop(snap_compare, size: tuple[int, int]) -> None:
    from tests.ui.test_first_run_80 import _desktop_plan, _desktop_run_screen

    async def feed(pilot) -> None:
        screen = _desktop_run_screen()
        await pilot.app.push_screen(screen)
        screen.post_message(RunStarted(_desktop_plan(), None))
        deriver = IntervalDeriver()
        documents = synthetic_documents(14, RANDRW, multipliers=[2, 3, 3, 4, 5, 4, 3, 2, 2, 3])
        intervals = [interval for doc in documents if (interval := deriver.feed(doc)) is not None][:12]
        for index, interval in enumerate(intervals):
            screen.post_message(HostSampled(CALM_HOST))
            screen.post_message(IntervalArrived(interval, CALM_HOST, interval.t_s, groupid=min(index // 5, 2)))
        screen.post_message(ResponsivenessAssessed(Assessment(
            Level.SLUGGISH, "io write p99 697 ms > 101 ms", "The machine is sluggish: ...", "io_probe_write_p99_ms",
            True, "io_probe_write", 697.0, "ms")))
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=size, run_before=feed)


@pytest.mark.parametrize("size", FIRST_RUN_SIZES)
def test_first_run_results_desktop(snap_compare, size: tuple[int, int]) -> None:
    from tests.ui.test_first_run_80 import desktop_record

    async def show(pilot) -> None:
        app = pilot.app
        await app.push_screen(ResultsScreen(desktop_record(), RUNS_DIR / "20261121-120000-desktop-eeeeeeee.toml",
                                            app.services))
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=size, run_before=show)


@pytest.mark.parametrize("size", FIRST_RUN_SIZES)
def test_first_run_history(snap_compare, size: tuple[int, int], tmp_path: Path) -> None:
    from tests.ui.test_history import _save, open_history

    _save(tmp_path, "aaaaaaaa01", 1, preset="quick", iops=100.0)
    _save(tmp_path, "bbbbbbbb02", 2, preset="seq1m-q8t1", path="/mnt/backup", iops=900.0)
    _save(tmp_path, "cccccccc03", 3, preset="desktop", iops=150.0, p99_ns=2_000_000.0)

    async def show(pilot) -> None:
        await open_history(pilot)
        # The same wherever the test runs: the runs directory named as on a user's machine, no
        # toast with the indexing time, and the table focused (the filter's cursor blinks).
        screen = pilot.app.screen
        screen.query_one(HistoryTable).focus()
        screen.sub_title = f"saved runs in {RUNS_DIR}"
        pilot.app.clear_notifications()
        detail = screen.query_one("#history-detail", Static)
        detail.update(str(detail.render()).replace(str(tmp_path), str(RUNS_DIR)))
        await pilot.pause()

    assert snap_compare(IotuiApp(ReplayServices(tmp_path)), terminal_size=size, run_before=show)
