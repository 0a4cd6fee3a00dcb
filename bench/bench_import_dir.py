"""``iotui import DIR`` on a directory of many fio reports: wall and CPU seconds.

Writes COUNT reports (default 3,000) into nested folders of a scratch directory,
cycling through the fio outputs in tests/fixtures (json+ up to 80 KB, JSON, the
normal text report of fio 2.x and 3.x, terse, client/server), each made unique by
a trailing line, plus one file that is not fio output. Then runs the real command,
``python -m iotui import DIR --runs-dir SCRATCH``, REPEAT times and prints the
median wall time and the CPU seconds the command used (user + system, from the
child's rusage), which a busy machine inflates less than the wall clock.

    .venv/bin/python bench/bench_import_dir.py --count 3000 --repeat 3

Target: 3,000 reports of up to 100 KB in under 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SOURCES = [
    FIXTURES / "import" / "fio-3.33" / "two-groups-json+.txt",
    FIXTURES / "import" / "fio-3.33" / "two-groups-normal.txt",
    FIXTURES / "import" / "fio-3.33" / "two-groups-terse-v5.txt",
    FIXTURES / "import" / "fio-3.33" / "mixed-normal-json.txt",
    FIXTURES / "import" / "fio-3.33" / "client-server-2hosts-normal.txt",
    FIXTURES / "import" / "seaweedfs-fio-3.42-normal.txt",
    FIXTURES / "import" / "fio-2.2.10-randread-json.txt",
    FIXTURES / "import" / "client-server-2hosts-fio-3.33-json+.txt",
    FIXTURES / "fio" / "randrw-rate200-json+.txt",
]


def write_reports(directory: Path, count: int) -> int:
    contents = [path.read_bytes() for path in SOURCES]
    total = 0
    for index in range(count):
        folder = directory / f"host{index % 10}" / f"week{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        body = contents[index % len(contents)] + f"\n# report {index}\n".encode()
        (folder / f"report-{index}.txt").write_bytes(body)
        total += len(body)
    (directory / "README.md").write_text("notes, not fio output\n")
    return total


def one_run(directory: Path, runs: Path) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "import", str(directory), "--runs-dir", str(runs)],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    wall_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    refused = result.stderr.count(": no fio")
    return wall_s, cpu_s, refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="iotui-bench-import-"))
    try:
        size = write_reports(scratch / "reports", args.count)
        print(f"{args.count} reports, {size / 1e6:.1f} MB, largest {max(p.stat().st_size for p in SOURCES) / 1e3:.0f} KB")
        walls, cpus = [], []
        for attempt in range(args.repeat):
            runs = scratch / f"runs{attempt}"
            wall_s, cpu_s, refused = one_run(scratch / "reports", runs)
            saved = len(list(runs.glob("*.toml")))
            walls.append(wall_s)
            cpus.append(cpu_s)
            print(f"run {attempt + 1}: {wall_s:.1f} s wall, {cpu_s:.1f} s CPU, {saved} records, {refused} refused")
        print(f"median: {statistics.median(walls):.1f} s wall ({min(walls):.1f}-{max(walls):.1f}), "
              f"{statistics.median(cpus):.1f} s CPU")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
