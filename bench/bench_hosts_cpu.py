"""iotui's own CPU at many hosts, with hosts that cost nearly nothing.

    .venv/bin/python bench/bench_hosts_cpu.py [--hosts 128] [--seconds 15] [--repeat 3] [--probes]

bench_hosts.py runs real fio behind real sshd on 128 loopback addresses: 128 fio and 128 sshd
sessions load two cores past a load average of 100, and iotui's CPU figure there says as much
about the machine as about iotui. Here every host is tests/fakes/fake_remote.py (a stand-in
ssh that speaks the lifeline's protocol) replaying, one document a second, a real fio capture
made first on this machine: the same job as bench_hosts.py (two sections of random 4 KiB writes,
psync, direct, 100 IOPS, ``--output-format=json+ --status-interval=1``), so every host's
documents are fio's own, with their latency bins growing as a real run's do.

It reports iotui's Python process CPU (utime + stime from /proc, in % of one core) over the
middle of the replay, the fake hosts' CPU apart, and the load average. The fake hosts are a
fault-free stand-in for this measurement only; bench_hosts.py is the end-to-end figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_hosts import Watched, cpu_window  # noqa: E402

FAKE = ROOT / "tests" / "fakes" / "fake_remote.py"


def capture(directory: Path, seconds: int) -> Path:
    """A real fio json+ stream of the bench job: two sections of ``seconds`` each."""
    job = ["--rw=randwrite", "--bs=4k", "--ioengine=psync", "--direct=1", "--size=1M", f"--runtime={seconds}",
           "--time_based", "--rate_iops=100"]
    argv = ["fio", "--thread", "--output-format=json+", "--status-interval=1", "--group_reporting",
            "--name=randread", *job, "--name=randwrite", "--stonewall", *job]
    out = directory / "capture.json"
    with out.open("wb") as handle:
        subprocess.run(argv, cwd=directory, stdout=handle, stderr=subprocess.DEVNULL, check=True)
    for leftover in directory.glob("rand*.0.0"):
        leftover.unlink()
    return out


def one_run(hosts: int, replay: Path, work: Path, seconds: int, probes: bool) -> dict:
    shutil.rmtree(work, ignore_errors=True)
    (work / "target").mkdir(parents=True)
    names = ",".join(f"good-{index}" for index in range(hosts))
    argv = [
        str(ROOT / ".venv/bin/python") if (ROOT / ".venv/bin/python").exists() else sys.executable,
        "-m", "iotui", "run", "rnd4k-q1t1", "--hosts", names, "--ssh", str(FAKE),
        "--target", str(work / "target"), "--runtime", str(seconds), "--size", "1M",
        "--runs-dir", str(work / "runs"), "--baseline", "0", *([] if probes else ["--no-host-probes"]),
    ]
    env = {**os.environ, "FAKE_REMOTE_REPLAY": str(replay), "FAKE_REMOTE_DELAY_S": "1.0", "PYTHONUNBUFFERED": "1"}
    watched = Watched(subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       cwd=ROOT))
    if watched.wait_for_line(f"{hosts}/{hosts} hosts", 300) is None:
        watched.process.kill()
        return {"started": False, "said": watched.finish(60)[-400:]}
    time.sleep(3)
    window_s = max(2.0, seconds * 2 - 10.0)  # the replay holds two sections of `seconds`
    window = cpu_window(watched.pid, window_s)
    load = os.getloadavg()[0]
    watched.finish(300)
    return {
        "started": True,
        "exit": watched.process.returncode,
        "iotui_cpu_pct": window.own_pct,
        "fake_hosts_cpu_pct": window.children_pct,
        "window_s": round(window.seconds, 1),
        "load": round(load, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=128)
    parser.add_argument("--seconds", type=int, default=15, help="each section's length in the capture")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--probes", action="store_true", help="leave iotui's host probes on (the fakes have no python3 fact)")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="iotui-bench-cpu-"))
    try:
        replay = capture(directory, args.seconds)
        figures = []
        for _ in range(args.repeat):
            result = one_run(args.hosts, replay, directory / "run", args.seconds, args.probes)
            print(f"{args.hosts} replaying hosts: {result}", flush=True)
            if result.get("started"):
                figures.append(result["iotui_cpu_pct"])
        if figures:
            print(f"iotui CPU, % of one core: median {statistics.median(figures)}, runs {figures}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
