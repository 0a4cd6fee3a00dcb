#!/usr/bin/env python3
"""False alarms of the interference check: quiet runs of quick and desktop, counting ``interference`` warnings.

Runs ``iotui run`` (real fio) N times per case and counts the runs whose record has a
warning of kind ``interference``, printing each one's words (who was named). Cases:
``quick`` and ``desktop`` with direct I/O as shipped, and both with ``direct=0``
(buffered writes: their writeback must never count as another program's).

The target is a private ext4 on a loop device when run as root (a device no other
program writes to: see tests/e2e/loop_fs.py), else ``--target`` or a temporary
directory on the machine's disk, which is only as quiet as the machine: any
warning there names who wrote.

    sudo .venv/bin/python bench/bench_interference.py [--runs 20] [--quick-runtime 5] [--desktop-runtime 1]
    .venv/bin/python bench/bench_interference.py --target DIR   # a disk of your choosing
    .venv/bin/python bench/bench_interference.py --cost         # what watching costs per fio document

``--cost`` times, on this machine's disk: the work added to every fio document
(``OutsideIoWatch.observe``: one /proc/diskstats read and the arithmetic), a bare
/proc/diskstats read and the host sampler's whole second beside it, and one process
scan (only while outside I/O is suspected).

Target: 0 warnings in every case.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from iotui.core.records.files import load_record  # noqa: E402
from tests.e2e.loop_fs import private_loop_fs  # noqa: E402

CASES = {
    "quick": ["quick", "--size", "128M"],
    "quick-buffered": ["quick", "--size", "128M", "--set", "direct=0"],
    "desktop": ["desktop", "--size", "256M"],
    "desktop-buffered": ["desktop", "--size", "256M", "--set", "direct=0"],
}


def one_run(case: str, target: Path, runs_dir: Path, runtime_s: int) -> tuple[bool, list[str], float]:
    """One quiet run: whether it completed, its interference warnings, its wall seconds.

    The run lock is the bench's own (its own runtime directory), as in the tests: the
    bench counts false alarms, not whether another run held the machine.
    """
    runtime_dir = runs_dir.parent / "runtime"
    runtime_dir.mkdir(mode=0o700, exist_ok=True)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", *CASES[case], "--runtime", str(runtime_s), "--target", str(target),
         "--baseline", "0", "--runs-dir", str(runs_dir)],
        capture_output=True, text=True, timeout=600, env={**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir)},
    )
    wall_s = time.monotonic() - started
    saved = sorted(runs_dir.glob("*.toml"), key=lambda path: path.stat().st_mtime)
    if result.returncode != 0 or not saved:
        return False, [result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "no record"], wall_s
    record = load_record(saved[-1])
    saved[-1].unlink()
    return True, [w["message"] for w in record.warnings if w["code"] == "interference"], wall_s


def cost() -> None:
    """Microseconds per fio document for the watch, beside the host sampler's second; one scan."""
    import timeit

    from iotui.core.fio.section_seconds import SectionSecondsDeriver
    from iotui.core.host.block_devices import backing_devices
    from iotui.core.host.counters import HostSampler, read_diskstats
    from iotui.core.host.processes import ProcessIoScanner
    from iotui.core.runs.outside_io import OutsideIoWatch
    from tests.conftest import fio_documents, recorded_fio_outputs

    deriver = SectionSecondsDeriver()
    for doc in fio_documents(recorded_fio_outputs()[0]):
        deriver.feed(doc)
    devices = backing_devices(Path("."))
    watch = OutsideIoWatch(devices, Path("/proc"), {os.getpid()}, None)
    sampler = HostSampler(devices)
    made = [0]

    def observe() -> None:
        made[0] += 1
        watch.observe(deriver.whole, range(made[0], made[0] + 1))

    for _ in range(3):
        per_us = {name: timeit.timeit(call, number=500) / 500 * 1e6 for name, call in (
            ("observe", observe), ("diskstats", lambda: read_diskstats(Path("/proc"), sampler.counted_devices)),
            ("host sample", sampler.sample))}
        print("  ".join(f"{name} {value:.0f} µs" for name, value in per_us.items()), flush=True)
    scanner = ProcessIoScanner({os.getpid()}, None)
    scan_ms = timeit.timeit(scanner.scan, number=20) / 20 * 1e3
    print(f"one process scan: {scan_ms:.1f} ms over {sum(e.isdigit() for e in os.listdir('/proc'))} processes")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs per case (default 20)")
    parser.add_argument("--quick-runtime", type=int, default=5, help="seconds of quick (default 5)")
    parser.add_argument("--desktop-runtime", type=int, default=1, help="seconds per desktop section (default 1)")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--target", type=Path, help="a directory to test in (default: a private loop device as root)")
    parser.add_argument("--cost", action="store_true", help="time the watch's cost per document instead")
    args = parser.parse_args()
    if args.cost:
        cost()
        return 0
    with tempfile.TemporaryDirectory(prefix="iotui-bench-interference-") as scratch_name:
        scratch = Path(scratch_name)
        runs_dir = scratch / "runs"
        place = nullcontext(args.target) if args.target else private_loop_fs(scratch)
        with place as found:
            target = found or scratch
            print(f"target: {target} ({'a private loop device' if found and not args.target else 'as given/the disk'})")
            failures = 0
            for case in args.cases.split(","):
                runtime_s = args.desktop_runtime if case.startswith("desktop") else args.quick_runtime
                alarms = completed = 0
                walls: list[float] = []
                for index in range(args.runs):
                    ok, warnings, wall_s = one_run(case, target, runs_dir, runtime_s)
                    walls.append(wall_s)
                    completed += ok
                    if not ok:
                        print(f"  {case} #{index + 1}: did not complete: {warnings[0]}")
                        continue
                    if warnings:
                        alarms += 1
                        for text in warnings:
                            print(f"  {case} #{index + 1}: {text}")
                print(f"{case:17} runtime {runtime_s} s: {alarms} of {completed} completed runs warned "
                      f"(runs asked {args.runs}, {sum(walls) / len(walls):.1f} s each)", flush=True)
                failures += alarms
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
