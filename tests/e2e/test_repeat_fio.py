"""``iotui run --repeat N`` on real fio: N records in one group, and the spread between them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]


def test_repeat_runs_twice_and_reports_the_spread(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--runtime", "1", "--size", "4M", "--set", "rw=randread",
         "--set", "rate_iops=300", "--baseline", "0", "--repeat", "2", "--runs-dir", str(tmp_path / "runs"),
         "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=90,
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    records = [load_record(Path(run["path"])) for run in printed["runs"]]
    assert [r.run["repeat_index"] for r in records] == [1, 2]
    assert {r.run["repeat_group"] for r in records} == {printed["repeat_group"]}
    (spread,) = printed["spread"]
    assert spread["direction"] == "read"
    assert spread["values"] == [r.sections[0]["read"]["iops"] for r in records]
    assert "Spread over 2 runs" in result.stderr
    bad = subprocess.run([sys.executable, "-m", "iotui", "run", "quick", "--repeat", "0"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "--repeat should be a whole number of at least 1" in bad.stderr
