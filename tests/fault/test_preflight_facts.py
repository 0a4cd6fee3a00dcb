"""Issue 34, item 4: a target's name cannot write the pre-flight's facts.

The pre-flight printed ``path=$(pwd -P)`` before df's lines and the parser kept the first value
of each key: a real path holding ``\\nfree_kb=999999999\\nfilesystem=ext4\\nwritable=1`` (reached
through a symlink) supplied the host's free space and filesystem. Now the path comes last, in
hex, a path with a control character is refused in one sentence, and a key given twice is refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.remote.transport import RemoteError, facts_from_output
from tests.e2e.private_sshd import HOSTS, missing_reason, start_private_sshd

NEWLINE_NAME = "x\nfree_kb=999999999\nfilesystem=ext4\nwritable=1"


@pytest.fixture(scope="module")
def sshd():
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    server = start_private_sshd()
    yield server
    server.stop()


@pytest.mark.fio
@pytest.mark.sshd
def test_a_target_whose_real_path_holds_newlines_is_refused_on_a_loopback_host(sshd, tmp_path: Path) -> None:
    real = tmp_path / NEWLINE_NAME
    real.mkdir()
    link = tmp_path / "target"
    link.symlink_to(real)
    done = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--hosts", HOSTS[0], "--target", str(link),
         "--size", "1M", "--runtime", "1", "--baseline", "0", "--runs-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "IOTUI_SSH": sshd.ssh_command, "PYTHONUNBUFFERED": "1"},
    )
    assert done.returncode != 0
    assert "holds a control character" in done.stderr and "no control characters" in done.stderr
    assert "Traceback" not in done.stderr and "\x1b" not in done.stderr
    assert "free_kb" not in done.stderr.replace("\\nfree_kb", "")  # named only inside the quoted path
    assert list(real.iterdir()) == []  # nothing was laid out there: fio never started
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").glob("*.toml"))


def _answer(*lines: str) -> str:
    return "\n".join(["kernel=6.1", "fio_version=fio-3.33", *lines]) + "\n"


def test_a_key_given_twice_is_refused_not_kept_first() -> None:
    stdout = _answer("filesystem=ext4", "free_kb=999999999", "writable=1",
                     "writable=1", "device=/dev/x", "filesystem=tmpfs", "free_kb=32768", "mount_point=/mnt")
    with pytest.raises(RemoteError) as refused:
        facts_from_output("h1", "/mnt/t", stdout, b"", 0)
    assert refused.value.code == "facts-twice" and str(refused.value).startswith("h1: its pre-flight answer gives")


def test_the_path_comes_from_its_hex_and_a_control_character_is_refused() -> None:
    base = ["writable=1", "device=/dev/x", "filesystem=ext4", "free_kb=1024", "mount_point=/mnt"]
    facts = facts_from_output("h1", "/t", _answer(*base, "path_hex=" + b"/mnt/a b\\\n".hex()), b"", 0)
    assert facts.path == "/mnt/a b\\" and facts.free_bytes == 1024 * 1024
    with pytest.raises(RemoteError) as refused:
        facts_from_output("h1", "/t", _answer(*base, "path_hex=" + f"/mnt/{NEWLINE_NAME}\n".encode().hex()), b"", 0)
    assert refused.value.code == "target-path" and "\n" not in str(refused.value)
