"""``iotui.api`` with real fio: the documented example runs, the events are the stream's, and a
caller that stops reading stops the run with the record kept."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from iotui import api
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_the_documented_example_runs(tmp_path: Path) -> None:
    block = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert block is not None, "docs/api.md lost its example"
    (tmp_path / "example.py").write_text(block.group(1))
    result = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    seconds = [line for line in lines if re.match(r"^\s*\d+\.\d s  read\s+\d+ IOPS$", line)]
    assert len(seconds) >= 2
    saved = [line.split(": ", 1)[1] for line in lines if line.startswith("saved: ")]
    assert len(saved) == 1 and Path(saved[0]).is_file()
    assert len(list((tmp_path / "runs").glob("*.toml"))) == 2
    assert re.search(r"^read IOPS \d+ -> \d+: \S", lines[-1]), lines[-1]


def test_events_are_the_streams_and_end_with_the_record(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DOC.parent / "stream.schema.json").read_text())
    items = list(api.run("quick", runtime="2s", size="8M", baseline_s=0, runs_dir=tmp_path, target=tmp_path))
    record = items[-1]
    assert isinstance(record, api.RunRecord)
    events = items[:-1]
    assert isinstance(events[0], api.Start) and isinstance(events[-1], api.End)
    for event in events:
        jsonschema.validate(api.to_json(event), schema)
        assert json.loads(api.to_line(event)) == api.to_json(event)
    saved = load_record(Path(events[-1].record)).to_toml_dict()
    assert [event.sample for event in events if isinstance(event, api.Second)] == saved["samples"]


def test_stopping_early_stops_the_run_and_keeps_the_record(tmp_path: Path) -> None:
    seconds = 0
    runs, target = tmp_path / "runs", tmp_path / "target"
    target.mkdir()
    generator = api.run("quick", runtime="60s", size="8M", baseline_s=0, runs_dir=runs, target=target)
    for item in generator:
        if isinstance(item, api.Second):
            seconds += 1
            if seconds == 2:
                break
    generator.close()  # what a for loop's break leaves to the garbage collector, done now
    records = list(runs.glob("*.toml"))
    assert len(records) == 1
    record = api.load(records[0])
    assert isinstance(record, api.RunRecord)
    assert record.status == "stopped" and record.run["ended_by"] == "stream-closed"
    assert record.samples
    assert list(target.iterdir()) == []  # fio's test files removed


def test_a_refused_run_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(api.IotuiError, match=r"\.$"):
        list(api.run("quick", target=tmp_path / "missing", runs_dir=tmp_path))


def test_load_refuses_a_bad_file_with_its_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("schema = 2\n[run]\n")
    with pytest.raises(api.IotuiError, match="bad.toml"):
        api.load(bad)


@pytest.mark.slow
def test_a_sweep_yields_each_point_and_ends_with_the_sweep_record(tmp_path: Path) -> None:
    items = list(api.sweep("quick", {"iodepth": [1, 4]}, runtime="1s", size="8M", baseline_s=0,
                           runs_dir=tmp_path / "runs", target=tmp_path))
    sweep = items[-1]
    assert isinstance(sweep, api.SweepRecord) and sweep.status == "completed"
    points = [item for item in items if isinstance(item, api.Point)]
    assert [(point.index, dict(point.params), point.status) for point in points] == [
        (0, {"iodepth": "1"}, "completed"), (1, {"iodepth": "4"}, "completed")]
    for point in points:
        record = api.load(point.record or "")
        assert isinstance(record, api.RunRecord) and record.options["iodepth"] == point.params["iodepth"]
        seconds = [item.sample for item in items if isinstance(item, api.Second) and item.point == point.index]
        assert seconds == record.to_toml_dict()["samples"]
    end = items[-2]
    assert isinstance(end, api.End) and end.record == str(sweep.path.absolute())
