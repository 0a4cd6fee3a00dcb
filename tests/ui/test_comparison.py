"""Finding the previous run, and the compare screen's cells: delta and "delta % verdict" per metric."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from iotui.core.compare.compare import compare_records
from iotui.core.records.record import RunRecord
from iotui.ui.comparison import compare_rows, find_previous


def make_record(run_id: str, minute: int, *, preset: str = "quick", path: str = "/data", iops: float = 100.0,
                p99_ns: float = 1000.0) -> RunRecord:
    return RunRecord(
        run={"id": run_id, "preset": preset, "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, minute, tzinfo=dt.timezone.utc), "duration_s": 20.0,
             "fio_version": "fio-3.33", "fio_argv": ["fio"], "fio_report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 4,
              "mem_total_bytes": 1},
        target={"path": path, "filesystem": "ext4", "device": "sda", "mount_options": ""},
        summary={"read": {"iops": iops, "bw_bytes": iops * 4096, "io_bytes": 1, "total_ios": 1,
                          "lat_p99_ns": p99_ns}},
    )


def entries(*records: RunRecord):
    return [(Path(f"/runs/{r.id}.toml"), r, None) for r in records] + [(Path("/runs/bad.toml"), None, "bad")]


def test_previous_is_the_newest_earlier_run_of_the_same_preset_and_target() -> None:
    current = make_record("c", 30)
    older = make_record("a", 10)
    newer = make_record("b", 20)
    other_preset = make_record("d", 25, preset="seq1m-q8t1")
    other_target = make_record("e", 26, path="/mnt")
    later = make_record("f", 40)
    found = find_previous(current, entries(older, current, newer, other_preset, other_target, later))
    assert found is newer


def test_a_run_on_other_hosts_is_not_on_the_same_target() -> None:
    # A multi-host run on the same path measured the hosts' disks, not this machine's (nor other hosts').
    current = make_record("c", 30)
    local = make_record("a", 10)
    on_hosts = make_record("b", 20)
    on_hosts.hosts = [{"name": "h1"}, {"name": "h2"}]
    assert find_previous(current, entries(local, on_hosts, current)) is local
    later_on_hosts = make_record("d", 40)
    later_on_hosts.hosts = [{"name": "h2"}, {"name": "h1"}]
    other_hosts = make_record("e", 35)
    other_hosts.hosts = [{"name": "h3"}]
    assert find_previous(later_on_hosts, entries(local, on_hosts, other_hosts, later_on_hosts)) is on_hosts


def test_no_previous_run() -> None:
    current = make_record("c", 30)
    assert find_previous(current, entries(current, make_record("x", 10, path="/elsewhere"))) is None


def test_deltas_say_better_or_worse_by_the_figure_direction() -> None:
    comparison = compare_records([make_record("a", 1, iops=100.0, p99_ns=1000.0),
                                  make_record("b", 2, iops=120.0, p99_ns=1500.0)])
    rows = {f"{row.group} {row.label}": row for row in compare_rows(comparison)}
    assert rows["read IOPS ↑"].values == ("100", "120")
    assert rows["read IOPS ↑"].deltas == ("+20",) and rows["read IOPS ↑"].changes == ("+20.0% better",)
    # Latencies share the unit of the row's largest value, named in the label with the better direction.
    assert rows["read p99 latency µs ↓"].values == ("1.00", "1.50")
    assert rows["read p99 latency µs ↓"].changes == ("+50.0% worse",)
    assert [row.changes for label, row in rows.items() if label.startswith("read bandwidth ")] == [("+20.0% better",)]
    assert not any(label.startswith("read mean latency") for label in rows)  # neither run has it
