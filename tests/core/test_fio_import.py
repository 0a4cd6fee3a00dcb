"""Importing fio results: JSON of fio 2.x and 3.x, client/server, text reports, real fio."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from iotui.core.records.importer import ImportRefused, import_fio_file, import_fio_runs
from iotui.core.fio.intervals import fio_percentiles
from iotui.core.fio.normalize import plat_idx_to_val
from iotui.core.records.files import load_record, save_record
from tests.conftest import FIO_FIXTURES, FIXTURES, fio_documents, requires_fio

IMPORT_FIXTURES = FIXTURES / "import"
SEAWEEDFS = IMPORT_FIXTURES / "seaweedfs-fio-3.42-normal.txt"
FIO_2_JSON = IMPORT_FIXTURES / "fio-2.2.10-randread-json.txt"
FIO_2_JSON_PLUS = IMPORT_FIXTURES / "fio-2.18-2jobs-json+.txt"
CLIENT_SERVER = IMPORT_FIXTURES / "client-server-2hosts-fio-3.33-json+.txt"


def _raw_json(path: Path) -> dict:
    """The fixture's JSON document, parsed without iotui (text around it skipped)."""
    text = path.read_text()
    start, end = text.index("\n{") + 1, text.rindex("\n}") + 2
    return json.loads(text[start:end])


# -- fio 3.x -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["randwrite-2jobs-group-json+.txt", "randread-sigint-json+.txt", "randrw-rate200-json+.txt"])
def test_fio3_summary_equals_fios_final_report(name: str) -> None:
    [record] = import_fio_file(FIO_FIXTURES / name)
    final = fio_documents(name)[-1]["jobs"][0]
    assert record.status == "imported"
    assert record.run["source"] == str(FIO_FIXTURES / name)
    assert record.run["tool_version"] == "fio-3.33"
    for direction, table in record.summary.items():
        if direction == "cpu":
            continue
        fio = final[direction]
        assert table["iops"] == fio["iops"]
        assert table["bw_bytes"] == fio["bw_bytes"]
        assert table["total_ios"] == fio["total_ios"]
        assert table["lat_mean_ns"] == fio["clat_ns"]["mean"]
        assert table["lat_p99_ns"] == fio["clat_ns"]["percentile"]["99.000000"]
        assert table["lat_p99_9_ns"] == fio["clat_ns"]["percentile"]["99.900000"]


def test_status_interval_capture_becomes_samples() -> None:
    docs = fio_documents("randrw-rate200-json+.txt")
    [record] = import_fio_file(FIO_FIXTURES / "randrw-rate200-json+.txt")
    assert len(record.samples) == len(docs)
    # rate_iops=200 per direction: every full interval is close to 200 IOPS.
    full = [s for s in record.samples if s["dt_s"] >= 0.9]
    assert full and all(abs(s["read_iops"] - 200) < 15 and abs(s["write_iops"] - 200) < 15 for s in full)
    assert record.samples[-1]["t_s"] > record.samples[0]["t_s"]


def test_several_jobs_without_group_reporting_are_one_section_as_fio_merges_a_group() -> None:
    [record] = import_fio_file(FIO_FIXTURES / "randread-3jobs-json+.txt")
    jobs = [job["read"] for job in fio_documents("randread-3jobs-json+.txt")[-1]["jobs"]]
    assert len(jobs) == 3 and record.section_names() == [fio_documents("randread-3jobs-json+.txt")[-1]["jobs"][0]["jobname"]]
    read = record.summary["read"]
    longest_ms = max(job["runtime"] for job in jobs)
    # fio's "Run status group" bandwidth and its group_reporting IOPS: totals over the longest runtime.
    assert read["bw_bytes"] == sum(job["io_bytes"] for job in jobs) * 1000 // longest_ms
    assert read["iops"] == 1000.0 * sum(job["total_ios"] for job in jobs) / longest_ms
    assert read["total_ios"] == sum(job["total_ios"] for job in jobs)
    n = [job["clat_ns"]["N"] for job in jobs]
    assert read["lat_mean_ns"] == pytest.approx(sum(c * job["clat_ns"]["mean"] for c, job in zip(n, jobs)) / sum(n))
    assert read["lat_min_ns"] == min(job["clat_ns"]["min"] for job in jobs)
    assert read["lat_max_ns"] == max(job["clat_ns"]["max"] for job in jobs)
    assert read["lat_source"] == "bins"


def test_separate_runs_in_one_file_become_separate_records(tmp_path: Path) -> None:
    combined = tmp_path / "two-runs.txt"
    combined.write_text(
        "first run\n"
        + (FIO_FIXTURES / "randread-sigint-json+.txt").read_text()
        + "\nsecond run\n"
        + (FIO_FIXTURES / "randwrite-2jobs-group-json+.txt").read_text()
    )
    records = import_fio_file(combined)
    assert [sorted(d for d in r.summary if d != "cpu") for r in records] == [["read"], ["write"]]
    assert records[0].id != records[1].id
    assert records[1].summary["write"]["total_ios"] == fio_documents("randwrite-2jobs-group-json+.txt")[-1]["jobs"][0]["write"]["total_ios"]


def test_ramp_time_reset_stays_one_run() -> None:
    docs = fio_documents("randread-ramp-json+.txt")
    [record] = import_fio_file(FIO_FIXTURES / "randread-ramp-json+.txt")
    assert record.summary["read"]["total_ios"] == docs[-1]["jobs"][0]["read"]["total_ios"]
    assert len(record.samples) == len(docs)


def test_text_around_json_is_kept_as_messages_and_fio_errors_warn() -> None:
    [record] = import_fio_file(FIO_FIXTURES / "randread-sigint-json+.txt")
    texts = [m["text"] for m in record.messages]
    assert "fio: terminating on signal 2" in texts
    assert any(w["code"] == "fio-message" and "signal 2" in w["message"] for w in record.warnings)


def test_compact_json_one_line(tmp_path: Path) -> None:
    doc = fio_documents("randwrite-2jobs-group-json+.txt")[-1]
    path = tmp_path / "compact.log"
    path.write_text("note: something\n" + json.dumps(doc) + "\nbye\n")
    [record] = import_fio_file(path)
    assert record.summary["write"]["iops"] == doc["jobs"][0]["write"]["iops"]


# -- fio 2.x -----------------------------------------------------------------------


def test_fio2_json_microseconds_and_kib_become_ns_and_bytes() -> None:
    [record] = import_fio_file(FIO_2_JSON)
    raw = _raw_json(FIO_2_JSON)["jobs"][0]["read"]
    read = record.summary["read"]
    assert record.run["tool_version"] == "fio-2.2.10"
    assert read["io_bytes"] == raw["io_bytes"] * 1024
    assert read["bw_bytes"] == raw["bw"] * 1024
    assert read["total_ios"] == raw["total_ios"]
    assert read["lat_mean_ns"] == pytest.approx(raw["clat"]["mean"] * 1000)
    assert read["lat_min_ns"] == raw["clat"]["min"] * 1000
    assert read["lat_max_ns"] == raw["clat"]["max"] * 1000
    assert read["lat_p50_ns"] == raw["clat"]["percentile"]["50.000000"] * 1000
    assert read["lat_p99_ns"] == raw["clat"]["percentile"]["99.000000"] * 1000
    assert read["lat_p99_9_ns"] == raw["clat"]["percentile"]["99.900000"] * 1000
    # No timestamp_ms in fio 2.2: the start is the report time minus the run.
    assert record.started.timestamp() == _raw_json(FIO_2_JSON)["timestamp"] - record.run["duration_s"]


def test_fio2_percentile_padding_is_duplicated_keys() -> None:
    text = FIO_2_JSON.read_text()
    assert text.count('"0.00" : 0') >= 3  # the fixture really has fio 2.x's padding


def test_fio2_bucket_index_to_value() -> None:
    # Buckets below 128 are exact; above, the middle of a bucket twice as wide per group.
    assert [plat_idx_to_val(i, 6, 64) for i in (0, 1, 127)] == [0, 1, 127]
    assert plat_idx_to_val(128, 6, 64) == 129  # group 1: width 2, middle of [128, 130)
    assert plat_idx_to_val(200, 6, 64) == 290  # group 2: width 4, bucket 8: 256 + 8.5 * 4


def test_fio2_json_plus_bins_by_index_aggregate_two_jobs() -> None:
    [record] = import_fio_file(FIO_2_JSON_PLUS)
    jobs = _raw_json(FIO_2_JSON_PLUS)["jobs"]
    read = record.summary["read"]
    assert read["total_ios"] == sum(j["read"]["total_ios"] for j in jobs)
    longest_ms = max(j["read"]["runtime"] for j in jobs)
    assert read["iops"] == pytest.approx(1000.0 * read["total_ios"] / longest_ms)
    weights = [j["read"]["total_ios"] for j in jobs]
    assert read["lat_mean_ns"] == pytest.approx(
        sum(w * j["read"]["clat"]["mean"] * 1000 for w, j in zip(weights, jobs)) / sum(weights)
    )
    # Merge the index-keyed buckets independently, walk them, compare.
    merged: dict[int, int] = {}
    for job in jobs:
        for key, count in job["read"]["clat"]["bins"].items():
            if key.isdigit() and count:
                value_us = plat_idx_to_val(int(key), 6, 64)
                merged[value_us] = merged.get(value_us, 0) + count
    p50, p99 = fio_percentiles(sorted(merged.items()), sum(merged.values()), (50.0, 99.0))
    assert read["lat_p50_ns"] == p50 * 1000
    assert read["lat_p99_ns"] == p99 * 1000
    # Each job's own percentile (fio's walk) brackets the aggregate.
    per_job_p50 = [j["read"]["clat"]["percentile"]["50.000000"] * 1000 for j in jobs]
    assert min(per_job_p50) <= read["lat_p50_ns"] <= max(per_job_p50)
    assert any(w["code"] == "fio-message" for w in record.warnings)


def test_fio2_single_job_bins_agree_with_its_percentiles() -> None:
    job = _raw_json(FIO_2_JSON_PLUS)["jobs"][0]["read"]["clat"]
    bins = sorted(
        (plat_idx_to_val(int(k), 6, 64), c) for k, c in job["bins"].items() if k.isdigit() and c
    )
    walked = fio_percentiles(bins, sum(c for _, c in bins), (50.0, 99.0, 99.9))
    assert walked == [job["percentile"]["50.000000"], job["percentile"]["99.000000"], job["percentile"]["99.900000"]]


# -- client/server -----------------------------------------------------------------


def test_client_server_all_clients_is_the_summary_and_hosts_are_kept() -> None:
    [record] = import_fio_file(CLIENT_SERVER)
    raw = _raw_json(CLIENT_SERVER)["client_stats"]
    everyone = next(entry for entry in raw if entry["jobname"] == "All clients")
    hosts = [entry for entry in raw if entry["jobname"] != "All clients"]
    read = record.summary["read"]
    assert read["iops"] == everyone["read"]["iops"]
    assert read["bw_bytes"] == everyone["read"]["bw_bytes"]
    assert read["total_ios"] == everyone["read"]["total_ios"]
    assert read["lat_mean_ns"] == everyone["read"]["clat_ns"]["mean"]
    # fio prints no percentiles for "All clients": they come from the hosts' merged bins.
    host_p99 = [h["read"]["clat_ns"]["percentile"]["99.000000"] for h in hosts]
    assert min(host_p99) <= read["lat_p99_ns"] <= max(host_p99)
    rows = record.hosts
    assert sorted(row["port"] for row in rows) == sorted(h["port"] for h in hosts)
    assert sum(row["sections"][0]["read"]["total_ios"] for row in rows) == read["total_ios"]
    assert record.host["hostname"] == "127.0.0.1"
    assert "<vm> Starting 1 process" in [m["text"] for m in record.messages]


# -- fio's human-readable report (seed 004) -----------------------------------------


def _printed_blocks() -> list[dict]:
    """What fio printed per job block, read with plain regexes, independent of iotui."""
    blocks = []
    for chunk in SEAWEEDFS.read_text().split("\n$ fio ")[1:]:
        iops = re.search(r"IOPS=([\d.]+)(k?)", chunk)
        bw = re.search(r"BW=([\d.]+)MiB/s", chunk)
        clat = re.search(r"clat \((\w+)\): min=(\d+), max=(\d+)k?, avg=([\d.]+)", chunk)
        unit = {"usec": 1000, "nsec": 1}[re.search(r"clat percentiles \((\w+)\)", chunk).group(1)]
        pct = dict(re.findall(r"([\d.]+)th=\[\s*(\d+)\]", chunk))
        blocks.append(
            {
                "command": chunk.splitlines()[0],
                "iops": Decimal(iops.group(1)),
                "iops_k": iops.group(2) == "k",
                "bw_mib": Decimal(bw.group(1)),
                "mean_ns": Decimal(clat.group(4)) * {"usec": 1000, "nsec": 1}[clat.group(1)],
                "p50_ns": int(pct["50.00"]) * unit,
                "p90_ns": int(pct["90.00"]) * unit,
                "p99_ns": int(pct["99.00"]) * unit,
                "p99_9_ns": int(pct["99.90"]) * unit,
            }
        )
    return blocks


def _digits_after_point(value: Decimal) -> int:
    return max(-value.as_tuple().exponent, 0)


def test_human_readable_report_equals_the_printed_numbers() -> None:
    records = import_fio_file(SEAWEEDFS)
    printed = _printed_blocks()
    assert len(records) == len(printed) == 6
    for record, block in zip(records, printed):
        read = record.summary["read"]
        assert record.status == "imported"
        assert record.run["tool_version"] == "fio-3.42"
        assert record.options["bs"] in block["command"]
        # IOPS: fio truncates to an integer, or rounds to 3 digits with a k suffix.
        if block["iops_k"]:
            assert round(Decimal(read["iops"]) / 1000, _digits_after_point(block["iops"])) == block["iops"]
        else:
            assert int(read["iops"]) == block["iops"]
        assert round(Decimal(read["bw_bytes"]) / (1 << 20), _digits_after_point(block["bw_mib"])) == block["bw_mib"]
        assert read["lat_mean_ns"] == float(block["mean_ns"])
        assert read["lat_p50_ns"] == block["p50_ns"]
        assert read["lat_p90_ns"] == block["p90_ns"]
        assert read["lat_p99_ns"] == block["p99_ns"]
        assert read["lat_p99_9_ns"] == block["p99_9_ns"]


def test_human_readable_sequential_4k_read_is_flagged_as_cache() -> None:
    records = import_fio_file(SEAWEEDFS)
    flagged = {
        (r.options["rw"], r.options["bs"]) for r in records if any(w["code"] == "cache-latency" for w in r.warnings)
    }
    assert ("read", "4k") in flagged
    assert ("randread", "4k") not in flagged  # direct=1 at 171 µs is a device
    seq_4k = next(r for r in records if (r.options["rw"], r.options["bs"]) == ("read", "4k"))
    assert seq_4k.summary["read"]["lat_p50_ns"] == 0
    assert "direct" not in seq_4k.options
    random_4k = next(r for r in records if (r.options["rw"], r.options["bs"]) == ("randread", "4k"))
    assert random_4k.options["direct"] == "1"


def test_fio2_text_layout(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_text(
        "randread: (g=0): rw=randread, bs=4K-4K/4K-4K/4K-4K, ioengine=libaio, iodepth=32\n"
        "fio-2.2.10\n"
        "randread: (groupid=0, jobs=1): err= 0: pid=1234: Tue Sep 27 18:13:20 2016\n"
        "  read : io=1024.0MB, bw=104857KB/s, iops=26214, runt= 10000msec\n"
        "    clat (usec): min=40, max=9000, avg=1218.52, stdev=310.11\n"
        "    clat percentiles (usec):\n"
        "     |  1.00th=[  700],  5.00th=[  800], 10.00th=[  900], 20.00th=[ 1000],\n"
        "     | 50.00th=[ 1200], 90.00th=[ 1600], 99.00th=[ 2400], 99.90th=[ 5000],\n"
        "  cpu          : usr=5.00%, sys=20.00%, ctx=1000, majf=0, minf=40\n"
        "     issued    : total=r=262144/w=0/d=0, short=r=0/w=0/d=0, drop=r=0/w=0/d=0\n"
    )
    [record] = import_fio_file(path)
    read = record.summary["read"]
    assert read["total_ios"] == 262144
    assert read["iops"] == pytest.approx(26214.4)
    assert read["io_bytes"] == 1024 * 1024 * 1024
    assert read["lat_mean_ns"] == 1218520
    assert read["lat_p99_ns"] == 2_400_000
    assert record.options["iodepth"] == "32"
    assert record.summary["cpu"]["fio_cpu_cores"] == pytest.approx(0.25)


# -- refusals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "empty"),
        (b"hello world\nnothing here\n", "no fio JSON document"),
        (b'{"something": 1}', "not fio output"),
        (b'{"jobs": []}', "empty"),
        (b'{"jobs": [{"jobname": "x", "read": {"iops": "fast"}}]}', "read.iops"),
        (b'{"jobs": [{"jobname": "x", "read": {"total_ios": -4}}]}', "negative"),
        (b'{"jobs": [{"jobname": "x", "read": {"total_ios": 0, "runtime": 0}}]}', "did any I/O"),
    ],
)
def test_refusals_name_the_file_and_the_reason(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(content)
    with pytest.raises(ImportRefused) as error:
        import_fio_file(path)
    assert str(path) in str(error.value)
    assert reason in str(error.value)


def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportRefused, match="cannot read"):
        import_fio_file(tmp_path / "missing.json")


# -- records are saveable ---------------------------------------------------------------


def test_imported_record_saves_and_loads_with_fios_report(tmp_path: Path) -> None:
    [run] = import_fio_runs(FIO_FIXTURES / "randrw-rate200-json+.txt")
    path = save_record(run.record, tmp_path, fio_report=run.fio_report)
    loaded = load_record(path)
    assert loaded.status == "imported"
    assert loaded.summary["read"]["iops"] == run.record.summary["read"]["iops"]
    report = json.loads((tmp_path / loaded.run["report"]).read_text())
    assert report["jobs"][0]["read"]["iops"] == loaded.summary["read"]["iops"]


# -- real fio ---------------------------------------------------------------------------


@requires_fio
@pytest.mark.fio
@pytest.mark.parametrize("output_format", ["json", "json+"])
def test_real_fio_json_imports_with_fios_own_numbers(tmp_path: Path, output_format: str) -> None:
    output = tmp_path / "out.json"
    subprocess.run(
        [
            shutil.which("fio") or "fio", "--name=imp", f"--filename={tmp_path / 'data'}", "--size=4M",
            "--rw=randrw", "--bs=4k", "--runtime=1", "--time_based", "--ioengine=psync",
            f"--output-format={output_format}", f"--output={output}",
        ],
        check=True, capture_output=True, timeout=60,
    )
    fio = json.loads(output.read_text())["jobs"][0]
    [record] = import_fio_file(output)
    assert record.run["tool_version"] == json.loads(output.read_text())["fio version"]
    for direction in ("read", "write"):
        table = record.summary[direction]
        ours = fio[direction]
        assert table["iops"] == ours["iops"]
        assert table["bw_bytes"] == ours["bw_bytes"]
        assert table["io_bytes"] == ours["io_bytes"]
        assert table["total_ios"] == ours["total_ios"]
        assert table["lat_mean_ns"] == ours["clat_ns"]["mean"]
        assert table["lat_min_ns"] == ours["clat_ns"]["min"]
        assert table["lat_max_ns"] == ours["clat_ns"]["max"]
        for name, key in (("p50", "50.000000"), ("p90", "90.000000"), ("p99", "99.000000"), ("p99_9", "99.900000")):
            assert table[f"lat_{name}_ns"] == ours["clat_ns"]["percentile"][key]
    expected_cores = (fio["usr_cpu"] + fio["sys_cpu"]) / 100
    if expected_cores:
        assert record.summary["cpu"]["fio_cpu_cores"] == pytest.approx(expected_cores)


@requires_fio
@pytest.mark.fio
def test_real_fio_status_interval_capture(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            shutil.which("fio") or "fio", "--name=cap", f"--filename={tmp_path / 'data'}", "--size=4M",
            "--rw=randread", "--bs=4k", "--runtime=2", "--time_based", "--ioengine=psync",
            "--output-format=json+", "--status-interval=1", "--eta=never",
        ],
        check=True, capture_output=True, timeout=60, text=True,
    )
    path = tmp_path / "capture.txt"
    path.write_text(result.stdout)
    [record] = import_fio_file(path)
    final = json.loads(result.stdout[result.stdout.rindex("\n{\n") + 1:])["jobs"][0]["read"]
    assert record.summary["read"]["iops"] == final["iops"]
    assert record.summary["read"]["lat_p99_ns"] == final["clat_ns"]["percentile"]["99.000000"]
    assert len(record.samples) >= 2
    assert sum(s["read_iops"] * s["dt_s"] for s in record.samples) == pytest.approx(final["total_ios"], rel=0.01)


@requires_fio
@pytest.mark.fio
def test_real_fio_normal_report_equals_its_own_json(tmp_path: Path) -> None:
    """One fio run printed both ways (normal,json): the text import matches the JSON's figures."""
    result = subprocess.run(
        [
            shutil.which("fio") or "fio", "--name=both", f"--filename={tmp_path / 'data'}", "--size=8M",
            "--rw=randrw", "--bs=4k", "--runtime=1", "--time_based", "--ioengine=psync", "--numjobs=2",
            "--group_reporting", "--output-format=normal,json",
        ],
        check=True, capture_output=True, timeout=60, text=True,
    )
    json_end = result.stdout.index("\n}\n") + 3
    fio = json.loads(result.stdout[result.stdout.index("{"):json_end])["jobs"][0]
    normal = tmp_path / "normal.txt"
    normal.write_text(result.stdout[:result.stdout.index("{")] + result.stdout[json_end:])
    [record] = import_fio_file(normal)
    text = normal.read_text()
    for direction in ("read", "write"):
        table, ours = record.summary[direction], fio[direction]
        assert table["total_ios"] == ours["total_ios"]
        assert table["io_bytes"] == ours["io_bytes"]
        assert table["iops"] == pytest.approx(ours["iops"], rel=1e-9)
        assert table["bw_bytes"] == pytest.approx(ours["bw_bytes"], abs=1)  # fio truncates to whole bytes/s
        unit_ns = 1000 if f"{direction}:" in text and "clat (usec)" in text else 1
        assert table["lat_mean_ns"] == pytest.approx(ours["clat_ns"]["mean"], abs=0.01 * unit_ns)
        for name, key in (("p50", "50.000000"), ("p99", "99.000000"), ("p99_9", "99.900000")):
            assert abs(table[f"lat_{name}_ns"] - ours["clat_ns"]["percentile"][key]) < 1000
    assert record.summary["cpu"]["fio_cpu_cores"] == pytest.approx((fio["usr_cpu"] + fio["sys_cpu"]) / 100 * 2, abs=0.01)
    assert record.options["rw"] == "randrw" and record.run["tool_version"].startswith("fio-3")


def test_a_run_longer_than_any_calendar_is_refused_naming_the_file(tmp_path: Path) -> None:
    # A damaged report's runtime (2**62 ms, within 64 bits) reaches back before year 1 from any end: no start
    # time can be counted back, so the file is refused with a sentence, not an OverflowError.
    document = _raw_json(FIO_2_JSON)
    document.pop("timestamp_ms", None)
    document.pop("timestamp", None)
    for job in document["jobs"]:
        for direction in ("read", "write", "trim"):
            if direction in job:
                job[direction]["runtime"] = 2**62
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(document))
    with pytest.raises(ImportRefused) as refusal:
        import_fio_runs(damaged)
    assert str(refusal.value).startswith(f"{damaged}: the run's length")
    assert "before any calendar date" in str(refusal.value)
