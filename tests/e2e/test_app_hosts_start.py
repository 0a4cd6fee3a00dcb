"""The app starts a run on many hosts through the core's one entry, for real: a private sshd on
127.0.0.1-2, real fio, the app's own services (not a replay)."""

from __future__ import annotations

import pytest

from iotui.core.presets.files import find_preset
from iotui.core.remote.session import MultiHostSession
from iotui.core.runs.events import LogLine
from iotui.ui.service_types import Overrides, RunRequest
from iotui.ui.services import Services
from tests.e2e.private_sshd import HOSTS, missing_reason

pytestmark = [pytest.mark.fio, pytest.mark.sshd, pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")]


async def test_the_apps_multi_host_run_starts_through_start_run_and_saves_its_record(sshd, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("IOTUI_SSH", sshd.ssh_command)
    target = tmp_path / "target"
    target.mkdir()
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0)
    preset = services.apply_overrides(
        find_preset("rnd4k-q1t1"), Overrides(runtime_s=1, size="4M", direct=False)
    )
    events: list[object] = []
    hosts = HOSTS[:2]
    session = await services.make_session(RunRequest(preset, services.inspect_target(str(target)), hosts=hosts), events.append)
    assert isinstance(session, MultiHostSession) and session.plan.hosts == list(hosts)
    record = await session.run()
    assert record.status == "completed"
    assert [host["name"] for host in record.hosts] == list(hosts)
    assert all(host["exit_status"] == 0 for host in record.hosts)
    assert list((tmp_path / "runs").rglob("*.toml")), "the record was not saved"
    assert not any(isinstance(event, LogLine) and "Traceback" in event.text for event in events)
    assert list(target.iterdir()) == []


def test_a_sweep_with_hosts_runs_each_point_on_every_host(sshd, tmp_path) -> None:
    import os
    import subprocess
    import sys

    from iotui.core.records.files import load_record

    target = tmp_path / "target"
    target.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "iotui", "sweep", "quick", "--hosts", ",".join(HOSTS[:2]), "--target", str(target),
         "--vary", "bs=4k,8k", "--runtime", "1", "--size", "4M", "--set", "direct=0",
         "--runs-dir", str(tmp_path / "runs"), "--baseline", "0"],
        env={**os.environ, "IOTUI_SSH": sshd.ssh_command}, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "[2/2] bs=8k: completed" in done.stdout
    points = sorted(path for path in (tmp_path / "runs").rglob("*.toml") if not path.name.endswith(".sweep.toml"))
    assert len(points) == 2
    for path in points:
        record = load_record(path)
        assert [host["name"] for host in record.hosts] == list(HOSTS[:2]) and record.status == "completed"
    assert list(target.iterdir()) == []
