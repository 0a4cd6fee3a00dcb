"""A felt-latency reference beside `iotui run`: does iotui's level agree with what a person feels?

    .venv/bin/python bench/bench_felt.py --target DIR --workload randread-qd128x4 --seconds 60

For each workload, an independent program (its own process, its own clock, standard library
only) does what a person does, over and over: open and read a small file not in the page
cache, save a small file with fdatasync, start a small program (fork + exec of /bin/true), and
wait on a 10 ms timer. It first runs alone for --idle seconds (its own baseline), then beside
`iotui run` of the workload. Each of its seconds is judged by the thresholds and the rise and
fall rules of iotui/core/host/levels.py (read, save and program start like the I/O probe:
+100 ms sluggish, +1 s unresponsive; the timer like the wake-up probe: +16 ms, +100 ms), each
against its own idle p99. Its seconds are then lined up with the record's samples (by wall
clock: fio's report time and each sample's offset), and the agreement is printed: seconds
where both say the same level, false alarms (iotui worse than felt), misses (iotui better).

--streams DIR keeps each workload's samples with the felt verdicts beside them, in the shape
of tests/fixtures/responsiveness/, so a run becomes a core test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from felt_judge import FeltJudge, agreement, align, felt_seconds  # noqa: E402
from felt_workloads import WORKLOADS, Refused, workload_sets  # noqa: E402
from iotui.core.host.levels import SUMMARY_SIGNALS  # noqa: E402

SMALL_FILE_BYTES = 4096
SMALL_FILES = 64
OPS_PER_S = 4  # each file kind, as the I/O probe does
TIMER_S = 0.010
BASELINE_WINDOW_S = 3.0  # like iotui's I/O probe baseline: its last 3 reports


# -- the felt program (a child process of its own) ------------------------------------


def felt_child(directory: Path) -> None:
    """Do what a person does until stdin closes; then print every timed event as JSON on stdout."""
    directory.mkdir(parents=True, exist_ok=True)
    files = []
    for index in range(SMALL_FILES):
        path = directory / f"read-{index}"
        with open(path, "wb") as handle:
            handle.write(os.urandom(SMALL_FILE_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        files.append(path)
    stop = threading.Event()
    events: list[tuple[str, float, float]] = []  # (kind, start wall time, seconds taken)
    running: dict[str, float] = {}  # kind -> start of the operation in flight
    lock = threading.Lock()

    def timed(kind: str, action) -> None:
        start_wall, start = time.time(), time.monotonic()
        with lock:
            running[kind] = start_wall
        action()
        with lock:
            del running[kind]
            events.append((kind, start_wall, time.monotonic() - start))

    def read_one(count: int) -> None:
        path = files[count % len(files)]
        descriptor = os.open(path, os.O_RDONLY)  # drop it from the page cache, untimed
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(descriptor)

        def action() -> None:
            with open(path, "rb", buffering=0) as handle:
                handle.read(SMALL_FILE_BYTES)
        timed("read", action)

    def save_one(count: int) -> None:
        def action() -> None:
            descriptor = os.open(directory / "saved", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(descriptor, os.urandom(SMALL_FILE_BYTES))
                os.fdatasync(descriptor)
            finally:
                os.close(descriptor)
        timed("save", action)

    def start_one(count: int) -> None:
        def action() -> None:
            pid = os.posix_spawn("/bin/true", ["true"], {})
            os.waitpid(pid, 0)
        timed("exec", action)

    def every(period_s: float, work) -> None:
        count, next_at = 0, time.monotonic()
        while not stop.is_set():
            work(count)
            count += 1
            next_at += period_s
            time.sleep(max(0.0, next_at - time.monotonic()))

    threads = [threading.Thread(target=every, args=(1.0 / OPS_PER_S, work), daemon=True)
               for work in (read_one, save_one, start_one)]
    # The timer runs in a process of its own, as a person's editor or terminal would: the file
    # threads here would otherwise make it late by holding the interpreter's lock.
    timer = subprocess.Popen([sys.executable, __file__, "--felt-timer"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    for thread in threads:
        thread.start()
    sys.stdin.read()  # the parent closes our stdin to stop us
    stop.set()
    timer_out, _ = timer.communicate(input="", timeout=60)
    now = time.time()
    with lock:
        # An operation still in flight counts with its age so far (a stall shows while it lasts).
        found = list(events) + [tuple(event) for event in json.loads(timer_out)] + [(kind, start, now - start - (TIMER_S if kind == "timer" else 0.0))
                                for kind, start in running.items()]
    json.dump(found, sys.stdout)
    sys.stdout.flush()
    os._exit(0)  # threads may be stuck in fdatasync; their files go with the directory


def felt_timer() -> None:
    """Wait on a 10 ms timer until stdin closes; print each wake-up's lateness (and one in flight) as JSON."""
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    events: list[tuple[str, float, float]] = []
    start_wall = time.time()
    while not stop.is_set():
        start_wall, start = time.time(), time.monotonic()
        time.sleep(TIMER_S)
        events.append(("timer", start_wall, max(time.monotonic() - start - TIMER_S, 0.0)))
    json.dump(events, sys.stdout)
    sys.stdout.flush()


# -- one workload -------------------------------------------------------------------------


def run_workload(name: str, target: Path, seconds: int, idle_s: int, runs_dir: Path) -> dict:
    """Felt program alone, then beside `iotui run`; the record's samples lined up with its seconds."""
    sets, size = workload_sets(name, target)  # refuses with a sentence (Refused) where it cannot run
    felt_dir = Path(tempfile.mkdtemp(prefix=".felt-", dir=target))
    child = subprocess.Popen([sys.executable, __file__, "--felt-child", str(felt_dir)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(idle_s + 1)  # one second for its files to be made
        load_started = time.time()
        argv = [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--runs-dir", str(runs_dir),
                "--runtime", str(seconds), "--size", size, "--json", "--force"]
        for option in sets:
            argv += ["--set", option]
        iotui = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=seconds * 4 + 600)
        time.sleep(3)
    finally:
        out, _ = child.communicate(input="", timeout=120)  # its stdin closing is its signal to stop
        shutil.rmtree(felt_dir, ignore_errors=True)
    if iotui.returncode != 0:
        raise Refused(f"iotui run failed: {iotui.stderr.strip()[-400:]}")
    events = [tuple(event) for event in json.loads(out)]
    return {"events": events, "load_started": load_started, "record_path": json.loads(iotui.stdout)["path"],
            "command": ["iotui", "run", "quick", "--target", "DIR", "--runtime", str(seconds),
                        *(f"--set={option}" for option in sets), f"--size={size}"]}


def stream_of(command: list[str], record: dict, lined: list[dict], felt_baseline: dict[str, float]) -> dict:
    """The record's samples, each with the felt verdict of its second, in tests/fixtures/responsiveness/'s shape."""
    pressure = record["pressure"]
    keys = (*SUMMARY_SIGNALS, "io_probe_read_iops", "io_probe_write_iops", "responsiveness", "responsiveness_cause")
    seconds = []
    for row in lined:
        second = {key: row["sample"][key] for key in keys if key in row["sample"]}
        second["felt_level"] = row["felt_level"]
        second.update({f"felt_{kind}_ms": round(value, 3) for kind, value in row["felt"].items()})
        seconds.append(second)
    return {
        "command": command,
        "baseline": {
            "probe_p99_ms": pressure.get("probe_baseline_p99_ms"),
            "io_probe_p99_ms": pressure.get("io_probe_baseline_p99_ms"),
            "io_probe_write_p99_ms": pressure.get("io_probe_write_baseline_p99_ms"),
        },
        "felt_baseline": {f"felt_{kind}_ms": round(value, 3) for kind, value in felt_baseline.items()},
        "seconds": seconds,
    }


def main() -> int:
    if sys.argv[1:] == ["--felt-timer"]:
        felt_timer()
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--felt-child":
        felt_child(Path(sys.argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, type=Path, help="a directory on the disk to judge")
    parser.add_argument("--workload", action="append", choices=sorted(WORKLOADS), help="repeatable; default: all")
    parser.add_argument("--seconds", type=int, default=60, help="seconds of load per workload (default 60)")
    parser.add_argument("--idle", type=int, default=10, help="the felt program's idle baseline, seconds")
    parser.add_argument("--whole-idle", action="store_true",
                        help="the felt baseline over all --idle seconds (default: the last 3 s of them)")
    parser.add_argument("--streams", type=Path, help="keep each workload's samples and felt verdicts here")
    args = parser.parse_args()
    from iotui.core.records.files import load_record

    rows = []
    with tempfile.TemporaryDirectory(prefix="felt-runs-") as runs:
        for name in args.workload or sorted(WORKLOADS):
            print(f"{name}: {WORKLOADS[name].what}", file=sys.stderr)
            try:
                run = run_workload(name, args.target, args.seconds, args.idle, Path(runs))
            except Refused as error:
                print(f"  skipped: {error}", file=sys.stderr)
                rows.append({"workload": name, "skipped": str(error)})
                continue
            record = load_record(Path(run["record_path"]))
            report = json.loads((Path(runs) / record.run["report"]).read_text())
            # The felt baseline from the last seconds before iotui started, the quiet moment nearest
            # iotui's own (its --baseline 2 s, before fio starts); with --whole-idle, all --idle seconds.
            began = 0.0 if args.whole_idle else run["load_started"] - BASELINE_WINDOW_S
            seconds, baseline = felt_seconds(run["events"], began, run["load_started"])
            fio_end = report["timestamp_ms"] / 1000.0
            levels = FeltJudge(baseline).judge(seconds)
            lined = align(record.samples, fio_end, seconds, levels)
            result = {"workload": name, "baseline": baseline, **agreement(lined)}
            rows.append(result)
            print(json.dumps(result), file=sys.stderr)
            if args.streams is not None:
                args.streams.mkdir(parents=True, exist_ok=True)
                doc = {"pressure": record.pressure, "samples": record.samples}
                (args.streams / f"felt-{name}.json").write_text(json.dumps(stream_of(run["command"], doc, lined, baseline), indent=1) + "\n")
    print(markdown_table(rows))
    return 0


def markdown_table(rows: list[dict]) -> str:
    lines = ["| workload | seconds | same level | false alarms | misses | iotui unresp. / felt < +1 s "
             "| iotui ok / felt > +1 s | felt worst (read / save / exec / timer p99, ms) | iotui worst |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for row in rows:
        if "skipped" in row:
            lines.append(f"| {row['workload']} | skipped: {row['skipped']} |||||||")
            continue
        worst = " / ".join(f"{row['felt_worst'].get(kind, 0):.0f}" for kind in ("read", "save", "exec", "timer"))
        lines.append(
            f"| {row['workload']} | {row['seconds']} | {row['same']} ({row['same_pct']:.0f}%) | {row['false_alarms']} "
            f"| {row['misses']} | {row['severe_false_alarms']} | {row['severe_misses']} | {worst} "
            f"| {row['iotui_worst']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
