"""The compare screen: runs marked in History, references beside them, verdicts, set-up differences, export."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from iotui.core.records.record import RunRecord
from iotui.core.records.files import save_record
from iotui.ui.app import IotuiApp
from iotui.ui.screens.compare import CompareScreen
from iotui.ui.screens.history import HistoryScreen
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.widgets.comparison_plot import ComparisonPlot
from tests.ui.helpers import MessageLog, screen_text
from tests.ui.replay import ReplayServices
from tests.ui.test_history import open_history

RUNS_DIR = Path("/home/ada/.local/share/iotui/runs")


def run_record(run_id: str, minute: int, *, read_iops: float, read_p99_ns: float, kernel: str = "6.8.0",
               mount_options: str = "rw,relatime", noise_pct: float = 2.0) -> RunRecord:
    """A 20 s randread run with per-second samples alternating ±noise_pct around its summary."""
    samples = []
    for second in range(1, 21):
        factor = 1 + (noise_pct / 100 if second % 2 else -noise_pct / 100)
        samples.append({
            "t_s": float(second), "dt_s": 1.0,
            "read_iops": read_iops * factor, "read_bw_bytes": read_iops * 4096 * factor,
            "read_lat_p99_ns": read_p99_ns * factor, "read_lat_mean_ns": read_p99_ns / 3 * factor,
            "cpu_user_pct": 5.0 * factor, "fio_cpu_cores": 0.5,
        })
    return RunRecord(
        run={"id": run_id, "preset": "rnd4k-q1t1", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 9, minute, tzinfo=dt.timezone.utc), "duration_s": 20.0,
             "fio_version": "fio-3.33", "fio_argv": ["fio"], "fio_report": ""},
        host={"hostname": "ada-desktop", "system": "Linux", "kernel": kernel, "cpu_model": "AMD Ryzen 7 5800X",
              "cpu_count": 16, "mem_total_bytes": 32 * 2**30},
        target={"path": "/home/ada/bench", "filesystem": "ext4", "device": "nvme0n1p2",
                "mount_options": mount_options},
        options={"rw": "randread", "bs": "4k", "iodepth": "1"},
        summary={
            "read": {"iops": read_iops, "bw_bytes": read_iops * 4096, "io_bytes": 1, "total_ios": 1,
                     "lat_mean_ns": read_p99_ns / 3, "lat_p50_ns": read_p99_ns / 4, "lat_p99_ns": read_p99_ns,
                     "lat_p99_9_ns": read_p99_ns * 2},
            "cpu": {"user_pct": 5.0, "system_pct": 9.0, "fio_cpu_cores": 0.5, "iops_per_fio_core": read_iops * 2,
                    "ctx_switches_per_s": 30_000.0},
            "pressure": {"responsiveness": "ok"},
        },
        samples=samples,
    )


def _two_runs_on_disk(runs_dir: Path) -> None:
    # b is 50% faster and its p99 10% higher, on a newer kernel with another mount option.
    save_record(run_record("aaaaaaaa01", 1, read_iops=10_000.0, read_p99_ns=100_000.0), runs_dir)
    save_record(run_record("bbbbbbbb02", 2, read_iops=15_000.0, read_p99_ns=110_000.0, kernel="6.9.1",
                           mount_options="rw,noatime"), runs_dir)


def _line(text: str, label: str) -> str:
    """The screen line of one metric (``" p99 latency  ..."``)."""
    return next(line.rstrip() for line in text.splitlines() if line.strip().startswith(label))


async def _compare_from_history(pilot) -> None:
    await pilot.pause()
    await open_history(pilot)
    assert isinstance(pilot.app.screen, HistoryScreen)
    # Newest first: mark b, then a; the oldest marked is the baseline whatever the order.
    await pilot.press("tab", "tab", "ctrl+o")
    await pilot.pause()


async def test_marked_runs_from_history_side_by_side_with_verdicts(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_history(pilot)
        await pilot.press("tab", "tab")
        await pilot.pause()
        assert "a 2026-11-21 09:01" in screen_text(app) and "b 2026-11-21 09:02" in screen_text(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert [record.id for record in screen.records] == ["aaaaaaaa01", "bbbbbbbb02"]
        text = screen_text(app)
        assert "Δ" in text and "b vs a" in text
        assert "10.0k" in _line(text, "IOPS") and "15.0k" in _line(text, "IOPS")
        assert _line(text, "IOPS").endswith("+5.0k +50.0% better")
        assert _line(text, "p99 latency µs ↓").split()[-5:] == ["100", "110", "+10.0", "+10.0%", "worse"]  # one unit per row
        assert _line(text, "CPU system % ↓").endswith("±0.0 +0.0% same")


async def test_the_set_up_differences_are_shown(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await _compare_from_history(pilot)
        text = screen_text(app)
        assert "Set-up differences" in text
        assert _line(text, "host.kernel").split()[:3] == ["host.kernel", "6.8.0", "6.9.1"]
        assert _line(text, "target.mount_options").split()[:3] == ["target.mount_options", "rw,relatime", "rw,noatime"]
        assert "run.tool_version" not in text  # the same in both runs


async def test_nothing_marked_says_how_to_mark(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.press("h")
        await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        assert any("Mark runs with tab" in text for text in log.notifications())
        await pilot.press("tab", "up", "tab")  # marking twice unmarks
        await pilot.pause()
        assert app.screen.marked == []
        assert "a 2026" not in screen_text(app)


async def test_the_export_key_copies_and_writes_the_markdown_table(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await _compare_from_history(pilot)
        await pilot.press("e")
        await pilot.pause()
        written = tmp_path / "compare-aaaaaaaa-bbbbbbbb.md"
        assert written.is_file()
        markdown = written.read_text()
        assert "| metric | a | b | b vs a |" in markdown
        assert "| host.kernel | 6.8.0 | 6.9.1 |" in markdown
        assert "+50.0%" in markdown and "better" in markdown
        assert app.clipboard == markdown
        assert any(str(written) in text for text in log.notifications())


async def test_results_export_writes_the_runs_table(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.press("h")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("e")
        await pilot.pause()
        written = tmp_path / "20261121-090200-rnd4k-q1t1-bbbbbbbb.md"
        assert written.read_text() == app.clipboard
        assert "| BW (MiB/s) | IOPS | Avg latency (µs) | p99 (µs) |" in app.clipboard
        assert "15,000" in app.clipboard or "15000" in app.clipboard
        assert any(str(written) in text for text in log.notifications())


async def test_a_reference_row_joins_and_can_be_dropped(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await _compare_from_history(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert "add a reference" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert len(screen.records) == 3 and screen.records[2].status == "reference"
        assert screen.comparison.labels == ["a", "b", "c"]
        assert "c vs a" in screen_text(app)
        await pilot.press("d")
        await pilot.pause()
        assert [record.id for record in screen.records] == ["aaaaaaaa01", "bbbbbbbb02"]
        assert "c vs a" not in screen_text(app)


async def test_results_c_still_compares_with_the_previous_run(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_history(pilot)
        await pilot.press("enter", "c")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        assert [record.id for record in app.screen.records] == ["aaaaaaaa01", "bbbbbbbb02"]


async def test_g_jumps_to_the_plots_and_back(tmp_path) -> None:
    _two_runs_on_disk(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await _compare_from_history(pilot)
        assert "IOPS over time" not in screen_text(app)
        await pilot.press("g")
        await pilot.pause()
        text = screen_text(app)
        assert "IOPS over time" in text and "a read" in text and "b read" in text and "seconds" in text
        plots = list(app.screen.query(ComparisonPlot))
        assert len({id(plot.plt) for plot in plots}) == len(plots) == 4  # each plot owns its figure
        await pilot.press("g")
        await pilot.pause()
        assert "IOPS over time" not in screen_text(app) and "Set-up differences" in screen_text(app)


def test_compare_snapshot(snap_compare) -> None:
    """Two frozen runs on a wide terminal: runs, set-up differences, the table and the first plots."""

    async def show(pilot) -> None:
        app = pilot.app
        records = [
            run_record("aaaaaaaa01", 1, read_iops=10_000.0, read_p99_ns=100_000.0),
            run_record("bbbbbbbb02", 2, read_iops=15_000.0, read_p99_ns=110_000.0, kernel="6.9.1"),
        ]
        await app.push_screen(CompareScreen(records, app.services))
        await pilot.pause()

    assert snap_compare(IotuiApp(ReplayServices(RUNS_DIR)), terminal_size=(130, 60), run_before=show)


async def test_compare_says_which_run_never_settled(tmp_path) -> None:
    settled = run_record("aaaaaaaa01", 1, read_iops=10_000.0, read_p99_ns=100_000.0)
    settled.sections[0]["steady"] = {"reached": True, "after_s": 5.0, "method": "window"}
    drifting = run_record("bbbbbbbb02", 2, read_iops=15_000.0, read_p99_ns=110_000.0)
    drifting.sections[0]["steady"] = {"reached": False, "method": "window"}
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(CompareScreen([settled, drifting], app.services))
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "Run b never settled in rnd4k-q1t1: its figures were still moving" in text
        assert "Run a never settled" not in text


LONG_KERNEL = "6.1.0-28-cloud-amd64-preempt-rt-experimental+debug"


async def _compare_at_80(tmp_path: Path, count: int, pilot_keys=()):
    records = [run_record(f"{index:02d}aaaaaaaa", index, read_iops=10_000.0 + 2_000 * index, read_p99_ns=100_000.0,
                          kernel=LONG_KERNEL if index == 0 else "6.9.1") for index in range(count)]
    app = IotuiApp(ReplayServices(tmp_path))
    return app, records


async def test_three_runs_fit_80_columns_without_cutting_a_verdict_or_a_word(tmp_path) -> None:
    """The third run, every verdict and the long kernel name are whole at 80x24."""
    app, records = await _compare_at_80(tmp_path, 3)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(CompareScreen(records, app.services))
        await pilot.pause()
        screen = app.screen
        from iotui.ui.widgets.comparison_table import ComparisonTable

        table = screen.query_one(ComparisonTable)
        assert table.region.right <= 80 and not table.deltas_shown  # the deltas gave way, not the verdicts
        lines: list[str] = []
        for _ in range(12):  # read the whole screen by keyboard, a page at a time
            lines += screen_text(app).splitlines()[1:-1]
            await pilot.press("pagedown")
            await pilot.pause()
        text = "\n".join(lines)
        assert "b vs a" in text and "c vs a" in text  # the third run is on the screen
        iops = next(line for line in lines if line.strip().startswith("IOPS ↑"))
        assert iops.split()[2:] == ["10.0k", "12.0k", "14.0k", "+20.0%", "better", "+40.0%", "better"]
        # Words of the table's cells; a word ending a sentence ("... is called the same.") is the
        # method note's prose, wrapped next to a "5% " of its own.
        verdicts = [word for line in lines if "% " in line for word in line.split()
                    if word.startswith(("bett", "wors", "same")) and not word.endswith(".")]
        assert verdicts and set(verdicts) <= {"better", "worse", "same"}  # never "same within nois"
        assert "same: same within noise" in text  # the legend of the short verdict
        # The kernel name is on one line, or broken only after one of its separators.
        assert LONG_KERNEL in text.replace("\n", "") or all(
            line.rstrip().endswith(("-", ".", "+")) for line in lines if "6.1.0-28" in line and LONG_KERNEL not in line
        )
        assert "2026-11-21 09:00" in text  # run dates with the year


async def test_many_runs_scroll_sideways_by_keyboard(tmp_path) -> None:
    """Six runs do not fit 80 columns: the table keeps every cell whole and right scrolls to the last."""
    app, records = await _compare_at_80(tmp_path, 6)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(CompareScreen(records, app.services))
        await pilot.pause()
        from textual.containers import VerticalScroll

        from iotui.ui.widgets.comparison_table import ComparisonTable

        table = app.screen.query_one(ComparisonTable)
        scroll = app.screen.query_one("#compare", VerticalScroll)
        assert table.size.width > 80 and scroll.max_scroll_x > 0
        assert app.focused is scroll
        await pilot.press("end")  # to the table rows... and across
        for _ in range(200):
            if scroll.scroll_x >= scroll.max_scroll_x:
                break
            await pilot.press("right")
        await pilot.pause()
        assert scroll.scroll_x == scroll.max_scroll_x
