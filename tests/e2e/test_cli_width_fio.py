"""A sweep's table, its progress lines and a run's summary fit ``COLUMNS=80`` with real fio: no line
wider than 80 and no word split; ``--wide`` (or a pipe without ``$COLUMNS``) prints every column.

Two 1 s points of a mixed read/write job on a 2 MiB file (every figure column of both directions).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.sweep import SWEEP_SUFFIX
from tests.conftest import requires_fio
from tests.core.test_cli_width import _fits

pytestmark = [pytest.mark.fio, requires_fio]

MIXED_JOB = """\
[global]
ioengine=psync
rw=randrw
bs=4k
size=2M
rate_iops=200
time_based
runtime=1

[mixed]
"""


def _fits_but_paths(narrow: str, wide: str) -> None:
    """``_fits``, where the only line allowed past 80 is a saved file's path on a line of its own: a
    path the reader may copy is never cut."""
    kept = [line for line in narrow.splitlines() if len(line) <= 80 or not Path(line).is_file()]
    _fits("\n".join(kept), wide)


def iotui(*args: str, columns: int | None = 80, runtime_dir: Path | None = None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    if runtime_dir is not None:  # the module's own run lock (the per-test one is not made yet)
        env["XDG_RUNTIME_DIR"] = str(runtime_dir)
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, env=env, timeout=90)


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    base = tmp_path_factory.mktemp("sweep-width")
    job = base / "mixed.fio"
    job.write_text(MIXED_JOB)
    (base / "target").mkdir()
    (base / "xdg").mkdir(mode=0o700)
    runs = base / "runs"
    done = iotui("sweep", "--job-file", str(job), "--vary", "iodepth=1,2", "--target", str(base / "target"),
                 "--runs-dir", str(runs), "--baseline", "0", runtime_dir=base / "xdg")
    assert done.returncode == 0, done.stderr
    return done, runs


def test_a_sweeps_table_and_progress_fit_80_columns(swept: tuple[subprocess.CompletedProcess, Path]) -> None:
    done, runs = swept
    for line in done.stdout.splitlines():  # what ``iotui sweep`` printed: its plan, progress and table
        assert len(line) <= 80 or Path(line).is_file(), line
    [sweep] = runs.glob(f"*{SWEEP_SUFFIX}")
    wide = iotui("show", str(sweep), "--wide")
    assert wide.returncode == 0, wide.stderr
    assert max(len(line) for line in wide.stdout.splitlines()) > 80  # the full table is wider than 80
    _fits_but_paths(done.stdout, done.stdout + wide.stdout)
    narrow = iotui("show", str(sweep))
    _fits_but_paths(narrow.stdout, wide.stdout)
    header = narrow.stdout.splitlines()[0].split()
    # The keys, both directions' IOPS and p99, the level and the status stay.
    assert header[:1] == ["iodepth"] and header[-2:] == ["responsive", "status"]
    assert {"read", "write", "IOPS", "p99"} <= set(header)
    assert iotui("show", str(sweep), columns=None).stdout == wide.stdout


def test_a_runs_summary_fits_80_columns(swept: tuple[subprocess.CompletedProcess, Path]) -> None:
    _, runs = swept
    record = sorted(path for path in runs.glob("*.toml") if not path.name.endswith(SWEEP_SUFFIX))[0]
    narrow, wide = iotui("show", str(record)), iotui("show", str(record), "--wide")
    assert narrow.returncode == 0 and wide.returncode == 0, narrow.stderr + wide.stderr
    _fits_but_paths(narrow.stdout, wide.stdout)
    assert max(len(line) for line in wide.stdout.splitlines()) > 80
    rows = {line.split()[0]: line.split() for line in narrow.stdout.splitlines() if line.startswith("  ")}
    assert rows["dir"][:3] == ["dir", "IOPS", "bandwidth"] and "p99" in rows["dir"]
    assert {"read", "write", "cpu"} <= rows.keys()
