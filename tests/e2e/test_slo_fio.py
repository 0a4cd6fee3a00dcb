"""``iotui sweep --slo`` on real fio: rate-limited points, the choice checked against fio's own reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.sweep.analysis import analyze
from iotui.core.sweep.record import load_sweep
from iotui.core.sweep.slo import parse_slo
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

JOB = """\
[global]
ioengine=psync
rw=randread
bs=4k
size=4M
time_based
runtime=1

[rated]
"""


def _fio_read(record_path: Path) -> dict:
    """fio's own read figures of one point, from the report saved beside its record."""
    from iotui.core.records.files import load_record

    record = load_record(record_path)
    report = json.loads((record_path.parent / record.run["report"]).read_text())
    return report["jobs"][0]["read"]


def test_slo_names_the_highest_iops_point_that_meets_it(tmp_path: Path) -> None:
    job = tmp_path / "rated.fio"
    job.write_text(JOB)
    target = tmp_path / "target"
    target.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "sweep", "--job-file", str(job), "--vary", "rate_iops=100,200,400",
         "--target", str(target), "--runs-dir", str(tmp_path / "runs"), "--baseline", "0",
         "--slo", "read p99<=10s", "--format", "json"],
        capture_output=True, text=True, timeout=90,
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    sweep = load_sweep(Path(doc["sweep"]["path"]))
    reports = {point.params["rate_iops"]: _fio_read(sweep.record_path(point)) for point in sweep.points}
    assert sorted(reports) == ["100", "200", "400"]
    # Every point's p99 is far below 10 s, so the winner is the point fio itself gave the most IOPS.
    # The rate limits usually order them (400 first), but on a loaded machine a 1-second point can
    # fall short of its limit, and the answer must follow fio's figures, not the limits.
    iops = {rate: fio["iops"] for rate, fio in reports.items()}
    winner = max(["100", "200", "400"], key=lambda rate: (iops[rate], -int(rate)))
    assert doc["slo"]["params"] == {"rate_iops": winner}, iops
    assert doc["slo"]["why"].startswith(f"rate_iops={winner} gives the most read IOPS that meet read p99 <= 10.0s")
    assert doc["slo"]["iops"] == reports[winner]["iops"]
    assert doc["slo"]["latency_ns"] == reports[winner]["clat_ns"]["percentile"]["99.000000"]

    # A limit between the points' own p99s: the answer worked out from fio's reports alone.
    p99s = {rate: fio["clat_ns"]["percentile"]["99.000000"] for rate, fio in reports.items()}
    limit_ns = min(p99s.values())
    expected = max((rate for rate, p99 in p99s.items() if p99 <= limit_ns), key=lambda rate: reports[rate]["iops"])
    analysis = analyze(sweep.results(), sweep.axes, parse_slo(f"read p99<={limit_ns}ns"))
    assert analysis.slo is not None and analysis.slo.params == {"rate_iops": expected}

    none = analyze(sweep.results(), sweep.axes, parse_slo("read p99<=1ns")).slo
    assert none is not None and none.params is None
    assert none.why.startswith("No point meets read p99 <= 1ns: the lowest read p99 was ")


def test_a_bad_slo_is_refused_before_anything_runs(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "sweep", "quick", "--vary", "numjobs=1,2", "--target", str(tmp_path),
         "--runs-dir", str(tmp_path / "runs"), "--slo", "read p95<=1ms"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode != 0
    assert "--slo:" in result.stderr and "'p95'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "runs").exists()
