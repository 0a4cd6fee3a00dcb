"""A live run whose every status document is read with only the per-second fields
(core/fio/live_decode.py, normally for documents of 1 MiB and more): the seconds are the same
and the record keeps fio's whole final report.

The threshold is lowered for this run so real fio's small documents take the path a 1,024-job
document takes; the `desktop` preset's eight 1-second sections put most seconds at a boundary.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from iotui.core.fio import live_decode, status
from iotui.core.fio.status import FioDocument
from iotui.core.presets.files import find_preset, shipped_presets_dir
from iotui.core.presets.overrides import with_overrides
from iotui.core.runs.plan import make_plan
from iotui.core.runs.session import RunSession
from tests.conftest import requires_fio
from tests.e2e.test_section_seconds_fio import assert_rows_add_up_to_fio

pytestmark = [
    pytest.mark.fio, requires_fio,
    pytest.mark.skipif(not live_decode.available(), reason="msgspec (the fast extra, in the test extras) is not installed"),
]


async def test_a_run_read_live_keeps_every_second_and_fios_whole_report(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(status, "LARGE_DOCUMENT_BYTES", 0)
    decoded_live: list[FioDocument] = []
    real_decode = status.decode_live

    def counting(raw):
        doc = real_decode(raw)
        if doc is not None:
            decoded_live.append(doc)
        return doc

    monkeypatch.setattr(status, "decode_live", counting)
    target = tmp_path / "target"
    target.mkdir()
    preset = with_overrides(find_preset("desktop", [shipped_presets_dir()]), size="8M", runtime_s=1)
    runs = tmp_path / "runs"
    session = RunSession(make_plan(preset, target, fio_binary="fio"), fio_version="fio", runs_dir=runs,
                         baseline_s=0.0)
    record = await asyncio.wait_for(session.run(), 120)
    assert record.run["status"] == "completed", record.run
    assert len(decoded_live) >= 8  # every status document went the live way
    assert all("job options" not in job for doc in decoded_live for job in doc["jobs"])

    report = json.loads((runs / record.run["report"]).read_text())
    # The saved report is fio's whole: what the live decode leaves out is there.
    assert all("job options" in job and "iodepth_level" in job for job in report["jobs"])
    assert_rows_add_up_to_fio(record, report)
    for section in record.sections:
        [job] = [job for job in report["jobs"] if job["jobname"] == section["name"]]
        direction = "read" if "read" in section else "write"
        fio = job[direction]
        assert section[direction]["iops"] == fio["iops"] and section[direction]["bw_bytes"] == fio["bw_bytes"]
        assert section[direction]["lat_p99_ns"] == fio["clat_ns"]["percentile"]["99.000000"]
