"""A host's state after a multi-host run: stopped by the user reads "stopped", not fio's exit status."""

from __future__ import annotations

import io

from iotui.commands.run_remote import print_remote_summary
from iotui.core.remote.host_table import host_state
from tests.core.test_remote import _multi_host_record


def test_a_stopped_run_s_hosts_read_stopped_and_a_failed_host_failed() -> None:
    assert host_state({"name": "h1", "exit_status": 128}, {"status": "stopped", "ended_by": "user"}) == "stopped"
    assert host_state({"name": "h1", "exit_status": 0}, {"status": "completed"}) == "exit 0"
    assert host_state({"name": "h2", "failed_at_s": 1.5, "exit_status": 1}, {"status": "stopped"}) == "failed at 1.5 s"


def test_iotui_show_of_a_stopped_multi_host_run() -> None:
    record = _multi_host_record()
    record.run.update(status="stopped", ended_by="user")
    record.hosts[0]["exit_status"] = 128
    out = io.StringIO()
    print_remote_summary(record, None, out)
    h1_line = next(line for line in out.getvalue().splitlines() if line.strip().startswith("h1 "))
    assert h1_line.rstrip().endswith("stopped") and "exit 128" not in out.getvalue()
