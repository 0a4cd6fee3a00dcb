"""Results: one row per section, each section's detail on selection, nothing summed."""

from __future__ import annotations

import datetime as dt

from iotui.core.records.record import RunRecord
from iotui.ui.app import IotuiApp
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.widgets.direction_summary import DirectionSummary
from iotui.ui.widgets.section_table import SectionTable
from tests.ui.helpers import screen_text
from tests.ui.replay import ReplayServices


def _section(name: str, groupid: int, bs: str, iops: float, p99_ns: int, ctx: float, **extra) -> dict:
    return {
        "name": name, "jobs": [name], "groupid": groupid, "duration_s": 10.0,
        "options": {"rw": "randread", "bs": bs, "iodepth": "32", "numjobs": "4"},
        "read": {"iops": iops, "bw_bytes": iops * 4096, "io_bytes": 1, "total_ios": 1, "lat_mean_ns": p99_ns / 2,
                 "lat_p99_ns": p99_ns},
        "cpu": {"ctx_switches_per_s": ctx, "iops_per_fio_core": iops / 2},
        **extra,
    }


def blocksize_record(**run_extra) -> RunRecord:
    return RunRecord(
        run={"id": "5ec7105ec7105ec7", "preset": "blocksize-table", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 9, 30, tzinfo=dt.timezone.utc), "duration_s": 32.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": "", **run_extra},
        host={"hostname": "h", "system": "Linux", "kernel": "6.1", "cpu_model": "c", "cpu_count": 2,
              "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "/dev/vda", "mount_options": "rw"},
        sections=[
            _section("4k-direct", 0, "4k", 19_200.0, 90_112, 8_100.0),
            _section("128k-direct", 1, "128k", 6_300.0, 1_220_608, 3_300.0),
            _section("2m-direct", 2, "2m", 547.0, 33_816_576, 1_100.0, paused_s=12.0),
        ],
        pressure={"responsiveness": "ok"},
    )


async def test_one_row_per_section_and_the_detail_follows_the_cursor(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await app.push_screen(ResultsScreen(blocksize_record(paused_s=12.0), None, app.services))
        await pilot.pause()
        table = app.screen.query_one(SectionTable)
        assert table.row_count == 3
        text = screen_text(app)
        for shown in ("4k-direct", "128k-direct", "2m-direct (paused 12 s)", "19.2k", "6.3k", "547", "32 × 4"):
            assert shown in text, shown
        assert "paused 12 s" in text.splitlines()[1] or "paused 12 s" in text
        assert "26.0k" not in text and "26k" not in text  # 19.2k + 6.3k + 547 is nowhere
        detail = app.screen.query_one(DirectionSummary)
        assert detail.border_title == "section 1: 4k-direct"
        table.focus()
        await pilot.press("down")
        await pilot.pause()
        assert detail.border_title == "section 2: 128k-direct"
        text = screen_text(app)
        assert "1.22ms" in text and "3.3k" in text  # the second section's p99 and its ctx/s
        await pilot.press("down")
        await pilot.pause()
        assert detail.border_title == "section 3: 2m-direct"
        assert "33.8ms" in screen_text(app)


def test_history_row_shows_the_sections_compactly(tmp_path) -> None:
    from iotui.core.records import history_index
    from iotui.core.records.files import save_record
    from iotui.ui.widgets.history_table import HistoryEntry

    save_record(blocksize_record(paused_s=12.0), tmp_path)
    history_index.sync(tmp_path)
    runs, _ = history_index.query(tmp_path)
    entry = HistoryEntry(runs[0])
    cells = entry.cells()
    # The row keeps whole values within its column ("…": more sections, in the detail line).
    assert cells[3] == "19.2k|…"
    assert cells[4] == "-"
    assert cells[5] == "0.090|…"  # p99 in ms, the unit its header names
    assert cells[6] == "done ‖"  # paused, spelled out in the legend and the detail line
    assert entry.detail() == (
        "paused 12 s · section 1: read 19.2k, p99 90.1µs · section 2: read 6.3k, p99 1.22ms"
        " · section 3: read 547, p99 33.8ms"
    )


def test_export_has_one_row_per_section_and_no_sum() -> None:
    import json

    from iotui.core.records.export import export_records

    doc = json.loads(export_records([blocksize_record()], "json"))
    rows = doc["rows"] if isinstance(doc, dict) else doc
    runs = [row.get("run") for row in rows]
    assert runs == ["4k-direct", "128k-direct", "2m-direct"]
    assert [row.get("read_iops", row.get("iops")) for row in rows] == [19_200.0, 6_300.0, 547.0]
    markdown = export_records([blocksize_record()], "markdown")
    assert "26,047" not in markdown and "26047" not in markdown


async def test_compare_screen_judges_each_section(tmp_path) -> None:
    from iotui.ui.screens.compare import CompareScreen

    a = blocksize_record()
    b = blocksize_record()
    b.run["id"] = "b" * 16
    b.sections[1]["read"]["iops"] = 4_000.0
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(140, 50)) as pilot:
        await pilot.pause()
        await app.push_screen(CompareScreen([a, b], app.services))
        await pilot.pause()
        text = screen_text(app)
        assert "128k-direct · read" in text and "-36.5% worse" in text
        assert "4k-direct · read" in text and "2m-direct · read" in text and "26.0k" not in text
        assert "section by section" in text


def test_history_row_keeps_the_responsiveness_verdict_and_its_cause(tmp_path) -> None:
    from iotui.core.records import history_index
    from iotui.core.records.files import save_record
    from iotui.ui.widgets.history_table import HistoryEntry

    record = blocksize_record()
    record.pressure = {"responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 312.0,
                       "cause_unit": "ms"}
    save_record(record, tmp_path)
    history_index.sync(tmp_path)
    runs, _ = history_index.query(tmp_path, history_index.RunFilter.from_text("sluggish"))
    assert len(runs) == 1 and runs[0].responsiveness == "sluggish io_probe_write"
    entry = HistoryEntry(runs[0])
    assert entry.cells()[6] == "done ~"  # the mark the legend names
    assert entry.detail().startswith("sluggish (io write) · section 1:")
    assert runs[0].to_json_dict()["responsiveness"] == "sluggish io_probe_write"
