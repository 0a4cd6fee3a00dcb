"""Export: tables like the studies' in markdown, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json

import pytest

from iotui.core.records.export import export_records, export_table
from iotui.core.records.importer import import_fio_file
from iotui.core.records.references import load_reference
from tests.conftest import FIO_FIXTURES, FIXTURES

SEAWEEDFS = FIXTURES / "import" / "seaweedfs-fio-3.42-normal.txt"


def test_markdown_rows_per_run_with_the_settings_that_differ() -> None:
    records = import_fio_file(SEAWEEDFS)
    markdown = export_records(records, "markdown")
    lines = markdown.strip().splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header[:3] == ["bs", "rw", "direct"]
    assert header[3:7] == ["BW (MiB/s)", "IOPS", "Avg latency (µs)", "p99 (µs)"]
    assert "run" not in header  # every run is called "test": the settings tell them apart
    assert len(lines) == 2 + len(records)
    first = [cell.strip() for cell in lines[2].strip("|").split("|")]
    assert first[:3] == ["4k", "randread", "1"]
    assert first[3] == "22.7"  # as printed by fio: BW=22.7MiB/s
    assert first[5] == "171.40" and first[6] == "338.00"  # avg=171.40 usec, p99 338 usec
    seq_4k = next(line for line in lines if line.startswith("| 4k | read |"))
    assert "page cache" in seq_4k


def test_csv_and_json_keep_plain_numbers() -> None:
    records = import_fio_file(SEAWEEDFS)
    rows = list(csv.DictReader(io.StringIO(export_records(records, "csv"))))
    assert rows[0]["bs"] == "4k"
    assert float(rows[0]["iops"]) == pytest.approx(records[0].summary["read"]["iops"], abs=0.001)
    assert float(rows[0]["lat_p99_us"]) == records[0].summary["read"]["lat_p99_ns"] / 1000
    data = json.loads(export_records(records, "json"))
    assert data[1]["bw_mib_s"] == pytest.approx(records[1].summary["read"]["bw_bytes"] / (1 << 20), abs=0.001)
    assert data[2]["direct"] == "1" and data[3]["direct"] is None


def test_mixed_run_gives_a_row_per_direction() -> None:
    [record] = import_fio_file(FIO_FIXTURES / "randrw-rate200-json+.txt")
    table = export_table([record])
    assert [row["direction"] for row in table.rows] == ["read", "write"]
    assert ("direction", "direction") in table.columns


def test_record_with_a_jobs_table_gives_a_row_per_job() -> None:
    reference = load_reference("openbsd-numjobs-randread")
    data = json.loads(export_records([reference], "json"))
    assert [row["numjobs"] for row in data] == ["1", "2", "4", "8", "18", "32"]
    assert data[3]["iops"] == 439728
    assert data[3]["bw_mib_s"] == pytest.approx(1712.0)
    assert data[3]["lat_mean_us"] == pytest.approx(58.22)
    markdown = export_records([reference], "markdown")
    assert "| numjobs=8 | 8 | 1,712.0 | 439,728 | 58.22 | - | Near peak performance |" in markdown


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="markdown, csv, json"):
        export_records([], "xml")
