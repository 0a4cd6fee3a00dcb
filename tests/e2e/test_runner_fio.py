"""The runner against real fio: pause really pauses the I/O."""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path

import pytest

from iotui.core.presets import argv as command
from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.fio.runner import FioExited, FioRunner
from iotui.core.fio.status import FioDocument
from iotui.core.presets.overrides import with_overrides
from iotui.core.presets.files import find_preset, shipped_presets_dir
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]


async def test_pause_stops_fios_jobs_and_resume_goes_on(tmp_path: Path) -> None:
    preset = with_overrides(
        find_preset("quick", [shipped_presets_dir()]),
        runtime_s=6, size="4M", sets={"rw": "randread", "iodepth": "1", "ioengine": "psync", "numjobs": "2"},
    )
    argv = command.build_fio_argv(preset, test_file=tmp_path / ".iotui-pause.fio-test")
    runner = FioRunner(argv)
    await runner.start()
    deriver = IntervalDeriver()
    samples = []
    pause_s = 3.0
    async for event in runner.events():
        if isinstance(event, FioDocument):
            sample = deriver.feed(event.doc)
            if sample is not None:
                samples.append(sample)
            if len(samples) == 2:
                assert runner.pause()
                await asyncio.sleep(pause_s)
                assert runner.resume()
        elif isinstance(event, FioExited):
            assert event.returncode == 0
    spanning = next(s for s in samples if s.dt_s > pause_s)
    others = [s.directions["read"].iops for s in samples if 0.5 <= s.dt_s < 1.5]
    # Paused jobs did no I/O for 3 of the ~4 seconds this interval spans: far fewer
    # I/Os per second than any ordinary second. Jobs that kept running would not be.
    assert spanning.directions["read"].iops < 0.6 * statistics.median(others)
