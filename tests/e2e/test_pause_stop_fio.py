"""A run paused and then stopped while still paused, on real fio: the pause never reaches latency max or mean.

fio's final report comes after the stop, while iotui's pause is still open; the I/Os
in flight across the pause carry it into fio's latency. iotui's figures for the
section must leave it out (as its percentiles do), and fio's own whole-run
figures stay beside them under the direction's ``fio`` table.
"""

from __future__ import annotations

import asyncio
import json
import time

from iotui.core.presets.files import find_preset, shipped_presets_dir
from iotui.core.presets.overrides import with_overrides
from iotui.core.runs.events import IntervalUpdate
from iotui.core.runs.plan import make_plan
from iotui.core.runs.session import RunSession
from tests.conftest import requires_fio
from tests.ui.test_real_fio import disk_directory  # noqa: F401  (fixture)
from tests.waiting import wait_for

import pytest

pytestmark = [pytest.mark.fio, requires_fio]

PAUSE_S = 2.0


async def test_a_pause_then_stop_keeps_the_pause_out_of_latency_max_and_mean(tmp_path, disk_directory) -> None:  # noqa: F811
    target = disk_directory
    target.mkdir()
    preset = with_overrides(find_preset("rnd4k-q1t1", [shipped_presets_dir()]), size="8M", runtime_s=20)
    events: list = []
    session = RunSession(make_plan(preset, target, fio_binary="fio"), fio_version="fio", runs_dir=tmp_path / "runs",
                         on_event=events.append, baseline_s=0.0)
    run = asyncio.ensure_future(session.run())
    await wait_for(lambda: sum(isinstance(e, IntervalUpdate) for e in events) >= 2 or run.done(),
                   what="fio's second status interval")
    assert not run.done()
    assert session.pause()
    paused_at = time.monotonic()
    await wait_for(lambda: time.monotonic() - paused_at >= PAUSE_S, what="the pause to last 2 s")
    session.request_stop()  # stopped while still paused
    record = await asyncio.wait_for(run, 60)

    [pause] = record.pauses
    assert pause["duration_s"] >= PAUSE_S
    section = record.sections[0]
    assert section["paused_s"] == pause["duration_s"]
    read = section["read"]
    report = json.loads((tmp_path / "runs" / record.run["report"]).read_text())
    fio = next(job["read"]["clat_ns"] for job in report["jobs"] if job["jobname"] == section["name"])
    assert fio["max"] >= PAUSE_S * 1e9  # the pause is in fio's own figures ...
    assert read["fio"]["lat_max_ns"] == fio["max"] and read["fio"]["lat_mean_ns"] == fio["mean"]
    # ... and kept out of iotui's: max and mean from the unpaused seconds, as the percentiles are.
    assert read["lat_source"] == "bins-unpaused"
    assert read["lat_max_ns"] < PAUSE_S * 1e9 / 2
    assert read["lat_mean_ns"] < fio["mean"]
    assert record.summary["read"]["lat_max_ns"] < PAUSE_S * 1e9 / 2
