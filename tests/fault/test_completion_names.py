"""Shell completion of record names against hostile and huge runs directories.

Through argcomplete's real mechanism: ``python -m iotui`` with ``_ARGCOMPLETE``, ``COMP_LINE`` and
``COMP_POINT`` set, the candidates read back as bytes from the file argcomplete writes. A name
that is not UTF-8 used to make argcomplete raise (hidden from the shell), so nothing completed
for any command; 100,000 records made a TAB quadratic in the candidates (over 60 s).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.completion import MAX_CANDIDATES

pytest.importorskip("argcomplete")

HANG_S = 60


def _complete(line: str, tmp_path: Path, runs_dir: Path, cwd: Path | None = None) -> tuple[list[bytes], str, float]:
    """(the candidates as bytes, stderr, the child's CPU seconds)."""
    out = tmp_path / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "_ARGCOMPLETE_SHELL": "bash", "COMP_LINE": line,
           "COMP_POINT": str(len(line)), "_ARGCOMPLETE_STDOUT_FILENAME": str(out), "IOTUI_RUNS_DIR": str(runs_dir),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run([sys.executable, "-m", "iotui"], env=env, capture_output=True, cwd=cwd or tmp_path,
                            timeout=HANG_S)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 0, stderr
    assert "Traceback" not in stderr
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return sorted(word.strip() for word in out.read_bytes().split(b"\v") if word.strip()), stderr, cpu_s


def _touch(directory: Path, name: bytes) -> None:
    os.close(os.open(os.fsencode(directory) + b"/" + name, os.O_CREAT | os.O_WRONLY, 0o644))


def test_a_name_that_is_not_utf8_completes_to_its_own_bytes_and_the_others_still_complete(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in (b"20261121-quick-aa.toml", b"20261121-quick-\xff\xfe.toml", b"20261121-\x1b]0;pwned\x07.toml",
                 b"20261121-\x9b31m.toml"):
        _touch(runs, name)
    here = tmp_path / "here"
    here.mkdir()
    _touch(here, b"fio-\xff.json")
    _touch(here, b"fio-ok.json")
    listing = sorted(os.listdir(os.fsencode(runs)))

    candidates, _, _ = _complete("iotui show 2026", tmp_path, runs, cwd=here)
    assert candidates == [b"20261121-quick-aa.toml", b"20261121-quick-\xff\xfe.toml"]
    # Every command that takes records completes again, not only the one typed first.
    assert _complete("iotui compare 20261121-quick-a", tmp_path, runs, cwd=here)[0] == [b"20261121-quick-aa.toml"]
    # Files under the current directory (import, --target) too, by their own bytes.
    assert _complete("iotui import fio", tmp_path, runs, cwd=here)[0] == [b"fio-ok.json", b"fio-\xff.json"]
    assert _complete("iotui run --target fio-", tmp_path, runs, cwd=here)[0] == [b"fio-ok.json", b"fio-\xff.json"]
    assert b"--runtime" in _complete("iotui run --runt", tmp_path, runs, cwd=here)[0]
    # Canary: completing wrote nothing beside the records (no index, no cache).
    assert sorted(os.listdir(os.fsencode(runs))) == listing


@pytest.mark.slow
def test_100000_records_complete_within_a_second_of_cpu(tmp_path: Path) -> None:
    """`iotui show r` with 100,000 records: beyond MAX_CANDIDATES the names' beginnings, with a sentence."""
    runs = tmp_path / "runs"
    runs.mkdir()
    runs_fd = os.open(runs, os.O_RDONLY)
    try:
        for index in range(100_000):
            os.close(os.open(f"run-{index:06d}.toml", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=runs_fd))
    finally:
        os.close(runs_fd)
    empty = tmp_path / "empty"
    empty.mkdir()
    _, _, baseline_cpu_s = _complete("iotui show r", tmp_path, empty, cwd=empty)
    started = time.monotonic()
    candidates, stderr, cpu_s = _complete("iotui show r", tmp_path, runs, cwd=empty)
    wall_s = time.monotonic() - started
    assert cpu_s - baseline_cpu_s < 1.0, (cpu_s, baseline_cpu_s, wall_s)
    assert 2 <= len(candidates) <= MAX_CANDIDATES
    # The shell inserts what the candidates share: all 100,000 names share "run-0", and no more.
    assert os.path.commonprefix(candidates) == b"run-0"
    assert all(candidate.startswith(b"run-0") for candidate in candidates)
    assert "100,000 record files start with 'r'" in stderr and "type more" in stderr
    # A prefix that narrows them to a few lists the names themselves.
    narrowed, _, _ = _complete("iotui show run-09999", tmp_path, runs, cwd=empty)
    assert narrowed == [f"run-09999{digit}.toml".encode() for digit in range(10)]
