"""Run records: atomic TOML on disk, validated on load."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from iotui.core.runs.paths import default_runs_dir
from iotui.core.records.record import RunRecord
from iotui.core.records.files import list_records, load_record, save_record
from iotui.core.records.schema import RecordError


def make_record(**run_overrides) -> RunRecord:
    run = {
        "id": "0123456789abcdef",
        "preset": "quick",
        "status": "completed",
        "started": dt.datetime(2026, 11, 21, 12, 0, 0, tzinfo=dt.timezone.utc),
        "duration_s": 3.5,
        "fio_version": "fio-3.33",
        "fio_argv": ["fio", "--name=x"],
        "fio_report": "",
    }
    run.update(run_overrides)
    return RunRecord(
        run=run,
        host={"hostname": "h", "system": "Linux", "kernel": "6.1", "cpu_model": "cpu", "cpu_count": 2, "mem_total_bytes": 1 << 30},
        target={"path": "/data", "filesystem": "ext4", "device": "/dev/vda", "mount_options": "rw"},
        options={"rw": "randread", "bs": "4k"},
        summary={
            "read": {"iops": 1000.5, "bw_bytes": 4098048, "io_bytes": 123, "total_ios": 3, "lat_p99_ns": 9000, "lat_mean_ns": None},
            "cpu": {"user_pct": 1.0},
        },
        samples=[{"t_s": 1.0, "dt_s": 1.0, "read_iops": 1000.0, "psi_io_some_pct": None}],
        warnings=[{"code": "fs", "message": "x"}],
    )


def test_round_trip_keeps_every_value(tmp_path: Path) -> None:
    record = make_record()
    path = save_record(record, tmp_path, fio_report={"jobs": []})
    loaded = load_record(path)
    assert loaded.run["started"] == record.run["started"]
    assert loaded.summary["read"]["iops"] == 1000.5
    assert "lat_mean_ns" not in loaded.summary["read"]  # None is absent, not zero
    assert "psi_io_some_pct" not in loaded.samples[0]
    assert loaded.run["report"] == path.name.replace(".toml", ".fio.json")
    assert json.loads((tmp_path / loaded.run["report"]).read_text()) == {"jobs": []}
    assert path.read_text().startswith("schema = 2")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, loaded.run["report"]])  # no temp file left


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d.update(schema=99), "newer iotui"),
        (lambda d: d["run"].pop("preset"), "run.preset"),
        (lambda d: d["run"].update(status="weird"), "run.status"),
        (lambda d: d["run"].update(duration_s="long"), "run.duration_s"),
        (lambda d: d["sections"][0]["read"].update(iops="fast"), "sections[0].read.iops"),
        (lambda d: d["sections"][0]["read"].pop("iops"), "sections[0].read.iops"),
        (lambda d: d["samples"][0].pop("t_s"), "samples[0].t_s"),
        (lambda d: d["host"].update(cpu_count="two"), "host.cpu_count"),
        (lambda d: d.pop("target"), "[target]"),
    ],
)
def test_invalid_records_are_refused_naming_file_and_key(tmp_path: Path, mutate, expected: str) -> None:
    import tomli_w

    doc = make_record().to_toml_dict()
    mutate(doc)
    path = tmp_path / "bad.toml"
    path.write_text(tomli_w.dumps(doc))
    with pytest.raises(RecordError) as error:
        load_record(path)
    assert str(path) in str(error.value)
    assert expected in str(error.value)


def test_corrupt_and_missing_files_are_sentences(tmp_path: Path) -> None:
    (tmp_path / "torn.toml").write_text("schema = 1\n[run\nid = ")
    with pytest.raises(RecordError, match="not valid TOML"):
        load_record(tmp_path / "torn.toml")
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "absent.toml")


def test_listing_keeps_bad_records_as_errors(tmp_path: Path) -> None:
    save_record(make_record(), tmp_path)
    (tmp_path / "broken.toml").write_text("nonsense = ")
    entries = list_records(tmp_path)
    assert len(entries) == 2
    good = [e for e in entries if e[1] is not None]
    bad = [e for e in entries if e[2] is not None]
    assert len(good) == 1 and len(bad) == 1 and "broken.toml" in bad[0][2]


def test_unwritable_runs_dir_is_a_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RecordError, match="Cannot create the runs directory .*; choose another runs directory") as refused:
        save_record(make_record(), blocker / "runs")
    assert "--" not in str(refused.value)  # the core names no flag: each front end adds its own advice


def test_runs_dir_defaults() -> None:
    assert default_runs_dir({"IOTUI_RUNS_DIR": "/x/runs"}) == Path("/x/runs")
    assert default_runs_dir({"XDG_DATA_HOME": "/d"}) == Path("/d/iotui/runs")


def test_fio_output_given_as_a_record_points_to_import(tmp_path: Path) -> None:
    """A new user's first mistake: fio's own output handed to show/compare/report."""
    path = tmp_path / "fio.json"
    path.write_text('{"fio version": "fio-3.33", "jobs": []}\n')
    with pytest.raises(RecordError, match=r"not valid TOML .*iotui import"):
        load_record(path)
