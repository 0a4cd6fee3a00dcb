#!/usr/bin/env python3
"""Where the app's CPU goes during a live run: each part of its main thread timed apart.

Starts the app on an 80x24 pseudo-terminal as ``bench_live.py`` does (same jobs), but
through a small launcher that, inside the app's process, reads the main thread's CPU
clock (``time.thread_time``) around each part, exclusive of the parts it calls:

* ``frame``: Textual composing and rendering the changed band of the screen;
* ``terminal``: turning that frame into escape sequences for the terminal;
* ``fio document``: the session's handling of one status document (interval, pause log,
  record row, the event to the screen); ``splitter``: cutting fio's output into documents;
* ``host sample``: reading /proc for the host's figures and judging responsiveness;
* ``series panels``, ``figures``, ``figures panel``, ``chip and advice``: the widgets'
  work when a value arrives (before the frame draws them);
* ``collector``: the cyclic garbage collector, by generation;
* ``messages and reactives``: the rest of Textual's message handling (dispatch, reactive
  watchers, timers), and ``event loop``: asyncio's own work around them.

Each part in milliseconds of CPU per second of the window, beside the main thread's and
the other threads' total from /proc. The timing itself costs about a microsecond per
timed call, so the total reads a little above ``bench_live.py``'s.

    python bench/bench_parts.py [--job rate|quick|desktop] [--window 30] [--warmup 6]
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_live import preset_runtime_s, preset_text, preview_painted  # noqa: E402
from tests.pty_terminal import Terminal, terminal_env  # noqa: E402

# Runs inside the app's process: wraps the parts, writes the totals to $PARTS_OUT every second.
LAUNCHER = r'''
import gc, os, sys, threading, time
from collections import defaultdict

spent = defaultdict(float)
calls = defaultdict(int)
main_thread = threading.get_ident()
stack = []  # [part, started, spent in parts it called]


def enter(part):
    stack.append([part, time.thread_time(), 0.0])


def leave():
    part, started, inner = stack.pop()
    elapsed = time.thread_time() - started
    spent[part] += elapsed - inner
    calls[part] += 1
    if stack:
        stack[-1][2] += elapsed


def timed(owner, name, part):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        if threading.get_ident() != main_thread:
            return original(*args, **kwargs)
        enter(part)
        try:
            return original(*args, **kwargs)
        finally:
            leave()

    setattr(owner, name, wrapper)


def collector(phase, info):
    if threading.get_ident() == main_thread:
        enter(f"collector (generation {info['generation']})") if phase == "start" else leave()


gc.callbacks.append(collector)

import asyncio.events
from textual.app import App
from textual.screen import Screen
from iotui.core.fio.status import StatusSplitter
from iotui.core.runs.session import RunSession
from iotui.ui.screens.run import RunScreen
from iotui.ui.widgets.figures_panel import FiguresPanel
from iotui.ui.widgets.live_run import LiveRun
from iotui.ui.widgets.series_panel import SeriesPanel

timed(asyncio.events.Handle, "_run", "messages and reactives")
timed(Screen, "_compositor_refresh", "frame")
timed(App, "_display", "terminal")
timed(RunSession, "_handle", "fio document")
timed(StatusSplitter, "feed", "splitter")
timed(RunSession, "_sample_host", "host sample")
timed(SeriesPanel, "watch_revision", "series panels")
timed(LiveRun, "show_interval", "figures")
timed(FiguresPanel, "_repaint_changed_lines", "figures panel")
timed(LiveRun, "show_assessment", "chip and advice")


def report():
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    while True:
        time.sleep(1.0)
        threads = {}
        for task in os.listdir(f"/proc/{os.getpid()}/task"):
            try:
                fields = open(f"/proc/{os.getpid()}/task/{task}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            threads[int(task)] = (int(fields[11]) + int(fields[12])) / ticks_per_s
        with open(os.environ["PARTS_OUT"] + ".tmp", "w") as out:
            out.write(repr((time.monotonic(), os.getpid(), threads, dict(spent), dict(calls))))
        os.replace(os.environ["PARTS_OUT"] + ".tmp", os.environ["PARTS_OUT"])


threading.Thread(target=report, daemon=True).start()
from iotui.cli import main
sys.exit(main(sys.argv[1:]))
'''


def snapshot(path: Path) -> tuple:
    for _ in range(50):
        try:
            return ast.literal_eval(path.read_text())
        except (OSError, ValueError, SyntaxError):
            time.sleep(0.05)
    raise SystemExit("bench_parts: the app wrote no figures")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job", choices=("rate", "quick", "desktop"), default="quick")
    parser.add_argument("--rate", type=int, default=2000)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=6.0)
    args = parser.parse_args()
    if shutil.which("fio") is None:
        raise SystemExit("bench_parts: fio is not on PATH; install it (scripts/bootstrap.sh does).")
    work = Path(tempfile.mkdtemp(prefix="iotui-bench-parts-", dir=os.environ.get("TMPDIR")))
    terminal = None
    try:
        presets_dir = work / "config" / "iotui" / "presets"
        presets_dir.mkdir(parents=True)
        runtime = preset_runtime_s(args.job, args.warmup, args.window)
        (presets_dir / "bench-live.toml").write_text(preset_text(args.job, args.rate, runtime))
        (work / "launcher.py").write_text(LAUNCHER)
        (work / "target").mkdir()
        figures = work / "parts.txt"
        env = terminal_env(XDG_CONFIG_HOME=str(work / "config"), PARTS_OUT=str(figures))
        argv = [sys.executable, str(work / "launcher.py"), "--runs-dir", str(work / "runs"),
                "--target", str(work / "target"), "--preset", "bench-live"]
        terminal = Terminal(argv, env, Path(__file__).resolve().parents[1], 80, 24)
        terminal.wait_for(preview_painted, 60, "preset preview on Home")
        terminal.press(b"r")
        terminal.wait_for(lambda text: "running" in text and "elapsed" in text, 60, "running fio")
        terminal.pump(args.warmup)
        before = snapshot(figures)
        terminal.pump(args.window)
        after = snapshot(figures)
        terminal.press(b"s")
        terminal.pump(3.0)
        terminal.press(b"\x11")
        terminal.pump(2.0)
    finally:
        if terminal is not None:
            terminal.close()
        shutil.rmtree(work, ignore_errors=True)
    wall_s = after[0] - before[0]
    pid = after[1]
    main_ms = (after[2][pid] - before[2].get(pid, 0.0)) / wall_s * 1000
    others_ms = sum(after[2][t] - before[2].get(t, 0.0) for t in after[2] if t != pid) / wall_s * 1000
    parts = {part: (after[3][part] - before[3].get(part, 0.0)) / wall_s * 1000 for part in after[3]}
    rate = {part: (after[4][part] - before[4].get(part, 0)) / wall_s for part in after[4]}
    print(f"{args.job} job, {wall_s:.0f} s window: main thread {main_ms:.2f} ms of CPU per second "
          f"({main_ms / 10:.2f}% of one core), other threads {others_ms:.2f} ms/s")
    for part in sorted(parts, key=lambda name: -parts[name]):
        if parts[part] >= 0.005:
            print(f"  {part:34s} {parts[part]:6.2f} ms/s   ({rate[part]:.1f} calls/s)")
    timed = sum(parts.values())
    print(f"  {'event loop (not in a timed part)':34s} {max(0.0, main_ms - timed):6.2f} ms/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
