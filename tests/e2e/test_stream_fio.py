"""``iotui run --json-stream`` with real fio: lines as the run goes, valid against the schema,
equal to the record, and a reader that goes away stops the run with the record kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.conftest import requires_fio

jsonschema = pytest.importorskip("jsonschema")

pytestmark = [pytest.mark.fio, requires_fio]

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "stream.schema.json"


def stream_validator() -> object:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def start_stream(tmp_path: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "iotui", "run", *args, "--size", "8M", "--baseline", "0",
         "--runs-dir", str(tmp_path / "runs"), "--json-stream"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=buffered_env(),
    )


def buffered_env() -> dict[str, str]:
    """The environment a user's pipe has: Python's stdout block-buffered (no PYTHONUNBUFFERED)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}


def read_timed_lines(process: subprocess.Popen) -> list[tuple[float, dict]]:
    """Each stdout line parsed, with when it arrived here (read one by one, as a pipe delivers them)."""
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append((time.monotonic(), json.loads(line)))
    return lines


def _by_direction(counts: dict[tuple[int, str], int]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for (_, direction), count in counts.items():
        totals[direction] = totals.get(direction, 0) + count
    return {direction: count for direction, count in totals.items() if count}


def assert_stream_matches_record(events: list[dict], *, check_ios: bool = True) -> None:
    """Every line valid; start first, end last; seconds and sections equal to the saved record."""
    validator = stream_validator()
    for event in events:
        validator.validate(event)
    assert events[0]["event"] == "start" and events[0]["stream_version"] == 1
    assert events[-1]["event"] == "end"
    record = load_record(Path(events[-1]["record"]))
    assert events[-1]["status"] == record.status
    assert events[0]["fio_argv"] == record.run["argv"]
    assert events[0]["preset"] == record.preset
    seconds = [event for event in events if event["event"] == "second" and "host" not in event]
    saved = record.to_toml_dict()
    # One second per sample row, the same keys and values, in the same order.
    assert [event["sample"] for event in seconds] == saved["samples"]
    assert [event["section"] for event in seconds] == [row["section"] for row in saved["samples"]]
    sections = [event for event in events if event["event"] == "section" and "host" not in event]
    assert [event["figures"] for event in sections] == json.loads(json.dumps(saved["sections"]))
    if record.status == "completed" and check_ios:
        # The seconds' completed I/Os add up to fio's own count for each section and direction.
        added: dict[tuple[int, str], int] = {}
        for event in seconds:
            for direction, ios in event["completed_ios"].items():
                added[(event["section"], direction)] = added.get((event["section"], direction), 0) + ios
        fio_ios = {(index, direction): section[direction]["total_ios"] for index, section in enumerate(saved["sections"])
                   for direction in ("read", "write", "trim") if section.get(direction, {}).get("total_ios")}
        # Per direction over the whole run, within 2%: which section a few I/Os at a section's edge
        # fall in, and the last status document against fio's final report, are the per-second
        # derivation's (tested in test_section_seconds_fio.py); under load a run of eight sections
        # once counted 17 more write I/Os in its seconds than fio's final 3,236.
        counted, fio_counted = _by_direction(added), _by_direction(fio_ios)
        assert counted.keys() == fio_counted.keys()
        for direction, count in fio_counted.items():
            assert counted[direction] == pytest.approx(count, rel=0.02), direction
    warnings = [{"code": e["code"], "message": e["message"]} for e in events if e["event"] == "warning"]
    assert warnings == record.warnings


def test_seconds_arrive_as_the_run_goes_and_equal_the_record(tmp_path: Path) -> None:
    began = time.monotonic()
    process = start_stream(tmp_path, "quick", "--runtime", "4")
    timed = read_timed_lines(process)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    events = [event for _, event in timed]
    assert_stream_matches_record(events)
    second_times = [at for at, event in timed if event["event"] == "second"]
    end_at = timed[-1][0]
    assert len(second_times) >= 4
    # Not all at the end: the first second came while fio still had about three seconds to run,
    # and they are spread over the run, one about every second.
    assert end_at - second_times[0] >= 2.5, (began, second_times, end_at)
    assert second_times[-2] - second_times[0] >= 1.5
    # The human lines went to stderr; stdout held only the stream.
    assert "saved:" in err and "IOPS" in err


@pytest.mark.slow
def test_multi_section_seconds_carry_their_section(tmp_path: Path) -> None:
    process = start_stream(tmp_path, "desktop", "--runtime", "1")
    timed = read_timed_lines(process)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    events = [event for _, event in timed]
    assert_stream_matches_record(events)
    sections = {event["section"] for event in events if event["event"] == "second"}
    assert len(sections) >= 6  # eight one-second sections; nearly every one has seconds of its own


def test_a_closed_stream_stops_the_run_and_keeps_the_record(tmp_path: Path) -> None:
    process = start_stream(tmp_path, "quick", "--runtime", "60")
    assert process.stdout is not None
    first = [json.loads(process.stdout.readline()) for _ in range(3)]  # as `| head -n 3` reads
    assert [event["event"] for event in first] == ["start", "second", "second"]
    process.stdout.close()
    closed_at = time.monotonic()
    _, err = process.communicate(timeout=45)
    # Stopped as a stop would be (well before the 60 s runtime), said in one sentence, no traceback.
    assert time.monotonic() - closed_at < 30
    assert process.returncode == 130, err
    assert "Traceback" not in err and "reader closed" in err
    records = list((tmp_path / "runs").glob("*.toml"))
    assert len(records) == 1
    record = load_record(records[0])
    assert record.status == "stopped"
    assert record.run["ended_by"] == "stream-closed"
    assert record.samples and record.sections[0]["read"]["total_ios"] > 0


hosts_missing = None
try:
    from tests.e2e.private_sshd import HOSTS, missing_reason

    hosts_missing = missing_reason()
except ImportError as error:  # pragma: no cover - the helper is part of the suite
    hosts_missing = str(error)


@pytest.mark.slow
@pytest.mark.sshd
@pytest.mark.skipif(hosts_missing is not None, reason=hosts_missing or "")
def test_hosts_stream_has_each_hosts_rows_and_the_aggregate(tmp_path: Path, sshd) -> None:
    (tmp_path / "target").mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "run", "rnd4k-q1t1", "--hosts", ",".join(HOSTS[:2]),
         "--target", str(tmp_path / "target"), "--runtime", "3", "--size", "4M", "--set", "rw=randwrite",
         "--set", "rate_iops=300", "--set", "ioengine=psync", "--runs-dir", str(tmp_path / "runs"),
         "--baseline", "0", "--json-stream"],
        env={**buffered_env(), "IOTUI_SSH": sshd.ssh_command}, cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    timed = read_timed_lines(process)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    events = [event for _, event in timed]
    # The aggregate's seconds (no "host") are the record's [[samples]]; their I/Os are each host's
    # latest interval combined, not a count to add up (each host's own are, below).
    assert_stream_matches_record(events, check_ios=False)
    assert events[0]["hosts"] == list(HOSTS[:2])
    record = load_record(Path(events[-1]["record"]))
    saved = record.to_toml_dict()
    for entry in saved["hosts"]:
        own = [e["sample"] for e in events if e["event"] == "second" and e.get("host") == entry["name"]]
        assert own and own == entry["samples"], entry["name"]
        sections = [e["figures"] for e in events if e["event"] == "section" and e.get("host") == entry["name"]]
        assert sections == json.loads(json.dumps(entry["sections"]))
        counted = sum(e["completed_ios"].get("write", 0) for e in events
                      if e["event"] == "second" and e.get("host") == entry["name"])
        # Two sections (the preset's randread and randwrite jobs, both randwrite here), both counted.
        assert len(entry["sections"]) == 2
        fio_ios = sum(section["write"]["total_ios"] for section in entry["sections"])
        assert counted == pytest.approx(fio_ios, rel=0.02)
    assert max(event["sample"].get("hosts_live", 0) for event in events
               if event["event"] == "second" and "host" not in event) == 2


@pytest.mark.slow
def test_sweep_stream_has_each_points_seconds_and_result(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "sweep", "quick", "--vary", "iodepth=1,4", "--runtime", "2", "--size", "8M",
         "--baseline", "0", "--runs-dir", str(tmp_path / "runs"), "--json-stream"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=buffered_env(),
    )
    events = [event for _, event in read_timed_lines(process)]
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    validator = stream_validator()
    for event in events:
        validator.validate(event)
    assert events[0]["event"] == "start" and events[0]["sweep_points"] == 2
    assert events[-1]["event"] == "end" and events[-1]["status"] == "completed"
    assert events[-1]["record"].endswith(".sweep.toml")
    points = [event for event in events if event["event"] == "point"]
    assert [(p["index"], p["params"], p["status"]) for p in points] == [(0, {"iodepth": "1"}, "completed"),
                                                                        (1, {"iodepth": "4"}, "completed")]
    for point in points:
        record = load_record(Path(point["record"]))
        assert record.options["iodepth"] == point["params"]["iodepth"]
        own = [e["sample"] for e in events if e["event"] == "second" and e.get("point") == point["index"]]
        assert own and own == record.to_toml_dict()["samples"]
        assert point["result"]["read_iops"] == pytest.approx(record.sections[0]["read"]["iops"], rel=1e-6)
