"""Record the per-second responsiveness signals while a load runs, as JSON.

    python bench/record_stream.py --target DIR --quiet 3 --seconds 8 -- fio --name=x ...

Starts the wake-up probe, the I/O probe (in DIR) and the host sampler, keeps
`--quiet` seconds as the baseline, then runs the command and records one row per
second for `--seconds` seconds (or until the command ends). The output is what
tests/fixtures/responsiveness/ holds: {"baseline": {...}, "seconds": [{...}, ...]},
with the same keys a run record's samples use.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from iotui.core.host.counters import HostSampler  # noqa: E402
from iotui.core.host.io_probe import IoProbe  # noqa: E402
from iotui.core.host.levels import SUMMARY_SIGNALS, signal_values  # noqa: E402
from iotui.core.host.wakeup_probe import WakeupProbe  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="directory for the I/O probe")
    parser.add_argument("--quiet", type=int, default=3, help="baseline seconds before the load")
    parser.add_argument("--seconds", type=int, default=8, help="seconds to record under load")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the load, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    sampler, wakeup, io = HostSampler([]), WakeupProbe(), IoProbe(Path(args.target))
    wakeup.start()
    io.start()
    sampler.sample()
    rows: list[dict] = []

    def wait_one_second() -> dict:
        time.sleep(1.0)
        values = signal_values(sampler.sample(), wakeup.read_latest(), io.read_latest())
        row = {key: round(value, 3) for key, value in values.items() if key in SUMMARY_SIGNALS and value is not None}
        latest = io.read_latest()
        if latest is not None:
            row["io_probe_read_iops"], row["io_probe_write_iops"] = latest.read_iops, latest.write_iops
        return row

    load = None
    try:
        for _ in range(args.quiet):
            wait_one_second()
        wake_base, io_base = wakeup.baseline(args.quiet), io.baseline(args.quiet)
        baseline = {
            "probe_p99_ms": wake_base.p99_ms if wake_base else None,
            "io_probe_p99_ms": io_base.read_p99_ms if io_base else None,
            "io_probe_write_p99_ms": io_base.write_p99_ms if io_base else None,
        }
        if command:
            load = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        for _ in range(args.seconds):
            rows.append(wait_one_second())
            if load is not None and load.poll() is not None:
                break
    finally:
        if load is not None and load.poll() is None:
            load.terminate()
            load.wait()
        wakeup.stop()
        io.stop()
    json.dump({"command": command, "baseline": baseline, "seconds": rows}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
