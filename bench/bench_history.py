"""History at scale: index build (cold), sync (warm), and History opening in the app with N records.

    .venv/bin/python bench/bench_history.py [--records 10000] [--keep DIR]

Writes N records (copies of one real-shaped record, each with its own id, start
time, preset and target, about 8 KB each with one sample per second) into a
temporary runs directory, then times:
  - the cold index build (every TOML parsed once),
  - a warm sync (nothing changed: one directory scan),
  - History opening in the real app under Pilot at 80x24, warm (index built, screens
    imported by a first open): from pressing h until the rows are in the table,
  - one filter keystroke (a query of the index and the table refilled).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import shutil
import sys
import tempfile
import time
from pathlib import Path

import tomli_w

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from iotui.core.runs.history_index import sync  # noqa: E402
from iotui.core.runs.record import RunRecord  # noqa: E402

PRESETS = ("quick", "rnd4k-q32t1", "seq1m-q8t1", "numjobs-scaling", "blocksize-table")


def make_record(index: int) -> RunRecord:
    started = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=37 * index)
    samples = [
        {"t_s": float(t), "dt_s": 1.0, "read_iops": 19000.0 + t, "read_bw_bytes": 77_000_000.0,
         "read_lat_p99_ns": 120_000.0, "cpu_user_pct": 3.0, "cpu_system_pct": 9.0}
        for t in range(1, 41)
    ]
    return RunRecord(
        run={"id": f"{index:032x}", "preset": PRESETS[index % len(PRESETS)], "status": "completed",
             "started": started, "duration_s": 40.0, "tool": "fio", "tool_version": "fio-3.33",
             "argv": ["fio", "--name=x"], "report": ""},
        host={"hostname": "bench", "system": "Linux", "kernel": "6.1.0", "cpu_model": "x", "cpu_count": 2,
              "mem_total_bytes": 1 << 34},
        target={"path": f"/mnt/disk{index % 7}", "filesystem": "ext4", "device": "/dev/vdb", "mount_options": "rw"},
        summary={"read": {"iops": 19200.0, "bw_bytes": 78643200.0, "io_bytes": 1, "total_ios": 1, "lat_p99_ns": 130000.0}},
        samples=samples,
    )


def write_records(runs_dir: Path, count: int) -> float:
    runs_dir.mkdir(parents=True, exist_ok=True)
    template = make_record(0)
    doc = template.to_toml_dict()
    sizes = 0
    for index in range(count):
        record = make_record(index)
        doc["run"] = {**doc["run"], **{k: v for k, v in record.to_toml_dict()["run"].items()}}
        doc["target"] = record.target
        data = tomli_w.dumps(doc).encode()
        sizes += len(data)
        (runs_dir / f"{record.started.strftime('%Y%m%d-%H%M%S')}-{record.preset}-{record.id[-8:]}.toml").write_bytes(data)
    return sizes / count


async def time_app(runs_dir: Path) -> tuple[float, float]:
    from iotui.ui.app import IotuiApp
    from iotui.ui.screens.history import HistoryScreen
    from iotui.ui.services import Services
    from iotui.ui.widgets.history_table import HistoryTable

    app = IotuiApp(Services(runs_dir=runs_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        # The first open also imports the History, Results and Compare screens: open, leave, time the next.
        await pilot.press("h")
        while not (isinstance(app.screen, HistoryScreen) and app.screen.synced):
            await pilot.pause(0.01)
        await pilot.press("escape")
        await pilot.pause()
        began = time.perf_counter()
        await pilot.press("h")
        while not (isinstance(app.screen, HistoryScreen) and app.screen.indexed and app.screen.query_one(HistoryTable).shown):
            await pilot.pause(0.001)
        opened = time.perf_counter() - began
        began = time.perf_counter()
        await pilot.press("7")
        await pilot.pause()
        filtered = time.perf_counter() - began
    return opened, filtered


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="use (and keep) this directory instead of a temporary one")
    args = parser.parse_args()
    directory = args.keep or Path(tempfile.mkdtemp(prefix="iotui-bench-history-"))
    try:
        if not any(directory.glob("*.toml")):
            size = write_records(directory, args.records)
            print(f"wrote {args.records} records, {size / 1024:.1f} KiB each")
        began = time.perf_counter()
        cold = sync(directory)
        print(f"cold index build: {cold.parsed} records in {time.perf_counter() - began:.2f} s")
        warm = sync(directory)
        print(f"warm sync: {warm.seconds * 1000:.0f} ms ({warm.parsed} parsed)")
        opened, filtered = asyncio.run(time_app(directory))
        print(f"History opens (warm, 80x24, h until rows shown): {opened * 1000:.0f} ms")
        print(f"one filter keystroke: {filtered * 1000:.0f} ms")
    finally:
        if args.keep is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
