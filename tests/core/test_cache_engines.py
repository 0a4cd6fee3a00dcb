"""Page-cache warnings only where an engine moves file data; a line where figures are not storage."""

from __future__ import annotations

import pytest

from iotui.core.records.cache_check import (
    engines_of,
    not_storage_warning,
    record_engines,
    suspicious_results,
    without_cache_warnings,
)
from iotui.core.records.record import RunRecord

TARGET_WARNINGS = [("cache-small-file", "small file"), ("raw-device", "kept")]


def cached_read_record(options: dict[str, str], sections: list[dict] | None = None) -> RunRecord:
    """A buffered read fio says did 2M IOPS at a 150 ns median while the device served 4/s."""
    read = {"iops": 2_000_000.0, "lat_p50_ns": 150, "total_ios": 2_000_000}
    record = RunRecord(
        run={"id": "r", "preset": "p", "status": "completed"}, host={}, target={"filesystem": "ext4"},
        options=options, samples=[{"t_s": 1.0, "dt_s": 1.0, "device_read_iops": 4.0}],
    )
    if sections:
        record.sections = sections
    else:
        record.summary = {"read": read}
    return record


def test_a_psync_read_that_the_cache_answered_is_still_flagged() -> None:
    codes = [code for code, _ in suspicious_results(cached_read_record({"rw": "randread"}))]
    assert codes == ["cache-latency", "cache-read-gap"]


@pytest.mark.parametrize(
    ("engine", "line"),
    [
        ("null", "These are not storage figures: ioengine=null completes every I/O at once without doing it."),
        ("cpuio", "These are not storage figures: ioengine=cpuio only burns CPU."),
        ("net", "These are not storage figures: ioengine=net moves data over a network socket."),
        ("rdma", "These are not storage figures: ioengine=rdma moves data over RDMA."),
    ],
)
def test_engines_without_file_io_get_one_line_and_no_cache_warning(engine: str, line: str) -> None:
    assert suspicious_results(cached_read_record({"rw": "randread", "ioengine": engine})) == [("not-storage", line)]
    assert without_cache_warnings(TARGET_WARNINGS, [engine]) == [("raw-device", "kept")]


def test_a_network_storage_engine_gets_no_cache_warning_and_no_not_storage_line() -> None:
    # libnfs reads over the network: no local page cache and not the target's device, but storage.
    assert suspicious_results(cached_read_record({"rw": "randread", "ioengine": "nfs"})) == []


def test_a_sections_own_engine_wins_over_the_global_one() -> None:
    record = cached_read_record({"rw": "randread", "ioengine": "libaio", "p.ioengine": "null"})
    assert [code for code, _ in suspicious_results(record)] == ["not-storage"]


def test_a_run_says_not_storage_only_when_every_section_does_no_storage_io() -> None:
    sections = [{"name": "a", "options": {"ioengine": "null"}}, {"name": "b"}]
    mixed = cached_read_record({"rw": "randread", "ioengine": "libaio"}, sections)
    assert not_storage_warning(record_engines(mixed)) is None
    both = cached_read_record({"rw": "randread", "ioengine": "cpuio"}, sections)
    assert record_engines(both) == ["null", "cpuio"]
    assert [code for code, _ in suspicious_results(both)] == ["not-storage"]


def test_fios_default_engine_is_psync() -> None:
    assert engines_of([{}]) == ["psync"] and engines_of([{"ioengine": " LibAIO "}]) == ["libaio"]
    assert without_cache_warnings(TARGET_WARNINGS, ["psync", "io_uring"]) == TARGET_WARNINGS
    assert not_storage_warning(["null", "psync"]) is None
