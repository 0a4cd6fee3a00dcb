"""An independent S-style start-up measurement beside `iotui run`: does the start-up probe agree?

    .venv/bin/python bench/bench_startup.py --target DIR [--seconds 20] [--idle 6] [--set rw=read ...]

S (github.com/Algodev-github/S, `comm_startup_lat`) drops the caches, starts a program while
a workload runs and times the start. Here a separate process (its own clock, its own program,
nothing of iotui's) does the same every second: a private copy of a real dynamically linked
program, /bin/ls, with its libraries and dynamic loader (about 3 MiB on Debian 12), made in
its own directory on the target's filesystem, dropped from the page cache with
POSIX_FADV_DONTNEED and checked with util-linux `fincore` (a start is warm, and left out,
when any page stayed), then started through the copied loader (`ld.so --library-path DIR
DIR/ls DIR`) and timed from spawn to exit. It runs alone for --idle seconds, then beside
`iotui run quick` of the workload. Printed: its median at rest (the last 3 s before iotui
starts, as iotui's own baseline) against the record's `app_start_baseline_ms`; and while fio ran,
second by second, the record's `app_start_ms` against its own figure taken the same way at each
second's end (the last start's time, or the age of one still going when longer): the medians over
those seconds, with each ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROGRAM = "/bin/ls"
AT_REST_WINDOW_S = 3.0
DEFAULT_SETS = ["rw=read", "bs=1M", "numjobs=4", "iodepth=16", "ioengine=libaio", "direct=1"]


def program_files(program: str) -> list[Path]:
    """The program, its libraries and its loader, from `ldd`."""
    out = subprocess.run(["ldd", program], capture_output=True, text=True, check=True).stdout
    paths = [Path(program)]
    for line in out.splitlines():
        found = re.search(r"(/\S+)\s+\(0x", line)
        if found:
            paths.append(Path(found.group(1)))
    return paths


def starter(directory: Path) -> None:
    """Evict, start, time, every second, until stdin closes; then print the events as JSON."""
    import selectors

    files = sorted(directory.iterdir())
    loader = next(path for path in files if path.name.startswith("ld-linux"))
    argv = [str(loader), "--library-path", str(directory), str(directory / Path(PROGRAM).name), str(directory)]
    events = []
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin, selectors.EVENT_READ)
    while True:
        for path in files:
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        resident = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES", *map(str, files)],
                                  capture_output=True, text=True)
        warm = resident.returncode != 0 or any(int(value) > 0 for value in resident.stdout.split())
        wall, began = time.time(), time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        events.append((wall, time.monotonic() - began, warm))
        if selector.select(timeout=max(0.0, 1.0 - (time.monotonic() - began))) and not sys.stdin.read(1):
            break
    print(json.dumps(events))


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--starter":
        starter(Path(sys.argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, type=Path, help="a directory on the disk to judge")
    parser.add_argument("--seconds", type=int, default=20, help="fio's runtime (default 20)")
    parser.add_argument("--idle", type=int, default=6, help="seconds the starter runs alone first (default 6)")
    parser.add_argument("--size", default="1G", help="fio's file size (default 1G)")
    parser.add_argument("--set", action="append", dest="sets",
                        help=f"fio options of the workload (default: {' '.join(DEFAULT_SETS)})")
    args = parser.parse_args()
    from iotui.core.records.files import load_record

    directory = Path(tempfile.mkdtemp(prefix=".s-style-", dir=args.target))
    runs = Path(tempfile.mkdtemp(prefix="startup-runs-"))
    try:
        for path in program_files(PROGRAM):
            shutil.copyfile(path.resolve(), directory / path.name)
            os.chmod(directory / path.name, 0o755)
        os.sync()
        child = subprocess.Popen([sys.executable, __file__, "--starter", str(directory)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        time.sleep(args.idle)
        load_started = time.time()
        argv = [sys.executable, "-m", "iotui", "run", "quick", "--target", str(args.target), "--runs-dir", str(runs),
                "--runtime", str(args.seconds), "--size", args.size, "--baseline", "3", "--json", "--force"]
        for option in args.sets or DEFAULT_SETS:
            argv += ["--set", option]
        iotui = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=args.seconds * 4 + 600)
        out, _ = child.communicate(input="", timeout=120)
        if iotui.returncode != 0:
            print(f"iotui run failed: {iotui.stderr.strip()[-400:]}", file=sys.stderr)
            return 1
        record = load_record(Path(json.loads(iotui.stdout)["path"]))
        report = json.loads((runs / record.run["report"]).read_text())
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    events = [tuple(event) for event in json.loads(out)]
    fio_end = report["timestamp_ms"] / 1000.0
    samples = [s for s in record.samples if isinstance(s.get("app_start_ms"), (int, float))]
    last_t = max(float(s["t_s"]) for s in record.samples)
    fio_begin = fio_end - last_t - 1.0
    cold = [(wall, seconds) for wall, seconds, warm in events if not warm]
    at_rest = [seconds * 1000 for wall, seconds in cold if load_started - AT_REST_WINDOW_S <= wall < load_started]
    # Under load, second by second as iotui reports: at each sample's end, the S-style figure is its
    # last completed start's time, or the age of its start still going when that is longer (one slow
    # start counts in every second it lasts, on both sides).
    iotui_loaded, loaded = [], []
    for sample in samples:
        end = fio_end - (last_t - float(sample["t_s"]))
        ended = [(wall + seconds, seconds) for wall, seconds in cold if wall + seconds <= end]
        going = [end - wall for wall, seconds in cold if wall <= end < wall + seconds]
        candidates = going + ([max(ended)[1]] if ended else [])
        figure = max(candidates) if candidates else None
        if figure is not None and fio_begin + 1.0 <= end:
            loaded.append(figure * 1000)
            iotui_loaded.append(float(sample["app_start_ms"]))
    iotui_rest = record.pressure.get("app_start_baseline_ms")
    per_start = [seconds * 1000 for wall, seconds in cold if fio_begin + 1.0 <= wall and wall + seconds <= fio_end]
    result = {
        "workload": " ".join(args.sets or DEFAULT_SETS),
        "starts": len(events), "warm": sum(1 for event in events if event[2]),
        "at_rest_ms": {"iotui": iotui_rest, "s_style": statistics.median(at_rest) if at_rest else None},
        "under_load_ms": {"iotui": statistics.median(iotui_loaded) if iotui_loaded else None,
                          "s_style": statistics.median(loaded) if loaded else None},
        "s_style_per_start_under_load_ms": statistics.median(per_start) if per_start else None,
        "seconds_compared": len(loaded), "fio_window_s": round(fio_end - fio_begin, 1),
        "level": record.pressure.get("responsiveness"), "cause": record.pressure.get("cause"),
        "load_average": os.getloadavg()[0],
    }
    for key in ("at_rest_ms", "under_load_ms"):
        pair = result[key]
        if pair["iotui"] and pair["s_style"]:
            pair["ratio"] = round(pair["iotui"] / pair["s_style"], 2)
    print(json.dumps(result, indent=1))
    shutil.rmtree(runs, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
