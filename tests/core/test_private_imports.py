"""No module of iotui reaches into another module's private (underscore) names.

A name that starts with ``_`` is its module's own business: another module that needs it
needs a public home for it. Read from the source (an AST walk), so an import inside a
function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import iotui

PACKAGE_DIR = Path(iotui.__file__).parent


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_iotui_module(dotted: str) -> bool:
    parts = dotted.split(".")
    if parts[0] != "iotui":
        return False
    base = PACKAGE_DIR.joinpath(*parts[1:])
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def private_reaches(source: str, module: str) -> list[str]:
    """Each ``from M import _name`` and ``M._name`` (M another iotui module) in ``source``."""
    tree = ast.parse(source)
    found: list[str] = []
    module_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("iotui"):
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                elif _is_iotui_module(f"{node.module}.{alias.name}"):
                    module_names.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("iotui") and alias.asname:
                    module_names.add(alias.asname)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in module_names
            and _private(node.attr)
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return [f"{module} {where}" for where in found]


def test_the_scan_sees_both_spellings() -> None:
    source = (
        "from iotui.core.sweep.output import _analysis_lines, columns_for\n"
        "from iotui.core import format as fmt\n"
        "def f():\n"
        "    from iotui.commands.compare import _repeats\n"
        "    return fmt._unit, fmt.iops, self._own\n"
    )
    assert private_reaches(source, "m") == [
        "m line 1: from iotui.core.sweep.output import _analysis_lines",
        "m line 4: from iotui.commands.compare import _repeats",
        "m line 5: fmt._unit",
    ]


def test_no_module_imports_another_modules_underscore_name() -> None:
    reaches = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        reaches += private_reaches(path.read_text(encoding="utf-8"), module)
    assert reaches == []
