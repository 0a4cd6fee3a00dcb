"""``iotui run desktop`` on real fio: eight sections named as the table's rows, the table, its export.

Each test runs 1 s on an 8 MiB file; the whole run takes about ten seconds. Every section's
responsiveness verdict is checked against its own figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.host.section_pressure import verdict_contradiction
from iotui.core.records.desktop_table import desktop_compare_markdown, desktop_rows
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

ROWS = [
    ("SEQ1M Q8T1", "read"), ("SEQ1M Q8T1", "write"), ("SEQ1M Q1T1", "read"), ("SEQ1M Q1T1", "write"),
    ("RND4K Q32T1", "read"), ("RND4K Q32T1", "write"), ("RND4K Q1T1", "read"), ("RND4K Q1T1", "write"),
]


def iotui(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iotui", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))


def test_desktop_gives_the_table_in_one_run(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    result = iotui("run", "desktop", "--runtime", "1", "--size", "8M", "--baseline", "0", "--runs-dir", str(runs),
                   "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    record = load_record(Path(json.loads(result.stdout)["path"]))
    names = [section["name"] for section in record.sections]
    assert names == [
        "seq1m-q8t1-read", "seq1m-q8t1-write", "seq1m-q1t1-read", "seq1m-q1t1-write",
        "rnd4k-q32t1-read", "rnd4k-q32t1-write", "rnd4k-q1t1-read", "rnd4k-q1t1-write",
    ]
    report = json.loads((runs / record.run["report"]).read_text())
    fio_jobs = {job["jobname"]: job for job in report["jobs"]}
    rows = desktop_rows(record.sections)
    assert [(row.test, row.direction) for row in rows] == ROWS
    for row in rows:
        fio = fio_jobs[row.section][row.direction]  # each row is its own section's figures, as fio reported them
        assert row.iops == fio["iops"] and row.bw_bytes == fio["bw_bytes"]
        assert row.lat_mean_ns == fio["clat_ns"]["mean"]
        assert row.lat_p99_ns == fio["clat_ns"]["percentile"]["99.000000"]
    # Each section's verdict is its own evidence (level, cause, value and threshold agree).
    assert all("pressure" in section for section in record.sections)
    for section in record.sections:
        assert verdict_contradiction(section["pressure"], record.pressure) is None, section["pressure"]
    assert verdict_contradiction(record.pressure, record.pressure) is None
    # 1-second tests are too short for a steady-state judgement (ten whole seconds): each says so.
    for section in record.sections:
        assert section["steady"]["reached"] is False and section["steady"]["window_s"] == 10, section
        assert section["steady"]["judged_s"] < 10
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".iotui-")] == []

    exported = iotui("export", str(record.path), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert "| test | direction | MiB/s | IOPS | mean | p99 | bar | steady state |" in lines
    assert all("too short to judge:" in line and "window needed" in line for line in lines
               if line.startswith("| SEQ") or line.startswith("| RND"))
    table = [line for line in lines if line.startswith("| SEQ") or line.startswith("| RND")]
    assert [tuple(cell.strip() for cell in line.strip("|").split("|")[:2]) for line in table[:8]] == ROWS
    best = max(rows, key=lambda row: row.bw_bytes or 0)
    best_line = next(line for line in table if line.startswith(f"| {best.test} | {best.direction} |"))
    assert "█" * 20 in best_line  # the best row's bar is full width

    side_by_side = desktop_compare_markdown(record, record)
    assert side_by_side.count("| SEQ1M Q8T1 | read |") == 1 and "+0.0%" in side_by_side
