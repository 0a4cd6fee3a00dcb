"""Another program's I/O during a real fio run: a real dd on the same filesystem is named; a quiet run has no warning."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.conftest import requires_fio
from tests.e2e.loop_fs import private_loop_fs

pytestmark = [pytest.mark.fio, pytest.mark.slow, requires_fio]

MIB = 1024 * 1024
DD_MIB = 512
INTERVAL_LINE = re.compile(r"^\s*(\d+\.\d)s ")


def start_run(target: Path, runs: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--size", "64M", "--baseline", "0",
         "--runs-dir", str(runs), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_for_intervals(process: subprocess.Popen[str], count: int) -> float:
    """Read the live lines until ``count`` intervals have been printed; fio's time of the last one."""
    assert process.stdout is not None
    seen: list[float] = []
    for line in process.stdout:
        found = INTERVAL_LINE.match(line)
        if found and float(found.group(1)) not in seen:
            seen.append(float(found.group(1)))
            if len(seen) == count:
                return seen[-1]
    raise AssertionError(f"fio printed {len(seen)} intervals, not {count}: {process.stderr.read() if process.stderr else ''}")


def wait_for_streamed_seconds(process: subprocess.Popen[str], count: int) -> tuple[float, list[dict]]:
    """Read ``--json-stream`` lines until ``count`` seconds have come; fio's time of the last, the events read."""
    assert process.stdout is not None
    events: list[dict] = []
    for line in process.stdout:
        events.append(json.loads(line))
        seconds = [event["sample"]["t_s"] for event in events if event["event"] == "second"]
        if len(seconds) == count:
            return seconds[-1], events
    raise AssertionError(f"the stream had {len(events)} events: {process.stderr.read() if process.stderr else ''}")


def finish(process: subprocess.Popen[str], runs: Path, events: list[dict] | None = None):
    out, err = process.communicate(timeout=120)
    if events is not None:
        events += [json.loads(line) for line in out.splitlines()]
    assert process.returncode == 0, err
    [path] = runs.glob("*.toml")
    return load_record(path)


def test_a_dd_writing_beside_quick_is_named_with_its_seconds(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with private_loop_fs(tmp_path) as loop_target:
        target = loop_target or tmp_path  # without root: the machine's own disk (busier, still far over the threshold)
        process = start_run(target, runs, "--runtime", "14", "--set", "rw=randread", "--json-stream")
        events: list[dict] = []
        try:
            started_t_s, events = wait_for_streamed_seconds(process, 2)
            dd = subprocess.Popen(
                ["dd", "if=/dev/zero", f"of={target / 'other'}", "bs=1M", f"count={DD_MIB}", "oflag=direct"],
                stderr=subprocess.PIPE, text=True,
            )
            _, dd_err = dd.communicate(timeout=120)
            assert dd.returncode == 0, dd_err
        finally:
            record = finish(process, runs, events)
            (target / "other").unlink(missing_ok=True)
    warnings = [w["message"] for w in record.warnings if w["code"] == "interference"]
    assert len(warnings) == 1, record.warnings
    found = re.match(r"dd \(pid (\d+)\) wrote ([\d.]+) (MiB|GiB) during seconds (\d+)-(\d+) of quick", warnings[0])
    assert found, warnings[0]
    table = record.sections[0]["interference"]
    top = table["processes"][0]
    assert top["name"] == "dd" and int(found.group(1)) == top["pid"] == dd.pid
    # The scans start at the first outside second: most of dd's bytes, never more than it wrote.
    assert DD_MIB * MIB // 2 <= top["write_bytes"] <= DD_MIB * MIB
    first_s, last_s = int(found.group(4)), int(found.group(5))
    assert first_s >= int(started_t_s) - 1 and last_s - first_s >= 2
    assert table["outside_write_bytes"] >= DD_MIB * MIB // 2
    marked = [s for s in record.samples if s.get("interference")]
    assert len(marked) == table["seconds"] >= 2
    # The stream said so as it went: its seconds are the record's rows, the first second of dd's
    # stretch included (marked only once the next one showed it was a stretch).
    streamed = [event["sample"] for event in events if event["event"] == "second"]
    assert streamed == record.to_toml_dict()["samples"]
    assert sum(1 for sample in streamed if sample.get("interference")) == table["seconds"]


@pytest.mark.parametrize("direct", ["1", "0"], ids=["direct", "buffered"])
def test_a_quiet_run_has_no_interference_warning(tmp_path: Path, direct: str) -> None:
    with private_loop_fs(tmp_path) as target:
        if target is None:
            pytest.skip("needs root for a loop device: the machine's own disk is not quiet while other programs run")
        runs = tmp_path / "runs"
        process = start_run(target, runs, "--runtime", "6", "--set", f"direct={direct}")
        record = finish(process, runs)
    assert [w for w in record.warnings if w["code"] == "interference"] == []
    assert not any(s.get("interference") for s in record.samples)
    assert "interference" not in record.sections[0]
    assert record.summary["write"]["total_ios"] > 0  # fio's own writes were there (buffered: written back later)
