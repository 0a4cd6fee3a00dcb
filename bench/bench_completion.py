"""Completing record names in a large runs directory: one TAB after ``iotui show r``.

    .venv/bin/python bench/bench_completion.py [--records 100000] [--tries 3]

Makes N empty record files (``run-000000.toml`` ...) in a temporary runs directory and asks
for completions the way the shell hook does (``_ARGCOMPLETE=1``, ``COMP_LINE``, ``COMP_POINT``),
alternating with the same request against an empty runs directory. Prints, per try, the wall
seconds and the child's CPU seconds (user + system) of each, and the median extra CPU the
records cost; the CPU figure is what a loaded machine inflates least.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ask(line: str, runs_dir: Path, work: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, candidates) of one completion request, from an empty current directory."""
    out = work / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "_ARGCOMPLETE_SHELL": "bash", "COMP_LINE": line,
           "COMP_POINT": str(len(line)), "_ARGCOMPLETE_STDOUT_FILENAME": str(out), "IOTUI_RUNS_DIR": str(runs_dir)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "iotui"], env=env, cwd=work / "empty", check=True, capture_output=True, timeout=600)
    wall_s = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall_s, cpu_s, len([word for word in out.read_bytes().split(b"\v") if word.strip()])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--tries", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        runs, empty = work / "runs", work / "empty"
        runs.mkdir()
        empty.mkdir()
        started = time.monotonic()
        runs_fd = os.open(runs, os.O_RDONLY)
        for index in range(args.records):
            os.close(os.open(f"run-{index:06d}.toml", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=runs_fd))
        os.close(runs_fd)
        print(f"made {args.records:,} record files in {time.monotonic() - started:.1f} s")
        extra_cpu_s = []
        for attempt in range(args.tries):
            empty_wall_s, empty_cpu_s, _ = ask("iotui show r", empty, work)
            wall_s, cpu_s, candidates = ask("iotui show r", runs, work)
            extra_cpu_s.append(cpu_s - empty_cpu_s)
            print(f"try {attempt + 1}: empty runs dir {empty_wall_s:.2f} s wall, {empty_cpu_s:.2f} s CPU; "
                  f"{args.records:,} records {wall_s:.2f} s wall, {cpu_s:.2f} s CPU, {candidates} candidates")
        print(f"median extra CPU for {args.records:,} records: {statistics.median(extra_cpu_s):.2f} s")


if __name__ == "__main__":
    main()
