"""Multi-host runs in plain words: a stopped host reads "stopped", and --min-hosts past the hosts given says so."""

from __future__ import annotations

import io

from iotui.commands.remote_summary import print_remote_summary
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


def test_min_hosts_past_the_hosts_given_is_said_plainly_before_any_host_is_asked(tmp_path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--hosts", "h1", "--min-hosts", "3",
         "--runs-dir", str(tmp_path / "runs"), "--ssh", "false"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--min-hosts 3 is more than the 1 host given" in done.stderr
    assert "at most" not in done.stderr
    zero = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--hosts", "h1,h2", "--min-hosts", "0",
         "--runs-dir", str(tmp_path / "runs"), "--ssh", "false"],
        capture_output=True, text=True, timeout=60,
    )
    assert "--min-hosts 0 asks for no host; give a number from 1 to 2" in zero.stderr


def test_the_core_says_the_facts_of_min_hosts_without_a_flag() -> None:
    import asyncio

    import pytest

    from iotui.core.presets.files import find_preset
    from iotui.core.remote.plan import make_remote_plan
    from iotui.core.remote.transport import RemoteError

    with pytest.raises(RemoteError) as too_many:
        asyncio.run(make_remote_plan(find_preset("quick"), ["h1"], ["false"], None, min_hosts=3))
    assert too_many.value.code == "min-hosts" and str(too_many.value) == "3 hosts must pass, more than the 1 host given."
    assert "at most" not in str(too_many.value) and "--" not in str(too_many.value)


def test_iotui_show_says_what_each_host_ran_in_the_aggregate_line() -> None:
    record = _multi_host_record()
    record.sections[0]["options"] = {"bs": "4k", "iodepth": "1", "numjobs": "16", "rw": "randread"}
    record.sections[0]["hosts"] = 2
    out = io.StringIO()
    print_remote_summary(record, None, out)
    assert "aggregate of 2 hosts, each ran w (4k, QD1 x 16 jobs, randread)" in out.getvalue()
