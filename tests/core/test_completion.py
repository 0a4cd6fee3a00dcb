"""Shell completion from the argument parser (argcomplete): subcommands, options, preset names, record
files; and argcomplete stays unimported unless a shell asks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import iotui

pytest.importorskip("argcomplete")


def _complete(line: str, tmp_path: Path, runs_dir: Path) -> list[str]:
    out = tmp_path / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "_ARGCOMPLETE_SHELL": "bash", "COMP_LINE": line,
           "COMP_POINT": str(len(line)), "_ARGCOMPLETE_STDOUT_FILENAME": str(out), "IOTUI_RUNS_DIR": str(runs_dir),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    result = subprocess.run([sys.executable, "-m", "iotui"], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    return sorted(word.strip() for word in out.read_text().split("\v") if word.strip())


def test_subcommands_options_presets_and_records_complete(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "20261121-quick-aa.toml").write_text("")
    (runs / "20261121-quick-bb.sweep.toml").write_text("")
    user = tmp_path / "config" / "iotui" / "presets"
    user.mkdir(parents=True)
    (user / "zz-mine.toml").write_text("")
    assert "report" in _complete("iotui re", tmp_path, runs)
    assert _complete("iotui run --runt", tmp_path, runs) == ["--runtime"]
    assert _complete("iotui run qu", tmp_path, runs) == ["quick"]
    assert _complete("iotui sweep zz", tmp_path, runs) == ["zz-mine"]
    assert _complete("iotui report 2026", tmp_path, runs) == ["20261121-quick-aa.toml", "20261121-quick-bb.sweep.toml"]
    assert _complete("iotui compare 20261121-quick-a", tmp_path, runs) == ["20261121-quick-aa.toml"]


def test_each_shell_gets_argcomplete_s_hook() -> None:
    for shell, marker in (("bash", "complete "), ("zsh", "compdef"), ("fish", "complete ")):
        result = subprocess.run([sys.executable, "-m", "iotui", "completion", shell], capture_output=True, text=True)
        assert result.returncode == 0 and marker in result.stdout and "iotui" in result.stdout, (shell, result.stderr)


def test_argcomplete_is_not_imported_outside_completion() -> None:
    code = (
        "import sys\n"
        "from iotui.cli import main\n"
        "main(['presets'])\n"
        "print('argcomplete' in sys.modules, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stderr.strip().splitlines()[-1] == "False"
    assert "PYTHON_ARGCOMPLETE_OK" in Path(iotui.__file__).with_name("cli.py").read_text()[:1024]


def test_import_completes_any_file_not_records(tmp_path: Path) -> None:
    """import reads fio's output (JSON, text, terse: any name), never a record: it completes the
    files under the prefix, and not the runs directory's records."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "20261121-quick-aa.toml").write_text("")
    (tmp_path / "fio-out.json").write_text("{}")
    (tmp_path / "fio-out.txt").write_text("")
    assert _complete("iotui import fio", tmp_path, runs) == ["fio-out.json", "fio-out.txt"]
    assert "20261121-quick-aa.toml" not in _complete("iotui import ", tmp_path, runs)
