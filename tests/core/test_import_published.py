"""fio outputs other projects published (tests/fixtures/import/published/README.md names each
file's repository, path and commit), imported with every figure equal to the printed text.

Expected values are copied by hand from the lines quoted beside them.
"""

from __future__ import annotations

import re

import pytest

from iotui.core.records.importer import import_fio_file
from tests.conftest import FIXTURES

PUBLISHED = FIXTURES / "import" / "published"
K8S = PUBLISHED / "k8s-homelab-test-fsync-fio-3.25.md"
VPS = PUBLISHED / "vps-comparison-fio-libaio-4K-fio-3.1.md"


def test_fifteen_pasted_runs_are_fifteen_records_each_one_section() -> None:
    records = import_fio_file(K8S)
    assert len(records) == len(re.findall(r"\(groupid=0, jobs=1\)", K8S.read_text())) == 15
    assert all(len(r.sections) == 1 and list(r.sections[0]).count("write") == 1 for r in records)


def test_fio_3_25_write_with_fdatasync_keeps_the_writes_latency_not_the_syncs() -> None:
    first, second = import_fio_file(K8S)[:2]
    # write: IOPS=4801, BW=18.8MiB/s (19.7MB/s)(22.0MiB/1173msec); issued rwts: total=0,5632,0,0
    write = first.sections[0]["write"]
    assert write["total_ios"] == 5632
    assert write["iops"] == pytest.approx(5632 * 1000 / 1173)
    assert write["iops_printed"] == 4801
    assert write["bw_bytes"] == 5632 * 4096 * 1000 // 1173
    assert write["bw_bytes_printed"] == pytest.approx(18.8 * 2**20)
    assert write["io_bytes"] == 5632 * 4096
    assert first.sections[0]["duration_s"] == 1.173
    # clat (nsec): min=10519, max=57976, avg=13462.14; 50.00th=[12608], 90.00th=[15424], 99.00th=[23168], 99.90th=[38656]
    assert (write["lat_min_ns"], write["lat_max_ns"], write["lat_mean_ns"]) == (10519, 57976, 13462.14)
    assert (write["lat_p50_ns"], write["lat_p90_ns"], write["lat_p99_ns"], write["lat_p99_9_ns"]) == (
        12608, 15424, 23168, 38656,
    )
    # cpu: usr=2.99%, sys=21.84%
    assert first.sections[0]["cpu"]["fio_cpu_cores"] == pytest.approx((2.99 + 21.84) / 100)
    # second run: clat (usec) 99.00th=[56] while sync (msec) 99.00th=[62]: the write's
    assert second.sections[0]["write"]["lat_p99_ns"] == 56_000
    # IOPS=95, (22.0MiB/59030msec): 5632 I/Os in 59.03 s is 95.4, printed truncated
    assert second.sections[0]["write"]["iops"] == pytest.approx(5632 / 59.03)
    assert second.sections[0]["write"]["iops_printed"] == 95
    assert second.run["tool_version"] == "fio-3.25"
    assert second.options["fdatasync"] == "1"  # from "root@truenas[...]# fio --rw=write ... --fdatasync=1"


def test_fio_3_1_printed_bandwidth_without_its_carry_is_still_fios() -> None:
    records = import_fio_file(VPS)
    assert len(records) == 22
    # write: IOPS=3068, BW=11.0MiB/s (12.6MB/s)(4096MiB/341704msec), 1048576 I/Os of 4 KiB: 11.99 MiB/s,
    # printed "11.0" by fio 3.1's num2str, which did not carry 0.99 into the integer part
    write = records[0].sections[0]["write"]
    assert write["bw_bytes"] == 4096 * 2**20 * 1000 // 341704
    assert write["bw_bytes_printed"] == 11 * 2**20
    assert write["iops"] == pytest.approx(1048576 * 1000 / 341704) and write["iops_printed"] == 3068
    assert records[0].run["tool_version"] == "fio-3.1"


def test_a_pasted_reports_cpu_line_keeps_fios_usr_and_sys_and_the_summary_shows_them() -> None:
    import io

    from iotui.commands.run_summary import print_summary

    first = import_fio_file(K8S)[0]
    # cpu          : usr=2.99%, sys=21.84%, ctx=11253, majf=0, minf=11
    cpu = first.sections[0]["cpu"]
    assert (cpu["fio_user_pct"], cpu["fio_system_pct"]) == (2.99, 21.84)
    assert cpu["fio_cpu_cores"] == pytest.approx(0.2483)
    out = io.StringIO()
    print_summary(first, None, out)
    [line] = [line for line in out.getvalue().splitlines() if line.split()[:1] == ["cpu"]]
    assert "fio usr 2.99%  fio sys 21.84%" in line and "-" not in line.split()
