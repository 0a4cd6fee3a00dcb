"""The core and the headless command line never import Textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import iotui

CORE_DIR = Path(iotui.__file__).parent / "core"


def test_core_modules_do_not_import_textual() -> None:
    modules = sorted(
        "iotui." + ".".join(path.relative_to(CORE_DIR.parent).with_suffix("").parts[:]).replace("/", ".")
        for path in CORE_DIR.rglob("*.py")
        if path.stem != "__init__"
    )
    assert len(modules) >= 30
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_headless_cli_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        "from iotui.cli import build_parser\n"
        "build_parser()\n"
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_opening_the_app_imports_no_subcommand() -> None:
    code = (
        "import sys\n"
        "from iotui.cli import app_arguments\n"
        "args = app_arguments(['--target', '/srv', '--preset', 'quick', '--runs-dir', 'runs'])\n"
        "print(args.target, args.preset, args.runs_dir, args.command)\n"
        "print(sorted(m for m in sys.modules if m.startswith('iotui.commands.') or m == 'iotui.cli_common'))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["/srv quick runs None", "[]"]


def test_anything_but_the_apps_own_options_goes_to_the_full_parser() -> None:
    from iotui.cli import app_arguments, build_parser

    for argv in (["run", "quick"], ["--help"], ["--version"], ["--runtime", "3"], ["--target", "presets"]):
        assert app_arguments(argv) is None, argv
    # A directory named like a subcommand is still a target: the full parser says so.
    args = build_parser().parse_args(["--target", "presets"])
    assert args.target == "presets" and args.command is None


def test_the_apps_modules_load_no_run_machinery_before_the_first_frame() -> None:
    code = (
        "import sys\n"
        "import iotui.commands.app, iotui.ui.app, iotui.ui.services\n"
        "heavy = ('iotui.core.runs.session', 'iotui.core.records.record', 'iotui.core.runs.plan',\n"
        "         'iotui.core.host.counters', 'iotui.core.fio.runner', 'textual_plotext', 'psutil')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
