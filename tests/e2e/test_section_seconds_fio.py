"""A second belongs to one section: the ``desktop`` preset on real fio, its record's rows against fio's report.

Eight 1-second sections run one after another, so nearly every 1-second status
interval spans two of them. Each row must hold only its own section's I/O (only
in that section's direction), and each section's rows must add up to the I/Os
fio reports for that group.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.fio.intervals import DIRECTIONS
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]


def test_desktop_rows_split_per_section_and_add_up_to_fio(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "desktop", "--runtime", "1", "--size", "8M", "--baseline", "0",
         "--runs-dir", str(runs), "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    record = load_record(Path(json.loads(result.stdout)["path"]))
    report = json.loads((runs / record.run["report"]).read_text())
    assert_rows_add_up_to_fio(record, report)


def assert_rows_add_up_to_fio(record, report: dict, groups: int = 8) -> None:
    """Each row holds I/O only in its section's directions, and a section's rows add up to fio's I/Os
    for its group; some seconds spanned two sections (one row each, at the same ``t_s``)."""
    fio_ios: dict[tuple[int, str], int] = {}
    for job in report["jobs"]:
        for direction in DIRECTIONS:
            ios = (job.get(direction) or {}).get("total_ios", 0)
            if ios:
                key = (job["groupid"], direction)
                fio_ios[key] = fio_ios.get(key, 0) + ios
    assert len({groupid for groupid, _ in fio_ios}) == groups

    added: dict[tuple[int, str], float] = {}
    times = [row["t_s"] for row in record.samples]
    for row in record.samples:
        section = record.sections[row["section"]]
        groupid = section["groupid"]
        for direction in DIRECTIONS:
            iops = row.get(f"{direction}_iops")
            if iops is None:
                continue
            # A row's section has I/O only in directions that section does.
            assert (groupid, direction) in fio_ios, (row["t_s"], section["name"], direction, iops)
            added[(groupid, direction)] = added.get((groupid, direction), 0.0) + iops * row["dt_s"]
        assert 0 < row["dt_s"] <= 1.1
    # Each section's rows add up to fio's own I/Os for that group.
    assert {key: round(value) for key, value in added.items()} == fio_ios
    # Some seconds spanned two sections: one row each, at the same t_s.
    assert len(times) > len(set(times))
