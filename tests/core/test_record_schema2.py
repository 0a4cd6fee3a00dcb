"""Schema 2 records: sections, pauses, hosts, and schema 1 records on disk still loading."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import tomli_w

from iotui.core.records.direction_figures import DirectionFigures
from iotui.core.records.record import RunRecord, section_directions, section_metric
from iotui.core.records.files import load_record, save_record
from iotui.core.records.schema import SCHEMA_VERSION, RecordError

STARTED = dt.datetime(2026, 11, 21, 12, 0, 0, tzinfo=dt.timezone.utc)

SCHEMA_1_ONE_JOB = """\
schema = 1

[run]
id = "aaaa000011112222"
preset = "quick"
status = "completed"
started = 2026-11-21T12:00:00Z
duration_s = 12.5
fio_version = "fio-3.33"
fio_argv = ["fio", "--output-format=json+", "job.fio"]
fio_report = "20261121-120000-quick-aaaa0000.fio.json"

[host]
hostname = "box"
system = "Linux"
kernel = "6.1.0"
cpu_model = "cpu"
cpu_count = 2
mem_total_bytes = 1073741824

[target]
path = "/data"
filesystem = "ext4"
device = "/dev/vda1"
mount_options = "rw,relatime"

[options]
rw = "randread"
bs = "4k"

[summary.read]
iops = 1234.5
bw_bytes = 5056512
io_bytes = 50565120
total_ios = 12345
lat_mean_ns = 800.0
lat_p99_ns = 1500

[summary.cpu]
user_pct = 3.0
iops_per_fio_core = 40000.0

[summary.pressure]
responsiveness = "sluggish"
probe_p99_ms_max = 9.5

[[samples]]
t_s = 1.0
dt_s = 1.0
read_iops = 1200.0
responsiveness = "ok"

[[samples]]
t_s = 2.0
dt_s = 1.0
read_iops = 1269.0
responsiveness = "sluggish"
"""

SCHEMA_1_TWO_JOBS = """\
schema = 1

[run]
id = "bbbb000011112222"
preset = "two-sections"
status = "completed"
started = 2026-11-21T12:00:00Z
duration_s = 4.0
fio_version = "fio-3.33"
fio_argv = ["fio", "job.fio"]
fio_report = ""

[host]
hostname = "box"
system = "Linux"
kernel = "6.1.0"
cpu_model = "cpu"
cpu_count = 2
mem_total_bytes = 1073741824

[target]
path = "/data"
filesystem = "ext4"
device = "/dev/vda1"
mount_options = "rw"

[summary.read]
iops = 1300.0
bw_bytes = 23756800
io_bytes = 47513600
total_ios = 2600

[summary.pressure]
responsiveness = "ok"

[[jobs]]
name = "small"
rw = "randread"
bs = "4k"
read_iops = 1000.0
read_bw_bytes = 4096000
read_io_bytes = 4096000
read_total_ios = 1000
read_lat_p99_ns = 70000

[[jobs]]
name = "large"
rw = "randread"
bs = "64k"
read_iops = 300.0
read_bw_bytes = 19660800
read_io_bytes = 19660800
read_total_ios = 300
read_lat_p99_ns = 250000
"""

SYSBENCH_SCHEMA_1 = SCHEMA_1_ONE_JOB.replace('preset = "quick"', 'preset = "sysbench-compare"').replace(
    'fio_version = "fio-3.33"', 'fio_version = "sysbench 1.0.20"'
).replace('fio_argv = ["fio", "--output-format=json+", "job.fio"]', 'fio_argv = ["sysbench", "fileio", "run"]')


def _write(tmp_path: Path, text: str, name: str = "old.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_schema_1_record_on_disk_loads_as_one_section(tmp_path: Path) -> None:
    record = load_record(_write(tmp_path, SCHEMA_1_ONE_JOB))
    assert record.tool == "fio" and record.tool_version == "fio-3.33"
    assert record.argv == ["fio", "--output-format=json+", "job.fio"]
    assert record.report == "20261121-120000-quick-aaaa0000.fio.json"
    assert "fio_version" not in record.run
    [section] = record.sections
    assert section["name"] == "quick" and section["jobs"] == ["quick"] and section["groupid"] == 0
    assert section["read"]["iops"] == 1234.5 and section["read"]["lat_p99_ns"] == 1500
    assert section["cpu"] == {"user_pct": 3.0, "iops_per_fio_core": 40000.0}
    assert record.pressure == {"responsiveness": "sluggish", "probe_p99_ms_max": 9.5}
    assert section["pressure"]["responsiveness"] == "sluggish"
    assert [s["section"] for s in record.samples] == [0, 0]
    # The schema 1 view still reads as before.
    assert record.summary["read"]["iops"] == 1234.5
    assert record.metric("read", "lat_p99_ns") == 1500
    assert record.directions() == ["read"]


def test_schema_1_record_with_jobs_becomes_one_section_per_job(tmp_path: Path) -> None:
    record = load_record(_write(tmp_path, SCHEMA_1_TWO_JOBS))
    assert record.section_names() == ["small", "large"]
    small, large = record.sections
    assert small["read"] == {"iops": 1000.0, "bw_bytes": 4096000, "io_bytes": 4096000, "total_ios": 1000, "lat_p99_ns": 70000}
    assert large["options"] == {"rw": "randread", "bs": "64k"}
    assert large["groupid"] == 1
    # The summed 1,300 IOPS described nothing that ran: it is gone everywhere.
    assert "read" not in record.summary
    assert record.metric("read", "iops") is None
    assert 1300.0 not in [section_metric(s, "read", "iops") for s in record.sections]
    doc = record.to_json_dict()
    assert "summary" not in doc
    assert [s["name"] for s in doc["sections"]] == ["small", "large"]
    assert record.pressure["responsiveness"] == "ok"


def test_migrated_record_saves_as_schema_2_and_loads_the_same(tmp_path: Path) -> None:
    record = load_record(_write(tmp_path, SCHEMA_1_TWO_JOBS))
    path = save_record(record, tmp_path / "runs", name="again.toml")
    text = path.read_text()
    assert text.startswith(f"schema = {SCHEMA_VERSION}") and SCHEMA_VERSION == 2
    assert "[[sections]]" in text and "[summary" not in text and "fio_version" not in text
    again = load_record(path)
    assert again.sections == record.sections
    assert again.run["tool_version"] == "fio-3.33"


def test_sysbench_schema_1_record_becomes_tool_sysbench(tmp_path: Path) -> None:
    record = load_record(_write(tmp_path, SYSBENCH_SCHEMA_1))
    assert record.tool == "sysbench" and record.tool_version == "sysbench 1.0.20"


def test_schema_1_client_server_hosts_become_hosts_with_a_section(tmp_path: Path) -> None:
    text = SCHEMA_1_ONE_JOB + '\n[[hosts]]\nhostname = "h1"\nname = "job"\nport = 8765\nread_iops = 600.0\nread_lat_p99_ns = 1400\n'
    record = load_record(_write(tmp_path, text))
    [host] = record.hosts
    assert host["name"] == "h1" and host["port"] == 8765
    assert host["sections"][0]["read"] == {"iops": 600.0, "lat_p99_ns": 1400}


def _schema_2() -> dict:
    return {
        "schema": 2,
        "run": {
            "id": "cccc",
            "preset": "blocksize-table",
            "status": "completed",
            "started": STARTED,
            "duration_s": 30.0,
            "tool": "fio",
            "tool_version": "fio-3.33",
            "argv": ["fio", "x.fio"],
            "report": "",
            "paused_s": 12.0,
            "ended_by": "user",
            "forced": True,
            "notes": "after firmware update",
            "tags": ["nvme"],
        },
        "host": {"hostname": "h", "system": "Linux", "kernel": "6.1", "cpu_model": "c", "cpu_count": 2,
                 "mem_total_bytes": 1, "cpu_governor": "performance"},
        "target": {"path": "/d", "filesystem": "ext4", "device": "/dev/x", "mount_options": "rw",
                   "scheduler": "mq-deadline", "read_ahead_kb": 128, "write_cache": "write back",
                   "rotational": False, "firmware": "1.0", "model": "disk"},
        "options": {"bs": "4k", "4k.rw": "randread"},
        "pressure": {"responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 312.0, "cause_unit": "ms"},
        "pauses": [{"at_s": 4.0, "duration_s": 12.0}],
        "sections": [
            {
                "name": "4k", "jobs": ["4k"], "groupid": 0, "duration_s": 10.0, "t_start_s": 0.0, "t_end_s": 10.0,
                "paused_s": 12.0, "options": {"rw": "randread", "bs": "4k"},
                "read": {"iops": 19200.0, "bw_bytes": 78643200, "io_bytes": 1, "total_ios": 1, "lat_p99_ns": 90000,
                         "lat_source": "bins-unpaused", "fio": {"iops": 9500.0, "bw_bytes": 1}},
                "cpu": {"fio_user_pct": 12.0, "iops_per_fio_core": 36900.0},
                "pressure": {"responsiveness": "ok"},
                "steady": {"reached": True, "after_s": 8.0, "method": "window"},
                "cliff": {"found": False},
            },
            {"name": "128k", "jobs": ["128k"], "groupid": 1, "write": {"iops": 6300.0, "bw_bytes": 1}},
        ],
        "samples": [
            {"t_s": 1.0, "dt_s": 1.0, "section": 0, "read_iops": 19000.0, "io_probe_p99_ms": 0.4,
             "responsiveness": "sluggish", "responsiveness_cause": "io_probe_write"},
            {"t_s": 5.0, "dt_s": 1.0, "section": 0, "paused": True},
            {"t_s": 20.0, "dt_s": 1.0, "section": 1, "write_iops": 6300.0},
        ],
        "hosts": [{"name": "user@h1", "tool_version": "fio-3.33", "exit_status": 0, "clock_offset_ms": 3.2,
                   "sections": [{"name": "4k", "read": {"iops": 1.0}}],
                   "samples": [{"t_s": 1.0, "dt_s": 1.0, "section": 0}]}],
        "warnings": [{"code": "x", "message": "y", "section": 1}],
    }


def test_every_schema_2_key_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "r.toml"
    path.write_text(tomli_w.dumps(_schema_2()))
    record = load_record(path)
    assert record.paused_s == 12.0 and record.pauses == [{"at_s": 4.0, "duration_s": 12.0}]
    assert record.is_multi_section and record.section_names() == ["4k", "128k"]
    assert section_directions(record.sections[1]) == ["write"]
    assert record.section_metric(0, "read", "lat_p99_ns") == 90000.0
    assert [s["t_s"] for s in record.section_samples(0)] == [1.0, 5.0]
    assert record.hosts[0]["sections"][0]["read"]["iops"] == 1.0
    saved = save_record(record, tmp_path / "out", name="r.toml")
    assert load_record(saved).to_toml_dict() == record.to_toml_dict()


def test_json_has_sections_and_a_summary_only_for_one_section() -> None:
    doc = _schema_2()
    multi = RunRecord(run=doc["run"], host=doc["host"], target=doc["target"], sections=doc["sections"])
    as_json = multi.to_json_dict()
    assert "summary" not in as_json
    assert as_json["sections"][0]["read"]["lat_p99_ns"] == 90000
    assert as_json["sections"][0]["cpu"]["iops_per_fio_core"] == 36900.0
    single = RunRecord(run=doc["run"], host=doc["host"], target=doc["target"], sections=doc["sections"][:1])
    one = single.to_json_dict()
    assert set(one["summary"]) == {"read", "cpu"}
    assert one["summary"]["read"] == one["sections"][0]["read"]


def test_imported_records_may_leave_out_unpublished_host_facts(tmp_path: Path) -> None:
    doc = _schema_2()
    doc["run"]["status"] = "imported"
    del doc["host"]["cpu_count"], doc["host"]["mem_total_bytes"]
    path = tmp_path / "i.toml"
    path.write_text(tomli_w.dumps(doc))
    assert "cpu_count" not in load_record(path).host
    doc["run"]["status"] = "completed"
    path.write_text(tomli_w.dumps(doc))
    with pytest.raises(RecordError, match="host.cpu_count"):
        load_record(path)


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d["run"].pop("tool_version"), "run.tool_version"),
        (lambda d: d["sections"][0].pop("name"), "sections[0].name"),
        (lambda d: d["sections"][1]["write"].update(iops="x"), "sections[1].write.iops"),
        (lambda d: d["sections"][0]["read"].update(lat_source="guess"), "sections[0].read.lat_source"),
        (lambda d: d["sections"][0]["read"]["fio"].update(iops=-1), "sections[0].read.fio.iops"),
        (lambda d: d["sections"][0]["steady"].update(reached="yes"), "sections[0].steady.reached"),
        (lambda d: d["sections"][0]["pressure"].update(responsiveness="meh"), "sections[0].pressure.responsiveness"),
        (lambda d: d["pauses"][0].pop("duration_s"), "pauses[0].duration_s"),
        (lambda d: d["samples"][1].update(paused=1), "samples[1].paused"),
        (lambda d: d["samples"][2].update(section=2), "samples[2].section"),
        (lambda d: d["hosts"][0].pop("name"), "hosts[0].name"),
        (lambda d: d["hosts"][0]["sections"][0]["read"].update(iops="x"), "hosts[0].sections[0].read.iops"),
        (lambda d: d["target"].update(read_ahead_kb="128"), "target.read_ahead_kb"),
        (lambda d: d["pressure"].update(cause=3), "pressure.cause"),
    ],
)
def test_bad_schema_2_keys_are_named(tmp_path: Path, mutate, expected: str) -> None:
    doc = _schema_2()
    mutate(doc)
    path = tmp_path / "bad.toml"
    path.write_text(tomli_w.dumps(doc))
    with pytest.raises(RecordError) as error:
        load_record(path)
    assert str(path) in str(error.value) and expected in str(error.value)


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d["run"].update(duration_s=-1e308), "key 'run.duration_s' should not be negative, found -1e+308."),
        (lambda d: d["run"].update(duration_s=float("inf")), "the record cannot be used: key 'run.duration_s' is inf, not a finite"),
        (lambda d: d["run"].update(paused_s=float("nan")), "the record cannot be used: key 'run.paused_s' is nan, not a finite"),
        (lambda d: d["sections"][0].update(duration_s=-3.0), "key 'sections[0].duration_s' should not be negative"),
        (lambda d: d["sections"][0]["read"].update(iops=-0.5), "key 'sections[0].read.iops' should not be negative"),
        (lambda d: d["sections"][1]["write"].update(bw_bytes=-4096), "key 'sections[1].write.bw_bytes' should not be negative"),
        (lambda d: d["sections"][0]["read"].update(io_bytes=-1), "key 'sections[0].read.io_bytes' should not be negative"),
        (lambda d: d["sections"][0]["read"].update(lat_p99_ns=-1.0), "key 'sections[0].read.lat_p99_ns' should not be negative"),
        (lambda d: d["pauses"][0].update(duration_s=-2.0), "key 'pauses[0].duration_s' should not be negative"),
        (lambda d: d["samples"][1].update(dt_s=-1.0), "key 'samples[1].dt_s' should not be negative"),
        (lambda d: d["hosts"][0].update(failed_at_s=-0.25), "key 'hosts[0].failed_at_s' should not be negative"),
        (lambda d: d["run"].update(sync_time_s=-1), "key 'run.sync_time_s' should not be negative"),
        (lambda d: d["sections"][0].update(paused_s=-1e-3), "key 'sections[0].paused_s' should not be negative"),
    ],
)
def test_durations_and_figures_that_cannot_be_negative_are_refused(tmp_path: Path, mutate, expected: str) -> None:
    doc = _schema_2()
    mutate(doc)
    path = tmp_path / "hand-edited.toml"
    path.write_text(tomli_w.dumps(doc))
    with pytest.raises(RecordError) as error:
        load_record(path)
    assert str(error.value).startswith(f"{path}: {expected}")


def test_a_record_with_a_figure_that_is_not_finite_is_not_saved(tmp_path: Path) -> None:
    record = load_record(_write(tmp_path, tomli_w.dumps(_schema_2()), "good.toml"))
    record.run["duration_s"] = float("inf")
    with pytest.raises(RecordError, match=r"key 'run.duration_s' should be a finite number, found inf\."):
        save_record(record, tmp_path / "runs")
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").glob("*.toml"))


def test_schema_2_with_schema_1_run_key_names_still_reads(tmp_path: Path) -> None:
    doc = _schema_2()
    run = doc["run"]
    run["fio_version"] = run.pop("tool_version")
    run["fio_argv"] = run.pop("argv")
    run["fio_report"] = run.pop("report")
    del run["tool"]
    path = tmp_path / "names.toml"
    path.write_text(tomli_w.dumps(doc))
    record = load_record(path)
    assert (record.tool, record.tool_version, record.argv) == ("fio", "fio-3.33", ["fio", "x.fio"])


def test_unknown_keys_inside_a_section_are_kept(tmp_path: Path) -> None:
    doc = _schema_2()
    doc["sections"][0]["later_key"] = {"value": 1.0}
    path = tmp_path / "later.toml"
    path.write_text(tomli_w.dumps(doc))
    assert load_record(path).sections[0]["later_key"] == {"value": 1.0}


def test_the_schema_1_summary_view_is_read_only_and_the_section_is_the_one_copy() -> None:
    doc = _schema_2()
    record = RunRecord(run=doc["run"], host=doc["host"], target=doc["target"],
                       summary={"read": {"iops": 5.0}, "pressure": {"responsiveness": "ok"}})
    assert record.sections[0]["read"] == {"iops": 5.0} and record.sections[0]["name"] == "blocksize-table"
    assert record.pressure == {"responsiveness": "ok"}
    with pytest.raises(TypeError):
        record.summary["write"] = {"iops": 7.0}
    with pytest.raises(TypeError):
        del record.summary["read"]["iops"]
    assert "write" not in record.sections[0] and record.sections[0]["read"] == {"iops": 5.0}
    record.sections[0]["write"] = {"iops": 7.0}  # a figure is changed in its section, and every view sees it
    assert record.summary["write"] == {"iops": 7.0}
    assert record.figures_of("write") == DirectionFigures("write", iops=7.0)
    assert record.total_iops() == 12.0
