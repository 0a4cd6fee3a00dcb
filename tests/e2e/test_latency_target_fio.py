"""The latency-target preset on real fio: the record keeps the queue depth fio settled on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.findings import latency_target_sentence
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]


def test_latency_target_records_fios_depth_and_the_iops_it_held(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "latency-target", "--runtime", "2", "--size", "8M", "--baseline", "0",
         "--runs-dir", str(tmp_path / "runs"), "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=90,
    )
    assert result.returncode == 0, result.stderr
    record = load_record(Path(json.loads(result.stdout)["path"]))
    job = json.loads((tmp_path / "runs" / record.run["report"]).read_text())["jobs"][0]
    (section,) = record.sections
    assert section["latency_target"] == {
        "target_ns": job["latency_target"], "depth": job["latency_depth"],
        "percentile": job["latency_percentile"], "window_s": job["latency_window"] / 1e6,
    }
    assert section["latency_target"]["target_ns"] == 1_000_000  # the preset's 1ms
    assert 1 <= section["latency_target"]["depth"] <= 64
    assert section["read"]["iops"] == job["read"]["iops"]
    assert latency_target_sentence(section).startswith(f"fio settled on queue depth {job['latency_depth']} and held ")
