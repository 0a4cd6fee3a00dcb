"""``iotui import`` of one json+ report with many reporting groups: wall seconds against the group count.

Makes a json+ report of GROUPS reporting groups from a real fio 3.33 json+ output in
tests/fixtures (each of its jobs copied with a distinct ``groupid`` and job name, so every
group is one section), then runs the real command, ``python -m iotui import FILE --runs-dir
SCRATCH``, and prints the wall time and the CPU seconds it used (user + system, from the child's
rusage; a busy machine inflates them less than the wall clock) for each count.

    .venv/bin/python bench/bench_import_groups.py --groups 1000 2000 4000 10000

Target: 10,000 groups in under 30 s.
"""

from __future__ import annotations

import argparse
import copy
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "fixtures" / "import" / "fio-3.33" / "two-groups-json+.txt"


def report_with_groups(groups: int, source: Path = SOURCE, *, bins: bool = True) -> str:
    """A json+ report holding ``groups`` reporting groups, made of the source's first job.

    ``bins=False`` leaves out json+'s latency bins (a plain JSON report), so what grows with the
    groups themselves is not hidden behind the bins' reading."""
    text = source.read_text()
    document = json.loads(text[text.index("{"):])
    job = document["jobs"][0]
    if not bins:
        for direction in ("read", "write", "trim", "sync"):
            for latency in ("clat_ns", "lat_ns", "slat_ns"):
                table = job.get(direction, {}).get(latency)
                if isinstance(table, dict):
                    table.pop("bins", None)
    jobs = []
    for groupid in range(groups):
        copied = copy.deepcopy(job)
        copied["groupid"] = groupid
        copied["jobname"] = f"group{groupid}"
        copied.setdefault("job options", {})["name"] = f"group{groupid}"
        jobs.append(copied)
    document["jobs"] = jobs
    return json.dumps(document, indent=2)


def time_import(groups: int, scratch: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``iotui import`` of a report of ``groups`` groups."""
    report = scratch / f"groups-{groups}.json"
    report.write_text(report_with_groups(groups))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "import", str(report), "--runs-dir", str(scratch / f"runs-{groups}")],
        capture_output=True, text=True, cwd=ROOT,
    )
    elapsed_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"import failed: {result.stderr[-2000:]}")
    return elapsed_s, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, nargs="+", default=[1000, 2000, 4000])
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for groups in options.groups:
            size_mb = len(report_with_groups(groups)) / 1e6
            wall_s, cpu_s = time_import(groups, Path(scratch))
            print(f"{groups:>6} groups ({size_mb:.0f} MB): wall {wall_s:.1f} s, CPU {cpu_s:.1f} s", flush=True)


if __name__ == "__main__":
    main()
