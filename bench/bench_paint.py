#!/usr/bin/env python3
"""First paint of ``iotui`` against a bare Textual app, seen from the terminal's side.

Each start runs in its own 80x24 pseudo-terminal, exactly as a user's shell
would start it. The clock runs from just before ``exec`` until the terminal
has *received* the text that proves the screen is drawn:

* the bare app (``bench/bare_app.py``): its one line;
* iotui (``python -m iotui``, real presets and targets): the names of its
  presets, i.e. Home showing its presets; a second figure is the moment the
  planned fio command is on screen too.

Starts alternate (bare, iotui, bare, iotui, ...), so a busy neighbour slows
both sides of a pair alike; the figure that counts is the ratio iotui / bare,
per pair and of the medians.

    python bench/bench_paint.py [--pairs 15] [--columns 80 --rows 24]

Target: iotui's median first paint within 1.3x of the bare app's.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.pty_terminal import screen_text, terminal_env  # noqa: E402  (the benchmarks' and the tests' one reading)

BARE_APP = Path(__file__).resolve().parent / "bare_app.py"
BARE_MARKER = "bare textual app ready"
PRESETS_DIR = ROOT / "presets"
PREVIEW_MARKER = "--output-format=json+"


def bare_painted(text: str) -> bool:
    return BARE_MARKER in text


def home_painted(text: str) -> bool:
    """The preset list is drawn with its entries (any two shipped presets' names)."""
    names = [path.stem for path in PRESETS_DIR.glob("*.toml")]
    return "preset (p)" in text and sum(f" {name} " in text for name in names) >= 2


def command_painted(text: str) -> bool:
    return PREVIEW_MARKER in text


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process, all its threads (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_on_pty(
    argv: list[str], painted: Callable[[str], bool], later: Callable[[str], bool] | None, *, columns: int, rows: int,
    cwd: Path, env: dict[str, str], timeout_s: float = 30.0,
) -> tuple[float, float, float | None]:
    """Seconds from exec until the text received makes ``painted`` true, the CPU seconds the
    process had used by then, and the seconds until ``later`` is true too."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True)
    os.close(slave)
    received = bytearray()
    painted_s: float | None = None
    later_s: float | None = None
    deadline = started + timeout_s
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:
                break
            now = time.perf_counter()
            received += chunk
            text = screen_text(bytes(received))
            if painted_s is None and painted(text):
                painted_s = now - started
                painted_cpu_s = cpu_seconds(process.pid)
            if painted_s is not None and (later is None or later(text)):
                if later is not None:
                    later_s = now - started
                break
            if painted_s is not None and now - started > painted_s + 10:
                break  # painted, but the later text never came: report the paint alone
        if painted_s is None:
            tail = screen_text(bytes(received[-400:]))
            raise SystemExit(f"bench_paint: {argv[-1]} did not paint in {timeout_s:.0f} s; it printed: {tail!r}")
    finally:
        os.write(master, b"\x11")  # ctrl+q: both apps quit on it
        deadline = time.perf_counter() + 10
        while process.poll() is None and time.perf_counter() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    os.read(master, 1 << 16)
                except OSError:
                    break
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        os.close(master)
    return painted_s, painted_cpu_s, later_s


def describe(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms (range {min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--columns", type=int, default=80)
    parser.add_argument("--rows", type=int, default=24)
    parser.add_argument("--warmup", type=int, default=1, help="pairs run first and not counted (page cache)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="iotui-bench-paint-"))
    env = terminal_env(IOTUI_RUNS_DIR=str(work / "runs"))  # the pty's size and colours, as in a terminal
    size = {"columns": args.columns, "rows": args.rows, "env": env, "cwd": work}
    bare_argv = [sys.executable, str(BARE_APP)]
    iotui_argv = [sys.executable, "-m", "iotui", "--runs-dir", str(work / "runs")]
    bare, iotui, preview, ratios, bare_cpu, iotui_cpu = [], [], [], [], [], []
    try:
        for pair in range(args.warmup + args.pairs):
            bare_s, bare_cpu_s, _ = start_on_pty(bare_argv, bare_painted, None, **size)
            iotui_s, iotui_cpu_s, preview_s = start_on_pty(iotui_argv, home_painted, command_painted, **size)
            if pair < args.warmup:
                continue
            bare.append(bare_s)
            iotui.append(iotui_s)
            if preview_s is not None:
                preview.append(preview_s)
            ratios.append(iotui_s / bare_s)
            bare_cpu.append(bare_cpu_s)
            iotui_cpu.append(iotui_cpu_s)
            print(f"pair {pair - args.warmup + 1:2}: bare {bare_s * 1000:4.0f} ms (CPU {bare_cpu_s * 1000:3.0f}), "
                  f"iotui {iotui_s * 1000:4.0f} ms (CPU {iotui_cpu_s * 1000:3.0f}; command at "
                  f"{preview_s * 1000 if preview_s else float('nan'):4.0f} ms), ratio {ratios[-1]:.2f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"bare Textual app, one line:        {describe(bare)}")
    print(f"iotui, Home with its presets:      {describe(iotui)}")
    if preview:
        print(f"iotui, fio command drawn too:      {describe(preview)}")
    print(f"ratio iotui/bare per pair:         median {statistics.median(ratios):.2f} "
          f"(range {min(ratios):.2f}-{max(ratios):.2f}); of the medians "
          f"{statistics.median(iotui) / statistics.median(bare):.2f}  (target <= 1.30)")
    print(f"CPU used until painted (load-proof): bare {describe(bare_cpu)}, iotui {describe(iotui_cpu)}, "
          f"ratio of the medians {statistics.median(iotui_cpu) / statistics.median(bare_cpu):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
