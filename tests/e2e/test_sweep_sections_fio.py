"""``iotui sweep`` with real fio over a preset of two sections (random read, then random write).

Each section gets its own table and sweet spot, checked here against each point's run record's own
section figures; nothing is added across the two sections. Rate-limited 1 s points, 4 MiB files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from iotui.core.sweep import SWEEP_SUFFIX
from iotui.core.sweep.record import load_sweep
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

PRESET = """\
name = "two-sections"
title = "random read, then random write"
description = "Two reporting groups one after another"
tells = "How each section scales with jobs"

[options]
ioengine = "psync"
bs = "4k"
numjobs = 1
size = "4M"
runtime = 1
time_based = ""
group_reporting = ""

[[jobs]]
name = "randread"
rw = "randread"
rate_iops = 100

[[jobs]]
name = "randwrite"
rw = "randwrite"
rate_iops = 50

[sweep]
vary = { numjobs = ["1", "2"] }
"""


def expected_sweet_spot(rows: list[tuple[str, float, str | None]]) -> str:
    """The documented rule, applied by hand: among responsive points, the smallest numjobs reaching 95% of the best."""
    responsive = [row for row in rows if row[2] in (None, "ok")]
    candidates = responsive or [row for row in rows if row[2] != "unresponsive"] or rows
    best = max(iops for _, iops, _ in candidates)
    return min((row for row in candidates if row[1] >= 0.95 * best), key=lambda row: int(row[0]))[0]


def test_each_section_is_analysed_on_its_own_figures(tmp_path: Path) -> None:
    preset = tmp_path / "two-sections.toml"
    preset.write_text(PRESET)
    target = tmp_path / "target"
    target.mkdir()
    command = [sys.executable, "-m", "iotui", "sweep", str(preset), "--target", str(target),
               "--runs-dir", str(tmp_path / "runs"), "--baseline", "0", "--format", "json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "randread: read" in result.stderr and "randwrite: write" in result.stderr  # each point's line, per section
    doc = json.loads(result.stdout)
    assert [section["name"] for section in doc["sections"]] == ["randread", "randwrite"]
    assert doc["sweet_spot"] is None and not any("nothing to analyse" in note for note in doc["notes"])
    records = [load_record(Path(point["record"])) for point in doc["points"]]
    assert [len(record.sections) for record in records] == [2, 2]
    for index, (section, direction, other) in enumerate(zip(doc["sections"], ("read", "write"), ("write", "read"))):
        rows = []
        for point, record in zip(section["points"], records):
            own = record.sections[index]
            assert own["name"] == section["name"]
            # The section's figures are the record's section's own, exactly; the other direction did nothing here.
            assert point[f"{direction}_iops"] == own[direction]["iops"] > 0
            assert point[f"{direction}_lat_p99_ns"] == own[direction]["lat_p99_ns"]
            assert point[f"{other}_iops"] is None
            level = own.get("pressure", {}).get("responsiveness")
            assert point["responsiveness"] == level
            rows.append((point["params"]["numjobs"], own[direction]["iops"], level))
        assert section["sweet_spot"]["params"] == {"numjobs": expected_sweet_spot(rows)}
        assert set(section["balanced"]) == {"params", "why"}
    sweep = load_sweep(next((tmp_path / "runs").glob(f"*{SWEEP_SUFFIX}")))
    assert sweep.status == "completed" and [len(point.sections) for point in sweep.points] == [2, 2]
    assert list(target.iterdir()) == []
