"""The sections table on Results at 80x24 shows every figure whole, a read/write mix included:
the mixed section takes one line per direction (docs/app-at-80-columns.md), nothing scrolls sideways.

The first record is made by real fio (the ``quick`` preset, 1 s on an 8 MiB file); the second has
figures as wide as fast disks print them, with a long section name.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from iotui.core import format as fmt
from iotui.core.host import targets as target_checks
from iotui.core.records.direction_figures import section_figures
from iotui.core.records.files import load_record
from iotui.core.records.record import RunRecord
from iotui.ui.app import IotuiApp
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.widgets.direction_summary import DirectionSummary
from iotui.ui.widgets.section_table import SectionTable
from tests.conftest import requires_fio
from tests.ui.replay import ReplayServices

MIB = 1 << 20


def _disk_directory(tmp_path: Path) -> tuple[Path, Path | None]:
    """A directory on a disk (iotui refuses tmpfs), and the one to remove afterwards where it is not tmp_path."""
    if target_checks.inspect_target(tmp_path).filesystem not in ("tmpfs", "ramfs"):
        return tmp_path / "target", None
    made = Path(tempfile.mkdtemp(prefix="iotui-ui-fio-", dir=Path(__file__).parent))
    return made / "target", made


def quick_record_from_fio(tmp_path: Path) -> RunRecord:
    target, made = _disk_directory(tmp_path)
    target.mkdir()
    runs = tmp_path / "runs"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--runtime", "1",
             "--size", "8M", "--baseline", "0", "--runs-dir", str(runs)],
            capture_output=True, text=True, timeout=90, env={**os.environ},
        )
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    [saved] = runs.glob("*.toml")
    return load_record(saved)


def wide_mixed_record() -> RunRecord:
    def direction(mib: float, iops: float, mean_ns: float, p99_ns: float) -> dict:
        return {"iops": iops, "bw_bytes": mib * MIB, "io_bytes": 1, "total_ios": 1, "lat_mean_ns": mean_ns,
                "lat_p99_ns": p99_ns}

    return RunRecord(
        run={"id": "f" * 16, "preset": "mixes", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc), "duration_s": 40.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 4, "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "nvme0n1", "mount_options": ""},
        sections=[
            {"name": "randrw-70-30-q32t16-with-a-long-name", "jobs": ["a"], "groupid": 0, "paused_s": 12.0,
             "options": {"bs": "128k", "iodepth": "32", "numjobs": "16"},
             "read": direction(12_345.6, 987_654.0, 12_649_000.0, 123_456_000.0),
             "write": direction(5_432.1, 876_543.0, 7_712_000.0, 98_765_000.0)},
            {"name": "randrw-trim", "jobs": ["b"], "groupid": 1, "options": {"bs": "4k", "iodepth": "8", "numjobs": "4"},
             "read": direction(1_496.1, 383_001.0, 83_400.0, 176_128.0),
             "write": direction(1_202.7, 307_891.0, 103_900.0, 4_751_360.0),
             "trim": direction(212.4, 54_374.0, 18_300.0, 41_216.0)},
        ],
    )


def _lines(app: IotuiApp, widget) -> list[str]:
    x, y, width, height = widget.region
    strips = app.screen._compositor.render_strips()[y: y + height]
    return [strip.text[x: x + width] for strip in strips]


async def _assert_every_figure_whole(record: RunRecord, tmp_path: Path) -> list[str]:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(ResultsScreen(record, None, app.services))
        for _ in range(4):
            await pilot.pause()
        table = app.screen.query_one(SectionTable)
        app.screen.query_one("#results").scroll_to_widget(table, animate=False, top=True)
        await pilot.pause()
        # Nothing needs a sideways scroll: the table is no wider than its panel.
        assert table.virtual_size.width <= table.scrollable_content_region.width, (
            table.virtual_size, table.scrollable_content_region)
        assert table.max_scroll_x == 0
        lines = _lines(app, table)
        text = "\n".join(lines)
        assert not any(line.endswith("│▅▅") for line in lines)
        for section in record.sections:
            for figures in section_figures(section):
                wanted = [fmt.iops(figures.iops), fmt.bytes_per_s(figures.bw_bytes),
                          fmt.latency_ns(figures.lat_mean_ns), fmt.latency_ns(figures.lat_p99_ns)]
                # The direction's own line: its name, then its four figures in order, each a whole cell.
                found = [line.split() for line in lines if f" {figures.direction} " in f" {line} "
                         and all(f" {figure} " in f" {line} " for figure in wanted)]
                assert found, (section["name"], figures.direction, wanted, text)
                cells = found[0]
                positions = [cells.index(figures.direction)] + [cells.index(figure) for figure in wanted]
                assert positions == sorted(positions), (cells, wanted)
        # No figure is cut: the only "…" allowed ends a long section name (words, not figures).
        for line in lines:
            for cell in line.split():
                assert "…" not in cell or not any(char.isdigit() for char in cell.split("…")[1]), (cell, text)
        return lines


@requires_fio
@pytest.mark.fio
async def test_a_real_quick_record_shows_every_figure_whole_at_80_columns(tmp_path: Path) -> None:
    record = quick_record_from_fio(tmp_path)
    (section,) = record.sections
    assert [figures.direction for figures in section_figures(section)] == ["read", "write"]
    lines = await _assert_every_figure_whole(record, tmp_path)
    assert not any("…" in line for line in lines), "\n".join(lines)
    assert not any(" / " in line for line in lines), "\n".join(lines)  # one line per direction, no pairs


async def test_wide_mixed_figures_and_a_long_name_fit_at_80_columns(tmp_path: Path) -> None:
    record = wide_mixed_record()
    lines = await _assert_every_figure_whole(record, tmp_path)
    text = "\n".join(lines)
    assert "randrw-70-" in text and "…" in text  # the long name is cut, its start kept
    assert "trim" in text and "randrw-trim" in text


async def test_a_mixed_sections_second_line_picks_the_same_section(tmp_path: Path) -> None:
    record = wide_mixed_record()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(ResultsScreen(record, None, app.services))
        for _ in range(4):
            await pilot.pause()
        table = app.screen.query_one(SectionTable)
        detail = app.screen.query_one(DirectionSummary)
        assert table.row_count == 5  # two lines for the first section, three for the second
        assert detail.border_title == "section 1: randrw-70-30-q32t16-with-a-long-name"
        table.focus()
        await pilot.press("down")  # the first section's write line
        await pilot.pause()
        assert detail.border_title == "section 1: randrw-70-30-q32t16-with-a-long-name"
        await pilot.press("down")  # the second section's first line
        await pilot.pause()
        assert detail.border_title == "section 2: randrw-trim"
