#!/usr/bin/env python3
"""The live console's costs: first paint, the app's own CPU at 1 Hz, memory over an hour of documents.

Each measurement runs the app in a child process attached to a pseudo-terminal
(80x24), so Textual draws to a real terminal device exactly as over SSH; this
script drains the terminal and reads the child's figures from a JSON file.

* first paint: from the child's exec to the home screen's first refresh, with
  the real presets and targets (median and worst of several starts);
* CPU: a replayed run at 1 Hz (one status document and one host sample a
  second, through the real session and screens), the child's CPU seconds per
  second over a minute after a warm-up;
* memory: 3,600 status documents (an hour at 1 Hz, replayed fast) and 3,600 host
  samples; RSS and Python heap by package at every tenth of the way.

    python bench/bench_ui.py [--paint-runs 5] [--cpu-seconds 60] [--documents 3600]

Targets: first paint under 1 s; under 5% of one core; memory flat (the rolling
series are rings; the record's own samples grow with the run by design).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESULT_ENV = "IOTUI_BENCH_RESULT"
SPAWNED_ENV = "IOTUI_BENCH_SPAWNED"


# -- the parent: a pseudo-terminal per child ---------------------------------------------


def run_child(kind: str, extra: list[str], *, columns: int = 80, rows: int = 24, timeout_s: float = 600) -> dict:
    """Run ``bench_ui.py --child KIND`` on a pty of the given size; return its JSON result."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        result_path = Path(handle.name)
    env = {**os.environ, RESULT_ENV: str(result_path), SPAWNED_ENV: repr(time.time()), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", kind, *extra],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, cwd=ROOT,
    )
    os.close(slave)
    deadline = time.monotonic() + timeout_s
    try:
        while process.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    os.read(master, 1 << 16)  # what the terminal would show; discarded
                except OSError:
                    break  # the child closed the terminal: it is on its way out
        try:
            process.wait(timeout=max(10.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            raise SystemExit(f"bench_ui: the {kind} child did not finish in {timeout_s:.0f} s") from None
    finally:
        process.wait()
        os.close(master)
    try:
        return json.loads(result_path.read_text())
    except (OSError, ValueError):
        raise SystemExit(f"bench_ui: the {kind} child wrote no result (exit code {process.returncode})") from None
    finally:
        result_path.unlink(missing_ok=True)


# -- the children ------------------------------------------------------------------------


def _write_result(result: dict) -> None:
    Path(os.environ[RESULT_ENV]).write_text(json.dumps(result))


def _runs_dir() -> Path:
    """A runs directory of the benchmark's own, removed with everything in it when it ends."""
    import atexit
    import shutil

    directory = Path(tempfile.mkdtemp(prefix="iotui-bench-runs-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return directory


def child_paint() -> None:
    """Real services; exit right after the home screen's first refresh."""
    spawned = float(os.environ[SPAWNED_ENV])
    imports_started = time.time()
    from iotui.ui.app import IotuiApp
    from iotui.ui.screens.home import HomeScreen
    from iotui.ui.services import Services

    imported = time.time()

    marks: dict[str, float] = {}

    class TimedHome(HomeScreen):
        def on_mount(self) -> None:
            # Textual calls HomeScreen.on_mount too, after this one (every class's handler runs).
            marks["mounted"] = time.time()
            self.call_after_refresh(self._first_frame)

        def _first_frame(self) -> None:
            marks["first_frame"] = time.time()

        def watch_preview(self, preview) -> None:
            # The preview is worked out: the next refresh draws the command.
            if preview is not None and "preview" not in marks:
                marks["preview"] = 0.0
                self.call_after_refresh(self._preview_drawn)

        def _preview_drawn(self) -> None:
            marks["preview"] = time.time()
            _write_result({
                "first_paint_s": marks["first_frame"] - spawned,
                "preview_s": marks["preview"] - spawned,
                "interpreter_s": imports_started - spawned,
                "imports_s": imported - imports_started,
                "app_start_s": marks["mounted"] - imported,
                "home_s": marks["first_frame"] - marks["mounted"],
            })
            self.app.exit()

    class Timed(IotuiApp):
        def get_default_screen(self) -> TimedHome:
            return TimedHome(self.services)

    Timed(Services(runs_dir=_runs_dir())).run()


class LazyDocuments(Sequence):
    """The replay's documents, each made when fio would print it (not an hour of them held in
    memory beforehand, which would be the benchmark's memory, not the app's)."""

    MULTIPLIERS = [2, 3, 3, 4, 5, 4, 3, 2, 2, 3]

    def __init__(self, count: int) -> None:
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index):  # type: ignore[override]
        from tests.ui.replay import synthetic_documents

        index = range(self.count)[index]
        cycle, offset = divmod(index, len(self.MULTIPLIERS))
        # synthetic_documents(k)[-1] scaled by the running sum of the multipliers up to k:
        # the same document, without building the k before it.
        rotated = self.MULTIPLIERS[: offset + 1]
        scale = cycle * sum(self.MULTIPLIERS) + sum(rotated)
        document = synthetic_documents(1, multipliers=[scale])[0]
        document["timestamp_ms"] += 1000 * index
        return document


def _replay_app(documents: int, delay_s: float, host_interval_s: float, on_ready):
    """The app with replayed fio; ``on_ready(app)`` is called once the home screen is up."""
    from iotui.ui.app import IotuiApp
    from tests.ui.replay import ReplayRunner, ReplayServices

    class Benched(IotuiApp):
        def on_ready(self) -> None:
            self.set_timer(0.5, lambda: on_ready(self))

    docs = LazyDocuments(documents)
    services = ReplayServices(
        _runs_dir(),
        runner_factory=lambda: ReplayRunner(docs, delay_s=delay_s),
        host_interval_s=host_interval_s,
    )
    return Benched(services), services


def child_cpu(seconds: int, warmup_s: int) -> None:
    """A replayed run at 1 Hz; CPU seconds of this process per wall second, after the warm-up."""
    from iotui.ui.screens.run import RunScreen

    marks: dict[str, float] = {}

    def check() -> None:
        screen = app.screen
        if not isinstance(screen, RunScreen):
            return
        seen = screen.live.intervals_seen
        if seen >= warmup_s and "cpu0" not in marks:
            marks.update(cpu0=time.process_time(), wall0=time.monotonic(), seen0=seen)
        elif "cpu0" in marks and time.monotonic() - marks["wall0"] >= seconds:
            cpu_s = time.process_time() - marks["cpu0"]
            wall_s = time.monotonic() - marks["wall0"]
            _write_result({"cpu_share": cpu_s / wall_s, "wall_s": wall_s, "intervals": seen - marks["seen0"]})
            app.exit()

    def start(app) -> None:
        app.screen.action_run()
        app.set_interval(0.5, check)

    app, _services = _replay_app(seconds + warmup_s + 30, 1.0, 1.0, start)
    app.run()


def child_memory(documents: int, trace: bool) -> None:
    """An hour of documents as fast as the screens take them; RSS (or, with ``trace``,
    the Python heap by package, which tracemalloc's own bookkeeping would blur in RSS)
    at every tenth of the way."""
    import tracemalloc

    import psutil

    from iotui.ui.screens.results import ResultsScreen
    from iotui.ui.screens.run import RunScreen

    if trace:
        tracemalloc.start()
    process = psutil.Process()
    checkpoints: list[dict] = []
    step = max(1, documents // 10)

    def heap_by_area() -> dict[str, float]:
        areas = {"iotui/ui": 0, "iotui/core": 0, "textual": 0, "other": 0}
        if not trace:
            return {}
        for stat in tracemalloc.take_snapshot().statistics("filename"):
            name = stat.traceback[0].filename
            area = next((a for a in ("iotui/ui", "iotui/core", "textual") if f"/{a}/" in name), "other")
            areas[area] += stat.size
        return {area: size / 2**20 for area, size in areas.items()}

    last_run_screen: list[RunScreen] = []

    def checkpoint(screen: RunScreen) -> None:
        checkpoints.append({
            "intervals": screen.live.intervals_seen,
            "host_samples": screen.live.host_samples_seen,
            "rss_mib": process.memory_info().rss / 2**20,
            "ring_values": sum(len(ring) for ring in screen.live.rings.values()),
            "record_rows": len(services.sessions[-1].rows),
            "heap_mib": heap_by_area(),
        })

    def check() -> None:
        screen = app.screen
        if isinstance(screen, RunScreen):
            last_run_screen[:] = [screen]
            if screen.live.intervals_seen >= (len(checkpoints) + 1) * step:
                checkpoint(screen)
        if isinstance(screen, ResultsScreen):
            checkpoint(last_run_screen[0])  # the end of the run, results on screen
            _write_result({"checkpoints": checkpoints})
            app.exit()

    def start(app) -> None:
        app.screen.action_run()
        app.set_interval(0.05, check)

    app, services = _replay_app(documents, 0.002, 0.002, start)
    app.run()


# -- report ---------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", choices=("paint", "cpu", "memory"), help=argparse.SUPPRESS)
    parser.add_argument("--paint-runs", type=int, default=5)
    parser.add_argument("--cpu-seconds", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--documents", type=int, default=3600)
    parser.add_argument("--only", choices=("paint", "cpu", "memory"), help="run one measurement")
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child == "paint":
        child_paint()
        return 0
    if args.child == "cpu":
        child_cpu(args.cpu_seconds, args.warmup)
        return 0
    if args.child == "memory":
        child_memory(args.documents, args.trace)
        return 0

    if args.only in (None, "paint"):
        report_paint(args)
    if args.only in (None, "cpu"):
        report_cpu(args)
    if args.only in (None, "memory"):
        report_memory(args)
    return 0


def report_paint(args: argparse.Namespace) -> None:
    paint_runs = [run_child("paint", []) for _ in range(args.paint_runs)]
    paints = [run["first_paint_s"] for run in paint_runs]
    print(f"first paint: median {statistics.median(paints):.2f} s, worst {max(paints):.2f} s "
          f"({args.paint_runs} starts, exec to first frame, 80x24 pty)")
    previews = [run["preview_s"] for run in paint_runs]
    print(f"  command preview drawn: median {statistics.median(previews):.2f} s, worst {max(previews):.2f} s")
    for part in ("interpreter_s", "imports_s", "app_start_s", "home_s"):
        print(f"  {part}: median {statistics.median(run[part] for run in paint_runs):.3f} s")


def report_cpu(args: argparse.Namespace) -> None:
    cpu = run_child("cpu", ["--cpu-seconds", str(args.cpu_seconds), "--warmup", str(args.warmup)])
    print(f"app CPU during a 1 Hz replayed run: {cpu['cpu_share'] * 100:.2f}% of one core "
          f"over {cpu['wall_s']:.0f} s ({cpu['intervals']} intervals)")


def report_memory(args: argparse.Namespace) -> None:
    plain = run_child("memory", ["--documents", str(args.documents)], timeout_s=1800)["checkpoints"]
    traced = run_child("memory", ["--documents", str(args.documents), "--trace"], timeout_s=1800)["checkpoints"]
    print(f"memory over {args.documents} replayed documents (RSS from a plain run, heap from a traced one):")
    print("| intervals | host samples | RSS MiB | ring values | record rows | heap MiB: iotui/ui | iotui/core | textual | other |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for point, heap_point in zip(plain, traced):
        heap = heap_point["heap_mib"]
        print(f"| {point['intervals']} | {point['host_samples']} | {point['rss_mib']:.1f} | {point['ring_values']} "
              f"| {point['record_rows']} | {heap['iotui/ui']:.2f} | {heap['iotui/core']:.2f} | {heap['textual']:.2f} "
              f"| {heap['other']:.2f} |")

if __name__ == "__main__":
    sys.exit(main())
