#!/usr/bin/env python3
"""The live decode of another revision against this one, alternately in one process.

Times what a live run does with each 1,024-job json+ document (split, live decode, the
interval derivation) with this tree's ``live_decode`` schema and with an older
``live_decode.py``'s, in turn, so a busy moment of a shared machine hits both; prints each
side's median and best, wall and CPU, and the median of the pairs' ratios (this tree over
the other):

    git show HEAD~1:iotui/core/fio/live_decode.py > /tmp/live_decode_old.py
    python bench/bench_live_decode_ab.py /tmp/live_decode_old.py [--pairs 25] [--jobs 1024]

The stream is made as bench_parse_large.py makes it (a real 32-job capture widened).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_parse_large  # noqa: E402
from bench_splitter_ab import load_other  # noqa: E402
from iotui.core.fio import live_decode  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="an older iotui/core/fio/live_decode.py")
    parser.add_argument("--pairs", type=int, default=25)
    parser.add_argument("--jobs", type=int, default=1024)
    args = parser.parse_args()
    if not live_decode.available():
        raise SystemExit("bench_live_decode_ab: msgspec is not installed (pip install 'iotui[fast]')")
    other = load_other(args.other, "live_decode_other")
    stream = bench_parse_large.wide_stream(args.jobs)
    decoders = {"this tree": live_decode._DECODER, "other": other._DECODER}
    timings: dict[str, list[float]] = {name: [] for name in decoders}
    cpu_timings: dict[str, list[float]] = {name: [] for name in decoders}
    try:
        for pair in range(args.pairs):
            order = list(decoders) if pair % 2 == 0 else list(reversed(decoders))  # who goes first alternates
            for name in order:
                live_decode._DECODER = decoders[name]
                wall_s, cpu_s = bench_parse_large.time_per_document(stream, 2, live=True)
                timings[name].append(wall_s * 1000)
                cpu_timings[name].append(cpu_s * 1000)
    finally:
        live_decode._DECODER = decoders["this tree"]
    for name, values in timings.items():
        cpu = cpu_timings[name]
        print(f"  {name:10} median {statistics.median(values):6.1f} ms per document (best {min(values):.1f}); "
              f"CPU median {statistics.median(cpu):.1f} ms (best {min(cpu):.1f})")
    for label, table in (("wall", timings), ("CPU", cpu_timings)):
        ratios = [mine / theirs for mine, theirs in zip(table["this tree"], table["other"])]
        print(f"  this tree / other, {label}, pair by pair: median {statistics.median(ratios):.3f} "
              f"(from {min(ratios):.2f} to {max(ratios):.2f}, {args.pairs} pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
