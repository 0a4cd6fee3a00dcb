"""Files from outside are bounded: FIFOs, devices, huge and sparse files never hang a reader or fill memory.

Each case runs the real command line in a subprocess with a timeout (a hang fails the test
instead of the suite) and checks for a sentence naming the file, no traceback, and that the
good record beside the bad file is still listed.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core import input_files
from iotui.core.input_files import MAX_INPUT_BYTES, InputFileError, read_input_file
from iotui.core.records.history_index import INDEX_FILE_NAME, RunFilter, query, sync
from iotui.core.records.edit import annotate
from iotui.core.records.files import save_record
from tests.conftest import requires_fio
from tests.core.test_history_index import make

HANG_S = 30


def iotui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, timeout=HANG_S)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    runs_dir = tmp_path / "runs"
    save_record(make("aaaaaaaa01", 1), runs_dir)
    return runs_dir


def _bad_files(runs: Path) -> dict[str, Path]:
    fifo = runs / "20261101-000000-fifo-00000000.toml"
    os.mkfifo(fifo)
    zero = runs / "20261101-000001-zero-00000000.toml"
    zero.symlink_to("/dev/zero")
    sparse = runs / "20261101-000002-sparse-00000000.toml"
    with open(sparse, "wb") as handle:
        handle.truncate(MAX_INPUT_BYTES + 1)  # sparse: no disk space used
    return {"a FIFO": fifo, "a character device": zero, "over iotui's limit": sparse}


def test_history_lists_fifos_devices_and_huge_files_as_bad_files_and_never_blocks(runs: Path) -> None:
    bad = _bad_files(runs)
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stdout + listed.stderr
    # A bad file's sentence may wrap to the terminal's width: its lines after the first are indented.
    lines = listed.stdout.replace("\n    ", " ").splitlines()
    for words, path in bad.items():
        line = next(line for line in lines if path.name in line)
        assert "bad file" in line and words in line, line
    assert sum("completed" in line for line in lines) == 1  # the good record is still there


def test_show_and_import_refuse_fifos_devices_and_huge_files_by_name(runs: Path, tmp_path: Path) -> None:
    bad = _bad_files(runs)
    for words, path in bad.items():
        for argv in (["show", str(path)], ["import", str(path), "--runs-dir", str(tmp_path / "imported")]):
            result = iotui(*argv)
            assert result.returncode == 1, (argv, result.stdout)
            assert str(path) in result.stderr and words in result.stderr, result.stderr
            assert "Traceback" not in result.stdout + result.stderr
    zero = iotui("import", "/dev/zero", "--runs-dir", str(tmp_path / "imported"))
    assert zero.returncode == 1 and "/dev/zero" in zero.stderr and "not a regular file" in zero.stderr
    assert not list((tmp_path / "imported").glob("*.toml"))


def test_the_refusal_names_the_size_and_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"{" * 2048)
    with pytest.raises(InputFileError) as caught:
        read_input_file(path, "file", limit_bytes=1024)
    assert str(path) in str(caught.value)
    assert "2.0 KiB (2,048 bytes)" in str(caught.value) and "1.0 KiB (1,024 bytes)" in str(caught.value)
    assert read_input_file(path, "file", limit_bytes=4096) == b"{" * 2048


def test_a_file_that_would_not_fit_in_memory_is_refused_with_both_figures(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "r.toml"
    path.write_bytes(b"#" * 10_000)
    monkeypatch.setattr(input_files, "available_memory_bytes", lambda: 50_000)
    with pytest.raises(InputFileError, match=r"needs about .*\(70,000 bytes\).*\(50,000 bytes\) is available"):
        read_input_file(path, "record")


def test_the_limit_is_ten_times_the_largest_record() -> None:
    # 24 h of one-second samples on 128 hosts plus the aggregate, about 500 bytes a row.
    largest_record_bytes = 86_400 * 129 * 500
    assert MAX_INPUT_BYTES >= 10 * largest_record_bytes


# -- history filters: whole values, literal words ---------------------------------


@pytest.fixture
def tagged(tmp_path: Path) -> Path:
    runs_dir = tmp_path / "tagged"
    for index, tag in enumerate(("abc", "a_c", "50%", None), start=1):
        path = save_record(make(f"run{index:07d}", index, preset="q_ick" if tag == "a_c" else "quick"), runs_dir)
        if tag:
            annotate(path, tags=[tag])
    sync(runs_dir)
    return runs_dir


def _ids(runs_dir: Path, run_filter: RunFilter) -> list[str]:
    return sorted(run.run_id for run in query(runs_dir, run_filter)[0])


def test_tag_preset_and_status_match_whole_values_and_words_are_literal(tagged: Path) -> None:
    assert _ids(tagged, RunFilter(tag="a_c")) == ["run0000002"]
    assert _ids(tagged, RunFilter(tag="%")) == []
    assert _ids(tagged, RunFilter(tag="50%")) == ["run0000003"]
    assert _ids(tagged, RunFilter(tag="ab")) == []
    assert _ids(tagged, RunFilter(preset="q_ick")) == ["run0000002"]
    assert _ids(tagged, RunFilter(preset="%")) == []
    assert _ids(tagged, RunFilter(status="%")) == []
    assert _ids(tagged, RunFilter(("a_c",))) == ["run0000002"]
    assert _ids(tagged, RunFilter(("%",))) == ["run0000003"]


def test_prune_by_a_tag_with_pattern_characters_deletes_only_that_tag(tagged: Path) -> None:
    before = sorted(path.name for path in tagged.glob("*.toml"))
    asked = iotui("history", "--prune", "--older-than", "0s", "--tag", "a_c", "--runs-dir", str(tagged))
    assert asked.returncode == 0 and "1 runs would be deleted" in asked.stdout
    assert sorted(path.name for path in tagged.glob("*.toml")) == before  # without --yes nothing goes
    pruned = iotui("history", "--prune", "--older-than", "0s", "--tag", "a_c", "--yes", "--runs-dir", str(tagged))
    assert pruned.returncode == 0 and "Deleted 1 runs" in pruned.stdout, pruned.stderr
    assert len(list(tagged.glob("*.toml"))) == 3
    nothing = iotui("history", "--prune", "--older-than", "0s", "--tag", "%", "--yes", "--runs-dir", str(tagged))
    assert nothing.returncode == 0 and "nothing to delete" in nothing.stdout
    assert len(list(tagged.glob("*.toml"))) == 3


def test_the_index_is_never_opened_through_a_symlink(runs: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE mine (x)")
    canary_bytes = other.read_bytes()
    (runs / INDEX_FILE_NAME).symlink_to(other)
    (runs / (INDEX_FILE_NAME + "-journal")).symlink_to(tmp_path / "journal-canary")
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert "quick" in listed.stdout
    assert other.read_bytes() == canary_bytes  # iotui's tables never reached the other database
    assert not (tmp_path / "journal-canary").exists()
    index = runs / INDEX_FILE_NAME
    assert not index.is_symlink() and index.is_file()


def test_an_index_path_that_is_a_fifo_is_a_sentence(runs: Path) -> None:
    os.mkfifo(runs / INDEX_FILE_NAME)
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 1
    assert INDEX_FILE_NAME in listed.stderr and "not a regular file" in listed.stderr
    assert "Traceback" not in listed.stderr


def test_an_imported_job_name_with_escapes_is_saved_and_shown_without_them(tmp_path: Path) -> None:
    capture = Path(__file__).resolve().parent.parent / "fixtures" / "fio" / "randread-3jobs-json+.txt"
    spoiled = tmp_path / "spoiled.json"
    spoiled.write_text(capture.read_text().replace('"jobname" : "', '"jobname" : "\\u001b]0;pwned-title\\u0007\\u009b2J'))
    imported = iotui("import", str(spoiled), "--runs-dir", str(tmp_path / "runs"))
    assert imported.returncode == 0, imported.stderr
    records = list((tmp_path / "runs").glob("*.toml"))
    assert len(records) == 1
    shown = iotui("show", str(records[0]))
    assert shown.returncode == 0, shown.stderr  # the record loads: nothing in it a record refuses
    for output in (imported.stdout + imported.stderr, shown.stdout + shown.stderr, records[0].read_text()):
        assert "\x1b" not in output and "\x07" not in output and "\x9b" not in output and "pwned" not in output
        assert "\\u001b" not in output and "\\u009b" not in output


def test_a_file_name_with_escapes_in_the_runs_directory_is_listed_without_them(runs: Path) -> None:
    (runs / "20261101-000003-\x1b]0;pwned-title\x07\x1b[2J.toml").write_text("not a record")
    listed = iotui("history", "--runs-dir", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert "\x1b" not in listed.stdout + listed.stderr and "\x07" not in listed.stdout + listed.stderr
    assert "bad file" in listed.stdout and "20261101-000003-" in listed.stdout


@requires_fio
@pytest.mark.fio
def test_a_fio_stderr_line_over_64_kib_is_cut_and_the_run_is_recorded(tmp_path: Path) -> None:
    # fio repeats the waitee's name in its error: one stderr line of 70,000+ bytes.
    target = tmp_path / "target"
    target.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--target", str(target), "--set", "wait_for=" + "a" * 70_000,
         "--runtime", "1", "--size", "1M", "--runs-dir", str(tmp_path / "runs"), "--baseline", "0"],
        capture_output=True, text=True, timeout=60,
    )
    output = result.stdout + result.stderr
    assert "Traceback" not in output and "LimitOverrunError" not in output and "never retrieved" not in output
    assert result.returncode == 1 and "waitee job" in result.stderr
    records = list((tmp_path / "runs").glob("*.toml"))
    assert len(records) == 1 and "waitee job" in records[0].read_text()
    assert list(target.iterdir()) == []


@pytest.mark.skipif(not os.access("/proc/kmsg", os.R_OK), reason="/proc/kmsg is readable only by root")
def test_a_pseudo_file_that_waits_for_data_is_never_read(tmp_path: Path) -> None:
    # /proc/kmsg is a "regular" file of size 0 whose read() waits for (and takes) the next kernel message.
    link = tmp_path / "kmsg.toml"
    link.symlink_to("/proc/kmsg")
    shown = iotui("show", str(link))
    assert shown.returncode == 1 and str(link) in shown.stderr and "Traceback" not in shown.stderr


def test_a_pipe_named_as_a_job_or_hosts_file_is_read_within_the_bounds(tmp_path: Path) -> None:
    # `--job-file <(generate-job)`: the shell names the read end of a pipe, /dev/fd/N.
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"[job]\nrw=read\n")
        os.close(write_end)
        write_end = -1
        assert read_input_file(f"/dev/fd/{read_end}", "job file", allow_pipe=True) == b"[job]\nrw=read\n"
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"x" * 5000)
        os.close(write_end)
        with pytest.raises(InputFileError, match="more than 4.0 KiB"):
            read_input_file(f"/dev/fd/{read_end}", "job file", allow_pipe=True, limit_bytes=4096)
        with pytest.raises(InputFileError, match="FIFO"):
            read_input_file(f"/dev/fd/{read_end}", "record")
    finally:
        os.close(read_end)
