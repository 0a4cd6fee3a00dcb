#!/usr/bin/env python3
"""What the app costs while it watches a real fio run: CPU, terminal bytes, memory.

Starts ``python -m iotui`` on an 80x24 pseudo-terminal (as over SSH), with a
small preset of its own (``--job rate``: 4 KiB random reads held at a fixed rate,
direct I/O, a 64 MiB file in a temporary directory; ``--job quick``: the shipped
quick preset, a 70/30 random read/write mix at queue depth 16 flat out, run
longer; ``--job desktop``: the shipped desktop preset, Home's first, eight sections
one after another, each 5 s with ``--warmup 8 --window 30``, longer with a longer
window), presses r, and once the run screen
shows fio running, measures over a window:

* the app's own process: CPU seconds per wall second (all its threads; its
  children are counted apart), from /proc/PID/stat;
* its children, each apart: fio, and the wake-up probe (a child that wakes 100
  times a second on purpose);
* the bytes the app wrote to the terminal, per second;
* its resident memory (VmRSS) at the start and the end of the window, and every
  ``--rss-every`` seconds in between (a 10-minute window shows whether it stays flat).

Then it presses s, waits for the results screen and quits with ctrl+q.

    python bench/bench_live.py [--job rate|quick|desktop] [--runs 3] [--window 40] [--warmup 8] [--columns 80 --rows 24]

Targets: the app's process at most 1.5% of one core; at most 5 KB/s to the terminal.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_paint import command_painted, cpu_seconds  # noqa: E402
from tests.pty_terminal import Terminal, terminal_env  # noqa: E402

PRESET = """\
name = "bench-live"
title = "Live cost benchmark"
description = "4 KiB random read held at {rate} IOPS, direct I/O, 64 MiB file"

[options]
ioengine = "psync"
direct = 1
rw = "randread"
bs = "4k"
size = "64M"
rate_iops = {rate}
runtime = {runtime}
time_based = ""
"""


DESKTOP_SECTIONS = 8
DESKTOP_SECTION_S = 5


def preset_text(job: str, rate: int, runtime_s: int) -> str:
    """The benchmark's preset: ``rate`` (fio held at ``rate`` IOPS), ``quick`` (the shipped
    quick preset as it is, 4 KiB random read/write at queue depth 16 flat out, run longer)
    or ``desktop`` (the shipped desktop preset, Home's first: eight sections one after
    another, read then write, each 5 s as shipped, longer only if ``runtime_s`` needs it)."""
    if job == "rate":
        return PRESET.format(rate=rate, runtime=runtime_s)
    shipped = (Path(__file__).resolve().parents[1] / "presets" / f"{job}.toml").read_text()
    shipped = re.sub(rf'(?m)^name = "{job}"$', 'name = "bench-live"', shipped)
    if job == "desktop":
        runtime_s = max(DESKTOP_SECTION_S, -(-runtime_s // DESKTOP_SECTIONS))
    return re.sub(r"(?m)^runtime = \d+$", f"runtime = {runtime_s}", shipped)


def preset_runtime_s(job: str, warmup_s: float, window_s: float) -> int:
    """How long the benchmark's run lasts: past the window with room to spare, or for the
    desktop preset just the window (its eight sections keep their 5 s over a 30-s window)."""
    return int(warmup_s + window_s + (2 if job == "desktop" else 60))


def preview_painted(text: str) -> bool:
    """Home shows the preset's preview: the fio command, or a multi-section preset's size on disk."""
    return command_painted(text) or " on disk" in text


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_run(args: argparse.Namespace, work: Path) -> dict:
    target = work / "target"
    target.mkdir(exist_ok=True)
    env = terminal_env(XDG_CONFIG_HOME=str(work / "config"))
    argv = [sys.executable, "-m", "iotui", "--runs-dir", str(work / "runs"), "--target", str(target),
            "--preset", "bench-live"]
    terminal = Terminal(argv, env, Path(__file__).resolve().parents[1], args.columns, args.rows)
    fio_pids: set[int] = set()
    try:
        terminal.wait_for(preview_painted, 60, "preset preview on Home")
        terminal.press(b"r")
        terminal.wait_for(lambda text: "running" in text and "elapsed" in text, 60, "running fio")
        terminal.pump(args.warmup)
        pid = terminal.process.pid
        children = {child: process_name(child) for child in children_of(pid)}
        fio_pids = {child for child, name in children.items() if name == "fio"}
        before = {child: cpu_seconds(child) for child in children}
        app_before, rss_before, bytes_before = cpu_seconds(pid), rss_mib(pid), len(terminal.received)
        started = time.monotonic()
        rss_trace = [rss_before]
        while (left := args.window - (time.monotonic() - started)) > 0:
            terminal.pump(min(left, args.rss_every))
            rss_trace.append(rss_mib(pid))
        wall_s = time.monotonic() - started
        app_cpu_s = cpu_seconds(pid) - app_before
        rss_after = rss_mib(pid)
        written = len(terminal.received) - bytes_before
        child_cores: dict[str, float] = {}
        for child, name in children.items():
            try:
                used = cpu_seconds(child) - before[child]
            except OSError:
                continue
            label = "fio" if name == "fio" else f"probe ({name})"
            child_cores[label] = child_cores.get(label, 0.0) + used / wall_s
        stopped_at = len(terminal.received)
        terminal.press(b"s")
        # The results screen: its title, or its keys, in all the output since s (a large
        # results screen can push its title out of the recent output).
        terminal.wait_for(lambda text: "results" in text.lower() or "New run" in " ".join(text.split()),
                          60, "results screen", since=stopped_at)
        terminal.pump(1.0)
        terminal.press(b"\x11")
        terminal.pump(2.0)
        return {
            "app_cores": app_cpu_s / wall_s,
            "children": child_cores,
            "bytes_per_s": written / wall_s,
            "rss_mib": (rss_before, rss_after),
            "rss_trace": rss_trace,
            "wall_s": wall_s,
        }
    finally:
        terminal.close()
        for fio_pid in fio_pids:  # never leave fio behind, whatever happened
            try:
                os.kill(fio_pid, signal.SIGKILL)
            except OSError:
                pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--window", type=float, default=40.0, help="seconds measured per run")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds of the run before measuring")
    parser.add_argument("--job", choices=("rate", "quick", "desktop"), default="rate",
                        help="rate: 4 KiB random reads held at --rate IOPS; quick: the shipped quick preset, run "
                             "longer; desktop: the shipped desktop preset (a new section every 5 s)")
    parser.add_argument("--rate", type=int, default=2000, help="fio's IOPS (rate_iops) for --job rate")
    parser.add_argument("--rss-every", type=float, default=60.0, help="seconds between RSS readings in the window")
    parser.add_argument("--columns", type=int, default=80)
    parser.add_argument("--rows", type=int, default=24)
    args = parser.parse_args()
    if shutil.which("fio") is None:
        raise SystemExit("bench_live: fio is not on PATH; install it (scripts/bootstrap.sh does).")
    results = []
    for number in range(args.runs):
        work = Path(tempfile.mkdtemp(prefix="iotui-bench-live-", dir=os.environ.get("TMPDIR")))
        try:
            presets_dir = work / "config" / "iotui" / "presets"
            presets_dir.mkdir(parents=True)
            runtime = preset_runtime_s(args.job, args.warmup, args.window)
            (presets_dir / "bench-live.toml").write_text(preset_text(args.job, args.rate, runtime))
            try:
                result = one_run(args, work)
            except TimeoutError as error:
                raise SystemExit(f"bench_live: {error}") from None
        finally:
            shutil.rmtree(work, ignore_errors=True)
        results.append(result)
        children = ", ".join(f"{name} {cores * 100:.2f}%" for name, cores in sorted(result["children"].items()))
        print(f"run {number + 1}: app {result['app_cores'] * 100:.2f}% of one core over {result['wall_s']:.0f} s; "
              f"children: {children}; terminal {result['bytes_per_s'] / 1000:.2f} KB/s; "
              f"RSS {result['rss_mib'][0]:.1f} -> {result['rss_mib'][1]:.1f} MiB", flush=True)
        if len(result["rss_trace"]) > 2:
            print("  RSS every", f"{args.rss_every:.0f} s (MiB):", " ".join(f"{value:.1f}" for value in result["rss_trace"]))
    app = [result["app_cores"] * 100 for result in results]
    rate = [result["bytes_per_s"] / 1000 for result in results]
    probe = [cores * 100 for result in results for name, cores in result["children"].items() if name != "fio"]
    print(f"app's own process: median {statistics.median(app):.2f}% of one core (range {min(app):.2f}-{max(app):.2f}); "
          f"target <= 1.5%")
    if probe:
        print(f"wake-up probe child: median {statistics.median(probe):.2f}% of one core")
    print(f"terminal output: median {statistics.median(rate):.2f} KB/s (range {min(rate):.2f}-{max(rate):.2f}); "
          f"target <= 5 KB/s at {args.columns}x{args.rows}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
