"""The import rules, read from the source (every import, also those inside functions).

- no import cycle among iotui's modules;
- the UI and the core never import the command line (``iotui.cli``, ``iotui.cli_common``,
  ``iotui.commands``);
- the core imports nothing of iotui outside ``iotui.core`` (``iotui`` itself, for the version, aside).

Imports under ``if TYPE_CHECKING:`` count like any other: one that closes a circle still ties
the two files together for every reader (STYLE.md, convention 19). A screen reaches the app as
``ui/app_calls.py IotuiAppCalls``, never by naming the app's class.
"""

from __future__ import annotations

import ast
from pathlib import Path

import iotui
from tests.source_trees import parsed_module

PACKAGE_DIR = Path(iotui.__file__).parent
COMMAND_LINE = ("iotui.cli", "iotui.cli_common", "iotui.commands")


def _module_names() -> dict[str, tuple[Path, bool]]:
    modules: dict[str, tuple[Path, bool]] = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        modules[".".join(parts)] = (path, is_package)
    return modules


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every module name an import statement in ``tree`` names (``from a import b``: ``a`` and ``a.b``)."""
    names: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names.add(source)
            names.update(f"{source}.{alias.name}" for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names


def import_graph() -> dict[str, set[str]]:
    """iotui module -> the iotui modules it imports."""
    modules = _module_names()
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        imported = _imported(parsed_module(path), name, is_package)
        graph[name] = {other for other in imported if other in modules and other != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = import_graph()
    assert len(graph) > 80
    # commands/app.py imports the UI only inside run_app (so the headless commands never load Textual).
    assert "iotui.ui.app" in graph["iotui.commands.app"]


def test_the_graph_sees_type_only_imports() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from iotui.ui.app import IotuiApp\n")
    assert "iotui.ui.app" in _imported(tree, "iotui.ui.screens.run", is_package=False)


def test_a_cycle_is_found() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    assert import_cycles(import_graph()) == []


def test_the_ui_and_the_core_never_import_the_command_line() -> None:
    offenders = {
        module: sorted(other for other in imported if _within(other, COMMAND_LINE))
        for module, imported in import_graph().items()
        if _within(module, ("iotui.ui", "iotui.core"))
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_the_core_imports_nothing_of_iotui_outside_the_core() -> None:
    offenders = {
        module: sorted(other for other in imported if not _within(other, ("iotui.core",)) and other != "iotui")
        for module, imported in import_graph().items()
        if _within(module, ("iotui.core",))
    }
    assert {module: names for module, names in offenders.items() if names} == {}
