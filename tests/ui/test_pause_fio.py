"""Pause under the app with a rate-limited real fio job: the pause is recorded and left out of the figures."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from iotui.ui.app import IotuiApp
from iotui.ui.messages import IntervalArrived, RunEnded
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.services import Services
from tests.conftest import requires_fio
from tests.ui.helpers import MessageLog, screen_text, settle
from tests.ui.test_real_fio import disk_directory  # noqa: F401  (fixture)
from tests.waiting import wait_for

RATE_IOPS = 200
PAUSE_S = 3.0
PACED = f"""\
name = "paced"
title = "Paced random reads"
description = "rate-limited 4 KiB random reads, for the pause test"

[options]
ioengine = "psync"
rw = "randread"
bs = "4k"
iodepth = 1
rate_iops = {RATE_IOPS}
size = "8M"
runtime = 8
time_based = ""
"""


@requires_fio
async def test_pause_is_recorded_and_left_out(tmp_path, disk_directory, monkeypatch) -> None:  # noqa: F811
    config = tmp_path / "config"
    (config / "iotui" / "presets").mkdir(parents=True)
    (config / "iotui" / "presets" / "paced.toml").write_text(PACED)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    target = disk_directory
    target.mkdir()
    runs_dir = tmp_path / "runs"
    log = MessageLog()
    app = IotuiApp(Services(runs_dir=runs_dir, baseline_s=0.0), target=str(target), preset="paced")
    async with app.run_test(size=(100, 30), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: len(log.of(IntervalArrived)) >= 2 or log.of(RunEnded), pilot=pilot,
                       what="fio's second status interval")
        assert not log.of(RunEnded)
        await pilot.press("p")
        paused_at = time.monotonic()
        await wait_for(lambda: time.monotonic() - paused_at >= PAUSE_S, pilot=pilot, what="the pause to last 3 s")
        await pilot.press("p")
        await wait_for(lambda: log.of(RunEnded), pilot=pilot, what="the run to end", timeout_s=60)
        await settle(pilot)
        ended = log.of(RunEnded)[0]
        assert ended.error is None
        assert isinstance(app.screen, ResultsScreen)
        assert "paused 3 s" in screen_text(app) or "paused 4 s" in screen_text(app)
    record = load_record(ended.saved_path)
    [pause] = record.pauses
    assert pause["duration_s"] >= PAUSE_S - 0.1 and pause["at_s"] >= 1.0
    assert record.paused_s == pause["duration_s"]
    paused_samples = [s for s in record.samples if s.get("paused")]
    assert len(paused_samples) == 1 and paused_samples[0]["dt_s"] >= PAUSE_S
    [section] = record.sections
    read = section["read"]
    fio_read = read["fio"]
    report = json.loads((runs_dir / record.report).read_text())
    [fio_job] = report["jobs"]
    fio = fio_job["read"]
    # fio's untouched figures are kept as fio wrote them ...
    assert fio_read["iops"] == fio["iops"] and fio_read["lat_max_ns"] == fio["clat_ns"]["max"]
    assert read["total_ios"] == fio["total_ios"] and read["io_bytes"] == fio["io_bytes"]
    # ... and iotui's leave the pause out: fio's I/Os over fio's runtime minus the paused time.
    running_s = fio["runtime"] / 1000 - pause["duration_s"]
    assert read["iops"] == pytest.approx(fio["total_ios"] / running_s)
    assert read["iops"] > fio["iops"]
    # Latency from the unpaused intervals' bins only: never above fio's, and so marked.
    assert read["lat_source"] == "bins-unpaused" and read["lat_max_ns"] <= fio["clat_ns"]["max"]
    assert section["paused_s"] == pause["duration_s"]
    assert not list(Path(target).glob(".iotui-*")), "the test file was left behind"
