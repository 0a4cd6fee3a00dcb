"""Parse cost per fio status document for 1, 32 and 256 jobs (no group_reporting).

Records a real fio json+ capture for each job count (tiny file, 3 s, rate
limited so the machine stays calm), then times the splitter + interval
derivation per document, best of 20 repeats.

    python bench/bench_parse.py [--jobs 1,32,256]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.fio.status import FioDocument, StatusSplitter


def capture(jobs: int, directory: Path) -> bytes:
    argv = [
        "fio", "--name=bench", f"--filename={directory / 'bench.file'}", "--size=8M", "--rw=randread",
        "--bs=4k", "--runtime=3", "--time_based", f"--numjobs={jobs}", "--rate_iops=50",
        "--thread", "--output-format=json+", "--status-interval=1", "--eta=never",
    ]
    return subprocess.run(argv, capture_output=True, check=True).stdout


def time_per_document(data: bytes, repeats: int = 20) -> tuple[float, int, int]:
    timings = []
    document_count = 0
    for _ in range(repeats):
        splitter = StatusSplitter()
        deriver = IntervalDeriver()
        started = time.perf_counter()
        document_count = 0
        # Feed in pipe-sized chunks, as the runner does.
        for offset in range(0, len(data), 65536):
            for item in splitter.feed(data[offset : offset + 65536]):
                if isinstance(item, FioDocument):
                    deriver.feed(item.doc)
                    document_count += 1
        timings.append((time.perf_counter() - started) / max(document_count, 1))
    return min(timings), document_count, len(data) // max(document_count, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", default="1,32,256")
    args = parser.parse_args()
    print(f"{'jobs':>5} {'docs':>5} {'bytes/doc':>10} {'ms/doc':>8}")
    with tempfile.TemporaryDirectory(dir=".") as directory:
        for jobs in (int(j) for j in args.jobs.split(",")):
            data = capture(jobs, Path(directory))
            per_doc_s, count, size = time_per_document(data)
            print(f"{jobs:>5} {count:>5} {size:>10} {per_doc_s * 1000:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
