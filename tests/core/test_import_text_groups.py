"""The normal text report: one record per fio run, one section per reporting group.

The fio 3.33 files were made by ``tests/fixtures/import/fio-3.33/make.sh``. Expected
values are read from the printed text by hand (the lines are quoted beside them), not
from the importer.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.records.importer import import_fio_file
from iotui.core.fio.printed import fio_num2str, legacy_num2str, reproduces
from tests.conftest import FIXTURES, requires_fio

FIO_333 = FIXTURES / "import" / "fio-3.33"
PERCENTILES = ["lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99_9_ns"]


def test_two_groups_printed_job_by_job_are_one_record_of_two_merged_sections() -> None:
    [record] = import_fio_file(FIO_333 / "two-groups-normal.txt")
    reader, writer = record.sections
    assert (reader["name"], reader["groupid"], writer["name"], writer["groupid"]) == ("randread", 0, "seqwrite", 1)
    assert reader["jobs"] == ["randread"] and reader["options"]["numjobs"] == "2"
    # issued rwts: total=14640,0,0,0 (1002msec) and total=14386,0,0,0 (1001msec); 4096B blocks
    read = reader["read"]
    assert read["total_ios"] == 14640 + 14386
    assert read["iops"] == pytest.approx((14640 + 14386) * 1000 / 1002)
    assert read["io_bytes"] == (14640 + 14386) * 4096
    assert read["bw_bytes"] == (14640 + 14386) * 4096 * 1000 // 1002
    # Run status group 0: READ: bw=113MiB/s ..., run=1001-1002msec
    assert read["bw_bytes_printed"] == 113 * 2**20
    assert reader["duration_s"] == 1.002
    assert read["missing"] == PERCENTILES and not set(PERCENTILES) & set(read)
    # clat (nsec): min=361 (job 1) ... max=5178.9k (job 1)
    assert read["lat_min_ns"] == 361 and read["lat_max_ns"] == 5_178_900
    # issued rwts: total=0,71766 and total=0,74749 (1001msec each); 64KiB blocks; WRITE: bw=9148MiB/s
    write = writer["write"]
    assert write["total_ios"] == 71766 + 74749
    assert write["bw_bytes"] == (71766 + 74749) * 65536 * 1000 // 1001
    assert write["bw_bytes_printed"] == 9148 * 2**20
    assert writer["duration_s"] == 1.001
    # cpu: usr=1.90%, sys=20.38% and usr=1.10%, sys=19.10%
    assert reader["cpu"]["fio_cpu_cores"] == pytest.approx((1.90 + 20.38 + 1.10 + 19.10) / 100)
    assert any(w["code"] == "percentiles-missing" for w in record.warnings)


def test_mixed_text_and_json_of_one_run_agree() -> None:
    text = (FIO_333 / "mixed-normal-json.txt").read_text()
    start, end = text.index("{"), text.index("\n}\n") + 3
    fio = json.loads(text[start:end])["jobs"][0]["mixed"]
    [from_json] = import_fio_file(FIO_333 / "mixed-normal-json.txt")
    assert from_json.sections[0]["mixed"]["iops"] == fio["iops"]
    assert from_json.sections[0]["mixed"]["lat_p99_ns"] == fio["clat_ns"]["percentile"]["99.000000"]
    assert "read" not in from_json.sections[0]
    normal = Path(FIO_333 / "mixed-normal-json.txt").with_name("mixed-normal-only.txt")
    try:
        normal.write_text(text[:start] + text[end:])
        [from_text] = import_fio_file(normal)
    finally:
        normal.unlink()
    mixed = from_text.sections[0]["mixed"]
    assert mixed["total_ios"] == fio["total_ios"]
    assert mixed["iops"] == pytest.approx(fio["iops"], rel=1e-9)
    assert mixed["bw_bytes"] == fio["bw_bytes"]
    assert mixed["iops_printed"] == 23800  # mixed: IOPS=23.8k
    assert from_text.sections[0]["duration_s"] == fio["runtime"] / 1000


FIO_2_BLOCK = """\
fio-2.1.11
net: (groupid=0, jobs=1): err= 0: pid=1: Tue Sep 27 18:13:20 2016
  read : io={io}, bw={bw}/s, iops={iops}, runt={runt}msec
     issued    : total=r={ios}/w=0/d=0, short=r=0/w=0/d=0, drop=r=0/w=0/d=0

Run status group 0 (all jobs):
   READ: io={io}, aggrb={bw}/s, minb={bw}/s, maxb={bw}/s, mint={runt}msec, maxt={runt}msec
"""


def test_fio2_truncated_iops_keeps_the_exact_figure_beside_the_printed_one(tmp_path: Path) -> None:
    # The job: 4,232 I/Os in 792.6 s print as iops=5 (fio 2.x divides as integers).
    path = tmp_path / "old.txt"
    path.write_text(FIO_2_BLOCK.format(io="16928KB", bw="21KB", iops="5", runt="792600", ios=4232))
    read = import_fio_file(path)[0].sections[0]["read"]
    assert read["iops"] == pytest.approx(4232 / 792.6)
    assert read["iops_printed"] == 5
    assert read["total_ios"] == 4232
    assert import_fio_file(path)[0].sections[0]["duration_s"] == 792.6


def test_fio2_bits_per_second_are_read(tmp_path: Path) -> None:
    path = tmp_path / "net.txt"
    path.write_text(FIO_2_BLOCK.format(io="5000.0MB", bw="958205Kbit", iops="7486", runt="5343", ios=40000))
    read = import_fio_file(path)[0].sections[0]["read"]
    assert read["bw_bytes_printed"] == 958205 * 1024 / 8
    assert read["iops"] == pytest.approx(40000 * 1000 / 5343)


def test_an_exact_figure_fio_would_not_print_as_printed_is_not_kept(tmp_path: Path) -> None:
    path = tmp_path / "net.txt"  # 40000 I/Os in 5343 ms print as 7486, not 7485: the count is not this job's
    path.write_text(FIO_2_BLOCK.format(io="5000.0MB", bw="958205Kbit", iops="7485", runt="5343", ios=40000))
    read = import_fio_file(path)[0].sections[0]["read"]
    assert read["iops"] == 7485 and "total_ios" not in read


@pytest.mark.parametrize(
    "value, maxlen, pow2, printed",
    [
        (14610, 4, False, "14.6k"),  # fio 3.x IOPS=14.6k
        (118653189, 4, True, "113Mi"),  # BW=113MiB/s
        (393668, 4, False, "394k"),  # rounds up (carry)
        (5821, 4, False, "5821"),
    ],
)
def test_fio3_num2str(value: int, maxlen: int, pow2: bool, printed: str) -> None:
    names = ("", "Ki", "Mi", "Gi", "Ti", "Pi") if pow2 else ("", "k", "M", "G", "T", "P")
    assert fio_num2str(value, maxlen, pow2, names) == printed
    assert reproduces(value, printed, pow2=pow2, legacy=False)


def test_fio2_num2str_digits_after_the_point() -> None:
    # fio 2.2.8 printed 56192KB in 30038msec as bw=1870.8KB/s and 4826 MiB as io=4826.0MB.
    assert legacy_num2str(56192 * 1024 * 1000 // 30038, 6, True) == "1870.8K"
    assert legacy_num2str(4826 * 2**20, 6, True) == "4826.0M"
    assert not reproduces(5, "6", pow2=False, legacy=True)


def test_client_server_text_is_one_run_with_each_server_a_host() -> None:
    [record] = import_fio_file(FIO_333 / "client-server-2hosts-normal.txt")
    assert [host["name"] for host in record.hosts] == ["vm", "vm"]  # hostname=vm, twice (two ports)
    everyone = record.sections[0]
    assert everyone["name"] == "All clients"
    # All clients: read: IOPS=69.9k ...(273MiB/1001msec); issued rwts: total=69948,70309
    assert everyone["read"]["total_ios"] == 69948 and everyone["write"]["total_ios"] == 70309
    assert everyone["read"]["iops"] == pytest.approx(69948 * 1000 / 1001)
    assert everyone["read"]["iops_printed"] == 69900
    assert everyone["read"]["bw_bytes"] == 69948 * 4096 * 1000 // 1001  # BW=273Mi: fio left out "B/s"
    assert everyone["read"]["missing"] == PERCENTILES  # fio prints none for "All clients"
    # first server: issued rwts: total=17212,17200 and total=17132,17288
    first = record.hosts[0]["sections"][0]
    assert first["read"]["total_ios"] == 17212 + 17132 and first["write"]["total_ios"] == 17200 + 17288
    assert sum(h["sections"][0]["read"]["total_ios"] for h in record.hosts) == 69948


def test_fio_3_43_client_server_global_options_array(tmp_path: Path) -> None:
    from tests.core.test_fio_import import CLIENT_SERVER, _raw_json

    doc = _raw_json(CLIENT_SERVER)
    doc["global options"] = [{"rw": "randread", "zonemode": "none"}, {"rw": "randread", "zonemode": "zbd"}]
    path = tmp_path / "cs.json"
    path.write_text(json.dumps(doc))
    [record] = import_fio_file(path)
    assert record.options["zonemode"] == "none/zbd"  # fio 3.43: one object per client; they differ
    everyone = next(e for e in doc["client_stats"] if e["jobname"] == "All clients")
    assert record.sections[0]["read"]["iops"] == everyone["read"]["iops"]


def test_numjobs_in_global_counts_for_fio_cpu_cores() -> None:
    path = FIO_333 / "global-numjobs-json.txt"
    doc = json.loads(path.read_text())
    job = doc["jobs"][0]
    assert doc["global options"]["numjobs"] == "2" and "numjobs" not in job["job options"]
    [record] = import_fio_file(path)
    assert record.sections[0]["cpu"]["fio_cpu_cores"] == pytest.approx((job["usr_cpu"] + job["sys_cpu"]) / 100 * 2)


JOB = """\
[global]
ioengine=psync
size=4M
runtime=1
time_based
filename=data
numjobs=2
[randread]
rw=randread
bs=4k
[randwrite]
stonewall
rw=randwrite
bs=8k
"""


def _show_json(record_file: Path) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "show", str(record_file), "--json"],
        check=True, capture_output=True, text=True, timeout=120,
    )
    return json.loads(result.stdout)


@requires_fio
@pytest.mark.fio
@pytest.mark.slow
def test_real_fio_3_33_each_format_round_trips_through_import_and_show(tmp_path: Path) -> None:
    """One fio run printed as json+, normal and terse at once; each part imported on its own
    and read back with ``iotui show --json`` has fio's figures per group."""
    (tmp_path / "two.fio").write_text(JOB)
    result = subprocess.run(
        [shutil.which("fio") or "fio", "two.fio", "--output-format=json+,normal,terse"],
        check=True, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    out = result.stdout
    json_end = out.index("\n}\n") + 3
    fio = json.loads(out[out.index("{"):json_end])
    rest = out[:out.index("{")] + out[json_end:]  # fio prints the terse lines first
    terse = "\n".join(line for line in rest.splitlines() if line.startswith("3;fio-"))
    normal = "\n".join(line for line in rest.splitlines() if not line.startswith("3;fio-"))
    runs = tmp_path / "runs"
    shown = {}
    for name, text in (("json+", out[out.index("{"):json_end]), ("normal", normal), ("terse", terse)):
        (tmp_path / name).write_text(text)
        subprocess.run(
            [sys.executable, "-m", "iotui", "import", str(tmp_path / name), "--runs-dir", str(runs / name)],
            check=True, capture_output=True, timeout=120,
        )
        [record_file] = (runs / name).glob("*.toml")
        shown[name] = _show_json(record_file)
    for groupid, direction in ((0, "read"), (1, "write")):
        jobs = [job[direction] for job in fio["jobs"] if job["groupid"] == groupid]
        total_ios = sum(job["total_ios"] for job in jobs)
        io_bytes = sum(job["io_bytes"] for job in jobs)
        runtime_ms = max(job["runtime"] for job in jobs)
        for name in ("json+", "normal", "terse"):
            section = shown[name]["sections"][groupid]
            assert section["duration_s"] == runtime_ms / 1000, name
            table = section[direction]
            if name == "terse":  # terse prints KiB and integer IOPS only
                assert table["io_bytes"] == sum(job["io_bytes"] >> 10 for job in jobs) * 1024
                continue
            assert table["total_ios"] == total_ios, name
            assert table["io_bytes"] == io_bytes, name
            assert table["iops"] == pytest.approx(total_ios * 1000 / runtime_ms, rel=1e-12), name
            assert table["bw_bytes"] == io_bytes * 1000 // runtime_ms, name


def test_fio_2_2_8_group_reporting_figures_print_as_printed(tmp_path: Path) -> None:
    # fio 2.2.8: "mixed: io=56192KB, bw=1870.8KB/s, iops=467, runt= 30038msec", issued total=r=14048,
    # bs=4K-4K; group line "MIXED: io=56192KB, aggrb=1870KB/s, ..., maxt=30038msec"
    path = tmp_path / "old.txt"
    path.write_text(
        "hdd: (g=0): rw=randwrite, bs=4K-4K/4K-4K/4K-4K, ioengine=sync, iodepth=1\n"
        "fio-2.2.8\n"
        "hdd: (groupid=0, jobs=32): err= 0: pid=19670: Sun Jun 12 14:50:57 2016\n"
        "  mixed: io=56192KB, bw=1870.8KB/s, iops=467, runt= 30038msec\n"
        "     issued    : total=r=14048/w=0/d=0, short=r=0/w=0/d=0, drop=r=0/w=0/d=0\n"
        "\nRun status group 0 (all jobs):\n"
        "  MIXED: io=56192KB, aggrb=1870KB/s, minb=1870KB/s, maxb=1870KB/s, mint=30038msec, maxt=30038msec\n"
    )
    mixed = import_fio_file(path)[0].sections[0]["mixed"]
    assert mixed["total_ios"] == 14048 and mixed["io_bytes"] == 56192 * 1024
    assert mixed["iops"] == pytest.approx(14048 * 1000 / 30038) and mixed["iops_printed"] == 467
    assert mixed["bw_bytes"] == 56192 * 1024 * 1000 // 30038  # exact: prints as 1870.8KB/s in fio 2.x
    assert mixed["bw_bytes_printed"] == pytest.approx(1870.8 * 1024)


def test_fio_2_jobs_printed_one_by_one_merge_and_check_against_aggrb(tmp_path: Path) -> None:
    # Two jobs of one group, no group_reporting (fio 2.x): 100000 and 90000 I/Os of 4 KiB in
    # 10000 and 9000 ms. The group: 190000 x 4096 bytes over 10000 ms = 77824000 B/s = 76000 KiB/s.
    block = (
        "w: (groupid=0, jobs=1): err= 0: pid={pid}: Sun Jun 12 14:50:57 2016\n"
        "  write: io={io}KB, bw={bw}KB/s, iops={iops}, runt={runt}msec\n"
        "     issued    : total=r=0/w={ios}/d=0, short=r=0/w=0/d=0, drop=r=0/w=0/d=0\n"
    )
    path = tmp_path / "two.txt"
    path.write_text(
        "w: (g=0): rw=randwrite, bs=4K-4K/4K-4K/4K-4K, ioengine=sync, iodepth=1\n...\nfio-2.2.10\n"
        + block.format(pid=1, io=400000, bw=40000, iops=10000, runt=10000, ios=100000)
        + block.format(pid=2, io=360000, bw=40000, iops=10000, runt=9000, ios=90000)
        + "\nRun status group 0 (all jobs):\n"
        "  WRITE: io=760000KB, aggrb=76000KB/s, minb=40000KB/s, maxb=40000KB/s, mint=9000msec, maxt=10000msec\n"
    )
    [record] = import_fio_file(path)
    [section] = record.sections
    write = section["write"]
    assert section["jobs"] == ["w"] and section["duration_s"] == 10.0
    assert write["total_ios"] == 190000 and write["iops"] == 19000.0
    assert write["bw_bytes"] == 190000 * 4096 * 1000 // 10000 and write["bw_bytes_printed"] == 76000 * 1024
    assert write["missing"] == PERCENTILES


def test_fio_2_0_spaces_before_commas_and_a_block_size_range(tmp_path: Path) -> None:
    # fio 2.0.15's iometer example: "read : io=326081KB, bw=1023.3KB/s, iops=170 , runt=318686msec",
    # "clat (usec): min=22 , max=1805.8K, avg=300904.66, stdev=281965.67", bs=512-64K (no one size)
    path = tmp_path / "iometer.txt"
    path.write_text(
        "iometer: (g=0): rw=randrw, bs=512-64K/512-64K/512-64K, ioengine=libaio, iodepth=64\n"
        "fio-2.0.15\n"
        "iometer: (groupid=0, jobs=1): err= 0: pid=21423: Thu May  9 16:33:14 2013\n"
        "  read : io=326081KB, bw=1023.3KB/s, iops=170 , runt=318686msec\n"
        "    clat (usec): min=22 , max=1805.8K, avg=300904.66, stdev=281965.67\n"
    )
    read = import_fio_file(path)[0].sections[0]["read"]
    assert read["iops"] == 170 and read["iops_printed"] == 170  # no I/O count printed: fio's figure
    assert read["bw_bytes"] == pytest.approx(1023.3 * 1024) and read["io_bytes"] == 326081 * 1024
    assert (read["lat_min_ns"], read["lat_max_ns"]) == (22_000, 1_805_800_000)
    assert read["lat_mean_ns"] == pytest.approx(300_904_660)


def test_two_pasted_runs_without_their_group_lines_are_two_records(tmp_path: Path) -> None:
    text = (FIO_333 / "two-groups-normal.txt").read_text()
    blocks_only = text[: text.index("Run status group")]
    path = tmp_path / "pasted.txt"
    path.write_text(blocks_only + blocks_only)  # each run's header and fio-3.33 line start the next
    assert [len(r.sections) for r in import_fio_file(path)] == [2, 2]


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@requires_fio
@pytest.mark.fio
@pytest.mark.slow
def test_real_fio_3_33_client_server_text_and_json_agree(tmp_path: Path) -> None:
    """fio --client to two servers on loopback, printed as normal and JSON at once: the text import's
    "All clients" and hosts carry the JSON's figures."""
    port = _free_port()
    server = subprocess.Popen(
        [shutil.which("fio") or "fio", f"--server=ip:127.0.0.1,{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )
    try:
        (tmp_path / "cs.fio").write_text(
            f"[global]\nioengine=psync\nbs=4k\nsize=2M\nruntime=1\ntime_based\nrw=randrw\nfilename={tmp_path / 'd'}\n"
            "[cs]\nnumjobs=2\n"
        )
        result = None
        for _ in range(20):  # the server needs a moment to listen
            result = subprocess.run(
                [shutil.which("fio") or "fio", f"--client=ip:127.0.0.1,{port}", "cs.fio",
                 f"--client=ip:localhost,{port}", "cs.fio", "--output-format=json,normal"],
                capture_output=True, text=True, timeout=120, cwd=tmp_path,
            )
            if "All clients" in result.stdout:
                break
        assert result is not None and "All clients" in result.stdout
    finally:
        server.terminate()
        server.wait(timeout=30)
    out = result.stdout
    start, end = out.index("\n{\n") + 1, out.rindex("\n}") + 2
    fio = json.loads(out[start:end])
    everyone = next(e for e in fio["client_stats"] if e["jobname"] == "All clients")
    (tmp_path / "normal.txt").write_text(out[:start] + out[end:])
    [record] = import_fio_file(tmp_path / "normal.txt")
    assert len(record.hosts) == 2
    for direction in ("read", "write"):
        table = record.sections[0][direction]
        assert table["total_ios"] == everyone[direction]["total_ios"]
        assert table["iops"] == pytest.approx(everyone[direction]["iops"], rel=1e-9)
        assert table["bw_bytes"] == everyone[direction]["bw_bytes"]
        hosts_total = sum(h["sections"][0][direction]["total_ios"] for h in record.hosts)
        assert hosts_total == everyone[direction]["total_ios"]


def test_the_disk_stats_name_the_device() -> None:
    # Disk stats (read/write):\n  vda: ios=...
    [record] = import_fio_file(FIO_333 / "two-groups-normal.txt")
    assert record.target["device"] == "vda"
