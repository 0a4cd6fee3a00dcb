"""A local run and a multi-host run save through the one saving path, for real: real fio on this
machine, real fio over a private sshd on 127.0.0.1-2.

``core/runs/saving.py save_and_announce`` is watched by wrapping the ``save_indexed`` it calls:
a session that saved by any other path writes a record the wrapper never saw. Each run's record
on disk, its row in the history index and its RunFinished event are then checked against what
the one path saved.
"""

from __future__ import annotations

import ast
import json
import sqlite3
from pathlib import Path

import pytest

import iotui
from iotui.core.presets.files import find_preset
from iotui.core.presets.overrides import with_overrides
from iotui.core.records.files import load_record
from iotui.core.records.history_index import index_path
from iotui.core.remote.session import MultiHostSession
from iotui.core.runs import saving
from iotui.core.runs.events import RunFinished
from iotui.core.runs.session import RunSession
from iotui.core.start import StartRequest, start_run
from tests.e2e.private_sshd import HOSTS, missing_reason
from tests.source_trees import parsed_module

pytestmark = [pytest.mark.fio]
needs_sshd = pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path]]:
    """Every record the one saving path saved: (its run id, the file it wrote)."""
    saved: list[tuple[str, Path]] = []
    real = saving.save_indexed

    def watched(record, runs_dir, fio_report=None, **kwargs):
        path = real(record, runs_dir, fio_report=fio_report, **kwargs)
        saved.append((record.run["id"], path))
        return path

    monkeypatch.setattr(saving, "save_indexed", watched)
    return saved


def _indexed_ids(runs_dir: Path) -> list[str]:
    """The run ids in the history index as the save left it (read directly: no sync from the files)."""
    connection = sqlite3.connect(index_path(runs_dir))
    try:
        return [row[0] for row in connection.execute("SELECT run_id FROM runs")]
    finally:
        connection.close()


async def _run(request: StartRequest) -> tuple[object, object, list[RunFinished]]:
    events: list[object] = []
    session = await start_run(request, events.append)
    record = await session.run()
    return session, record, [event for event in events if isinstance(event, RunFinished)]


def _request(tmp_path: Path, **extra: object) -> StartRequest:
    target = tmp_path / "target"
    target.mkdir(exist_ok=True)
    preset = with_overrides(find_preset("rnd4k-q1t1"), runtime_s=1, size="2M", direct=False)
    return StartRequest(preset, target=str(target), runs_dir=tmp_path / "runs", baseline_s=0, **extra)  # type: ignore[arg-type]


def _check_saved_once(saved: list[tuple[str, Path]], record, finished: list[RunFinished], runs_dir: Path) -> None:
    assert [run_id for run_id, _ in saved] == [record.run["id"]], "the run was not saved by core/runs/saving.py"
    path = saved[0][1]
    assert path.parent == runs_dir and load_record(path).run["id"] == record.run["id"]
    assert list(runs_dir.glob("*.toml")) == [path]
    assert _indexed_ids(runs_dir) == [record.run["id"]]
    assert len(finished) == 1 and finished[0].record is record
    assert finished[0].saved_path == path and finished[0].error is None


async def test_a_local_run_saves_through_the_one_saving_path(tmp_path, monkeypatch):
    saved = _spy(monkeypatch)
    session, record, finished = await _run(_request(tmp_path))
    assert isinstance(session, RunSession)
    assert record.status == "completed", record.warnings
    _check_saved_once(saved, record, finished, tmp_path / "runs")


@pytest.mark.sshd
@needs_sshd
async def test_a_multi_host_run_saves_through_the_same_path_with_its_hosts(tmp_path, monkeypatch, sshd):
    monkeypatch.setenv("IOTUI_SSH", sshd.ssh_command)
    saved = _spy(monkeypatch)
    session, record, finished = await _run(_request(tmp_path, hosts=HOSTS[:2]))
    assert isinstance(session, MultiHostSession)
    assert record.status == "completed", record.warnings
    _check_saved_once(saved, record, finished, tmp_path / "runs")
    # What is the multi-host run's own is kept: the aggregate's sections and every host's entry.
    kept = load_record(saved[0][1])
    assert [host["name"] for host in kept.hosts] == list(HOSTS[:2])
    assert kept.sections and all(host["sections"] for host in kept.hosts)
    # fio's own reports, one per host, beside the record.
    report = json.loads(saved[0][1].with_name(saved[0][1].name.removesuffix(".toml") + ".fio.json").read_text())
    assert sorted(report["hosts"]) == sorted(HOSTS[:2])


@pytest.mark.sshd
@needs_sshd
async def test_a_multi_host_runs_save_error_is_its_error_in_one_sentence(tmp_path, monkeypatch, sshd):
    monkeypatch.setenv("IOTUI_SSH", sshd.ssh_command)
    request = _request(tmp_path, hosts=HOSTS[:2])
    events: list[object] = []
    session = await start_run(request, events.append)
    # The runs directory passed the start's check, then became a file: the save fails for real.
    runs_dir = tmp_path / "runs"
    for child in runs_dir.iterdir():
        child.unlink()
    runs_dir.rmdir()
    runs_dir.write_text("not a directory\n")
    record = await session.run()
    finished = [event for event in events if isinstance(event, RunFinished)]
    assert len(finished) == 1 and finished[0].saved_path is None
    error = finished[0].error or ""
    assert str(runs_dir) in error and "\n" not in error and "Traceback" not in error
    assert record.status == "completed"


def _calls_in(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(parsed_module(path)):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


def test_no_session_saves_or_announces_a_record_by_itself():
    """Only core/runs/saving.py saves a run's record through the index and emits RunFinished."""
    core = Path(iotui.__file__).parent / "core"
    doing_it = sorted(
        str(path.relative_to(core))
        for path in core.rglob("*.py")
        if {"save_indexed", "RunFinished"} & _calls_in(path)
    )
    assert doing_it == ["runs/saving.py"]
