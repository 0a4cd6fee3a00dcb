"""The history index follows the TOML records: new, changed, removed and bad files; filters; notes, tags, prune."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.history_index import INDEX_FILE_NAME, RunFilter, query, save_indexed, sync
from iotui.core.records.record import RunRecord
from iotui.core.records.edit import annotate, delete_records, parse_age, parse_tags
from iotui.core.records.files import load_record, save_record
from iotui.core.records.schema import RecordError


def make(run_id: str, day: int, *, preset: str = "quick", path: str = "/data", iops: float = 100.0) -> RunRecord:
    return RunRecord(
        run={"id": run_id, "preset": preset, "status": "completed",
             "started": dt.datetime(2026, 11, day, 12, 0, tzinfo=dt.timezone.utc), "duration_s": 20.0,
             "fio_version": "fio-3.33", "fio_argv": ["fio"], "fio_report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 4, "mem_total_bytes": 1},
        target={"path": path, "filesystem": "ext4", "device": "sda", "mount_options": ""},
        summary={"read": {"iops": iops, "bw_bytes": iops * 4096, "io_bytes": 1, "total_ios": 1, "lat_p99_ns": 2000.0}},
    )


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    save_record(make("aaaaaaaa01", 1), tmp_path, fio_report={"jobs": []})
    save_record(make("bbbbbbbb02", 2, preset="seq1m-q8t1", path="/mnt/backup", iops=900.0), tmp_path)
    save_record(make("cccccccc03", 3, iops=150.0), tmp_path)
    return tmp_path


def ids(runs_dir: Path, run_filter: RunFilter | None = None) -> list[str]:
    return [run.run_id for run in query(runs_dir, run_filter or RunFilter())[0]]


def test_cold_build_then_warm_sync_parses_nothing(runs: Path) -> None:
    seen = []
    first = sync(runs, progress=lambda done, total: seen.append((done, total)))
    assert first.cold and first.parsed == 3 and first.total == 3 and seen[-1] == (3, 3)
    assert (runs / INDEX_FILE_NAME).exists()
    assert ids(runs) == ["cccccccc03", "bbbbbbbb02", "aaaaaaaa01"]  # newest first
    again = sync(runs)
    assert not again.cold and again.parsed == 0 and again.removed == 0


def test_the_index_follows_new_changed_removed_and_bad_files(runs: Path) -> None:
    sync(runs)
    save_record(make("dddddddd04", 4), runs)
    changed = next(runs.glob("*aaaaaaaa.toml"))
    record = load_record(changed)
    record.run["status"] = "stopped"
    changed.write_text(changed.read_text().replace('status = "completed"', 'status = "stopped"'))
    next(runs.glob("*bbbbbbbb.toml")).unlink()
    (runs / "20261130-000000-broken-eeeeeeee.toml").write_text("not = [toml")
    result = sync(runs)
    assert result.parsed == 3 and result.removed == 1
    found = {run.run_id or run.path.name: run for run in query(runs)[0]}
    assert set(found) == {"dddddddd04", "cccccccc03", "aaaaaaaa01", "20261130-000000-broken-eeeeeeee.toml"}
    assert found["aaaaaaaa01"].status == "stopped"
    bad = found["20261130-000000-broken-eeeeeeee.toml"]
    assert bad.status == "bad file" and "not valid TOML" in bad.error


def test_records_iotui_saves_are_indexed_as_saved_so_history_opens_warm(tmp_path: Path) -> None:
    save_indexed(make("aaaaaaaa01", 1, iops=123.5), tmp_path)
    save_indexed(make("bbbbbbbb02", 2), tmp_path)
    listed, total = query(tmp_path)  # no sync
    assert total == 2 and [run.run_id for run in listed] == ["bbbbbbbb02", "aaaaaaaa01"]
    assert listed[1].read_iops == (123.5,)
    assert sync(tmp_path).parsed == 0


def test_sweep_records_and_hidden_files_are_not_runs(runs: Path) -> None:
    (runs / "x.sweep.toml").write_text("schema = 1\n")
    (runs / ".partial.toml.tmp").write_text("")
    assert sync(runs).total == 3


def test_filters_words_preset_status_tag_and_age(runs: Path) -> None:
    sync(runs)
    assert ids(runs, RunFilter.from_text("backup")) == ["bbbbbbbb02"]
    assert ids(runs, RunFilter.from_text("QUICK 2026-11-03")) == ["cccccccc03"]
    assert ids(runs, RunFilter.from_text("nothing-like-this")) == []
    assert ids(runs, RunFilter(preset="quick")) == ["cccccccc03", "aaaaaaaa01"]
    now = dt.datetime(2026, 11, 3, 13, 0, tzinfo=dt.timezone.utc).timestamp()
    from iotui.core.records import history_index

    where, values = history_index._where(RunFilter(older_than_s=86400 + 3600), now=now)
    assert "started_ts < ?" in where and values == [now - 90000]
    runs_list, total = query(runs, RunFilter(), limit=2)
    assert len(runs_list) == 2 and total == 3


def test_notes_and_tags_live_in_the_record_and_the_index_follows(runs: Path) -> None:
    sync(runs)
    path = next(runs.glob("*aaaaaaaa.toml"))
    annotate(path, notes="after the firmware update", tags=parse_tags("nvme, before-fw nvme"))
    record = load_record(path)
    assert record.run["notes"] == "after the firmware update" and record.run["tags"] == ["nvme", "before-fw"]
    assert record.run["report"] == path.name.replace(".toml", ".fio.json")  # the report stays linked
    sync(runs)
    assert ids(runs, RunFilter.from_text("firmware")) == ["aaaaaaaa01"]
    assert ids(runs, RunFilter(tag="nvme")) == ["aaaaaaaa01"]
    assert ids(runs, RunFilter(tag="nv")) == []
    annotate(path, notes="", tags=[])
    assert "notes" not in load_record(path).run and "tags" not in load_record(path).run
    with pytest.raises(RecordError, match="not a tag"):
        parse_tags("ok $(rm -rf)")


def test_delete_removes_the_record_and_its_report(runs: Path) -> None:
    path = next(runs.glob("*aaaaaaaa.toml"))
    report = path.with_name(path.name.replace(".toml", ".fio.json"))
    assert report.exists()
    deleted = delete_records([path])
    assert set(deleted.removed) == {path, report} and not deleted.failed
    sync(runs)
    assert "aaaaaaaa01" not in ids(runs)


def test_a_damaged_index_is_rebuilt(runs: Path) -> None:
    sync(runs)
    (runs / INDEX_FILE_NAME).write_bytes(b"this is not sqlite" * 100)
    assert sync(runs).total == 3
    assert len(ids(runs)) == 3


def test_ages() -> None:
    assert parse_age("30d") == 30 * 86400 and parse_age("12h") == 43200 and parse_age("2w") == 14 * 86400
    with pytest.raises(ValueError, match="not an age"):
        parse_age("30 days")


def iotui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, timeout=60)


def test_cli_lists_filters_and_prunes_only_with_yes(runs: Path) -> None:
    listed = iotui("history", "--runs-dir", str(runs), "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert data["matched"] == 3 and [run["id"] for run in data["runs"]] == ["cccccccc03", "bbbbbbbb02", "aaaaaaaa01"]
    assert data["runs"][0]["started"].startswith("2026-11-03T12:00")
    text = iotui("history", "backup", "--runs-dir", str(runs))
    assert "2026-11-02 12:00" in text.stdout and "seq1m-q8t1" in text.stdout and "quick" not in text.stdout
    asked = iotui("history", "--prune", "--preset", "quick", "--runs-dir", str(runs))
    assert asked.returncode == 0 and "2 runs would be deleted" in asked.stdout and "--yes" in asked.stdout
    assert len(list(runs.glob("*.toml"))) == 3
    refused = iotui("history", "--prune", "--runs-dir", str(runs))
    assert refused.returncode == 2 and "--older-than" in refused.stderr
    pruned = iotui("history", "--prune", "--preset", "quick", "--yes", "--json", "--runs-dir", str(runs))
    assert pruned.returncode == 0, pruned.stderr
    assert len(json.loads(pruned.stdout)["pruned"]) == 2
    assert [p.name for p in runs.glob("*.toml")] == [next(iter(runs.glob("*bbbbbbbb.toml"))).name]
    assert not list(runs.glob("*.fio.json"))
