"""fio's version is asked once per binary and asked again when the binary changes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iotui.core.fio import options as fio_options

FIO = shutil.which("fio")
pytestmark = pytest.mark.skipif(FIO is None, reason="fio is not installed (scripts/bootstrap.sh installs it)")


def _counting_fio(tmp_path: Path) -> tuple[Path, Path]:
    """The real fio behind a script that notes every start, so a test can count them."""
    calls = tmp_path / "calls"
    wrapper = tmp_path / "bin" / "fio"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho started >> "{calls}"\nexec "{FIO}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, calls


def _starts(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def test_the_version_is_fio_s_own_and_asked_once(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    wrapper, calls = _counting_fio(tmp_path)
    expected = subprocess.run([FIO, "--version"], capture_output=True, text=True).stdout.strip()

    assert fio_options.installed_version(str(wrapper)) == expected
    assert fio_options.installed_version(str(wrapper)) == expected
    assert _starts(calls) == 1


def test_a_replaced_binary_is_asked_again(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    wrapper, calls = _counting_fio(tmp_path)
    fio_options.installed_version(str(wrapper))
    # An upgrade writes a new file: another size and mtime.
    wrapper.write_text(wrapper.read_text() + "# upgraded\n")
    os.utime(wrapper, ns=(1, 1))
    fio_options.installed_version(str(wrapper))
    assert _starts(calls) == 2


def test_a_garbled_cache_is_asked_past_and_rewritten(tmp_path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    (cache / "iotui").mkdir(parents=True)
    (cache / "iotui" / fio_options.VERSIONS_FILE).write_text("{not json")
    wrapper, calls = _counting_fio(tmp_path)
    first = fio_options.installed_version(str(wrapper))
    assert first.startswith("fio-")
    assert fio_options.installed_version(str(wrapper)) == first
    assert _starts(calls) == 1
