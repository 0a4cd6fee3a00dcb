"""Results for a desktop-table run: the table with bars and steady states, a sustained write's cliff."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from iotui.core.records.record import RunRecord
from iotui.ui.app import IotuiApp
from iotui.ui.screens.results import ResultsScreen
from tests.ui.helpers import screen_text
from tests.ui.replay import ReplayServices

MIB = 1 << 20
# (section, MiB/s, IOPS, mean ns, p99 ns)
FIGURES = [
    ("seq1m-q8t1-read", 3000.0, 3000.0, 2_600_000.0, 4_000_000.0),
    ("seq1m-q8t1-write", 1500.0, 1500.0, 5_200_000.0, 9_000_000.0),
    ("rnd4k-q1t1-read", 60.0, 15360.0, 64_000.0, 120_000.0),
    ("rnd4k-q1t1-write", 150.0, 38400.0, 25_000.0, 70_000.0),
]


def desktop_record() -> RunRecord:
    sections = []
    for index, (name, mib, iops, mean, p99) in enumerate(FIGURES):
        direction = name.rsplit("-", 1)[1]
        sections.append({
            "name": name, "jobs": [name], "groupid": index,
            direction: {"iops": iops, "bw_bytes": mib * MIB, "io_bytes": 1, "total_ios": 1,
                        "lat_mean_ns": mean, "lat_p99_ns": p99},
            "steady": {"reached": index != 1, "after_s": 5.0, "method": "window"} if index != 1
            else {"reached": False, "method": "window"},
        })
    sections[1]["cliff"] = {"found": True, "at_s": 45.0, "at_bytes": 13207024435, "bw_before_bytes": 2097152000,
                            "bw_after_bytes": 482344960}
    return RunRecord(
        run={"id": "d" * 16, "preset": "desktop", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc), "duration_s": 40.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 4, "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "sda", "mount_options": ""},
        sections=sections,
    )


async def test_results_show_the_desktop_table_with_bars_steady_states_and_the_cliff(tmp_path: Path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        app.push_screen(ResultsScreen(desktop_record(), None, app.services))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        seq_read = next(line for line in lines if "SEQ1M Q8T1" in line)
        assert "3,000.0" in seq_read and "3,000" in seq_read and "2.60ms" in seq_read and "4.00ms" in seq_read
        assert "█" * 20 in seq_read  # the best row: a full bar
        seq_write = lines[lines.index(seq_read) + 1]
        assert "write" in seq_write and "█" * 10 in seq_write and "█" * 11 not in seq_write  # half the best
        assert "not steady" in seq_write
        rnd_read = next(line for line in lines if "RND4K Q1T1" in line)
        assert "15,360" in rnd_read and "steady after 5 s" in rnd_read
        text = " ".join(screen_text(app).split())
        assert "seq1m-q8t1-write: cache cliff after 12.3 GiB (45 s): 2,000 MiB/s → 460 MiB/s" in text


async def test_e_exports_the_desktop_table_as_markdown(tmp_path: Path) -> None:
    services = ReplayServices(tmp_path)
    app = IotuiApp(services)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        app.push_screen(ResultsScreen(desktop_record(), None, app.services))
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        written = list(tmp_path.rglob("*.md"))
        assert len(written) == 1
        text = written[0].read_text()
        assert "| test | direction | MiB/s | IOPS | mean | p99 | bar | steady state |" in text
        assert "| SEQ1M Q8T1 | read | 3,000.0 | 3,000 | 2.60ms | 4.00ms | " + "█" * 20 + " | steady after 5 s |" in text
        assert "- SEQ1M Q8T1 write: cache cliff after 12.3 GiB (45 s): 2,000 MiB/s → 460 MiB/s" in text


async def test_compare_puts_two_desktop_tables_side_by_side(tmp_path: Path) -> None:
    from iotui.ui.screens.compare import CompareScreen

    first = desktop_record()
    second = desktop_record()
    second.run["id"] = "e" * 16
    second.host["hostname"] = "other"
    second.sections[0]["read"]["bw_bytes"] = 3300.0 * MIB  # 10% faster sequential reads
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(140, 60)) as pilot:
        await pilot.pause()
        app.push_screen(CompareScreen([first, second], app.services))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        row = next(line for line in lines if "SEQ1M Q8T1" in line and "read" in line)
        assert "3,000.0" in row and "3,300.0" in row and "+10.0%" in row and "4.00ms" in row
        assert "a MiB/s" in screen_text(app) and "b MiB/s" in screen_text(app)
        text = " ".join(screen_text(app).split())
        assert "Run a never settled in seq1m-q8t1-write" in text


async def test_a_section_too_short_to_judge_says_so_in_the_steady_column(tmp_path: Path) -> None:
    record = desktop_record()
    record.sections[3]["steady"] = {"reached": False, "method": "window", "judged_s": 4, "window_s": 10}
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        app.push_screen(ResultsScreen(record, None, app.services))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        rnd_read = next(line for line in lines if "RND4K Q1" in line)  # the long verdict narrows the name column
        rnd_write = lines[lines.index(rnd_read) + 1]
        assert "too short to judge" in rnd_write and "not steady" not in rnd_write
        text = " ".join(screen_text(app).split())
        assert "rnd4k-q1t1-write: too short to judge: 4 s of the 10 s window needed" in text
