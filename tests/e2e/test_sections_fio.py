"""Real fio runs with several reporting groups: every section's figures equal fio's for its group."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.fio.sections import fio_sections
from iotui.core.records.record import section_directions
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

# Group 0: one job, numjobs=2 with group_reporting (one entry: fio's own group figures).
# Group 1: two different jobs without group_reporting (three entries: iotui merges them as fio does).
# Group 2: writes after reads (stonewall), another block size.
JOB_FILE = """\
[global]
size=4M
runtime=2
time_based
ioengine=psync
{filename}

[grouped]
rw=randread
bs=4k
numjobs=2
group_reporting
rate_iops=200

[apart-4k]
stonewall
rw=randread
bs=4k
numjobs=2
rate_iops=150

[apart-8k]
rw=randread
bs=8k
rate_iops=100

[writes]
stonewall
rw=randwrite
bs=64k
rate_iops=50
"""


def _fio_group(report: dict, groupid: int, direction: str) -> list[dict]:
    return [job[direction] for job in report["jobs"] if job["groupid"] == groupid and job[direction]["total_ios"]]


@pytest.fixture(scope="module")
def multi_section_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, dict]:
    work = tmp_path_factory.mktemp("sections")
    job = work / "sections.fio"
    job.write_text(JOB_FILE.format(filename=""))
    runs = work / "runs"
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "--job-file", str(job), "--target", str(work),
         "--runs-dir", str(runs), "--baseline", "0", "--json"],
        cwd=work, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    record = load_record(Path(printed["path"]))
    report = json.loads((runs / record.report).read_text())
    return printed, record.to_json_dict(), report


def test_one_section_per_reporting_group_in_fios_order(multi_section_run) -> None:
    printed, record, report = multi_section_run
    assert [s["name"] for s in printed["sections"]] == ["grouped", "apart-4k", "writes"]
    assert printed["sections"][1]["jobs"] == ["apart-4k", "apart-8k"]
    assert [s["groupid"] for s in printed["sections"]] == [0, 1, 2]
    assert "summary" not in printed  # three sections ran one after another: nothing is summed
    assert printed["sections"] == record["sections"]
    assert len(report["jobs"]) == 5  # grouped (1 entry), apart-4k x2, apart-8k, writes


def test_group_reporting_section_copies_fios_numbers(multi_section_run) -> None:
    printed, _, report = multi_section_run
    [fio] = _fio_group(report, 0, "read")
    read = printed["sections"][0]["read"]
    assert read["iops"] == fio["iops"] and read["bw_bytes"] == fio["bw_bytes"]
    assert read["io_bytes"] == fio["io_bytes"] and read["total_ios"] == fio["total_ios"]
    assert read["lat_mean_ns"] == fio["clat_ns"]["mean"]
    assert read["lat_min_ns"] == fio["clat_ns"]["min"] and read["lat_max_ns"] == fio["clat_ns"]["max"]
    for key, percentile in (("p50", "50.000000"), ("p90", "90.000000"), ("p99", "99.000000"), ("p99_9", "99.900000")):
        assert read[f"lat_{key}_ns"] == fio["clat_ns"]["percentile"][percentile]
    assert "write" not in printed["sections"][0]


def test_merged_section_equals_fios_group_figures(multi_section_run) -> None:
    printed, _, report = multi_section_run
    entries = _fio_group(report, 1, "read")
    assert len(entries) == 3
    read = printed["sections"][1]["read"]
    longest_ms = max(e["runtime"] for e in entries)
    # fio's stat.c: the group's bytes over its longest runtime (the "Run status group" line) ...
    assert read["bw_bytes"] == sum(e["io_bytes"] for e in entries) * 1000 // longest_ms
    # ... and, merged as group_reporting would, I/Os over that runtime.
    assert read["iops"] == pytest.approx(1000.0 * sum(e["total_ios"] for e in entries) / longest_ms, rel=1e-12)
    assert read["total_ios"] == sum(e["total_ios"] for e in entries)
    counts = [e["clat_ns"]["N"] for e in entries]
    assert read["lat_mean_ns"] == pytest.approx(sum(n * e["clat_ns"]["mean"] for n, e in zip(counts, entries)) / sum(counts))
    assert read["lat_max_ns"] == max(e["clat_ns"]["max"] for e in entries)
    # The merged p99 is a bin value one of the jobs also has, between the jobs' own p99s.
    p99s = [e["clat_ns"]["percentile"]["99.000000"] for e in entries]
    assert min(p99s) <= read["lat_p99_ns"] <= max(p99s)
    assert str(read["lat_p99_ns"]) in {k for e in entries for k in e["clat_ns"]["bins"]}
    assert read["lat_source"] == "bins"


def test_write_section_after_reads_is_its_own(multi_section_run) -> None:
    printed, _, report = multi_section_run
    [fio] = _fio_group(report, 2, "write")
    section = printed["sections"][2]
    assert section_directions(section) == ["write"]
    assert section["write"]["iops"] == fio["iops"] and section["write"]["lat_p99_ns"] == fio["clat_ns"]["percentile"]["99.000000"]
    assert section["options"]["bs"] == "64k"


def test_cpu_and_samples_are_per_section(multi_section_run) -> None:
    printed, _, _ = multi_section_run
    sections = printed["sections"]
    assigned = [s.get("section") for s in printed["samples"]]
    assert set(assigned) <= {0, 1, 2} and assigned == sorted(assigned)
    for index, section in enumerate(sections):
        mine = [s for s in printed["samples"] if s.get("section") == index]
        assert mine, section["name"]
        cpu = section["cpu"]
        assert "fio_user_pct" in cpu and "fio_system_pct" in cpu
        if cpu.get("fio_cpu_cores"):
            iops = sum(section[d]["iops"] for d in section_directions(section))
            assert cpu["iops_per_fio_core"] == pytest.approx(iops / cpu["fio_cpu_cores"])
            own = [s["fio_cpu_cores"] for s in mine if s.get("fio_cpu_cores") is not None]
            assert cpu["fio_cpu_cores"] == pytest.approx(sum(own) / len(own))


def test_run_status_group_lines_equal_the_sections_bandwidth(tmp_path: Path) -> None:
    """fio's own printed "Run status group" bandwidth, from the same run as its JSON."""
    job = tmp_path / "groups.fio"
    job.write_text(JOB_FILE.format(filename=f"filename={tmp_path / 'sections.dat'}").replace("runtime=2", "runtime=1"))
    result = subprocess.run(["fio", "--output-format=normal,json+", str(job)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    start = result.stdout.index("\n{\n") + 1
    report, _ = json.JSONDecoder().raw_decode(result.stdout[start:])
    printed = re.findall(r"Run status group (\d+) .*\n\s+(READ|WRITE): bw=([\d.]+)(KiB|MiB)/s", result.stdout)
    assert len(printed) == 3
    sections = fio_sections(report)
    for groupid, direction, value, unit in printed:
        section = sections[int(groupid)]
        bw = section[direction.lower()]["bw_bytes"] / (1024 if unit == "KiB" else 1 << 20)
        assert bw == pytest.approx(float(value), rel=0.005, abs=0.05)
