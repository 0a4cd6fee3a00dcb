"""What --json-stream and --metrics cost iotui's process per second of a run, measured part by part.

A real ``iotui run quick`` (3 s, 8 MiB) gives real sample rows; each row is then handed
``--rounds`` times through what the two options add to a run: the stream's translator (a
``second`` event from the session's event), its JSON line written to /dev/null and flushed, and
the metrics' update; and the metrics page is rendered as a Prometheus scrape would get it. A run
makes one row per section per second (one per host, and one for the aggregate, with --hosts) and
Prometheus scrapes it once per scrape interval, so the CPU per second of a run is about
(row cost x rows per second) + (scrape cost x scrapes per second).

    python bench/bench_stream_cost.py [--rounds 20000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prometheus_client import CollectorRegistry, generate_latest  # noqa: E402
from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics  # noqa: E402

from iotui.core.fio.intervals import DirectionInterval, IntervalSample  # noqa: E402
from iotui.core.records.files import load_record  # noqa: E402
from iotui.core.runs.events import IntervalUpdate  # noqa: E402
from iotui.core.stream.events import to_line  # noqa: E402
from iotui.core.stream.metrics import LiveMetrics  # noqa: E402
from iotui.core.stream.translate import StreamTranslator  # noqa: E402


class _Collector:
    def __init__(self, metrics: LiveMetrics) -> None:
        self.metrics = metrics

    def collect(self):  # noqa: ANN201 - prometheus_client's protocol
        return self.metrics.families()


def real_rows(scratch: Path) -> list[dict]:
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--runtime", "3", "--size", "8M", "--baseline", "1",
         "--runs-dir", str(scratch / "runs"), "--target", str(scratch), "--json"],
        capture_output=True, text=True, check=True,
    )
    return list(load_record(Path(json.loads(result.stdout)["path"])).samples)


def update_of(row: dict) -> IntervalUpdate:
    directions = {
        direction: DirectionInterval(
            ios=round(row[f"{direction}_iops"] * row["dt_s"]), iops=row[f"{direction}_iops"],
            bw_bytes=row[f"{direction}_bw_bytes"], lat_mean_ns=row.get(f"{direction}_lat_mean_ns"), lat_min_ns=None,
            lat_max_ns=row.get(f"{direction}_lat_max_ns"), lat_percentiles_ns={},
        )
        for direction in ("read", "write") if f"{direction}_iops" in row
    }
    return IntervalUpdate(IntervalSample(row["t_s"], row["dt_s"], directions, groupid=0), None, row, 0.0)


def per_call_us(work, rounds: int) -> float:  # noqa: ANN001
    started = time.process_time()
    for _ in range(rounds):
        work()
    return (time.process_time() - started) / rounds * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        rows = real_rows(Path(scratch))
    updates = [update_of(row) for row in rows]
    translator = StreamTranslator()
    metrics = LiveMetrics()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(metrics))  # type: ignore[arg-type]
    out = open(os.devnull, "w")  # noqa: SIM115
    position = [0]

    def one_row() -> None:
        update = updates[position[0] % len(updates)]
        position[0] += 1
        for event in translator.translate(update):
            out.write(to_line(event) + "\n")
            out.flush()
            metrics.observe(event)

    row_us = per_call_us(one_row, args.rounds)
    text_us = per_call_us(lambda: generate_latest(registry), max(args.rounds // 10, 100))
    open_us = per_call_us(lambda: generate_openmetrics(registry), max(args.rounds // 10, 100))
    print(f"{len(rows)} real rows of `iotui run quick`; {args.rounds:,} rounds")
    print(f"a row through the stream (translate, JSON line written and flushed, metrics updated): {row_us:.1f} us")
    print(f"a scrape, Prometheus text: {text_us:.1f} us; OpenMetrics text: {open_us:.1f} us")
    local = row_us + open_us
    print(f"a local run (one row and one scrape a second): {local:.0f} us a second = {local / 1e4:.4f}% of a core")
    # 128 hosts: each host's row and the aggregate's a second, and a scrape of all of them.
    fleet = LiveMetrics()
    fleet_registry = CollectorRegistry(auto_describe=False)
    fleet_registry.register(_Collector(fleet))  # type: ignore[arg-type]
    seconds = [event for update in updates for event in StreamTranslator().translate(update)]
    for index in range(128):
        for event in seconds:
            fleet.observe(dataclasses.replace(event, host=f"host{index}"))
    fleet_us = per_call_us(lambda: generate_openmetrics(fleet_registry), max(args.rounds // 100, 20))
    hosts = 129 * row_us + fleet_us
    print(f"128 hosts: a scrape {fleet_us:.0f} us; 129 rows and one scrape a second: {hosts:.0f} us a second "
          f"= {hosts / 1e4:.3f}% of a core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
