"""The one entry that starts a run: a typed request in, a session (or a StartError with a code) out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from iotui.core.presets.files import find_preset
from iotui.core.runs.events import LogLine
from iotui.core.runs.session import RunSession
from iotui.core.start import StartError, StartRequest, start_run, start_sysbench_run


async def test_a_request_becomes_a_session_on_its_target(tmp_path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/bootstrap.sh installs it)")
    request = StartRequest(find_preset("quick"), target=str(tmp_path), runs_dir=tmp_path / "runs", baseline_s=-3)
    session = await start_run(request, lambda event: None)
    assert isinstance(session, RunSession)
    assert session.plan.target_path == tmp_path
    assert session.runs_dir == tmp_path / "runs"
    assert session.baseline_s == 0.0  # a negative baseline is no baseline
    assert session.fio_version.startswith("fio-")
    assert session.plan.argv[0] == shutil.which("fio")


async def test_a_missing_fio_is_a_start_error_with_its_code(tmp_path) -> None:
    request = StartRequest(find_preset("quick"), target=str(tmp_path), fio=str(tmp_path / "no-fio"))
    with pytest.raises(StartError, match="install") as raised:
        await start_run(request, lambda event: None)
    assert raised.value.code == "fio-missing"


async def test_a_refused_target_is_a_start_error_carrying_the_plans_error(tmp_path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/bootstrap.sh installs it)")
    request = StartRequest(find_preset("quick"), target=str(tmp_path / "absent"))
    with pytest.raises(StartError, match="does not exist") as raised:
        await start_run(request, lambda event: None)
    assert raised.value.code == "refused"
    assert raised.value.cause is not None


async def test_plan_warnings_reach_the_caller_before_the_run(tmp_path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/bootstrap.sh installs it)")
    if not Path("/dev/shm").is_dir():
        pytest.skip("this machine has no /dev/shm (a tmpfs) to plan a run on")
    events: list[object] = []
    request = StartRequest(find_preset("quick"), target="/dev/shm", allow_cache=True)
    await start_run(request, events.append)
    warnings = [event.text for event in events if isinstance(event, LogLine)]
    assert any(text.startswith("warning [") and "memory" in text for text in warnings), warnings


def test_a_sysbench_run_without_sysbench_says_so(tmp_path) -> None:
    request = StartRequest(find_preset("quick"), target=str(tmp_path))
    with pytest.raises(StartError, match="sysbench is not installed") as raised:
        start_sysbench_run(request, lambda event: None, sysbench=str(tmp_path / "no-sysbench"))
    assert raised.value.code == "sysbench-missing"
