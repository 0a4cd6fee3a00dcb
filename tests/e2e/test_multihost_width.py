"""A real multi-host run's summary fits ``COLUMNS=80``, and ``--wide`` prints every column.

Three loopback hosts over a private sshd run the quick preset for 1 s (a read/write mix, so the
aggregate's table has both directions); the summary is checked as ``iotui run`` prints it and as
``iotui show --wide`` prints the saved record.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.test_cli_width import _fits
from tests.e2e.private_sshd import HOSTS, missing_reason
from tests.e2e.test_multihost import _env

pytestmark = [pytest.mark.fio, pytest.mark.sshd, pytest.mark.slow,
              pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")]


def _iotui(*args: str, env: dict[str, str], columns: int | None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in env.items() if key != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, timeout=120, env=env)


def test_a_multi_host_summary_fits_80_columns_and_wide_has_every_column(sshd, tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    runs = tmp_path / "runs"
    env = _env(sshd)
    done = _iotui(
        "run", "quick", "--hosts", ",".join(HOSTS), "--target", str(tmp_path / "target"), "--runtime", "1",
        "--size", "2M", "--set", "ioengine=psync", "--set", "rate_iops=200", "--runs-dir", str(runs),
        "--baseline", "0", env=env, columns=80,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = runs.glob("*.toml")
    summary = done.stdout[done.stdout.index("\nquick: "):]
    wide = _iotui("show", str(path), "--wide", env=env, columns=80)
    assert wide.returncode == 0, wide.stderr
    # Every line within 80 (the saved path alone may pass it: a path is never cut), no word split.
    _fits("\n".join(line for line in summary.splitlines() if line.strip() != str(path)), wide.stdout)
    header = next(line for line in wide.stdout.splitlines() if line.split()[:2] == ["dir", "IOPS"])
    assert header.split() == ["dir", "IOPS", "bandwidth", "lat", "mean", "p50", "p99", "p99.9", "max"]
    assert all(host in wide.stdout for host in HOSTS)
    for direction in ("read", "write"):
        assert any(line.split()[:1] == [direction] for line in summary.splitlines()), summary
