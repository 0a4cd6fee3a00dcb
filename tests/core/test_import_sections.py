"""Imports keep fio's reporting groups apart: each is a section with fio's own figures.

The documents are built from a fio 2.2.10 report in fixtures, reshaped the way
other fio versions wrote theirs (2.1.x: no ``total_ios``, no ``N``; several
groups; no timestamp). Expected values are read from the document itself.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
from pathlib import Path

import pytest

from iotui.core.records.importer import import_fio_file
from tests.core.test_fio_import import FIO_2_JSON, _raw_json


def _job(name: str, groupid: int, direction: str, scale: float) -> dict:
    base = _raw_json(FIO_2_JSON)["jobs"][0]
    job = copy.deepcopy(base)
    job["jobname"], job["groupid"] = name, groupid
    stats = copy.deepcopy(base["read"])
    stats["iops"] = round(stats["iops"] * scale, 6)
    stats["io_bytes"] = int(stats["io_bytes"] * scale)
    stats["total_ios"] = int(stats["total_ios"] * scale)
    stats["clat"]["percentile"]["99.000000"] = int(stats["clat"]["percentile"]["99.000000"] * scale)
    empty = {key: 0 for key in ("io_bytes", "bw", "iops", "runtime", "total_ios")}
    job["read"], job["write"] = (stats, dict(empty)) if direction == "read" else (dict(empty), stats)
    return job


def _write(tmp_path: Path, doc: dict, name: str = "doc.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=1))
    return path


def test_five_groups_become_five_sections_and_nothing_is_summed(tmp_path: Path) -> None:
    names = ["seq-write", "seq-read", "rand-write", "rand-read", "parallel-read"]
    jobs = [_job(name, index, "write" if "write" in name else "read", 1 + index / 10) for index, name in enumerate(names)]
    doc = {"fio version": "fio-2.1.4", "timestamp": 1400000000, "jobs": jobs}
    [record] = import_fio_file(_write(tmp_path, doc))
    assert record.section_names() == names
    for section, job in zip(record.sections, jobs):
        direction = "write" if "write" in section["name"] else "read"
        assert section[direction]["iops"] == job[direction]["iops"]
        assert section[direction]["lat_p99_ns"] == job[direction]["clat"]["percentile"]["99.000000"] * 1000
    assert "read" not in record.summary and "summary" not in record.to_json_dict()


def test_read_in_one_group_and_write_in_the_next_keep_both_p99s(tmp_path: Path) -> None:
    doc = {"fio version": "fio-2.17", "timestamp": 1490000000,
           "jobs": [_job("reader", 0, "read", 1.0), _job("writer", 1, "write", 0.5)]}
    [record] = import_fio_file(_write(tmp_path, doc))
    reader, writer = record.sections
    assert reader["read"]["lat_p99_ns"] == doc["jobs"][0]["read"]["clat"]["percentile"]["99.000000"] * 1000
    assert writer["write"]["lat_p99_ns"] == doc["jobs"][1]["write"]["clat"]["percentile"]["99.000000"] * 1000


def test_fio_2_1_latency_comes_from_fios_own_numbers_with_a_derived_count(tmp_path: Path) -> None:
    job = _job("old", 0, "read", 1.0)
    for key in ("total_ios", "short_ios", "drop_ios"):
        job["read"].pop(key, None)
    doc = {"fio version": "fio-2.1.4", "timestamp": 1400000000, "jobs": [job]}
    [record] = import_fio_file(_write(tmp_path, doc))
    read = record.sections[0]["read"]
    clat = job["read"]["clat"]
    assert read["lat_mean_ns"] == pytest.approx(clat["mean"] * 1000)
    assert read["lat_min_ns"] == clat["min"] * 1000 and read["lat_max_ns"] == clat["max"] * 1000
    assert read["lat_p99_ns"] == clat["percentile"]["99.000000"] * 1000
    assert read["lat_source"] == "derived"
    assert "total_ios" not in read  # no count in the report: absent, not 0
    assert read["iops"] == job["read"]["iops"]


def test_a_document_without_a_clock_is_dated_by_the_files_mtime(tmp_path: Path) -> None:
    doc = {"fio version": "fio-2.1.4", "jobs": [_job("old", 0, "read", 1.0)]}
    path = _write(tmp_path, doc)
    stamp = dt.datetime(2019, 5, 4, 3, 2, 1, tzinfo=dt.timezone.utc).timestamp()
    os.utime(path, (stamp, stamp))
    [record] = import_fio_file(path)
    assert record.run["started_source"] == "file-mtime"
    assert record.started.year == 2019 and record.started <= dt.datetime.fromtimestamp(stamp, dt.timezone.utc)
    assert "cpu_count" not in record.host and "mem_total_bytes" not in record.host


def test_a_trimmed_copy_without_min_max_leaves_them_absent(tmp_path: Path) -> None:
    """Tools that keep only part of fio's JSON (no min, max, N, total_ios): what is missing stays missing."""
    stats = {"io_bytes": 73_680_614_000, "bw_bytes": 122_800_000, "iops": 29_980.5, "runtime": 600_005,
             "clat_ns": {"mean": 2_391_300, "percentile": {"50.000000": 2_000_000, "99.000000": 9_000_000}}}
    doc = {"fio version": "fio-3.41", "jobs": [{"jobname": "trimmed", "error": 0, "read": stats}]}
    [record] = import_fio_file(_write(tmp_path, doc))
    read = record.sections[0]["read"]
    assert read["lat_mean_ns"] == 2_391_300 and read["lat_p99_ns"] == 9_000_000
    assert "lat_min_ns" not in read and "lat_max_ns" not in read and "total_ios" not in read
    assert read["iops"] == 29_980.5 and read["bw_bytes"] == 122_800_000


def test_a_text_reports_job_block_is_a_section_named_after_the_job() -> None:
    from tests.core.test_fio_import import SEAWEEDFS

    records = import_fio_file(SEAWEEDFS)
    text = SEAWEEDFS.read_text()
    import re

    headers = re.findall(r"^(\S.*?): \(groupid=(\d+), jobs=\d+\)", text, re.M)
    assert [(r.sections[0]["name"], r.sections[0]["groupid"]) for r in records] == [(n, int(g)) for n, g in headers]


def test_two_jobs_of_one_group_without_bins_name_their_percentiles_missing(tmp_path: Path) -> None:
    jobs = [_job("a", 0, "read", 1.0), _job("b", 0, "read", 0.5)]
    doc = {"fio version": "fio-2.2.10", "timestamp": 1490000000, "jobs": jobs}
    [record] = import_fio_file(_write(tmp_path, doc))
    read = record.sections[0]["read"]
    assert read["missing"] == ["lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99_9_ns"]
    assert not {"lat_p50_ns", "lat_p99_ns"} & set(read)  # never one job's
    assert read["total_ios"] == jobs[0]["read"]["total_ios"] + jobs[1]["read"]["total_ios"]
