"""A multi-host run in History (its row and detail line) and in Results (its header) names its hosts."""

from __future__ import annotations

from pathlib import Path

from iotui.core.records.files import save_record
from iotui.core.records.history_index import query, sync
from iotui.ui.widgets.history_table import TARGET_WIDTH, HistoryEntry
from tests.core.test_history_hosts import _record


def test_a_multi_host_row_shows_its_hosts_and_the_detail_its_path(tmp_path: Path) -> None:
    save_record(_record("b" * 32, 2, hosts=("h1", "h2")), tmp_path)
    sync(tmp_path)
    [indexed] = query(tmp_path)[0]
    entry = HistoryEntry(indexed)
    target_cell = entry.cells()[2]
    assert target_cell.startswith("2 hosts") and len(target_cell) <= TARGET_WIDTH
    assert "/mnt/nfs on 2 hosts: h1,h2" in entry.detail()


def test_results_of_a_multi_host_run_names_the_hosts_not_this_machine_s_cpu() -> None:
    from iotui.ui.screens.results import headline

    record = _record("b" * 32, 2, hosts=("h1", "h2"))
    record.host.update(hostname="console", cpu_model="This Machine CPU 9000")
    shown = headline(record).plain
    assert "on 2 hosts: h1,h2" in shown
    assert "This Machine CPU 9000" not in shown and "console" not in shown
    local = headline(_record("a" * 32, 1)).plain
    assert "ctl: c, 2 CPUs" in local


def test_results_host_table_of_a_stopped_run_reads_stopped() -> None:
    from iotui.ui.widgets.hosts_table import hosts_text

    record = _record("b" * 32, 2, hosts=("h1", "h2"))
    record.run.update(status="stopped", ended_by="user")
    for host in record.hosts:
        host["exit_status"] = 128
    shown = hosts_text(record.hosts, 0, record.run).plain
    assert "exit 128" not in shown and shown.count("stopped") == 2
