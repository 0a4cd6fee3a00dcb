"""The multi-host run summary fits the terminal like every other headless table: ``COLUMNS=80`` (or
width 80) keeps every line within 80 characters without splitting a word, ``--wide`` prints every
column in full. The record is built in the format a multi-host run writes (``record.hosts``, the
aggregate as ``record.sections``), with host names as long as ``user@host`` destinations get."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from iotui.commands.remote_summary import remote_summary_lines
from iotui.core import format as fmt
from iotui.core.records.files import save_record
from iotui.core.records.record import RunRecord
from tests.core.test_cli_width import _fits, iotui

MIB = 1 << 20
HOSTS = ("bench@storage-node-01.lab.example.org", "bench@storage-node-02.lab.example.org",
         "bench@storage-node-03.lab.example.org")


def _direction(iops: float, bw_mib: float, p99_ns: float) -> dict:
    return {"iops": iops, "bw_bytes": bw_mib * MIB, "io_bytes": 1, "total_ios": 1, "lat_mean_ns": 412_000.0,
            "lat_p50_ns": 301_056.0, "lat_p99_ns": p99_ns, "lat_p99_9_ns": 12_648_448.0, "lat_max_ns": 48_234_496.0}


def _section(name: str, iops: float, hosts: int | None = None) -> dict:
    section = {"name": name, "jobs": [name], "groupid": 0,
               "options": {"bs": "4k", "iodepth": "16", "numjobs": "4", "rw": "randrw"},
               "read": _direction(iops * 0.7, iops * 0.7 / 256, 1_236_992.0),
               "write": _direction(iops * 0.3, iops * 0.3 / 256, 2_506_752.0),
               "cpu": {"fio_cpu_cores": 1.37, "iops_per_fio_core": iops / 1.37}}
    if hosts is not None:
        section["hosts"] = hosts
    return section


def multi_host_record() -> RunRecord:
    hosts = [
        {"name": HOSTS[0], "tool_version": "fio-3.33", "filesystem": "xfs", "kernel": "6.1.0-18-amd64",
         "exit_status": 0, "sections": [_section("quick", 123_456.0)], "samples": [],
         "pressure": {"responsiveness": "sluggish", "cause": "wakeup", "cause_value": 35.0, "cause_unit": "ms"}},
        {"name": HOSTS[1], "tool_version": "fio-3.36", "filesystem": "xfs", "kernel": "6.8.0-45-generic",
         "exit_status": 0, "sections": [_section("quick", 98_765.0)], "samples": [],
         "pressure": {"not_measured": "the wake-up probe: it ended before reporting"}},
        {"name": HOSTS[2], "tool_version": "fio-3.33", "filesystem": "ext4", "kernel": "6.1.0-18-amd64",
         "exit_status": 137, "failed_at_s": 12.5, "sections": [_section("quick", 4_321.0)], "samples": []},
    ]
    return RunRecord(
        run={"id": "c" * 32, "preset": "quick", "title": "Quick check (20 s)", "status": "completed",
             "started": dt.datetime(2026, 11, 23, tzinfo=dt.timezone.utc), "duration_s": 21.4, "tool": "fio",
             "tool_version": "fio-3.33", "argv": ["fio"], "report": "", "start_spread_ms": 84.0},
        host={"hostname": "ctl", "system": "Linux", "kernel": "6.1", "cpu_model": "x", "cpu_count": 2,
              "mem_total_bytes": 1 << 30},
        target={"path": "/srv/benchmarks/shared-nfs-volume/iotui", "filesystem": "nfs4", "device": "remote",
                "mount_options": ""},
        sections=[_section("quick", 226_221.0, hosts=2)],
        hosts=hosts,
        warnings=[{"code": "host-failed", "message": f"{HOSTS[2]} failed at 12.5 s (fio exited with code 137); "
                   "the aggregate holds the other 2 hosts from then on, and that host's figures stop there."}],
    )


def test_the_summary_fits_80_columns_and_keeps_every_figure() -> None:
    record = multi_host_record()
    narrow = "\n".join(remote_summary_lines(record, None, 80))
    wide = "\n".join(remote_summary_lines(record, None, None))
    _fits(narrow, wide)
    aggregate = record.sections[0]
    wanted = [figure for direction in ("read", "write") for figure in (
        fmt.iops(aggregate[direction]["iops"]), fmt.bytes_per_s(aggregate[direction]["bw_bytes"]),
        fmt.latency_ns(aggregate[direction]["lat_p99_ns"]))]
    wanted += [fmt.iops(iops) for iops in (123_456.0, 98_765.0, 4_321.0)]  # each host's read + write
    for figure in wanted:
        assert f" {figure} " in f" {narrow} ".replace("\n", " "), (figure, narrow)  # IOPS, bandwidth, p99 stay
    assert "failed at 12.5 s" in narrow
    for host in HOSTS:
        assert host[:11] in narrow  # a cut name keeps its start
    # A figure is never parted from its unit where a sentence is broken.
    assert "(wakeup 35.0 ms)" in narrow.replace("\n    ", " ")
    assert not any(line.strip().startswith(("ms", "IOPS")) or line.endswith(" p99") for line in narrow.splitlines()), narrow


def test_wide_prints_every_column_and_whole_host_names() -> None:
    wide = remote_summary_lines(multi_host_record(), None, None)
    text = "\n".join(wide)
    header = next(line for line in wide if line.split()[:2] == ["dir", "IOPS"])
    assert header.split() == ["dir", "IOPS", "bandwidth", "lat", "mean", "p50", "p99", "p99.9", "max"]
    assert all(host in text for host in HOSTS) and "…" not in text
    assert max(len(line) for line in wide) > 80


def test_iotui_show_of_a_multi_host_record_fits_columns_80_and_wide_has_every_column(tmp_path: Path) -> None:
    saved = save_record(multi_host_record(), tmp_path / "runs")
    narrow = iotui("show", str(saved))
    wide = iotui("show", str(saved), "--wide")
    assert narrow.returncode == 0 and wide.returncode == 0, narrow.stderr + wide.stderr
    kept = "\n".join(line for line in narrow.stdout.splitlines() if line.strip() != str(saved))  # a path is never cut
    _fits(kept, wide.stdout)
    assert "p99.9" in wide.stdout and all(host in wide.stdout for host in HOSTS)
