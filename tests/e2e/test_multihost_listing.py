"""A real multi-host run, as the records commands show it: the aggregate's options, History's hosts.

Two loopback hosts run a rate-limited 2-job 4k job; the aggregate must say 4k, 2 jobs (on each
host), on 2 hosts, and iotui history must name both hosts and find the run by either.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.private_sshd import HOSTS, missing_reason
from tests.e2e.test_multihost import _env

pytestmark = [pytest.mark.fio, pytest.mark.sshd, pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")]


def _iotui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, timeout=120, env=env)


def test_a_multi_host_record_says_what_ran_on_each_host_and_history_names_the_hosts(sshd, tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    hosts = list(HOSTS[:2])
    runs = tmp_path / "runs"
    done = _iotui(
        "run", "rnd4k-q1t1", "--hosts", ",".join(hosts), "--target", str(tmp_path / "target"),
        "--runtime", "2", "--size", "2M", "--set", "rw=randwrite", "--set", "rate_iops=100",
        "--set", "ioengine=psync", "--set", "numjobs=2", "--runs-dir", str(runs), "--baseline", "0",
        env=_env(sshd),
    )
    assert done.returncode == 0, done.stderr
    (path,) = runs.glob("*.toml")
    record = json.loads(_iotui("show", "--json", str(path)).stdout)
    for aggregate, host_section in zip(record["sections"], record["hosts"][0]["sections"]):
        assert aggregate["hosts"] == 2
        assert aggregate["options"]["numjobs"] == host_section["options"]["numjobs"] == "2"
        assert aggregate["options"]["bs"] == "4k"
    listed = _iotui("history", hosts[1], "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert f"2 hosts: {hosts[0]},{hosts[1]}"[:23] in listed.stdout
    assert _iotui("history", "no-such-host", "--runs-dir", str(runs)).stdout.count("2 hosts") == 0
