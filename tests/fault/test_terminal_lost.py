"""The app never outlives its terminal: the pseudo-terminal itself goes away (as when an SSH
connection drops or a tmux pane is killed) at start-up, on Home, while History indexes
thousands of records, during a live fio run and on Results, with and without the CPUs busy.
Every time the process is gone within 5 s, a run's record is saved as stopped, and no fio
and no test file is left."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
import tomli_w

from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record
from tests.conftest import requires_fio
from tests.pty_terminal import Terminal, terminal_env
from tests.processes import command_lines

pytestmark = [pytest.mark.slow, pytest.mark.fio, requires_fio]

REPO = Path(__file__).resolve().parents[2]
GONE_WITHIN_S = 5.0
HISTORY_RECORDS = 2500


def _shows(words: str):
    """The screen's text holds ``words`` (blanks collapsed: escape sequences leave gaps)."""
    return lambda text: words in " ".join(text.split())


@pytest.fixture
def cpu_load(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Two busy loops (one per core of a small machine) while the test runs, when asked for."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 if request.param else 0)]
    yield bool(request.param)
    for loop in loops:
        loop.kill()
        loop.wait()


def _write_records(runs_dir: Path, count: int) -> None:
    """``count`` small saved records (History indexes them on its first open)."""
    runs_dir.mkdir(parents=True)
    record = RunRecord(
        run={"id": "0" * 32, "preset": "quick", "status": "completed", "started": "2026-01-01T00:00:00Z",
             "duration_s": 10.0, "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio", "--name=x"], "report": ""},
        host={"hostname": "lab", "system": "Linux", "kernel": "6.1.0", "cpu_model": "x", "cpu_count": 2},
        target={"path": "/mnt/disk", "filesystem": "ext4"},
        summary={"read": {"iops": 19200.0, "bw_bytes": 78643200.0, "lat_p99_ns": 130000.0}},
    )
    doc = record.to_toml_dict()
    for index in range(count):
        doc["run"] = {**doc["run"], "id": f"{index:032x}"}
        (runs_dir / f"20260101-{index:06d}-quick-{index:08x}.toml").write_text(tomli_w.dumps(doc))


def _fio_left(target: Path) -> list[str]:
    """Command lines of processes that still name the target (fio and its job processes)."""
    lines = (b" ".join(argv).decode(errors="replace") for _, argv in command_lines())
    return [line for line in lines if str(target) in line and "fio" in line]


def _preset(name: str, runtime_s: int) -> str:
    """A user preset: small random reads and writes for ``runtime_s``. Direct, so Home has no page-cache
    warning to show and fio's command line is in view at 80x24."""
    return (f'name = "{name}"\ntitle = "{name}"\ndescription = "random 4k reads and writes for {runtime_s} s"\n\n'
            f'[options]\nioengine = "psync"\ndirect = 1\nrw = "randrw"\nbs = "4k"\nsize = "16M"\nruntime = {runtime_s}\n'
            'time_based = ""\n')


def _start(tmp_path: Path, preset: str, controlling: bool) -> tuple[Terminal, Path, Path]:
    target = tmp_path / "target"
    target.mkdir()
    runs_dir = tmp_path / "runs"
    presets = tmp_path / "config" / "iotui" / "presets"
    presets.mkdir(parents=True)
    (presets / "long.toml").write_text(_preset("long", 30))  # only the hang-up ends it
    (presets / "short.toml").write_text(_preset("short", 1))
    env = terminal_env(XDG_CONFIG_HOME=str(tmp_path / "config"))
    terminal = Terminal([sys.executable, "-m", "iotui", "--runs-dir", str(runs_dir), "--target", str(target),
                         "--preset", preset], env, REPO, columns=80, rows=24, controlling=controlling)
    return terminal, target, runs_dir


def _reach(terminal: Terminal, moment: str, runs_dir: Path) -> None:
    if moment == "start-up":
        terminal.pump(0.3)  # the app is importing or painting its first frame
        return
    # Home with the test's own preset (a preset the app cannot read is skipped, and quick's 20 s
    # would stand in for the 1 s run) and the target chosen: fio's command line is shown.
    terminal.wait_for(_shows("random 4k reads and writes for"), 60, "Home with the test's preset")
    terminal.wait_for(_shows("--status-interval"), 60, "Home's fio command")
    if moment == "history":
        terminal.press(b"h")
        terminal.wait_for(_shows("Indexing the runs directory"), 30, "History indexing")
    elif moment == "run":
        terminal.press(b"r")
        terminal.wait_for(_shows("IOPS"), 60, "the run's first figures")
        terminal.pump(1.0)
    elif moment == "results":
        terminal.press(b"r")
        terminal.wait_for(lambda _: bool(list(runs_dir.glob("*.toml"))), 60, "the run's record")
        terminal.pump(1.0)


# Quiet, the terminal is the app's controlling terminal (its hang-up sends SIGHUP, as a login
# shell's does); loaded, a bare one (only its reads and writes fail, no signal comes).
@pytest.mark.parametrize("cpu_load", [False, True], indirect=True, ids=["quiet-controlling", "loaded-bare"])
@pytest.mark.parametrize("moment", ["start-up", "home", "history", "run", "results"])
def test_the_app_is_gone_within_5_s_of_its_terminal(tmp_path: Path, moment: str, cpu_load: bool) -> None:
    controlling = not cpu_load
    terminal, target, runs_dir = _start(tmp_path, "short" if moment == "results" else "long", controlling)
    try:
        if moment == "history":
            _write_records(runs_dir, HISTORY_RECORDS)
        _reach(terminal, moment, runs_dir)
        hung_up = time.monotonic()
        terminal.hang_up()
        try:
            terminal.process.wait(GONE_WITHIN_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the app outlived its terminal ({moment}) by {GONE_WITHIN_S} s")
        gone_after_s = time.monotonic() - hung_up
    finally:
        terminal.close()
    assert gone_after_s < GONE_WITHIN_S
    assert _fio_left(target) == []
    assert list(target.iterdir()) == [], "iotui's test directory should be removed"
    if moment in ("run", "results"):
        records = [load_record(path) for path in runs_dir.glob("*.toml")]
        assert len(records) == 1
        if moment == "run":
            assert records[0].status == "stopped"
            assert records[0].run["ended_by"] in ("signal:SIGHUP", "terminal-lost")
        else:
            assert records[0].status == "completed"
