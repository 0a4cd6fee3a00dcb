"""The cost of watching: `iotui run` against bare fio on the same job.

Runs the same job (4 KiB random read, direct I/O, QD16, group_reporting)
alternately with bare fio and through `iotui run`, several rounds, and reports
the IOPS ratio and iotui's own CPU use in seconds per second in steady
state (its main process from 2 s in, after start-up; the wake-up probe child
separately, over the whole run).

    python bench/bench_overhead.py [--runtime 10] [--rounds 3] [--target DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

JOB = ["--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=16", "--size=256M", "--group_reporting"]


def bare_fio(target: Path, runtime_s: int) -> float:
    test_file = target / ".iotui-bench.fio-test"
    try:
        out = subprocess.run(
            ["fio", "--name=bench", f"--filename={test_file}", *JOB, f"--runtime={runtime_s}", "--time_based",
             "--output-format=json"],
            capture_output=True, check=True, text=True,
        ).stdout
    finally:
        test_file.unlink(missing_ok=True)
    return float(json.loads(out)["jobs"][0]["read"]["iops"])


def through_iotui(target: Path, runtime_s: int, runs_dir: Path) -> tuple[float, float, float]:
    sets = [item for option in JOB for item in ("--set", option.lstrip("-"))]
    process = psutil.Popen(
        [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--runtime", str(runtime_s),
         *sets, "--set", "rwmixread=100", "--runs-dir", str(runs_dir), "--baseline", "0", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    started = time.monotonic()
    own_cpu_s = probe_cpu_s = 0.0
    # Steady state: start counting 2 s in, after Python's imports and set-up.
    steady_from_s, steady_cpu_s = 2.0, None
    probe_pids: dict[int, float] = {}
    while process.poll() is None:
        try:
            times = process.cpu_times()
            own_cpu_s = times.user + times.system
            if steady_cpu_s is None and time.monotonic() - started >= steady_from_s:
                steady_cpu_s = own_cpu_s
                steady_from_s = time.monotonic() - started
            last_poll_s = time.monotonic() - started
            for child in process.children():
                if child.name() != "fio":
                    child_times = child.cpu_times()
                    probe_pids[child.pid] = child_times.user + child_times.system
        except psutil.Error:
            pass
        time.sleep(0.2)
    wall_s = time.monotonic() - started
    out, _ = process.communicate()
    record = json.loads(out)
    probe_cpu_s = sum(probe_pids.values())
    steady_cores = (own_cpu_s - (steady_cpu_s or 0.0)) / max(last_poll_s - steady_from_s, 1e-9)
    return float(record["summary"]["read"]["iops"]), steady_cores, probe_cpu_s / wall_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runtime", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--target", default=".")
    args = parser.parse_args()
    target = Path(args.target).resolve()
    bare, watched, own, probe = [], [], [], []
    with tempfile.TemporaryDirectory() as runs_dir:
        for round_number in range(args.rounds):
            bare.append(bare_fio(target, args.runtime))
            iops, own_cores, probe_cores = through_iotui(target, args.runtime, Path(runs_dir))
            watched.append(iops)
            own.append(own_cores)
            probe.append(probe_cores)
            print(f"round {round_number + 1}: bare {bare[-1]:,.0f} IOPS, iotui {iops:,.0f} IOPS, "
                  f"iotui CPU {own_cores * 100:.2f}% of a core, probe {probe_cores * 100:.2f}%")
    ratio = statistics.median(watched) / statistics.median(bare)
    print(f"median IOPS ratio iotui/bare: {ratio:.3f}")
    print(f"iotui's own process: {statistics.median(own) * 100:.2f}% of one core (median); "
          f"wake-up probe: {statistics.median(probe) * 100:.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
