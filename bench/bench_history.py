"""History at scale: index build (cold), sync (warm), and History opening in the app with N records.

    .venv/bin/python bench/bench_history.py [--records 10000] [--keep DIR]
    .venv/bin/python bench/bench_history.py --records 2000 --cold-open   # copied in, no index
    .venv/bin/python bench/bench_history.py --records 2000 --saved       # saved by iotui

Writes N records (copies of one real-shaped record, each with its own id, start
time, preset and target, about 8 KB each with one sample per second) into a
temporary runs directory, then times:
  - the cold index build (every TOML parsed once),
  - a warm sync (nothing changed: one directory scan),
  - History's first open in a fresh app under Pilot at 80x24 with the index warm: from
    the h key's action until the screen has painted the rows it read from the index
    (measured inside the app, so the Pilot's polling is not counted),
  - History opened again (the app keeps the screen): the same, the list re-read on resume,
  - one filter keystroke: from the key until the refilled table is painted.

With --cold-open the records are copied in with no index and History is opened at once: from
the h key until the rows are painted, the cold build (in a thread) included. With --saved each
record is written by save_indexed, as `iotui run`, a sweep or `iotui import` writes it (the
index filled as each is saved), and History is opened with no sync before it.
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

from iotui.core.records.history_index import INDEX_FILE_NAME, save_indexed, sync  # noqa: E402
from iotui.core.records.record import RunRecord  # noqa: E402

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


class OpenClock:
    """Times History from inside the app: from the key's action to the paint after the rows
    were read from the index (the Pilot's own polling would add its overhead)."""

    def __init__(self) -> None:
        from iotui.ui.app import IotuiApp
        from iotui.ui.screens.history import HistoryScreen

        self.began = 0.0
        self.painted: list[float] = []
        clock = self
        open_history, refresh = IotuiApp.action_open_history, HistoryScreen._refresh

        def timed_open(app: IotuiApp) -> None:
            clock.began = time.perf_counter()
            open_history(app)

        def timed_refresh(screen: HistoryScreen) -> None:
            refresh(screen)
            screen.call_after_refresh(lambda: clock.painted.append(time.perf_counter() - clock.began))

        IotuiApp.action_open_history = timed_open  # type: ignore[method-assign]
        HistoryScreen._refresh = timed_refresh  # type: ignore[method-assign]

    async def open(self, pilot) -> float:
        self.painted.clear()
        await pilot.press("h")
        while not self.painted:
            await pilot.pause(0.01)
        return self.painted[0]


async def time_app(runs_dir: Path) -> tuple[float, float, float]:
    """(first open in a fresh app, a later open, one filter keystroke), in seconds."""
    from iotui.ui.app import IotuiApp
    from iotui.ui.screens.history import HistoryScreen
    from iotui.ui.services import Services

    clock = OpenClock()
    app = IotuiApp(Services(runs_dir=runs_dir))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        first = await clock.open(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        while not screen.synced:
            await pilot.pause(0.01)
        await pilot.press("escape")
        await pilot.pause()
        again = await clock.open(pilot)
        while not screen.synced:
            await pilot.pause(0.01)
        clock.painted.clear()
        clock.began = time.perf_counter()
        await pilot.press("7")
        while not clock.painted:
            await pilot.pause(0.01)
        filtered = clock.painted[0]
    return first, again, filtered


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="use (and keep) this directory instead of a temporary one")
    parser.add_argument("--cold-open", action="store_true", help="copy the records in and open History with no index")
    parser.add_argument("--saved", action="store_true", help="save the records as iotui does and open History")
    args = parser.parse_args()
    directory = args.keep or Path(tempfile.mkdtemp(prefix="iotui-bench-history-"))
    try:
        if args.cold_open or args.saved:
            if args.saved:
                began = time.perf_counter()
                for index in range(args.records):
                    save_indexed(make_record(index), directory)
                seconds = time.perf_counter() - began
                print(f"saved {args.records} records with save_indexed in {seconds:.1f} s ({seconds / args.records * 1000:.1f} ms each)")
            else:
                write_records(directory, args.records)
                (directory / INDEX_FILE_NAME).unlink(missing_ok=True)
            first, _again, _filtered = asyncio.run(time_app(directory))
            print(f"History's first open, h until the rows are painted: {first * 1000:.0f} ms")
            return
        if not any(directory.glob("*.toml")):
            size = write_records(directory, args.records)
            print(f"wrote {args.records} records, {size / 1024:.1f} KiB each")
        began = time.perf_counter()
        cold = sync(directory)
        print(f"cold index build: {cold.parsed} records in {time.perf_counter() - began:.2f} s")
        warm = sync(directory)
        print(f"warm sync: {warm.seconds * 1000:.0f} ms ({warm.parsed} parsed)")
        first, again, filtered = asyncio.run(time_app(directory))
        print(f"History's first open in a fresh app (warm index, 80x24, h until rows painted): {first * 1000:.0f} ms")
        print(f"History opened again (kept screen: h until the index re-read and painted): {again * 1000:.0f} ms")
        print(f"one filter keystroke: {filtered * 1000:.0f} ms")
    finally:
        if args.keep is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
