"""Every file iotui writes is opened safely: never over a device, a FIFO or a symlink, never through a
link planted in a charts folder, no temp file left by a killed save, no report without its record.

Each case runs the real command line (or the real writer in a real child process) and checks its
canary: the device node is still a device, the FIFO still a FIFO, the file a link names unchanged,
nothing left behind, and a sentence instead of a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.records.files import save_record
from iotui.core.report.charts import available as charts_available
from iotui.core.safe_files import TEMP_PREFIX
from tests.core.test_report import _record
from tests.fault.test_few_inodes import _private_mounts_work

HANG_S = 60
REPO = Path(__file__).parents[2]
CANARY_TEXT = "the canary: nothing may write here\n"
needs_charts = pytest.mark.skipif(not charts_available(), reason="iotui report needs matplotlib")


def iotui(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, timeout=HANG_S, cwd=cwd)


def _no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stdout + result.stderr, result.stderr


def _temp_files(directory: Path) -> list[str]:
    return [entry.name for entry in directory.iterdir() if entry.name.startswith(TEMP_PREFIX) or entry.name.endswith(".tmp")]


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    return save_record(_record(), tmp_path / "runs")


def _device_or_fifo(place: Path) -> tuple[Path, int]:
    """A character device like /dev/null (made here, as root), else a FIFO: (path, its type bits)."""
    if os.geteuid() == 0:
        node = place / "null"
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        return node, stat.S_IFCHR
    node = place / "fifo"
    os.mkfifo(node)
    return node, stat.S_IFIFO


# -- 2. -o that is a device node or a symlink ------------------------------------------------------


@needs_charts
def test_report_to_a_device_node_is_refused_and_the_node_stays(tmp_path: Path, record_file: Path) -> None:
    node, kind = _device_or_fifo(tmp_path)
    before = os.lstat(node)
    result = iotui("report", str(record_file), "-o", str(node))
    assert result.returncode != 0
    _no_traceback(result)
    assert f"{node} is a " in result.stderr and "not a regular file" in result.stderr
    assert "give -o a file path (or -o - for standard output)" in result.stderr
    after = os.lstat(node)
    assert stat.S_IFMT(after.st_mode) == kind and after.st_ino == before.st_ino and after.st_rdev == before.st_rdev
    assert _temp_files(tmp_path) == []


@needs_charts
def test_report_to_a_symlink_like_dev_stdout_leaves_the_link_and_its_file(tmp_path: Path, record_file: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text(CANARY_TEXT)
    link = tmp_path / "stdout"  # /dev/stdout is a link to /proc/self/fd/1
    link.symlink_to(canary)
    result = iotui("report", str(record_file), "-o", str(link))
    assert result.returncode != 0
    _no_traceback(result)
    assert f"{link} is a symbolic link, not a regular file" in result.stderr
    assert link.is_symlink() and os.readlink(link) == str(canary)
    assert canary.read_text() == CANARY_TEXT
    assert _temp_files(tmp_path) == []


@pytest.mark.slow
@needs_charts
def test_report_to_dash_writes_the_page_to_standard_output(tmp_path: Path, record_file: Path) -> None:
    result = iotui("report", str(record_file), "-o", "-", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.lstrip().lower().startswith("<!doctype html>") and "</html>" in result.stdout
    assert not (tmp_path / "-").exists()


def test_export_to_a_device_node_is_refused_and_the_node_stays(tmp_path: Path, record_file: Path) -> None:
    node, kind = _device_or_fifo(tmp_path)
    result = iotui("export", str(record_file), "-o", str(node))
    assert result.returncode != 0
    _no_traceback(result)
    assert f"iotui export: {node} is a " in result.stderr and "the table was not written" in result.stderr
    assert stat.S_IFMT(os.lstat(node).st_mode) == kind
    assert _temp_files(tmp_path) == []


# -- 3. charts written through links planted in the charts folder -----------------------------------


@pytest.mark.slow
@needs_charts
@pytest.mark.parametrize("file_format", ["svg", "png"])
def test_report_charts_never_write_through_a_planted_symlink(tmp_path: Path, record_file: Path, file_format: str) -> None:
    canary = tmp_path / "outside" / "any-file"
    canary.parent.mkdir()
    canary.write_text(CANARY_TEXT)
    charts = record_file.with_name(record_file.name.removesuffix(".toml") + "-charts")
    charts.mkdir()
    planted = charts / f"r0-s0-iops.{file_format}"
    planted.symlink_to(canary)
    result = iotui("report", str(record_file), "--format", file_format)
    assert result.returncode != 0
    _no_traceback(result)
    assert f"{planted} is a symbolic link, not a regular file" in result.stderr
    assert canary.read_text() == CANARY_TEXT
    assert planted.is_symlink()
    assert _temp_files(charts) == []


@pytest.mark.slow
@needs_charts
def test_report_charts_folder_that_is_a_symlink_is_refused(tmp_path: Path, record_file: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    charts = record_file.with_name(record_file.name.removesuffix(".toml") + "-charts")
    charts.symlink_to(elsewhere)
    result = iotui("report", str(record_file), "--format", "svg")
    assert result.returncode != 0
    _no_traceback(result)
    assert f"the charts folder {charts} is a symbolic link" in result.stderr
    assert list(elsewhere.iterdir()) == []


# -- a save killed with SIGKILL: its temp file is removed on the next start -------------------------

# The real writer in a child process, stopped between its temp files and their renames.
_STOPPED_SAVER = """
import os, sys
from pathlib import Path
real_rename = os.rename
def rename(*args, **kwargs):
    print("ready", flush=True)
    sys.stdin.readline()
    return real_rename(*args, **kwargs)
os.rename = rename
from iotui.core.records.files import save_record
from tests.core.test_report import _record
save_record(_record(), Path(sys.argv[1]), fio_report={"jobs": [{"pad": "x" * (2 << 20)}]}, name=sys.argv[2])
print("saved", flush=True)
"""


def _stopped_saver(runs: Path, name: str) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", _STOPPED_SAVER, str(runs), name], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n"  # both temp files are written; no rename yet
    return child


@pytest.mark.slow
def test_temp_files_of_a_killed_save_are_removed_at_the_next_start_and_a_live_writers_kept(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    alive = _stopped_saver(runs, "alive.toml")
    try:
        alive_temps = _temp_files(runs)
        assert len(alive_temps) == 2 and all(name.startswith(f"{TEMP_PREFIX}{alive.pid}-") for name in alive_temps)
        killed = _stopped_saver(runs, "killed.toml")
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=HANG_S)
        left = [name for name in _temp_files(runs) if name not in alive_temps]
        assert len(left) == 2 and all(name.startswith(f"{TEMP_PREFIX}{killed.pid}-") for name in left)
        assert any(name.endswith("-killed.fio.json") for name in left)
        old_style = runs / ".20261101-000000-quick-abcdef01.fio.json.k2j4_x9q.tmp"  # what older versions left
        old_style.write_bytes(b"{}")
        an_hour_ago = time.time() - 3600
        os.utime(old_style, (an_hour_ago, an_hour_ago))
        fresh_old_style = runs / ".20261101-000000-quick-abcdef02.toml.a1b2c3d4.tmp"  # its writer may be saving
        fresh_old_style.write_bytes(b"")
        next_start = subprocess.run(
            [sys.executable, "-c", "import sys; from pathlib import Path; from iotui.core.records.files import save_record;"
             "from tests.core.test_report import _record; save_record(_record(), Path(sys.argv[1]), name='next.toml')",
             str(runs)], capture_output=True, text=True, timeout=HANG_S, cwd=REPO,
        )
        assert next_start.returncode == 0, next_start.stderr
        # the killed writer's and the stale old-style one gone; the live writer's and the fresh one kept
        assert sorted(_temp_files(runs)) == sorted([*alive_temps, fresh_old_style.name])
        fresh_old_style.unlink()
        assert alive.stdin is not None and alive.stdout is not None
        alive.stdin.write("go\ngo\n")
        alive.stdin.flush()
        assert alive.stdout.read().splitlines()[-1] == "saved"
    finally:
        alive.kill()
        alive.wait(timeout=HANG_S)
    assert _temp_files(runs) == []
    assert sorted(path.name for path in runs.iterdir()) == ["alive.fio.json", "alive.toml", "next.toml"]


# -- room for fio's report but not the record ------------------------------------------------------


_SAVE_ON_A_SMALL_DISK = """
import sys
from pathlib import Path
from iotui.core.records.files import save_record
from iotui.core.records.schema import RecordError
from tests.core.test_report import _record
record = _record()
record.run["notes"] = "n" * (400 << 10)  # the record: 400 KiB; fio's report: 200 KiB; the disk: 512 KiB
try:
    save_record(record, Path(sys.argv[1]), fio_report={"jobs": [{"pad": "x" * (200 << 10)}]}, name="full.toml")
except RecordError as error:
    print(error)
    sys.exit(1)
"""


def test_no_room_for_the_record_leaves_no_report_without_it(tmp_path: Path) -> None:
    why_not = _private_mounts_work()
    if why_not:
        pytest.skip(why_not)
    runs = tmp_path / "runs"
    runs.mkdir()
    script = (f"mount -t tmpfs -o size=512k tmpfs {runs} && \"$@\"; code=$?; ls -A {runs} > {tmp_path / 'left'}; "
              "exit $code")
    result = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", sys.executable, "-c", _SAVE_ON_A_SMALL_DISK,
                             str(runs)], capture_output=True, text=True, timeout=HANG_S, cwd=REPO)
    assert result.returncode == 1, result.stdout + result.stderr
    _no_traceback(result)
    assert f"Cannot save the record to {runs / 'full.toml'} (No space left on device)" in result.stdout
    assert (tmp_path / "left").read_text() == ""  # neither the record nor fio's report, no temp file


def test_the_small_disk_holds_fios_report_alone(tmp_path: Path) -> None:
    """The case above is the issue's: fio's report fits on that disk, the record does not."""
    why_not = _private_mounts_work()
    if why_not:
        pytest.skip(why_not)
    runs = tmp_path / "runs"
    runs.mkdir()
    report_bytes = len(json.dumps({"jobs": [{"pad": "x" * (200 << 10)}]}))
    script = f"mount -t tmpfs -o size=512k tmpfs {runs} && head -c {report_bytes} /dev/zero > {runs}/report.json && ls -A {runs}"
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=HANG_S)
    assert result.returncode == 0 and result.stdout.split() == ["report.json"], result.stderr
