"""The one writer: whole files or none, never over or through anything but a regular file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from iotui.core.safe_files import TEMP_PREFIX, UnsafeFileError, ensure_folder, temp_name, write_file, write_files


def test_a_file_is_written_and_replaced_whole_with_the_umask_applied(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    write_file(path, b"one")
    write_file(path, b"two")
    assert path.read_bytes() == b"two"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["a.toml"]


def test_a_fifo_a_directory_and_a_symlink_are_refused_and_stay(tmp_path: Path) -> None:
    fifo, folder, link, target = tmp_path / "fifo", tmp_path / "dir", tmp_path / "link", tmp_path / "target"
    os.mkfifo(fifo)
    folder.mkdir()
    target.write_text("kept")
    link.symlink_to(target)
    for path, kind in ((fifo, "a FIFO"), (folder, "a directory"), (link, "a symbolic link")):
        with pytest.raises(UnsafeFileError) as caught:
            write_file(path, b"x")
        assert caught.value.code == "not-regular-file" and caught.value.kind == kind
        assert str(caught.value) == f"{path} is {kind}, not a regular file"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and folder.is_dir() and link.is_symlink()
    assert target.read_text() == "kept"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]


def test_files_that_belong_together_are_all_written_or_none(tmp_path: Path) -> None:
    report, record = tmp_path / "r.fio.json", tmp_path / "r.toml"
    os.mkfifo(record)  # the second cannot be written: the first must not stay alone
    with pytest.raises(UnsafeFileError):
        write_files([(report, b"{}"), (record, b"schema = 2")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.toml"]
    assert stat.S_ISFIFO(os.lstat(record).st_mode)


def test_a_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "charts").symlink_to(real)
    with pytest.raises(UnsafeFileError) as caught:
        ensure_folder(tmp_path / "charts")
    assert caught.value.code == "folder-is-symlink"
    ensure_folder(tmp_path / "new" / "charts")
    assert (tmp_path / "new" / "charts").is_dir()


def test_a_temp_name_carries_the_pid_and_fits_a_long_name() -> None:
    name = temp_name("é" * 200, pid=4242)
    assert name.startswith(f"{TEMP_PREFIX}4242-") and len(name.encode("utf-8")) <= 255
