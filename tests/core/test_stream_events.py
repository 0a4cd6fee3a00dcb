"""The stream's events as JSON lines, and what a closed pipe does to the writer."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from iotui.commands.stream_out import JsonStreamOut
from iotui.core.records.record import RunRecord
from iotui.core.runs.events import RunFinished
from iotui.core.stream.events import End, Second, Start, as_saved, to_json, to_line
from iotui.core.stream.translate import StreamTranslator


def test_optional_context_is_left_out_and_required_nulls_kept() -> None:
    line = to_json(End(1.5, "completed", None, None))
    assert line == {"event": "end", "t_s": 1.5, "status": "completed", "ended_by": None, "record": None}
    second = to_json(Second(2.0, 0, {"t_s": 1.0, "dt_s": 1.0}))
    assert "host" not in second and "point" not in second
    assert to_json(Second(2.0, 1, {}, host="h1", point=3))["host"] == "h1"


def test_a_line_is_one_line_of_json_with_the_version_in_start() -> None:
    line = to_line(Start(0.1, "quick", {"path": "/x"}, ["fio", "--name=a"], "fio-3.33"))
    assert "\n" not in line
    assert json.loads(line)["stream_version"] == 1


def test_as_saved_drops_what_toml_cannot_hold() -> None:
    assert as_saved({"a": None, "b": float("nan"), "c": {"d": None, "e": 1}, "f": [1, None]}) == {"c": {"e": 1}, "f": [1]}


def test_a_finished_run_gives_its_sections_warnings_and_end(tmp_path: Path) -> None:
    record = RunRecord(
        run={"status": "stopped", "ended_by": "user", "preset": "p"}, host={}, target={},
        sections=[{"name": "a", "read": {"iops": 5.0, "lat_p99_ns": None}}, {"name": "b"}],
    )
    record.add_warning("w", "a warning")
    saved = tmp_path / "r.toml"
    events = StreamTranslator().translate(RunFinished(record, saved, None))
    kinds = [to_json(event)["event"] for event in events]
    assert kinds == ["section", "section", "warning", "end"]
    assert to_json(events[0])["figures"] == {"name": "a", "read": {"iops": 5.0}}
    end = to_json(events[-1])
    assert (end["status"], end["ended_by"], end["record"]) == ("stopped", "user", str(saved))


def test_a_closed_pipe_stops_once_and_writes_no_more() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away (as `head` does)
    out = os.fdopen(write_end, "w")
    stream = JsonStreamOut(out=out)
    stops: list[str] = []
    stream.begin([Start(0.0, "quick", {}, ["fio"], "fio-3.33")], lambda: stops.append("stop"))
    stream.write([End(1.0, "stopped", "stream-closed", None)])
    assert stops == ["stop"] and stream.closed
    out.close()  # its buffer goes to /dev/null now: no error at exit
    assert sys.stdout is not out
