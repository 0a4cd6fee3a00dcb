#!/usr/bin/env python3
"""CPU seconds a headless command takes from start to exit, per subcommand.

Each command runs as a user runs it (``python -m iotui ...``, a new process each time) on a record
imported from a real fio capture in a private runs directory; the figure is the child's own CPU
time (user + system, from ``getrusage``), which a busy shared machine inflates less than its wall
time. With ``--other DIR`` (another checkout, e.g. ``git worktree add /tmp/old HEAD~1``) each
command runs there and here in turn, so a noisy moment hits both, and the ratio is taken pair by
pair:

    python bench/bench_command_start.py [--runs 10] [--other /tmp/old]

Both checkouts should have their modules compiled (``python -m compileall -q iotui``), as an
install has: with PYTHONDONTWRITEBYTECODE set, a checkout without them compiles every module
each time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CAPTURE = HERE / "tests" / "fixtures" / "fio" / "randread-3jobs-json+.txt"


def commands(record: Path, runs_dir: Path) -> dict[str, list[str]]:
    return {
        "show": ["show", str(record)],
        "history": ["history", "--runs-dir", str(runs_dir)],
        "presets": ["presets"],
        "compare": ["compare", str(record), str(record)],
        "export": ["export", str(record), "--format", "csv"],
        "run --help": ["run", "--help"],
    }


def cpu_of(tree: Path, words: list[str]) -> float:
    """CPU seconds of one ``python -m iotui WORDS`` started in ``tree`` (its own iotui first on the path)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-m", "iotui", *words], cwd=tree, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"iotui {' '.join(words)} in {tree} failed: {done.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="counted runs of each command (after one warm-up)")
    parser.add_argument("--other", type=Path, help="another checkout, run alternately with this one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        runs_dir = Path(directory) / "runs"
        subprocess.run([sys.executable, "-m", "iotui", "import", str(CAPTURE), "--runs-dir", str(runs_dir)],
                       cwd=HERE, check=True, capture_output=True)
        record = next(path for path in runs_dir.glob("*.toml"))
        print(f"CPU seconds per command, median of {args.runs} (after one warm-up each)")
        header = f"{'command':<12} {'this':>7}"
        if args.other:
            header += f" {'other':>7} {'this/other':>10}"
        print(header)
        for name, words in commands(record, runs_dir).items():
            trees = [HERE] + ([args.other.resolve()] if args.other else [])
            for tree in trees:
                cpu_of(tree, words)  # warm-up: the page cache holds the modules
            this: list[float] = []
            other: list[float] = []
            for _ in range(args.runs):
                this.append(cpu_of(HERE, words))
                if args.other:
                    other.append(cpu_of(trees[1], words))
            line = f"{name:<12} {statistics.median(this):>7.3f}"
            if args.other:
                ratios = [a / b for a, b in zip(this, other) if b > 0]
                line += f" {statistics.median(other):>7.3f} {statistics.median(ratios):>10.2f}"
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
