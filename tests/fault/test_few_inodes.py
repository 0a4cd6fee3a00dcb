"""A run that makes more files than the target has inodes is refused before fio starts.

fio ran `nrfiles=2000` on a filesystem with 300 inodes until ENOSPC at its 295th
file: the free-space check counted bytes, not files. This runs that job on a real
small-inode tmpfs, mounted in a private mount namespace (``unshare -m``, as root)
so that nothing else is filled, and checks the refusal, an empty target and that
fio never ran the job.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _private_mounts_work() -> str | None:
    """None where ``unshare -m`` can mount a tmpfs here, else why not."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare or mount is not installed"
    if os.geteuid() != 0:
        return "mounting a small-inode tmpfs in a private mount namespace needs root"
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        return f"unshare -m does not work here ({probe.stderr.decode(errors='replace').strip()})"
    return None


def test_more_files_than_free_inodes_are_refused_before_fio(tmp_path: Path) -> None:
    why_not = _private_mounts_work()
    if why_not:
        pytest.skip(why_not)
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    job = tmp_path / "n1.fio"
    job.write_text("[a]\nioengine=filecreate\nnrfiles=2000\nsize=1M\n")
    calls = tmp_path / "fio-calls"
    fio = tmp_path / "fio"  # the real fio, each call's arguments written down first
    fio.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexec {shutil.which("fio")} "$@"\n')
    fio.chmod(0o755)
    iotui = [sys.executable, "-m", "iotui", "run", "--job-file", str(job), "--target", str(target),
             "--allow-cache", "--runtime", "1", "--runs-dir", str(runs), "--baseline", "0"]
    # Bytes are plenty (128 MiB for 1 MiB of data and the 64 MiB margin); inodes are not (300).
    script = (f"mount -t tmpfs -o size=128M,nr_inodes=300 tmpfs {target} && "
              f"\"$@\"; code=$?; ls -A {target} > {tmp_path / 'left'}; exit $code")
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", *iotui], capture_output=True, text=True, timeout=120,
        env={**os.environ, "IOTUI_FIO": str(fio), "XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    assert result.returncode != 0, result.stdout
    assert "Not enough free inodes" in result.stderr
    assert "creates 2,000 files ([a] nrfiles 2,000 x numjobs 1)" in result.stderr
    assert "inodes are free" in result.stderr and "Lower nrfiles or numjobs" in result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "left").read_text() == ""  # nothing left on the tmpfs
    ran = calls.read_text().splitlines() if calls.exists() else []
    assert not any("filecreate" in line or str(target) in line for line in ran), ran
    assert not runs.exists() or not list(runs.glob("*.toml"))


@pytest.mark.parametrize("nrfiles, files", [("0x7fffffff", "2,147,483,647"), ("4P", "4,503,599,627,370,496")])
def test_billions_of_files_are_refused_on_any_target(tmp_path: Path, capsys, nrfiles: str, files: str) -> None:
    from iotui.cli import main

    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    job = tmp_path / "n1.fio"
    job.write_text("[a]\nioengine=filecreate\nnrfiles=2000\nsize=1M\n")
    code = main(["run", "--job-file", str(job), "--set", f"nrfiles={nrfiles}", "--target", str(target),
                 "--runtime", "1", "--runs-dir", str(runs), "--baseline", "0"])
    _, err = capsys.readouterr()
    assert code != 0
    assert f"The run would create {files} files ([a] nrfiles {files} x numjobs 1)" in err
    assert "more than 1,000,000 files" in err and "Lower nrfiles or numjobs" in err
    assert list(target.iterdir()) == [] and not list(runs.glob("*.toml"))
