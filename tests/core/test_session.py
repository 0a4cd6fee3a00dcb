"""A whole run through the session, with the fake fio replaying real captures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from iotui.core.fio.runner import FioRunner
from iotui.core.presets.overrides import with_overrides
from iotui.core.runs.plan import PlanError, make_plan
from iotui.core.presets.files import find_preset, shipped_presets_dir
from iotui.core.records.files import load_record
from iotui.core.runs.events import IntervalUpdate, LogLine, RunFinished
from iotui.core.runs.session import RunSession
from tests.conftest import FIO_FIXTURES, fio_documents
from tests.waiting import wait_for

FAKE_FIO = str(Path(__file__).parents[1] / "fakes" / "fake_fio.py")


def _plan(tmp_path: Path, name: str = "quick"):
    preset = with_overrides(find_preset(name, [shipped_presets_dir()]), size="1M", runtime_s=1)
    return make_plan(preset, tmp_path, fio_binary="fio")


def _fake_runner(argv: list[str]) -> FioRunner:
    return FioRunner([sys.executable, FAKE_FIO, *argv[1:]], sigint_grace_s=0.5, sigterm_grace_s=0.5)


async def _run(tmp_path: Path, monkeypatch, capture: str, mode: str = "replay") -> tuple:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / capture))
    monkeypatch.setenv("FAKE_FIO_MODE", mode)
    monkeypatch.setenv("FAKE_FIO_DELAY_S", "0.01")
    events: list = []
    target = tmp_path / "target"
    target.mkdir()
    session = RunSession(
        _plan(target), fio_version="fio-3.33-fake", runs_dir=tmp_path / "runs",
        on_event=events.append, runner_factory=_fake_runner,
    )
    record = await session.run()
    return record, events, target


async def test_replayed_run_is_saved_with_fios_numbers(tmp_path: Path, monkeypatch) -> None:
    record, events, target = await _run(tmp_path, monkeypatch, "randrw-rate200-json+.txt")
    final = fio_documents("randrw-rate200-json+.txt")[-1]["jobs"][0]
    assert record.status == "completed"
    assert record.summary["read"]["iops"] == final["read"]["iops"]
    assert record.summary["write"]["lat_p99_ns"] == final["write"]["clat_ns"]["percentile"]["99.000000"]
    assert len([e for e in events if isinstance(e, IntervalUpdate)]) == 4
    assert len(record.samples) == 4
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.saved_path is not None
    loaded = load_record(finished.saved_path)
    assert loaded.summary["read"] == record.summary["read"]
    report = json.loads((finished.saved_path.parent / loaded.run["report"]).read_text())
    assert report["jobs"][0]["read"]["total_ios"] == final["read"]["total_ios"]
    assert list(target.iterdir()) == []  # the test file is gone


async def test_crash_is_a_failed_record_with_a_reason(tmp_path: Path, monkeypatch) -> None:
    record, events, target = await _run(tmp_path, monkeypatch, "randrw-rate200-json+.txt", mode="crash")
    assert record.status == "failed"
    assert any(w["code"] == "failed" and "139" in w["message"] for w in record.warnings)
    assert record.path is not None and record.path.exists()
    assert list(target.iterdir()) == []


async def test_fio_error_text_is_kept(tmp_path: Path, monkeypatch) -> None:
    record, events, _ = await _run(tmp_path, monkeypatch, "randrw-rate200-json+.txt", mode="fail")
    assert record.status == "failed"
    assert any("Permission denied" in w["message"] for w in record.warnings)
    assert any(isinstance(e, LogLine) and e.source == "stderr" for e in events)


async def test_an_existing_private_directory_is_never_taken_over(tmp_path: Path, monkeypatch) -> None:
    # Whatever sits at the private directory's name (a directory, a symlink raced in): refused, untouched.
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    plan = _plan(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plan.private_dir.symlink_to(elsewhere)
    session = RunSession(plan, fio_version="x", runs_dir=None, runner_factory=_fake_runner)
    record = await session.run()
    assert record.status == "failed"
    assert "will not use a directory it did not create" in record.warnings[-1]["message"]
    assert plan.private_dir.is_symlink() and list(elsewhere.iterdir()) == []


async def test_the_private_directory_is_0700_and_removed_with_everything_in_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_DELAY_S", "0.01")
    plan = _plan(tmp_path)
    seen: list = []

    def runner(argv: list[str]) -> FioRunner:
        mode = plan.private_dir.stat().st_mode & 0o777
        (plan.private_dir / "stray-file-fio-wrote").write_text("x")
        seen.append((mode, sorted(p.name for p in plan.private_dir.iterdir())))
        return _fake_runner(argv)

    assert plan.private_dir.parent == tmp_path and plan.private_dir.name.startswith(".iotui-")
    assert plan.test_file.parent == plan.private_dir
    record = await RunSession(plan, fio_version="x", runs_dir=None, runner_factory=runner).run()
    assert record.status == "completed"
    assert seen == [(0o700, [".iotui-owner", "stray-file-fio-wrote", "testfile"])]
    assert list(tmp_path.iterdir()) == []


async def test_leftovers_of_a_run_that_never_ended_are_removed_and_named(tmp_path: Path, monkeypatch) -> None:
    from iotui.core.runs import test_dir

    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_DELAY_S", "0.01")
    dead = tmp_path / ".iotui-00000000deadbeef"
    dead.mkdir()
    (dead / ".iotui-owner").write_text('{"pid": 999999999, "boot_id": "another boot"}')
    (dead / "testfile").write_bytes(b"x" * 1000)
    alive = test_dir.new_private_dir(tmp_path)
    test_dir.create_private_dir(alive)  # this process owns it: another run in progress
    users_own = tmp_path / ".iotui-notes"
    users_own.mkdir()
    events: list = []
    record = await RunSession(_plan(tmp_path), fio_version="x", runs_dir=None, runner_factory=_fake_runner,
                              on_event=events.append).run()
    assert record.status == "completed"
    assert not dead.exists() and alive.is_dir() and users_own.is_dir()
    assert any(isinstance(e, LogLine) and str(dead) in e.text and "earlier run" in e.text for e in events)


def test_plan_refuses_tmpfs_and_bad_targets(tmp_path: Path) -> None:
    preset = find_preset("quick", [shipped_presets_dir()])
    with pytest.raises(PlanError, match="does not exist") as missing:
        make_plan(preset, tmp_path / "absent", fio_binary="fio")
    assert missing.value.code == "target-missing"
    shm = Path("/dev/shm")
    if shm.is_dir():
        with pytest.raises(PlanError, match="which is memory") as memory:
            make_plan(preset, shm, fio_binary="fio")
        assert memory.value.code == "target-memory"


async def test_many_files_go_to_the_private_directory_and_are_removed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_DELAY_S", "0.01")
    preset = with_overrides(
        find_preset("quick", [shipped_presets_dir()]), size="1M", runtime_s=1, sets={"nrfiles": "3000"}
    )
    plan = make_plan(preset, tmp_path, fio_binary="fio")
    assert plan.test_files == [] and f"--directory={plan.private_dir}" in plan.argv
    record = await RunSession(plan, fio_version="x", runs_dir=None, runner_factory=_fake_runner).run()
    assert record.status == "completed"
    assert list(tmp_path.iterdir()) == []


async def test_stop_during_the_baseline_never_starts_fio(tmp_path: Path, monkeypatch) -> None:
    import asyncio

    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    started: list[list[str]] = []

    def runner(argv: list[str]) -> FioRunner:
        started.append(argv)
        return _fake_runner(argv)

    session = RunSession(_plan(tmp_path), fio_version="x", runs_dir=None, runner_factory=runner, baseline_s=60)
    task = asyncio.create_task(session.run())
    # The test file exists before the baseline starts: stop during the baseline.
    await wait_for(lambda: any(tmp_path.iterdir()), what="the session to create its test file")
    session.request_stop()
    record = await asyncio.wait_for(task, 30)  # the stop ends the 60 s baseline at once
    assert started == []
    assert record.status == "stopped"
    assert list(tmp_path.iterdir()) == []


async def test_a_fio_that_stops_reporting_is_ended_and_the_record_says_it_hung(tmp_path: Path, monkeypatch) -> None:
    # fio 3.33 hangs so with io_submit_mode=offload: no report, deaf to SIGINT and SIGTERM.
    from iotui.core.runs import session as session_module

    monkeypatch.setattr(session_module, "STUCK_AFTER_S", 1.5)
    record, events, target = await _run(tmp_path, monkeypatch, "randrw-rate200-json+.txt", mode="stall")
    assert record.status == "failed" and record.run["ended_by"] == "stuck"
    failed = [w["message"] for w in record.warnings if w["code"] == "failed"]
    assert failed and "no word from it for 2 s" in failed[0] and "hangs inside fio; iotui ended it" in failed[0]
    assert record.path is not None and record.path.exists()
    assert list(target.iterdir()) == []
