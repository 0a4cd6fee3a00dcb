"""fio's terse output (--minimal, --output-format=terse, versions 2 to 5) imports as one record per run.

The files were made by ``tests/fixtures/import/fio-3.33/make.sh``; expected values are
the fields of the printed lines, copied here by hand (each quoted beside its use).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.core.records.importer import import_fio_file
from tests.conftest import FIXTURES

FIO_333 = FIXTURES / "import" / "fio-3.33"

# (file, the two randread lines' KiB;KiB/s;IOPS;runtime fields)
TWO_GROUPS = [
    ("two-groups-terse-v2.txt", (72700, 72627, 18156, 1001), (73452, 73378, 18344, 1001)),
    ("two-groups-terse-v3.txt", (90292, 90201, 22550, 1001), (94976, 94786, 23696, 1002)),
    ("two-groups-terse-v4.txt", (79784, 79704, 19926, 1001), (79456, 79297, 19824, 1002)),
    ("two-groups-terse-v5.txt", (67336, 67268, 16817, 1001), (67356, 67288, 16822, 1001)),
    ("two-groups-minimal.txt", (67396, 67328, 16832, 1001), (67308, 67240, 16810, 1001)),
]


@pytest.mark.parametrize("name, first, second", TWO_GROUPS)
def test_every_terse_version_is_one_run_of_two_groups(name: str, first: tuple, second: tuple) -> None:
    [record] = import_fio_file(FIO_333 / name)
    reader, writer = record.sections
    assert (reader["name"], writer["name"]) == ("randread", "seqwrite")
    assert "read" in reader and "write" not in reader and "write" in writer and "read" not in writer
    runtime_ms = max(first[3], second[3])
    read = reader["read"]
    # fio merges a group over its longest runtime: KiB summed, x 1000 / runtime
    assert read["io_bytes"] == (first[0] + second[0]) * 1024
    assert read["bw_bytes"] == (first[0] + second[0]) * 1024 * 1000 // runtime_ms
    # no I/O count in terse: each job's printed IOPS over its runtime
    assert read["iops"] == pytest.approx((first[2] * first[3] + second[2] * second[3]) / runtime_ms)
    assert reader["duration_s"] == runtime_ms / 1000
    assert read["missing"] == ["lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99_9_ns"]
    assert record.run["tool_version"] == ("unknown" if "v2" in name else "fio-3.33")


def test_terse_mixed_single_job_keeps_fios_printed_figures() -> None:
    # 5;fio-3.33;mixed;0;0;22224;22179;5544;1002;...;0;14089;152.658869;...;50.000000%=8;90.000000%=181;
    # 99.000000%=2965;99.900000%=6848;...;0.599401%;9.390609%
    [record] = import_fio_file(FIO_333 / "mixed-terse-v5.txt")
    [section] = record.sections
    mixed = section["mixed"]
    assert set(section) & {"read", "write", "trim"} == set()
    assert mixed["iops"] == 5544 and mixed["iops_printed"] == 5544
    assert mixed["bw_bytes"] == 22179 * 1024 and mixed["io_bytes"] == 22224 * 1024
    assert mixed["lat_mean_ns"] == pytest.approx(152_658.869)
    assert mixed["lat_max_ns"] == 14_089_000
    assert (mixed["lat_p50_ns"], mixed["lat_p90_ns"], mixed["lat_p99_ns"], mixed["lat_p99_9_ns"]) == (
        8_000, 181_000, 2_965_000, 6_848_000,
    )
    assert section["duration_s"] == 1.002
    assert section["cpu"]["fio_cpu_cores"] == pytest.approx((0.599401 + 9.390609) / 100)


def test_two_terse_runs_in_one_file_are_two_records(tmp_path: Path) -> None:
    text = (FIO_333 / "two-groups-terse-v3.txt").read_text()
    path = tmp_path / "two.txt"
    path.write_text(text + text)  # the group number goes back to 0: the next run
    assert len(import_fio_file(path)) == 2


@pytest.mark.parametrize("name", ["two-groups-terse-v3.txt", "two-groups-terse-v5.txt", "mixed-terse-v5.txt"])
def test_the_disk_util_fields_name_the_device(name: str) -> None:
    # each line ends ...;0.00%;vda;22897;843;14;0;1362;770;2134;67.38% (name, ios, merges, ticks, in_queue, util)
    [record] = import_fio_file(FIO_333 / name)
    assert record.target["device"] == "vda"


def test_terse_v2_prints_no_disk_util() -> None:
    [record] = import_fio_file(FIO_333 / "two-groups-terse-v2.txt")
    assert record.target["device"] == "unknown"


def test_terse_unified_both_keeps_read_write_and_the_mixed_direction() -> None:
    # 3;fio-3.33;both;0;0;3620;3616;904;1001;... then write, then mixed 7432;7424;1856;1001;...;534.173308;...
    # 50.000000%=10;90.000000%=2007;99.000000%=6062;99.900000%=9502;... then the CPU: 1.000000%;2.100000%
    [record] = import_fio_file(FIO_333 / "mixed-both-minimal.txt")
    [section] = record.sections
    assert {"read", "write", "mixed"} <= set(section)
    assert section["read"]["io_bytes"] == 3620 * 1024 and section["read"]["iops"] == 904
    mixed = section["mixed"]
    assert mixed["io_bytes"] == 7432 * 1024 and mixed["bw_bytes"] == 7424 * 1024 and mixed["iops"] == 1856
    assert mixed["lat_mean_ns"] == pytest.approx(534_173.308)
    assert (mixed["lat_p50_ns"], mixed["lat_p90_ns"], mixed["lat_p99_ns"], mixed["lat_p99_9_ns"]) == (
        10_000, 2_007_000, 6_062_000, 9_502_000,
    )
    assert section["cpu"]["fio_cpu_cores"] == pytest.approx((1.0 + 2.1) / 100)
