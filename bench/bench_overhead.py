"""The cost of watching: `iotui run` against bare fio running iotui's exact argv.

Two jobs, each in alternating pairs (bare fio, then through `iotui run`):

* ``cpu``: the null engine (no storage at all), 4 KiB random reads, so fio is
  CPU-bound and any CPU iotui takes shows in fio's IOPS;
* ``disk``: 4 KiB random reads, direct I/O, libaio, QD16, 256 MiB file.

fio's job runs on core 0 (``cpus_allowed=0`` in its own argv) and everything
else on core 1 (``taskset -c 1``): iotui, its sampler and probe, and fio's own
main thread, in both halves of a pair. Bare fio runs the argv iotui ran (read
from the record), with a fresh test file. The figure is the median of the
per-pair ratios iotui / bare, with a 95% bootstrap interval of that median;
iotui's own CPU (main process, steady state from 2 s in) and the wake-up probe
child's are reported beside it.

    python bench/bench_overhead.py [--jobs cpu,disk] [--pairs 10] [--runtime 4] [--target DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from iotui.core.fio.status import FioDocument, StatusSplitter  # noqa: E402

JOBS = {
    "cpu": ["ioengine=null", "rw=randread", "rwmixread=100", "bs=4k", "size=1G", "direct=0", "iodepth=1"],
    "disk": ["ioengine=libaio", "rw=randread", "rwmixread=100", "bs=4k", "size=256M", "direct=1", "iodepth=16"],
}
FIO_CORE, OTHER_CORE = "0", "1"


def read_iops(document: dict) -> float:
    return sum(float(job.get("read", {}).get("iops", 0.0)) for job in document.get("jobs", []))


def through_iotui(job: str, target: Path, runtime_s: int, runs_dir: Path) -> tuple[float, list[str], float, float]:
    """IOPS, fio's argv, iotui's steady CPU (cores) and the probe child's (cores)."""
    sets = [item for option in JOBS[job] + [f"cpus_allowed={FIO_CORE}"] for item in ("--set", option)]
    process = psutil.Popen(
        ["taskset", "-c", OTHER_CORE, sys.executable, "-m", "iotui", "run", "quick", "--target", str(target),
         "--runtime", str(runtime_s), *sets, "--runs-dir", str(runs_dir), "--baseline", "0", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    started = time.monotonic()
    steady_from_s, steady_cpu_s, own_cpu_s, last_poll_s = 2.0, None, 0.0, 0.0
    probe_cpu: dict[int, float] = {}
    while process.poll() is None:
        try:
            times = process.cpu_times()
            own_cpu_s = times.user + times.system
            last_poll_s = time.monotonic() - started
            if steady_cpu_s is None and last_poll_s >= steady_from_s:
                steady_cpu_s, steady_from_s = own_cpu_s, last_poll_s
            for child in process.children():
                if child.name() != "fio":
                    child_times = child.cpu_times()
                    probe_cpu[child.pid] = child_times.user + child_times.system
        except psutil.Error:
            pass
        time.sleep(0.2)
    wall_s = time.monotonic() - started
    out, _ = process.communicate()
    record = json.loads(out[out.index("{"):])
    own_cores = (own_cpu_s - (steady_cpu_s or 0.0)) / max(last_poll_s - steady_from_s, 1e-9)
    return float(record["summary"]["read"]["iops"]), list(record["run"]["argv"]), own_cores, sum(probe_cpu.values()) / wall_s


def bare_fio(argv: list[str], target: Path) -> float:
    test_file = target / f".iotui-bench-{os.getpid()}.fio-test"
    argv = [f"--filename={test_file}" if word.startswith("--filename=") else word for word in argv]
    try:
        output = subprocess.run(["taskset", "-c", OTHER_CORE, *argv], capture_output=True, check=True).stdout
    finally:
        test_file.unlink(missing_ok=True)
    splitter = StatusSplitter()
    documents = [item.doc for item in splitter.feed(output) + splitter.close() if isinstance(item, FioDocument)]
    return read_iops(documents[-1])


def bootstrap_median_interval(values: list[float], rounds: int = 2000) -> tuple[float, float]:
    rng = random.Random(14)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="cpu,disk")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--runtime", type=int, default=4)
    parser.add_argument("--target", default=".")
    args = parser.parse_args()
    if psutil.cpu_count() < 2:
        raise SystemExit("bench_overhead: needs two cores (fio's job on one, the rest on the other)")
    target = Path(args.target).resolve()
    for job in args.jobs.split(","):
        ratios, own, probe, bare_all, watched_all = [], [], [], [], []
        with tempfile.TemporaryDirectory() as runs_dir:
            argv = through_iotui(job, target, args.runtime, Path(runs_dir))[1]  # warm-up, and iotui's argv
            for pair in range(args.pairs):
                bare = bare_fio(argv, target)
                watched, argv, own_cores, probe_cores = through_iotui(job, target, args.runtime, Path(runs_dir))
                ratios.append(watched / bare)
                bare_all.append(bare)
                watched_all.append(watched)
                own.append(own_cores)
                probe.append(probe_cores)
                print(f"{job} pair {pair + 1:2}: bare {bare:,.0f} IOPS, iotui {watched:,.0f} IOPS, ratio {ratios[-1]:.3f}; "
                      f"iotui CPU {own_cores * 100:.2f}%, probe {probe_cores * 100:.2f}%", flush=True)
        low, high = bootstrap_median_interval(ratios)
        print(f"{job}: median ratio iotui/bare {statistics.median(ratios):.3f} (95% interval {low:.3f}-{high:.3f}, "
              f"{args.pairs} pairs); medians bare {statistics.median(bare_all):,.0f}, iotui {statistics.median(watched_all):,.0f} IOPS; "
              f"iotui's process {statistics.median(own) * 100:.2f}% of a core, probe {statistics.median(probe) * 100:.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
