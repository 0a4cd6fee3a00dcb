"""The history index decides nothing it should not: another user's index, stale or planted rows,
escapes in rows, a busy index, a full disk.

Each case is the one issue 34 names, run through the real command line (a subprocess where a
hang or a traceback must show) on real SQLite files, with its canary: the fresh record a planted
index would have pruned, the index file a busy connection would have removed, the files a full
disk would have kept.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.cli import main
from iotui.core.records import history_index
from iotui.core.records.files import save_record
from iotui.core.records.history_index import INDEX_FILE_NAME, HistoryIndexError, RunFilter, query, still_matching, sync
from tests.core.test_history_index import make

HANG_S = 60
ESCAPES = "\x1b]0;pwned-title\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\x9b2J\rforged"


def iotui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, timeout=HANG_S)


def fresh_record(runs: Path, run_id: str = "f00dcafe01") -> Path:
    """A record started an hour ago: no ``--older-than 30d`` may select it."""
    record = make(run_id, 1)
    record.run["started"] = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) - dt.timedelta(hours=1)
    return save_record(record, runs)


def rewrite_rows(runs: Path, sql: str, values: tuple = ()) -> None:
    """Change the index's rows as whoever wrote the file could (the records stay as they are)."""
    with sqlite3.connect(runs / INDEX_FILE_NAME) as connection:
        connection.execute(sql, values)
    connection.close()


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir(mode=0o755)
    runs_dir.chmod(0o755)
    return runs_dir


def planted_index(runs: Path) -> Path:
    """The record's row says it started in 1970 (its file was not changed, so a sync keeps the row)."""
    record = fresh_record(runs)
    sync(runs)
    rewrite_rows(runs, "UPDATE runs SET started_ts = 0, started = '1970-01-01T00:00:00+00:00'")
    history_index.forget_memory(runs)
    return record


def assert_clean(result: subprocess.CompletedProcess) -> None:
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    for byte in ("\x1b", "\x07", "\x9b", "\r"):
        assert byte not in output, (byte, output)


# -- whose index: another user's, or one others can write, is never used ------------------------------


def test_prune_ignores_an_index_owned_by_another_user(runs: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("making a file owned by another user needs root")
    canary = planted_index(runs)
    index = runs / INDEX_FILE_NAME
    os.chown(index, 4242, 4242)
    planted_bytes = index.read_bytes()
    pruned = iotui("history", "--prune", "--older-than", "30d", "--yes", "--runs-dir", str(runs))
    assert pruned.returncode == 0, pruned.stderr
    assert_clean(pruned)
    assert canary.exists()  # the fresh record is kept
    assert "No saved runs match" in pruned.stdout
    assert "another user's or writable by others" in pruned.stderr
    assert index.read_bytes() == planted_bytes and index.stat().st_uid == 4242  # never written
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0 and "completed" in listed.stdout  # listed from the record itself


@pytest.mark.parametrize("mode", [0o664, 0o646])
def test_prune_ignores_an_index_others_can_write(runs: Path, mode: int) -> None:
    canary = planted_index(runs)
    index = runs / INDEX_FILE_NAME
    index.chmod(mode)
    planted_bytes = index.read_bytes()
    pruned = iotui("history", "--prune", "--older-than", "30d", "--yes", "--runs-dir", str(runs))
    assert pruned.returncode == 0, pruned.stderr
    assert_clean(pruned)
    assert canary.exists()
    assert index.read_bytes() == planted_bytes


def test_an_index_in_a_directory_others_can_change_is_not_used(runs: Path) -> None:
    canary = planted_index(runs)
    runs.chmod(0o777)  # no sticky bit: anyone may replace the index between two looks
    pruned = iotui("history", "--prune", "--older-than", "30d", "--yes", "--runs-dir", str(runs))
    assert pruned.returncode == 0, pruned.stderr
    assert canary.exists()
    assert "can be changed by other users" in pruned.stderr


def test_saving_a_record_never_writes_into_an_index_others_can_write(runs: Path) -> None:
    planted_index(runs)
    index = runs / INDEX_FILE_NAME
    index.chmod(0o666)
    planted_bytes = index.read_bytes()
    history_index.save_indexed(make("beefbeef02", 2), runs)
    assert index.read_bytes() == planted_bytes


# -- the index's own rows: read again before a prune, shown safe, never raising ---------------------


def test_prune_reads_each_run_again_from_its_record_before_deleting(runs: Path) -> None:
    canary = planted_index(runs)  # iotui's own index (0644, this user), with a stale start
    old = save_record(make("0ld0ld0003", 3), runs)
    old_doc = old.read_text().replace("2026-11-03", "2025-01-03")
    old.write_text(old_doc)
    asked = iotui("history", "--prune", "--older-than", "30d", "--runs-dir", str(runs))
    assert asked.returncode == 0 and "1 runs would be deleted" in asked.stdout, asked.stdout + asked.stderr
    pruned = iotui("history", "--prune", "--older-than", "30d", "--yes", "--runs-dir", str(runs))
    assert pruned.returncode == 0, pruned.stderr
    assert_clean(pruned)
    assert canary.exists()  # the index said 1970; its record says an hour ago
    assert not old.exists()  # the run that is old by its own record is deleted
    assert "kept 1 run that the history index selected but whose record no longer matches" in pruned.stderr
    assert "Deleted 1 runs." in pruned.stdout


def test_still_matching_keeps_names_that_are_not_record_files_of_the_directory(runs: Path, tmp_path: Path) -> None:
    fresh_record(runs)
    sync(runs)
    outside = tmp_path / "outside.toml"
    save_record(make("0u751de004", 4), tmp_path / "elsewhere")
    shutil.copy(next((tmp_path / "elsewhere").glob("*.toml")), outside)
    rewrite_rows(runs, "UPDATE runs SET name = '../outside.toml', started_ts = 0")
    listed, _ = query(runs, RunFilter(older_than_s=30 * 86400.0))
    assert listed == []  # a row that is not a record file of the directory is not a run
    run = history_index.IndexedRun(
        path=runs / ".." / "outside.toml", run_id="x", preset="quick", title="", status="completed", started=None,
        target="", filesystem="", device="", read_iops=(), write_iops=(), p99_ns=(), paused_s=None, notes="",
        tags=(), forced=False, error=None,
    )
    kept_in, kept_out = still_matching(runs, [run], RunFilter(older_than_s=30 * 86400.0))
    assert kept_in == [] and kept_out == [run]
    assert outside.exists()


def entry_lines(stdout: str) -> list[str]:
    """History's lines that start an entry (the header, a run, a bad file), not a sentence's continuation."""
    return [line for line in stdout.splitlines() if line and not line.startswith(" ")]


def test_escapes_in_the_index_rows_never_reach_the_terminal(runs: Path) -> None:
    fresh_record(runs)
    (runs / "20261101-000000-bad-00000000.toml").write_text("not a record")
    sync(runs)
    rewrite_rows(
        runs,
        "UPDATE runs SET title = ?, preset = ?, status = ?, target = ?, notes = ?, tags = ?, hosts = ?, "
        "responsiveness = ?, error = CASE WHEN error IS NULL OR error = '' THEN error ELSE ? END",
        (ESCAPES, ESCAPES, ESCAPES, ESCAPES, ESCAPES, json.dumps([ESCAPES]), json.dumps([ESCAPES]), ESCAPES, ESCAPES),
    )
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed)
    assert "pwned" not in listed.stdout and "forged" in listed.stdout  # the sequences go, the text stays
    # The table's header, the run and the bad file; a carriage return draws no line of its own
    # (a sentence's continuation lines are indented under it).
    assert len(entry_lines(listed.stdout)) == 3, listed.stdout
    for run in query(runs)[0]:  # what the app's table shows comes from the same rows
        for text in (run.title, run.preset, run.status, run.target, run.notes, run.error or "", *run.tags):
            assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in text), repr(text)


def test_a_start_that_is_not_a_date_in_the_index_is_shown_as_unknown(runs: Path) -> None:
    fresh_record(runs)
    sync(runs)
    rewrite_rows(runs, "UPDATE runs SET started = 'garbage', started_ts = 'garbage', read_iops = '[\"x\", 1e999]', "
                       "tags = '{\"a\": 1}', paused_s = 'x'")
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed)
    header, run = entry_lines(listed.stdout)
    assert header.startswith("started") and run.startswith("?") and "completed" in run, listed.stdout
    as_json = iotui("history", "--json", "--runs-dir", str(runs))
    assert as_json.returncode == 0 and '"started": null' in as_json.stdout, as_json.stderr


def test_a_start_that_is_not_a_date_in_a_record_is_a_bad_file(runs: Path) -> None:
    record = fresh_record(runs)
    record.write_text(re.sub(r"^started = .*$", 'started = "garbage"', record.read_text(), count=1, flags=re.M))
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed)
    assert "bad file" in listed.stdout and record.name in listed.stdout and "started" in listed.stdout


def test_a_record_title_with_a_carriage_return_is_refused_and_forges_no_line(runs: Path) -> None:
    record = fresh_record(runs)
    text = record.read_text()
    assert 'preset = "quick"' in text
    record.write_text(text.replace('preset = "quick"', 'preset = "quick"\ntitle = "mine\\r2026-11-28 12:00  completed  forged"', 1))
    c1 = save_record(make("c1c1c1c105", 5), runs)
    c1.write_text(c1.read_text().replace('preset = "quick"', 'preset = "quick"\ntitle = "x\\u0085y"', 1))
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed)
    lines = entry_lines(listed.stdout)
    assert len(lines) == 2 and all("bad file" in line for line in lines), listed.stdout
    assert "control character" in listed.stdout


# -- a busy index waits a bounded time and stays; a corrupt one is made again -----------------------


@pytest.fixture
def held_index(runs: Path):
    """The index with a write transaction held open by another connection (as another iotui's build)."""
    fresh_record(runs)
    sync(runs)
    history_index.forget_memory(runs)
    holder = sqlite3.connect(runs / INDEX_FILE_NAME, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    yield runs / INDEX_FILE_NAME
    holder.rollback()
    holder.close()


def test_a_busy_index_is_a_sentence_and_is_never_removed(
    held_index: Path, runs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(history_index, "BUSY_TIMEOUT_S", 0.3)
    inode = held_index.stat().st_ino
    save_record(make("5ec0nd0006", 6), runs)  # one record for the sync to add: it has to write
    with pytest.raises(HistoryIndexError) as raised:
        sync(runs)
    assert raised.value.code == "busy"
    assert main(["history", "--runs-dir", str(runs)]) == 1
    said = capsys.readouterr()
    assert "is busy (another iotui is writing it); try again in a moment." in said.err
    assert "Traceback" not in said.err
    assert held_index.exists() and held_index.stat().st_ino == inode  # the canary: the index itself


@pytest.mark.slow
def test_a_busy_index_waits_a_bounded_time_in_the_real_command(held_index: Path, runs: Path) -> None:
    inode = held_index.stat().st_ino
    save_record(make("5ec0nd0006", 6), runs)
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 1
    assert_clean(listed)
    assert "is busy (another iotui is writing it)" in listed.stderr
    assert held_index.stat().st_ino == inode


def test_a_corrupt_index_is_made_again(runs: Path) -> None:
    fresh_record(runs)
    (runs / INDEX_FILE_NAME).write_bytes(b"this is not an sqlite database" * 100)
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed)
    assert "completed" in listed.stdout
    with sqlite3.connect(runs / INDEX_FILE_NAME) as connection:
        assert connection.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    connection.close()


# -- a full disk: a sentence, the list from the records, no file left behind ------------------------


def _private_mounts_work() -> str | None:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare or mount is not installed"
    if os.geteuid() != 0:
        return "mounting a tiny tmpfs in a private mount namespace needs root"
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        return f"unshare -m does not work here ({probe.stderr.decode(errors='replace').strip()})"
    return None


def test_a_full_disk_is_a_sentence_and_leaves_no_index_behind(tmp_path: Path) -> None:
    why_not = _private_mounts_work()
    if why_not:
        pytest.skip(why_not)
    source = tmp_path / "source"
    fresh_record(source)
    runs = tmp_path / "runs"
    runs.mkdir()
    # A 64 KiB tmpfs over the runs directory, the record copied in, the rest filled to the last byte.
    script = (f"mount -t tmpfs -o size=64k tmpfs {runs} && cp {source}/*.toml {runs}/ && "
              f"(dd if=/dev/zero of={runs}/filler bs=1k 2>/dev/null; true) && "
              f"\"$@\"; code=$?; ls -A {runs} > {tmp_path / 'left'}; exit $code")
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", sys.executable, "-m", "iotui", "history", "--runs-dir", str(runs)],
        capture_output=True, text=True, timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert "completed" in result.stdout  # listed from the record
    assert "is full, so the history index could not be written" in result.stderr
    left = (tmp_path / "left").read_text().split()
    assert not [name for name in left if name.startswith(INDEX_FILE_NAME)], left


@pytest.mark.slow
def test_two_history_commands_on_one_cold_directory_both_end_without_a_traceback(runs: Path) -> None:
    """The issue's case at 1,500 records: a second ``iotui history`` while the first builds the index."""
    for index in range(1500):
        save_record(make(f"{index:08x}00", 1 + index % 28), runs, durable=False)
    assert len(list(runs.glob("*.toml"))) == 1500
    index_file = runs / INDEX_FILE_NAME
    first = subprocess.Popen([sys.executable, "-m", "iotui", "history", "--runs-dir", str(runs)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The second starts once the first is building (it made the index file).
        deadline = time.monotonic() + HANG_S
        while time.monotonic() < deadline and first.poll() is None and not index_file.exists():
            time.sleep(0.05)
        assert first.poll() is None, "the first command ended before the second started"
        second = iotui("history", "--runs-dir", str(runs))
        out, err = first.communicate(timeout=HANG_S)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    for result in (subprocess.CompletedProcess(first.args, first.returncode, out, err), second):
        assert_clean(result)
        assert result.returncode == 0 or "is busy (another iotui is writing it)" in result.stderr, result.stderr
    assert index_file.exists()  # never removed as damage
    again = iotui("history", "--runs-dir", str(runs))
    assert again.returncode == 0 and len(again.stdout.splitlines()) == 1 + 1500  # the table's header, every run

