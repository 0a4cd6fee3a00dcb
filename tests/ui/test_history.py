"""History: newest first, filter by typing, open one, bad files listed with their error."""

from __future__ import annotations

from iotui.core.records.files import save_record
from iotui.ui.app import IotuiApp
from iotui.ui.screens.compare import CompareScreen
from iotui.ui.screens.history import HistoryScreen
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.widgets.history_table import HistoryTable
from tests.ui.helpers import MessageLog, screen_text
from tests.ui.replay import ReplayServices
from tests.ui.test_comparison import make_record


async def open_history(pilot) -> None:
    """Press h and let the index come up to date (it is read in a thread after the first paint)."""
    await pilot.press("h")
    for _ in range(500):
        await pilot.pause(0.01)
        if isinstance(pilot.app.screen, HistoryScreen) and pilot.app.screen.synced:
            await pilot.pause()
            return
    raise AssertionError("the history index never came up")


def _save(tmp_path, run_id: str, minute: int, **kwargs) -> None:
    save_record(make_record(run_id, minute, **kwargs), tmp_path)


def _runs(tmp_path) -> None:
    _save(tmp_path, "aaaaaaaa01", 1, preset="quick", iops=100.0)
    _save(tmp_path, "bbbbbbbb02", 2, preset="seq1m-q8t1", path="/mnt/backup", iops=900.0)
    _save(tmp_path, "cccccccc03", 3, preset="quick", iops=150.0, p99_ns=2_000_000.0)
    (tmp_path / "20261121-120400-broken-dddddddd.toml").write_text("schema = 1\n[run]\nid = 'x'\n")


async def test_runs_newest_first_with_a_bad_file_listed(tmp_path) -> None:
    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        assert isinstance(app.screen, HistoryScreen)
        table = app.screen.query_one(HistoryTable)
        presets = [entry.record.preset if entry.record else None for entry in table.shown]
        assert presets[1:] == ["quick", "seq1m-q8t1", "quick"]  # newest first after the bad file
        assert table.shown[0].record is None  # the broken file is the newest by mtime
        text = screen_text(app)
        assert "bad file" in text and "2026-11-21 12:03" in text
        assert "ms ↓" in text and "IOPS ↑" in text and " 2.00 " in text  # p99 in the header's unit
        assert "complet" not in text and "bad fil " not in text  # whole status words only


async def test_typing_filters_and_enter_opens(tmp_path) -> None:
    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        await pilot.press(*"backup")
        await pilot.pause()
        table = app.screen.query_one(HistoryTable)
        assert [entry.record.preset for entry in table.shown] == ["seq1m-q8t1"]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        assert app.screen.record.preset == "seq1m-q8t1"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)


async def test_typing_with_the_table_focused_still_filters(tmp_path) -> None:
    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        app.screen.query_one(HistoryTable).focus()
        await pilot.press(*"seq")
        await pilot.pause()
        assert [entry.record.preset for entry in app.screen.query_one(HistoryTable).shown] == ["seq1m-q8t1"]


async def test_opening_a_bad_file_shows_its_error(tmp_path) -> None:
    _runs(tmp_path)
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await open_history(pilot)
        await pilot.press(*"broken", "enter")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        assert any("key 'run.preset' is missing" in text for text in log.notifications())
        assert "key 'run.preset' is missing" in " ".join(screen_text(app).split())


async def test_compare_with_the_previous_run_of_the_same_preset_and_target(tmp_path) -> None:
    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        await pilot.press("enter")  # the newest is the bad file: nothing opens
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.screen.record.id == "cccccccc03"
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        assert app.screen.previous.id == "aaaaaaaa01"
        text = screen_text(app)
        assert "+50.0% better" in text  # IOPS 100 -> 150
        assert "worse" in text  # p99 1 µs -> 2 ms


async def test_compare_without_a_previous_run_says_so(tmp_path) -> None:
    _runs(tmp_path)
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await open_history(pilot)
        await pilot.press(*"seq", "enter")
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        assert any("No earlier run of seq1m-q8t1 on /mnt/backup" in text for text in log.notifications())


async def test_an_empty_runs_directory_says_so(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path / "never-created"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        assert "No saved runs in" in screen_text(app)


async def test_note_tags_delete_and_prune_by_keyboard(tmp_path) -> None:
    from iotui.core.records.files import load_record
    from iotui.ui.screens.confirm import ConfirmScreen
    from iotui.ui.screens.text_prompt import TextPromptScreen

    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        await pilot.press("down")  # the newest readable run: cccccccc03
        entry = app.screen.query_one(HistoryTable).current_entry()
        assert entry.run.run_id == "cccccccc03"
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, TextPromptScreen)
        await pilot.press(*"after fw 2.1", "enter")
        await pilot.pause()
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press(*"nvme baseline", "enter")
        await pilot.pause()
        record = load_record(entry.path)
        assert record.run["notes"] == "after fw 2.1" and record.run["tags"] == ["nvme", "baseline"]
        await pilot.press(*"baseline")
        await pilot.pause()
        shown = app.screen.query_one(HistoryTable).shown
        assert [e.run.run_id for e in shown] == ["cccccccc03"]
        assert "after fw 2.1" in screen_text(app) and "#nvme" in screen_text(app)
        await pilot.press("delete")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # asked, and no: nothing is removed
        await pilot.pause()
        assert entry.path.exists()
        await pilot.press("delete", "y")
        await pilot.pause()
        assert not entry.path.exists()
        assert "no run matches 'baseline'" in " ".join(screen_text(app).split())
        await pilot.press(*["backspace"] * 8)
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press(*"quick", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "Delete 1 run of preset quick?" in screen_text(app)
        await pilot.press("y")
        await pilot.pause()
        left = sorted(p.name for p in tmp_path.glob("*.toml"))
        assert len(left) == 2 and any("broken" in name for name in left) and any("seq1m" in name for name in left)
        assert len(app.screen.query_one(HistoryTable).shown) == 2


async def test_history_is_kept_between_opens_and_lists_what_changed_meanwhile(tmp_path) -> None:
    """Opened again, History shows at once what it listed (and its filter), then what was saved since."""
    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        first = app.screen
        await pilot.press(*"quick")
        await pilot.pause()
        assert [entry.run.run_id for entry in first.query_one(HistoryTable).shown] == ["cccccccc03", "aaaaaaaa01"]
        await pilot.press("escape")
        await pilot.pause()
        _save(tmp_path, "eeeeeeee05", 5, preset="quick", iops=300.0)  # saved while History was closed
        await open_history(pilot)
        assert app.screen is first  # the same screen, not a new one
        shown = [entry.run.run_id for entry in first.query_one(HistoryTable).shown]
        assert shown == ["eeeeeeee05", "cccccccc03", "aaaaaaaa01"]  # the filter kept, the new run listed
        await pilot.press("down", "enter")  # open one, then h from Results goes back to the same History
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("h")
        await pilot.pause()
        assert app.screen is first and len(app.screen_stack) == 2


async def test_every_column_fits_80_columns_whole(tmp_path) -> None:
    """Long names, a stopped and paused unresponsive run and a three-section run: each row's
    date, status word and numbers are whole within 80 columns, the marks spelled out below."""
    from tests.ui.test_results_sections import blocksize_record

    stopped = make_record("ffffffff06", 6, preset="numjobs-scaling-quick", path="/mnt/very/long/target/directory")
    stopped.run["status"] = "stopped"
    stopped.run["paused_s"] = 12.0
    stopped.pressure = {"responsiveness": "unresponsive", "cause": "wakeup"}
    save_record(stopped, tmp_path)
    save_record(blocksize_record(), tmp_path)
    _runs(tmp_path)
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_history(pilot)
        lines = screen_text(app).splitlines()
        row = next(line for line in lines if "numjobs-sca…" in line)  # a name cut shows "…"
        assert row.split()[:2] == ["2026-11-21", "12:06"]
        assert row.split()[-5:] == ["100", "-", "0.001", "stopped", "‖!"]  # the status word whole, then its marks
        assert "/directory" in row  # the end of the target path
        sections = next(line for line in lines if "blocksize-t…" in line)
        assert "19.2k|…" in sections and "0.090|…" in sections and sections.rstrip().endswith("done")
        assert any("‖ paused" in line and "! unresponsive" in line for line in lines)  # the legend
        assert all(len(line.rstrip()) <= 80 for line in lines)
        await pilot.press("down")  # the stopped run: its marks in words below the table
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "paused 12 s · unresponsive (wake-up)" in text
