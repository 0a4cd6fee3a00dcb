"""Listing a record from its header tables: the same figures as the whole record, samples unread."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record, save_record
from iotui.core.records.headers import listed_text, load_record_headers
from iotui.core.records.schema import RecordError


def _record(samples: int = 20, hosts: bool = False) -> RunRecord:
    section = {
        "name": "randwrite", "groupid": 0,
        "write": {"iops": 1234.567891234, "bw_bytes": 5056788.5, "io_bytes": 4096 * 1000, "total_ios": 1000,
                  "lat_p99_ns": 130048.0, "lat_mean_ns": 81234.25},
    }
    record = RunRecord(
        run={"id": "ab" * 16, "preset": "quick", "status": "completed", "title": "a [samples] title",
             "started": dt.datetime(2026, 11, 3, 12, 0, tzinfo=dt.timezone.utc), "duration_s": 20.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio", "--name=[samples]"], "report": "",
             "notes": "line one\n[[samples]]\nline three", "tags": ["nfs", "x"]},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 4, "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "sda", "mount_options": ""},
        sections=[section],
        samples=[{"t_s": float(t), "dt_s": 1.0, "write_iops": 1000.0 + t, "section": 0} for t in range(1, samples + 1)],
        pressure={"responsiveness": "sluggish", "cause": "io_probe_write"},
    )
    if hosts:
        record.hosts = [{"name": f"h{i}", "sections": [section], "samples": list(record.samples)} for i in range(3)]
    return record


@pytest.mark.parametrize("hosts", [False, True])
def test_headers_hold_what_the_whole_record_holds_less_samples_hosts_and_messages(tmp_path: Path, hosts: bool) -> None:
    path = save_record(_record(hosts=hosts), tmp_path)
    text = path.read_text()
    cut = listed_text(text)
    assert cut is not None and "[[samples]]\n" not in cut and "[[hosts" not in cut and "t_s = " not in cut
    whole, listed = load_record(path), load_record_headers(path)
    assert listed.samples == [] and listed.hosts == [] and whole.samples
    assert listed.sections == whole.sections  # every number exactly as the file holds it
    assert listed.sections[0]["write"]["iops"] == 1234.567891234
    for name in ("run", "target", "pressure", "pauses", "host", "options", "warnings"):
        assert getattr(listed, name) == getattr(whole, name), name
    assert listed.run["notes"] == "line one\n[[samples]]\nline three"


def test_a_multi_line_string_or_schema_1_is_read_whole(tmp_path: Path) -> None:
    path = save_record(_record(), tmp_path)
    text = path.read_text()
    assert listed_text(text.replace('title = "a [samples] title"', 'title = """a\n[samples]\ntitle"""')) is None
    assert listed_text(text.replace("schema = 2", "schema = 1")) is None


def test_a_file_the_cut_text_does_not_pass_is_refused_in_the_whole_record_s_words(tmp_path: Path) -> None:
    path = save_record(_record(), tmp_path)
    text = path.read_text()
    path.write_text(text.replace('status = "completed"', "status = 7"))
    with pytest.raises(RecordError) as whole:
        load_record(path)
    with pytest.raises(RecordError) as listed:
        load_record_headers(path)
    assert str(listed.value) == str(whole.value)


def test_records_written_elsewhere_with_headers_indented_or_quoted_are_cut_at_them() -> None:
    text = 'schema = 2\n[run]\nid = "x"\n  [[ "samples" ]]  # one\nt_s = 1.0\n[target]\npath = "/d"\n'
    assert listed_text(text) == 'schema = 2\n[run]\nid = "x"\n[target]\npath = "/d"\n'


def test_only_top_level_samples_arrays_are_cut() -> None:
    text = 'schema = 2\nsamples = [\n    { t_s = 1.0 },\n]\nkept = [\n    1,\n]\n[run]\nsamples = [\n    2,\n]\n'
    assert listed_text(text) == 'schema = 2\nkept = [\n    1,\n]\n[run]\nsamples = [\n    2,\n]\n'


def test_a_record_with_no_samples_lists_the_same(tmp_path: Path) -> None:
    path = save_record(_record(samples=0), tmp_path)
    listed, whole = load_record_headers(path), load_record(path)
    assert (listed.run, listed.sections, listed.target) == (whole.run, whole.sections, whole.target)


def test_a_fifo_named_like_a_record_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO in the runs directory must not block the index (open() of a FIFO waits for a writer)."""
    import os
    import threading

    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)
    outcome: list[str] = []

    def load() -> None:
        try:
            load_record_headers(fifo)
            outcome.append("loaded")
        except RecordError as error:
            outcome.append(str(error))

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # unblock the reader so the test run can end, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
        pytest.fail("load_record_headers blocked on a FIFO")
    assert outcome and "FIFO" in outcome[0] and "not a regular file" in outcome[0]
