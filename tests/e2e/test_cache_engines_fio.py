"""No cache warning where no cache is involved: real fio with the null engine.

A buffered null-engine read on a small file trips every page-cache check if the engine is
ignored (sub-2 us median, millions of IOPS against a device that served none, a file
smaller than RAM). The same options with psync, which does read the file, still warn.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.cache_check import CACHE_CODES
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]


def run_record(tmp_path: Path, *sets: str):
    runs = tmp_path / "runs"
    args = [sys.executable, "-m", "iotui", "run", "quick", "--target", str(tmp_path), "--runs-dir", str(runs),
            "--runtime", "1", "--size", "8M", "--baseline", "0", "--json", "--allow-cache",
            "--set", "rw=randread", "--set", "direct=0"]
    for option in sets:
        args += ["--set", option]
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    return load_record(Path(json.loads(result.stdout)["path"]))


def test_a_null_engine_run_has_no_cache_warning_and_says_its_figures_are_not_storage(tmp_path: Path) -> None:
    record = run_record(tmp_path, "ioengine=null", "numjobs=8")
    codes = [warning["code"] for warning in record.warnings]
    assert not [code for code in codes if code in CACHE_CODES or code.startswith("cache")], record.warnings
    (line,) = [warning["message"] for warning in record.warnings if warning["code"] == "not-storage"]
    assert line == "These are not storage figures: ioengine=null completes every I/O at once without doing it."
    assert record.metric("read", "iops") > 10_000  # the figures that used to look like the page cache


def test_the_same_buffered_read_through_psync_still_warns(tmp_path: Path) -> None:
    record = run_record(tmp_path, "ioengine=psync")
    codes = {warning["code"] for warning in record.warnings}
    assert "cache-small-file" in codes  # the 8 MiB file is smaller than RAM and direct I/O is off
    assert "not-storage" not in codes
