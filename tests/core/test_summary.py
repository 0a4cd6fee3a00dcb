"""Summary tables equal fio's own final numbers."""

from __future__ import annotations

import pytest

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.fio.sections import fio_sections
from iotui.core.fio.summary import cpu_summary, sample_row
from iotui.core.host.counters import HostSample
from tests.conftest import fio_documents


@pytest.mark.parametrize("name", ["randrw-rate200-json+.txt", "randwrite-2jobs-group-json+.txt", "randread-sigint-json+.txt"])
def test_one_job_entry_copies_fios_final_numbers(name: str) -> None:
    final = fio_documents(name)[-1]
    job = final["jobs"][0]
    [section] = fio_sections(final)
    summaries = {d: section[d] for d in ("read", "write", "trim") if d in section}
    assert summaries and "lat_source" not in str(summaries)
    for direction, table in summaries.items():
        fio = job[direction]
        assert table["iops"] == fio["iops"]
        assert table["bw_bytes"] == fio["bw_bytes"]
        assert table["io_bytes"] == fio["io_bytes"]
        assert table["total_ios"] == fio["total_ios"]
        assert table["lat_mean_ns"] == fio["clat_ns"]["mean"]
        assert table["lat_min_ns"] == fio["clat_ns"]["min"]
        assert table["lat_max_ns"] == fio["clat_ns"]["max"]
        assert table["lat_p50_ns"] == fio["clat_ns"]["percentile"]["50.000000"]
        assert table["lat_p90_ns"] == fio["clat_ns"]["percentile"]["90.000000"]
        assert table["lat_p99_ns"] == fio["clat_ns"]["percentile"]["99.000000"]
        assert table["lat_p99_9_ns"] == fio["clat_ns"]["percentile"]["99.900000"]


def test_several_jobs_of_one_group_are_one_section() -> None:
    final = fio_documents("randread-3jobs-json+.txt")[-1]
    [section] = fio_sections(final)
    read = section["read"]
    jobs = final["jobs"]
    assert section["name"] == "multi" and section["jobs"] == ["multi"] and section["options"]["rw"] == "randread"
    assert read["total_ios"] == sum(j["read"]["total_ios"] for j in jobs)
    per_job_p99 = [j["read"]["clat_ns"]["percentile"]["99.000000"] for j in jobs]
    assert min(per_job_p99) <= read["lat_p99_ns"] <= max(per_job_p99) * 1.01 + 1
    assert "write" not in section


def test_sample_row_has_record_keys() -> None:
    sample = IntervalDeriver().feed(fio_documents("randrw-rate200-json+.txt")[0])

    class Host:
        cpu_user_pct = 1.5
        ctx_switches_per_s = 100.0

    row = sample_row(sample, Host())
    for key in ("t_s", "dt_s", "read_iops", "read_bw_bytes", "read_lat_mean_ns", "read_lat_p50_ns", "read_lat_p99_ns", "write_iops"):
        assert row[key] is not None, key
    assert row["cpu_user_pct"] == 1.5
    assert row["psi_io_some_pct"] is None


def test_cpu_summary_per_core_figures() -> None:
    def host(fio_cores: float, busy: float) -> HostSample:
        return HostSample(fio_cpu_cores=fio_cores, busy_cores=busy, cpu_user_pct=10.0, cpu_system_pct=20.0)

    cpu = cpu_summary([host(0.5, 1.0), host(1.5, 3.0)], total_iops=10000)
    assert cpu["fio_cpu_cores"] == 1.0
    assert cpu["iops_per_fio_core"] == 10000
    assert cpu["iops_per_busy_core"] == 5000
    assert cpu["user_pct"] == 10.0
    assert "iowait_pct" not in cpu
