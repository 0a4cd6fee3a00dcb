"""The core's packages stand in one order: no import runs back up, and none grows too large.

Every import in iotui/core is read from the source (type-only imports under ``if TYPE_CHECKING:`` and
imports inside functions included, since both still tie the lower package to the upper one), so a
lazy import cannot hide a climb.
"""

from __future__ import annotations

import ast
from pathlib import Path

import iotui
from tests.source_trees import parsed_module

CORE_DIR = Path(iotui.__file__).parent / "core"

# Lowest first. A module may import its own level and those below it, never one above.
LEVELS: tuple[tuple[str, ...], ...] = (
    ("format", "heap", "numbers", "toml_reader", "terminal_text", "input_files", "safe_files", "series", "table",
     "interference"),
    ("fio", "host"),
    ("presets",),
    ("records",),
    ("compare",),
    ("runs",),
    ("remote", "sysbench"),
    ("start",),
    ("sweep",),
    ("remedy",),
    ("report", "stream"),
)
LEVEL_OF = {part: index for index, parts in enumerate(LEVELS) for part in parts}

MAX_MODULE_LINES = 450
MAX_PACKAGE_MODULES = 22


def _core_modules() -> list[Path]:
    return sorted(CORE_DIR.rglob("*.py"))


def _part(path: Path) -> str:
    """The first name under core/ (a package, or a top-level module without .py)."""
    relative = path.relative_to(CORE_DIR)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # ``from iotui.core import format``: the names may be modules themselves
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _core_part(module: str) -> str | None:
    """The core part a dotted module name lands in, None outside iotui.core or when it is no module."""
    parts = module.split(".")
    if parts[:2] != ["iotui", "core"] or len(parts) < 3:
        return None
    name = parts[2]
    if (CORE_DIR / name).is_dir() or (CORE_DIR / f"{name}.py").is_file():
        return name
    return None


def _outside_the_core(module: str) -> bool:
    """An iotui module above the core (cli*, commands, ui, web); the package's own ``__version__`` is not."""
    parts = module.split(".")
    if parts[0] != "iotui" or len(parts) < 2 or parts[1] in {"core", "presets"}:  # presets: shipped files
        return False
    package = CORE_DIR.parent
    return (package / parts[1]).is_dir() or (package / f"{parts[1]}.py").is_file()


def test_every_core_part_has_a_level() -> None:
    parts = {_part(path) for path in _core_modules() if path.name != "__init__.py" or path.parent != CORE_DIR}
    assert sorted(parts - set(LEVEL_OF)) == []


def test_no_import_runs_back_up_the_package_order() -> None:
    climbs: list[str] = []
    for path in _core_modules():
        if path.parent == CORE_DIR and path.name == "__init__.py":
            continue
        here = _part(path)
        tree = parsed_module(path)
        for line, module in _imported_modules(tree):
            if _outside_the_core(module):
                climbs.append(f"{path.relative_to(CORE_DIR)}:{line} imports {module} (outside the core)")
                continue
            there = _core_part(module)
            if there is None or there == here:
                continue
            if LEVEL_OF[there] > LEVEL_OF[here]:
                climbs.append(f"{path.relative_to(CORE_DIR)}:{line} ({here}) imports {module} ({there})")
    assert climbs == []


def test_the_order_test_sees_type_only_and_function_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from iotui.core.runs.session import RunSession\n"
        "def f():\n"
        "    from iotui.core import start\n"
    )
    modules = {module for _, module in _imported_modules(ast.parse(source))}
    assert "iotui.core.runs.session" in modules
    assert _core_part("iotui.core.start") == "start"
    assert "iotui.core.start" in modules


def test_no_module_is_too_long() -> None:
    long_modules = [
        f"{path.relative_to(CORE_DIR.parent)}: {lines} lines"
        for path in sorted(CORE_DIR.parent.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert long_modules == []


def test_no_core_package_holds_too_many_modules() -> None:
    crowded = {
        package.name: count
        for package in sorted(path for path in CORE_DIR.iterdir() if path.is_dir() and (path / "__init__.py").exists())
        if (count := len([module for module in package.glob("*.py") if module.name != "__init__.py"]))
        > MAX_PACKAGE_MODULES
    }
    assert crowded == {}
