#!/usr/bin/env python3
"""Parse and derive one status document of 1,024 jobs, synthesized from a real 32-job capture.

Records a real fio json+ capture of 32 jobs (no group_reporting, so every job is
its own entry; tiny file, rate limited, 3 s), takes two consecutive status
documents and widens each to 1,024 jobs by repeating its 32 real entries under
new names, printed the way fio prints JSON. Then times what the runner does
with each document as it arrives, fed in 64 KiB pipe-sized chunks: the
splitter (which parses the document once) plus the interval derivation.

Three ways are timed, alternately: the whole document with the standard library's
``json`` and, when installed, with ``orjson``; and, with msgspec installed, the way a
live run reads a large document (``core/fio/live_decode.py``: only the fields each
second uses, fio's whole report parsed once at the end). ``pip install 'iotui[fast]'``
installs both; a live run uses the live decode where it can.

    python bench/bench_parse_large.py [--jobs 1024] [--repeats 15]

Target: at most 50 ms per document for 1,024 jobs (it was under 100 ms).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from iotui.core.fio import live_decode, status  # noqa: E402
from iotui.core.fio.intervals import IntervalDeriver  # noqa: E402
from iotui.core.fio.status import FioDocument, StatusSplitter  # noqa: E402

CAPTURED_JOBS = 32


def capture(directory: Path) -> list[dict]:
    argv = [
        "fio", "--name=bench", f"--filename={directory / 'bench.file'}", "--size=8M", "--rw=randread",
        "--bs=4k", "--runtime=3", "--time_based", f"--numjobs={CAPTURED_JOBS}", "--rate_iops=50",
        "--thread", "--output-format=json+", "--status-interval=1", "--eta=never",
    ]
    output = subprocess.run(argv, capture_output=True, check=True).stdout
    splitter = StatusSplitter()
    documents = [item.doc for item in splitter.feed(output) + splitter.close() if isinstance(item, FioDocument)]
    if len(documents) < 2:
        raise SystemExit("bench_parse_large: fio printed fewer than two status documents")
    return documents


def widen(document: dict, jobs: int) -> dict:
    """The document with ``jobs`` entries: the real ones repeated under new names."""
    wide = copy.deepcopy(document)
    real = document["jobs"]
    wide["jobs"] = []
    for index in range(jobs):
        entry = copy.deepcopy(real[index % len(real)])
        entry["jobname"] = f"{entry['jobname']}-{index}"
        wide["jobs"].append(entry)
    return wide


def as_fio_prints(document: dict) -> bytes:
    """Pretty-printed as fio prints it (two-space indent, ``"key" : value``)."""
    return (json.dumps(document, indent=2, separators=(",", " : ")) + "\n").encode()


def wide_stream(jobs: int) -> bytes:
    """Two consecutive status documents of a real capture, each widened to ``jobs`` entries, as fio prints them."""
    with tempfile.TemporaryDirectory() as directory:
        documents = capture(Path(directory))
    return b"".join(as_fio_prints(widen(document, jobs)) for document in documents[-2:])


def time_per_document(stream: bytes, documents_in_stream: int, *, live: bool = False) -> tuple[float, float]:
    """Seconds of splitter + derivation per document, the stream fed in 64 KiB chunks: wall clock,
    and this process's CPU time (what a shared machine's other load inflates least)."""
    splitter = StatusSplitter(live=live)
    deriver = IntervalDeriver()
    seen = 0
    started = time.perf_counter()
    started_cpu = time.process_time()
    for offset in range(0, len(stream), 65536):
        for item in splitter.feed(stream[offset : offset + 65536]):
            if isinstance(item, FioDocument):
                deriver.feed(item.doc)
                seen += 1
    elapsed = time.perf_counter() - started
    elapsed_cpu = time.process_time() - started_cpu
    assert seen == documents_in_stream, (seen, documents_in_stream)
    return elapsed / seen, elapsed_cpu / seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    stream = wide_stream(args.jobs)
    print(f"{args.jobs} jobs (from a real {CAPTURED_JOBS}-job capture): {len(stream) // 2:,} bytes per document")

    # iotui's own parse (status.parse_json: the garbage collector paused for a large document),
    # with orjson and with the standard library, by switching the module's orjson off and on.
    installed = status.orjson
    parsers: dict[str, object] = {"json (standard library)": None}
    if installed is None:
        print("orjson is not installed: only the standard library is timed (pip install orjson)")
    else:
        parsers["orjson " + installed.__version__] = installed
    if live_decode.available():
        parsers["live (msgspec " + live_decode.msgspec.__version__ + ")"] = installed
    else:
        print("msgspec is not installed: the live decode is not timed (pip install msgspec)")
    timings: dict[str, list[float]] = {name: [] for name in parsers}
    cpu_timings: dict[str, list[float]] = {name: [] for name in parsers}
    load_before = os.getloadavg()[0]
    try:
        for _ in range(args.repeats):
            for name, module in parsers.items():  # alternately, so a busy moment hits both
                status.orjson = module  # type: ignore[assignment]
                wall_s, cpu_s = time_per_document(stream, 2, live=name.startswith("live"))
                timings[name].append(wall_s)
                cpu_timings[name].append(cpu_s)
    finally:
        status.orjson = installed
    for name, values in timings.items():
        cpu = cpu_timings[name]
        print(f"  {name:26} median {statistics.median(values) * 1000:6.1f} ms per document "
              f"(best {min(values) * 1000:.1f}, worst {max(values) * 1000:.1f}; {args.repeats} repeats); "
              f"CPU median {statistics.median(cpu) * 1000:.1f} ms (best {min(cpu) * 1000:.1f})")
    print(f"load average (1 min) {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} CPUs")
    used = "orjson (standard library for what it refuses)" if status.orjson is not None else "the standard library"
    if live_decode.available():
        used = f"the live decode, and {used} for fio's final report and what the live decode refuses"
    print(f"a live run reads with {used}; target: at most 50 ms per document")
    return 0


if __name__ == "__main__":
    sys.exit(main())
