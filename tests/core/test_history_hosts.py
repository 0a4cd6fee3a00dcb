"""History tells multi-host runs apart: each row names its hosts, and a host's name finds its runs."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

from iotui.core.records.files import load_record, save_record
from iotui.core.records.headers import listed_host_names, load_record_listing
from iotui.core.records.history_index import RunFilter, query, save_indexed, sync
from iotui.core.records.record import RunRecord


def _record(run_id: str, day: int, hosts: tuple[str, ...] = ()) -> RunRecord:
    section = {"name": "w", "groupid": 0, "write": {"iops": 100.0, "bw_bytes": 409600, "io_bytes": 1, "total_ios": 1}}
    samples = [{"t_s": float(t), "dt_s": 1.0, "write_iops": 100.0, "section": 0} for t in range(1, 4)]
    record = RunRecord(
        run={"id": run_id, "preset": "quick", "status": "completed", "duration_s": 3.0,
             "started": dt.datetime(2026, 11, day, 12, 0, tzinfo=dt.timezone.utc),
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "ctl", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 2, "mem_total_bytes": 1},
        target={"path": "/mnt/nfs", "filesystem": "nfs4", "device": "remote", "mount_options": ""},
        sections=[section], samples=list(samples),
    )
    record.hosts = [{"name": name, "kernel": "6.2", "sections": [dict(section)], "samples": list(samples)} for name in hosts]
    return record


def test_a_cold_index_names_each_runs_hosts_and_a_host_name_finds_its_runs(tmp_path: Path) -> None:
    save_record(_record("a" * 32, 1), tmp_path)
    save_record(_record("b" * 32, 2, hosts=("h1", "h2")), tmp_path)
    save_record(_record("c" * 32, 3, hosts=("h2", "h3")), tmp_path)
    assert sync(tmp_path).parsed == 3
    listed = {run.run_id[0]: run for run in query(tmp_path)[0]}
    assert listed["b"].hosts == ("h1", "h2") and listed["b"].where() == "2 hosts: h1,h2"
    assert listed["a"].hosts == () and listed["a"].where() == "/mnt/nfs"
    assert [run.run_id[0] for run in query(tmp_path, RunFilter.from_text("h1"))[0]] == ["b"]
    assert [run.run_id[0] for run in query(tmp_path, RunFilter.from_text("h2"))[0]] == ["c", "b"]


def test_a_saved_run_is_indexed_with_its_hosts(tmp_path: Path) -> None:
    save_indexed(_record("b" * 32, 2, hosts=("h1", "h2")), tmp_path)
    (run,), _total = query(tmp_path)
    assert run.hosts == ("h1", "h2") and run.to_json_dict()["hosts"] == ["h1", "h2"]


def test_host_names_are_read_from_each_entry_s_keys_as_the_whole_record_holds_them(tmp_path: Path) -> None:
    path = save_record(_record("b" * 32, 2, hosts=("h1", "client-2.example", "h3")), tmp_path)
    text = path.read_text()
    whole = [host["name"] for host in load_record(path).hosts]
    assert listed_host_names(text) == whole == ["h1", "client-2.example", "h3"]
    record, names = load_record_listing(path)
    assert names == whole and record.hosts == [] and record.samples == []  # samples not read
    assert listed_host_names(text.replace('name = "h3"', "name = 3")) is None  # read whole instead


def test_the_command_line_lists_the_hosts_and_filters_on_them(tmp_path: Path) -> None:
    save_record(_record("a" * 32, 1), tmp_path)
    save_record(_record("b" * 32, 2, hosts=("h1", "h2")), tmp_path)
    done = subprocess.run([sys.executable, "-m", "iotui", "history", "h1", "--runs-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "2 hosts: h1,h2" in done.stdout and "2026-11-01" not in done.stdout
    listed = subprocess.run([sys.executable, "-m", "iotui", "history", "--json", "--runs-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert [run["hosts"] for run in json.loads(listed.stdout)["runs"]] == [["h1", "h2"], []]


def test_many_hosts_are_named_in_one_bounded_line() -> None:
    from iotui.core import format as fmt

    names = [f"h{i}" for i in range(1, 129)]
    assert fmt.hosts(names) == "128 hosts: h1,h2,h3,h4,h5,h6,h7,h8 and 120 more"
    assert fmt.hosts(["a"]) == "1 host: a"
