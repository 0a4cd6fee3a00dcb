"""The one number helper and the one typed view of a section's direction figures."""

from __future__ import annotations

import math

import pytest

from iotui.core.compare.compare import compare_records
from iotui.core.numbers import finite_number, is_number, number, numbers
from iotui.core.records.direction_figures import (
    DirectionFigures,
    direction_figures,
    section_figures,
    section_total_iops,
    worst_p99_ns,
)
from iotui.core.records.export import export_table
from iotui.core.records.importer import import_fio_file
from iotui.core.sweep.points import PointResult
from tests.conftest import FIO_FIXTURES, fio_documents


@pytest.mark.parametrize("value", [True, False, "12", None, [1], {"iops": 1}])
def test_a_bool_a_string_or_a_table_is_no_figure(value: object) -> None:
    assert not is_number(value) and number(value) is None and finite_number(value) is None


def test_ints_and_floats_are_figures_and_only_finite_ones_for_finite_number() -> None:
    assert number(3) == 3.0 and isinstance(number(3), float) and number(2.5) == 2.5
    assert math.isnan(number(math.nan) or 0.0) and number(math.inf) == math.inf
    assert finite_number(math.nan) is None and finite_number(-math.inf) is None and finite_number(0) == 0.0
    assert numbers([1, True, "2", 3.5, None]) == [1.0, 3.5]


def test_a_direction_is_read_with_its_record_keys_and_a_bool_is_left_out() -> None:
    section: dict[str, object] = {
        "name": "s", "write": {"iops": 7, "bw_bytes": True, "lat_p99_ns": 120_000, "lat_source": "bins"},
        "read": {"iops": 5.0, "lat_p99_ns": 90_000.0}, "cpu": {"user_pct": 3.0}, "trim": "not a table",
    }
    assert [f.direction for f in section_figures(section)] == ["read", "write"]  # fio's order, not the table's
    write = direction_figures(section, "write")
    assert write == DirectionFigures("write", iops=7.0, lat_p99_ns=120_000.0, lat_source="bins")
    assert write is not None and write.figure("lat_p99_ns") == 120_000.0 and write.figure("user_pct") is None
    assert direction_figures(section, "trim") is None and direction_figures(section, "cpu") is None
    assert section_total_iops(section) == 12.0 and worst_p99_ns(section) == 120_000.0


def test_a_published_zero_bandwidth_beside_iops_is_unknown() -> None:
    assert DirectionFigures("read", iops=100.0, bw_bytes=0.0).known_bw_bytes is None
    assert DirectionFigures("read", iops=0.0, bw_bytes=0.0).known_bw_bytes == 0.0
    assert DirectionFigures("read", iops=100.0, bw_bytes=4096.0).known_bw_bytes == 4096.0


def test_the_view_compare_export_and_sweep_read_equals_fios_final_report() -> None:
    name = "randrw-rate200-json+.txt"
    [record] = import_fio_file(FIO_FIXTURES / name)
    fio = fio_documents(name)[-1]["jobs"][0]
    point = PointResult.from_record(record, {})
    rows = {row["direction"]: row for row in export_table([record]).rows}
    comparison = compare_records([record, record])
    for direction in ("read", "write"):
        figures = record.figures_of(direction)
        assert figures is not None
        assert figures.iops == fio[direction]["iops"]
        assert figures.bw_bytes == fio[direction]["bw_bytes"]
        assert figures.total_ios == fio[direction]["total_ios"]
        assert figures.lat_p99_ns == fio[direction]["clat_ns"]["percentile"]["99.000000"]
        assert getattr(point, f"{direction}_iops") == fio[direction]["iops"]
        assert getattr(point, f"{direction}_lat_p99_ns") == fio[direction]["clat_ns"]["percentile"]["99.000000"]
        assert rows[direction]["iops"] == round(fio[direction]["iops"], 3)
        iops_row = comparison.row(direction, "iops")
        assert iops_row is not None and iops_row.values[0] == fio[direction]["iops"]
