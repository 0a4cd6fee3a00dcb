"""Every command that takes a record accepts the names shell completion offers for it."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from iotui.completion import record_files
from tests.conftest import FIO_FIXTURES


def iotui(*args: str, runs_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "IOTUI_RUNS_DIR": str(runs_dir)}
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, env=env, timeout=60)


def test_show_compare_and_export_take_the_names_completion_offers(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    imported = iotui("import", str(FIO_FIXTURES / "randread-3jobs-json+.txt"), str(FIO_FIXTURES / "randrw-rate200-json+.txt"),
                     runs_dir=runs)
    assert imported.returncode == 0, imported.stderr
    offered = record_files("", argparse.Namespace(runs_dir=str(runs)))
    names = [name for name in offered if name.endswith(".toml") and (runs / name).is_file()]
    assert len(names) == 2
    for name in names:
        shown = iotui("show", name, runs_dir=runs)
        assert shown.returncode == 0 and "cannot read the record" not in shown.stderr, shown.stderr
        assert "imported" in shown.stdout
        without_suffix = iotui("show", name.removesuffix(".toml"), "--runs-dir", str(runs), runs_dir=tmp_path / "elsewhere")
        assert without_suffix.returncode == 0, without_suffix.stderr
    assert iotui("compare", *names, runs_dir=runs).returncode == 0
    assert iotui("export", names[0], runs_dir=runs).returncode == 0
