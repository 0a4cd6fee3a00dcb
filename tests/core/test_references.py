"""Reference records: the studies' published tables, shipped as loadable records."""

from __future__ import annotations

import re

import pytest

from iotui.core.records.importer import import_fio_file
from iotui.core.records.schema import RecordError
from iotui.core.records.references import (
    REFERENCES_DIR,
    list_references,
    load_reference,
    reference_names,
    reference_rows,
    resolve_reference,
)
from tests.conftest import FIXTURES

SEEDS_000_TABLE = """\
1 473.0 121,318 26.41
2 808.3 207,333 30.80
4 1,302.4 334,219 37.97
8 1,712.0 439,728 58.22
18 1,715.6 439,661 117.12
32 1,618.6 415,603 180.56"""


def test_every_reference_loads_and_is_marked_as_a_reference() -> None:
    records = list_references()
    assert len(records) == len(list(REFERENCES_DIR.glob("*.toml"))) >= 8
    for record in records:
        assert record.status == "reference"
        assert record.run["reference"] is True
        assert record.run["source"]
        assert record.is_multi_section, record.path


def test_the_studies_are_all_there() -> None:
    names = set(reference_names())
    assert {
        "openbsd-numjobs-randread",
        "openbsd-numjobs-randwrite",
        "linux-vs-openbsd-qd1-openbsd",
        "linux-vs-openbsd-qd1-linux",
        "seaweedfs-fuse-blocksize",
        "iops-per-core-sync-1024",
        "iops-per-core-libaio-qd32",
    } <= names


def test_openbsd_read_table_equals_the_published_one() -> None:
    sections = load_reference("openbsd-numjobs-randread").sections
    for section, line in zip(sections, SEEDS_000_TABLE.splitlines(), strict=True):
        numjobs, bw, iops, latency = line.replace(",", "").split()
        assert section["options"]["numjobs"] == numjobs
        assert section["read"]["bw_bytes"] / (1 << 20) == pytest.approx(float(bw), abs=0.05)
        assert section["read"]["iops"] == int(iops)
        assert section["read"]["lat_mean_ns"] == round(float(latency) * 1000)


def test_seaweedfs_reference_equals_fios_printed_report() -> None:
    sections = load_reference("seaweedfs-fuse-blocksize").sections
    imported = import_fio_file(FIXTURES / "import" / "seaweedfs-fio-3.42-normal.txt")
    assert len(sections) == len(imported) == 6
    for section, record in zip(sections, imported):
        for key in ("iops", "bw_bytes", "lat_mean_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99_9_ns"):
            assert section["read"][key] == record.summary["read"][key]
    # The study's own summary table: IOPS 5,821 ... 394k; the reference agrees.
    text = (FIXTURES / "import" / "seaweedfs-fio-3.42-normal.txt").read_text()
    printed = [m.group(1) for m in re.finditer(r"read: IOPS=([\d.]+k?)", text)]
    assert printed == ["5821", "3063", "456", "394k", "14.3k", "1028"]
    assert int(sections[0]["read"]["iops"]) == 5821 and round(sections[3]["read"]["iops"] / 1000) == 394


def test_seaweedfs_sequential_4k_row_is_flagged_as_cache() -> None:
    [row] = resolve_reference("ref:seaweedfs-fuse-blocksize:read-4k")
    assert any(w["code"] == "cache-latency" for w in row.warnings)
    [direct] = resolve_reference("ref:seaweedfs-fuse-blocksize:randread-4k")
    assert not any(w["code"] == "cache-latency" for w in direct.warnings)
    table = load_reference("seaweedfs-fuse-blocksize")
    assert any(w["code"] == "cache-latency" for w in table.warnings)


def test_rows_become_records_with_the_rows_settings() -> None:
    rows = reference_rows(load_reference("openbsd-numjobs-randwrite"))
    assert len(rows) == 6
    eight = rows[3]
    assert eight.options["numjobs"] == "8" and eight.options["rw"] == "randwrite"
    assert eight.summary["write"]["iops"] == 323439
    assert "total_ios" not in eight.summary["write"]  # a published rate has no count: absent, not 0
    assert eight.id.endswith("#numjobs=8")


def test_engine_table_keeps_iops_per_core() -> None:
    [pvsync2] = resolve_reference("ref:iops-per-core-sync-1024:pvsync2")
    assert pvsync2.summary["read"]["iops"] == 9_527_000
    assert pvsync2.summary["cpu"]["iops_per_busy_core"] == 140_000
    assert pvsync2.summary["cpu"]["system_pct"] == 77.3
    [aio] = resolve_reference("ref:iops-per-core-libaio-qd32:32")
    assert aio.summary["read"]["iops"] == 8_718_000  # "8.718" (k) with '.' as thousands separator


def test_row_by_value_and_by_name() -> None:
    assert resolve_reference("ref:openbsd-numjobs-randread:8")[0].summary["read"]["iops"] == 439728
    assert resolve_reference("ref:openbsd-numjobs-randread:numjobs=8")[0].summary["read"]["iops"] == 439728


def test_unknown_reference_or_row_is_a_sentence() -> None:
    with pytest.raises(RecordError, match="no reference named 'nope'.*openbsd-numjobs-randread"):
        resolve_reference("ref:nope")
    with pytest.raises(RecordError, match="no row '7'.*numjobs=8"):
        resolve_reference("ref:openbsd-numjobs-randread:7")
