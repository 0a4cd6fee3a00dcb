"""Steady state on real fio: a rate-limited job settles, and fio's own ss result is read from its JSON."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from iotui.core.fio import argv as command
from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.fio.status import FioDocument, StatusSplitter
from iotui.core.runs.presets import JobSection, Preset
from iotui.core.runs.steady import fio_steady_states, steady_state
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]


def test_a_rate_limited_job_settles_and_fio_agrees(tmp_path: Path) -> None:
    # 200 IOPS at queue depth 1 from a tiny file: every second holds 200 I/Os, so the first
    # five samples already form a steady window. fio is asked for its own verdict too
    # (IOPS within 5% of the mean for 5 s after a 2 s ramp) and ends the job when it is met.
    preset = Preset(
        name="steady", title="steady", description="rate-limited random read", tells="",
        options={"rw": "randread", "bs": "4k", "size": "8M", "rate_iops": "200", "iodepth": "1",
                 "runtime": "12", "time_based": "", "ss": "iops:5%", "ss_dur": "5", "ss_ramp": "2"},
        jobs=(JobSection("steady", {}),),
    )
    test_file = tmp_path / ".iotui-e2e.fio-test"
    os.close(os.open(test_file, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    argv = command.build_fio_argv(preset, test_file=test_file)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    splitter = StatusSplitter()
    documents = [item.doc for item in splitter.feed(result.stdout.encode()) + splitter.close() if isinstance(item, FioDocument)]
    deriver = IntervalDeriver()
    samples = [sample for sample in (deriver.feed(doc) for doc in documents) if sample is not None]
    times = [sample.t_s for sample in samples if "read" in sample.directions]
    values = [sample.directions["read"].iops for sample in samples if "read" in sample.directions]

    fio_ss = fio_steady_states(documents[-1])["steady"]
    job = documents[-1]["jobs"][0]
    assert fio_ss.reached
    assert fio_ss.criterion == "iops:5%"
    assert fio_ss.after_s == job["job_runtime"] / 1000  # fio ended the job when it became steady
    assert 7.0 <= fio_ss.after_s < 12.0  # not before ss_ramp + ss_dur, and before the runtime

    state = steady_state(times, values, start_s=0.0, fio_ss=fio_ss)
    assert state.reached and state.method == "window"
    # No window before five samples; and the SNIA window (range 20%, fitted change 10%) is
    # laxer than what fio was asked for (every second within 5% of the mean for 5 s), so
    # iotui's judgement cannot come later than fio's.
    assert state.after_s is not None
    assert times[4] <= state.after_s <= fio_ss.after_s + 0.5, (times, values)
    assert state.after_s in times
    record = state.to_record()
    assert record["fio_ss"]["reached"] is True and record["method"] == "window"
