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
