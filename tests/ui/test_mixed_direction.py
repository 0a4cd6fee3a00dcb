"""fio's ``mixed`` direction (unified_rw_reporting) is shown as mixed everywhere, never as a read.

The record is fio 3.33's terse v5 output of one mixed job (tests/fixtures/import/fio-3.33/make.sh):
``5;fio-3.33;mixed;0;0;22224;22179;5544;1002;...``: 5,544 IOPS, 22,179 KiB/s.
"""

from __future__ import annotations

import json
from pathlib import Path

from iotui.core.records.importer import import_fio_file
from iotui.core.records.export import export_records
from iotui.core.records.history_index import query, sync
from iotui.core.records.files import load_record, save_record
from iotui.ui.widgets.history_table import HistoryEntry
from iotui.ui.widgets.section_table import section_row
from tests.conftest import FIXTURES

MIXED_TERSE = FIXTURES / "import" / "fio-3.33" / "mixed-terse-v5.txt"


def test_mixed_round_trips_and_is_shown_as_mixed(tmp_path: Path) -> None:
    [record] = import_fio_file(MIXED_TERSE)
    loaded = load_record(save_record(record, tmp_path))
    assert loaded.sections[0]["mixed"]["iops"] == 5544 and "read" not in loaded.sections[0]
    assert "[sections.mixed]" in (tmp_path / loaded.path.name).read_text()  # type: ignore[union-attr]
    # Results: the section row says mixed in the read column, the write column is empty
    row = section_row(loaded.sections[0])
    assert row[3] == "mixed 5.5k" and row[4] == "-"
    # History: the index keeps the mixed IOPS apart; the table marks it "m", the detail has no read
    sync(tmp_path)
    [indexed] = query(tmp_path)[0]
    assert indexed.read_iops == (None,) and indexed.mixed_iops == (5544.0,)
    assert HistoryEntry(indexed).cells()[3] == "m5.5k"
    # export: the direction is named mixed
    [row] = json.loads(export_records([loaded], "json"))
    assert row["direction"] == "mixed" and row["iops"] == 5544
