"""What the I/O probe costs: its child's CPU, its system calls and bytes, and what the device saw.

    .venv/bin/python bench/bench_probe_cost.py --target DIR [--seconds 30]

Runs the real I/O probe (target filesystem only) for --seconds, then reads the child's own
accounting from /proc/<pid>/stat (user + system CPU of all its threads) and /proc/<pid>/io
(read/write system calls, bytes sent to storage), and the probe's own per-second reports
(operations it timed). The wake-up probe is measured the same way for comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from iotui.core.host.io_probe import IoProbe  # noqa: E402
from iotui.core.host.wakeup_probe import WakeupProbe  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime, all threads


def io_counters(pid: int) -> dict[str, int]:
    counters = {}
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        name, value = line.split(":")
        counters[name] = int(value)
    return counters


def measure(probe, seconds: float, settle_s: float = 3.0) -> dict[str, float]:
    probe.start()
    try:
        time.sleep(settle_s)  # the child's start-up and the probe file's creation are not steady state
        pid = probe.pid
        cpu0, io0, t0 = cpu_seconds(pid), io_counters(pid), time.monotonic()
        reads, writes = [], []
        while time.monotonic() - t0 < seconds:
            time.sleep(1.0)
            latest = probe.read_latest()
            if latest is not None and hasattr(latest, "read_iops"):
                reads.append(latest.read_iops)
                writes.append(latest.write_iops)
        cpu1, io1, t1 = cpu_seconds(pid), io_counters(pid), time.monotonic()
    finally:
        probe.stop()
    elapsed = t1 - t0
    result = {
        "cpu_pct_of_one_core": 100.0 * (cpu1 - cpu0) / elapsed,
        "read_syscalls_per_s": (io1["syscr"] - io0["syscr"]) / elapsed,
        "write_syscalls_per_s": (io1["syscw"] - io0["syscw"]) / elapsed,
        "storage_read_bytes_per_s": (io1["read_bytes"] - io0["read_bytes"]) / elapsed,
        "storage_write_bytes_per_s": (io1["write_bytes"] - io0["write_bytes"]) / elapsed,
    }
    if reads:
        result["probe_reads_per_s"] = statistics.median(reads)
        result["probe_writes_per_s"] = statistics.median(writes)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="directory on the filesystem to probe")
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    for name, probe in (("I/O probe", IoProbe(Path(args.target), probe_home=False)), ("wake-up probe", WakeupProbe())):
        figures = measure(probe, args.seconds)
        print(name)
        for key, value in figures.items():
            print(f"  {key:28s} {value:12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
