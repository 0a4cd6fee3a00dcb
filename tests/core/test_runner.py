"""The fio subprocess: events in order, stop escalation, no orphans (fake fio)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from iotui.core.fio.runner import FioExited, FioNotFoundError, FioRunner, StderrLine, resolve_fio
from iotui.core.fio.status import FioDocument, FioText
from tests.conftest import FIO_FIXTURES
from tests.waiting import wait_until

FAKE_FIO = str(Path(__file__).parents[1] / "fakes" / "fake_fio.py")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0): look at its state.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def _wait_for_state(pid: int, states: str) -> None:
    def in_state() -> bool:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1][0] in states

    wait_until(in_state, what=f"process {pid} to be in state {states}")


async def _collect(runner: FioRunner) -> list:
    await runner.start()
    return [event async for event in runner.events()]


async def test_replay_yields_documents_text_and_exit(monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_STDERR", "note: hello from stderr")
    events = await _collect(FioRunner([sys.executable, FAKE_FIO]))
    docs = [e for e in events if isinstance(e, FioDocument)]
    assert len(docs) == 4
    assert StderrLine("note: hello from stderr") in events
    assert events[-1] == FioExited(returncode=0, stopped_by_user=False)


async def test_garbage_is_text_not_a_crash(monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_MODE", "garbage")
    events = await _collect(FioRunner([sys.executable, FAKE_FIO]))
    assert len([e for e in events if isinstance(e, FioDocument)]) == 4
    assert any(isinstance(e, FioText) and "garbage" in e.line for e in events)


async def test_crash_mid_run_reports_exit_code_and_truncation(monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_MODE", "crash")
    events = await _collect(FioRunner([sys.executable, FAKE_FIO]))
    assert len([e for e in events if isinstance(e, FioDocument)]) == 1
    assert any(isinstance(e, FioText) and "incomplete" in e.line for e in events)
    assert events[-1].returncode == 139


async def test_stall_is_ended_by_escalation(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_MODE", "stall")
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("FAKE_FIO_PIDFILE", str(pidfile))
    runner = FioRunner([sys.executable, FAKE_FIO], sigint_grace_s=0.3, sigterm_grace_s=0.3)
    await runner.start()
    seen = []
    async for event in runner.events():
        seen.append(event)
        if isinstance(event, FioDocument):
            started = time.monotonic()
            await runner.stop()
            assert time.monotonic() - started < 5
    assert isinstance(seen[-1], FioExited) and seen[-1].stopped_by_user
    assert seen[-1].returncode == -9
    assert not _alive(int(pidfile.read_text()))


async def test_sigint_stop_gets_the_final_document(monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randread-3jobs-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_DELAY_S", "0.5")
    runner = FioRunner([sys.executable, FAKE_FIO])
    await runner.start()
    docs = []
    async for event in runner.events():
        if isinstance(event, FioDocument):
            docs.append(event.doc)
            if len(docs) == 1:
                runner.request_stop()
        last = event
    assert last.stopped_by_user and last.returncode == 0
    assert len(docs) == 2  # the first, then fio's final report after SIGINT


async def test_pause_and_resume_signal_the_group(monkeypatch) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_DELAY_S", "0.3")
    runner = FioRunner([sys.executable, FAKE_FIO])
    await runner.start()
    async for event in runner.events():
        if isinstance(event, FioDocument) and not runner.paused and event.doc["jobs"][0]["elapsed"] == 1:
            assert runner.pause()
            _wait_for_state(runner.pid, "T")
            assert runner.resume()
            _wait_for_state(runner.pid, "RS")
    assert not runner.paused


def test_missing_fio_is_a_sentence_with_the_install_command() -> None:
    with pytest.raises(FioNotFoundError) as error:
        resolve_fio("/nonexistent/fio", env={})
    assert "apt-get install fio" in str(error.value)
    with pytest.raises(FioNotFoundError, match="PATH"):
        resolve_fio(None, env={"IOTUI_FIO": "surely-not-a-fio-binary"})
