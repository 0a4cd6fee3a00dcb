"""docs/architecture.md is true: every module, class and function it names exists in the code.

The page is read as a newcomer reads it: the backticked names (`core/fio/sections.py`,
`core/records/files.py save_record`, `HostSampler.sample`, `cli_common.make_session`,
`request_stop(ended_by)`) are looked up in the source with ast, never by importing the app. The
figure table must also say where every per-direction figure a record's section can hold is computed.
"""

from __future__ import annotations

import ast
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import iotui
from tests.source_trees import parsed_module

PACKAGE_DIR = Path(iotui.__file__).parent
REPO_DIR = PACKAGE_DIR.parent
ARCHITECTURE = REPO_DIR / "docs" / "architecture.md"
RECORD_FORMAT = REPO_DIR / "docs" / "record-format.md"
SCHEMA = PACKAGE_DIR / "core" / "records" / "schema.py"

BACKTICKED = re.compile(r"`([^`]+)`")
FENCED = re.compile(r"```.*?```", flags=re.S)
PATH = re.compile(r"^(?:iotui/)?(?:(?:core|ui|commands|web|tests|bench)/)?[\w/]*\w\.py$")
IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
CALL = re.compile(r"^([A-Za-z_]\w*)\([^\"'`]*\)$")
CAMEL = re.compile(r"^_?[A-Z][a-z0-9]+[A-Za-z0-9]*$")
TYPING_NAMES = set(typing.__all__)  # `Any`, `Protocol`: the typing module's, not iotui's


@dataclass
class Module:
    """The names one source file defines: its classes (with their members) and the rest."""

    names: set[str] = field(default_factory=set)
    members: dict[str, set[str]] = field(default_factory=dict)
    bases: dict[str, list[str]] = field(default_factory=dict)


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def read_module(path: Path) -> Module:
    tree = parsed_module(path)
    module = Module()
    for node in tree.body:
        module.names.update(_targets(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module.names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            module.names.add(node.name)
            members = module.members.setdefault(node.name, set())
            module.bases[node.name] = [base.id for base in node.bases if isinstance(base, ast.Name)]
            for item in ast.walk(node):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    members.add(item.name)
                members.update(_targets(item))
                if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == "self":
                    members.add(item.attr)
    return module


@dataclass
class Code:
    """Every module of the package and of the tests, by the path the page writes."""

    modules: dict[str, Module]

    @classmethod
    def read(cls) -> Code:
        modules = {}
        for root in (PACKAGE_DIR, REPO_DIR / "tests"):
            for path in root.rglob("*.py"):
                modules[path.relative_to(REPO_DIR).as_posix()] = read_module(path)
        return cls(modules)

    def path_key(self, written: str) -> str | None:
        for key in (written, f"iotui/{written}"):
            if key in self.modules:
                return key
        return None

    def stems(self) -> set[str]:
        return {Path(key).stem for key in self.modules}

    def class_members(self, name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        """A class's members, those it inherits from the package's own classes included."""
        members: set[str] = set()
        for module in self.modules.values():
            members |= module.members.get(name, set())
            for base in module.bases.get(name, []):
                if base not in seen:
                    members |= self.class_members(base, seen | {name})
        return members

    def defines(self, name: str, in_paths: list[str] | None = None) -> bool:
        """`name` or `Class.member` or `module.name`, defined in one of in_paths (or anywhere)."""
        keys = in_paths if in_paths is not None else list(self.modules)
        head, _, rest = name.partition(".")
        for key in keys:
            module = self.modules[key]
            if not rest and (name in module.names or any(name in m for m in module.members.values())):
                return True
            if rest and "." not in rest:
                if head in module.members and rest in self.class_members(head):
                    return True
                if Path(key).stem == head and rest in module.names:
                    return True
        return False


def names_in(span: str, code: Code) -> tuple[list[str], list[str]]:
    """The paths and the code names one backticked span writes; words and keys give neither."""
    first, _, after = span.partition(" ")
    if PATH.match(first):
        names = [part.strip() for part in after.split(",") if part.strip()] if after else []
        return [first], [n for n in names if IDENTIFIER.match(n) or DOTTED.match(n)]
    call = CALL.match(span)
    if call:
        return [], [call.group(1)]
    if DOTTED.match(span):
        head = span.split(".")[0]
        if span.startswith("iotui."):
            return [], []  # a package name: checked as a path by its own words
        if head in code.stems() or CAMEL.match(head):
            return [], [span]
        return [], []  # another library's name (gc.freeze, importlib.resources)
    if CAMEL.match(span) and not span.isupper():
        return [], [] if span in TYPING_NAMES else [span]
    if IDENTIFIER.match(span) and "_" in span.strip("_") and span.lower() == span:
        return [], [span]  # a snake_case name in prose: a function, field or method
    return [], []


def problems_of_span(span: str, code: Code, row_paths: list[str] | None = None, bare_too: bool = False) -> list[str]:
    problems = []
    paths, names = names_in(span, code)
    if not paths and not names and bare_too and IDENTIFIER.match(span) and span.lower() == span:
        names = [span]
    keys = []
    for path in paths:
        key = code.path_key(path)
        if key is None and (REPO_DIR / path).is_file() and "/" not in path:
            continue  # a file of the repository's own (setup.py), outside the package and the tests
        if key is None:
            problems.append(f"`{path}` names no module")
        else:
            keys.append(key)
    for name in names:
        where = keys or row_paths
        if not code.defines(name, where):
            place = f" in {', '.join(where)}" if where else " in any module its row names" if where == [] else ""
            problems.append(f"`{name}` is not defined{place}")
    return problems


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of each body row of the table under `## heading`."""
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def record_keys() -> set[str]:
    """The record's keys (`lat_p99_ns`, `ended_by`): words of the record format, not code names."""
    return set(BACKTICKED.findall(RECORD_FORMAT.read_text(encoding="utf-8")))


def doc_problems(text: str, code: Code) -> list[str]:
    problems = []
    keys = record_keys()
    # The prose's spans, the fenced blocks taken out first: a fence's three backticks would pair
    # the rest of the page the other way round, and whole paragraphs would go unread.
    for span in BACKTICKED.findall(FENCED.sub("", text)):
        if span not in keys:
            problems += problems_of_span(span, code)
    code_blocks = re.findall(r"```\n(.*?)```", text, flags=re.S)
    for block in code_blocks:
        # The drawn flow writes `core/x.py  name` (two spaces) without backticks.
        for path, names in re.findall(r"((?:core|ui|commands)/[\w/]+\.py) {2}(?! )([\w.]+(?:, [\w.]+)*)(?![\w./])", block):
            problems += problems_of_span(f"{path} {names}", code)
    # Each table row: its bare names are defined in the modules the row names.
    for heading, columns in (("Where each figure is computed", (1, 2)), ("Where each part lives", (1,))):
        for cells in _table_rows(text, heading):
            row_spans = [span for column in columns for span in BACKTICKED.findall(cells[column])]
            row_paths = [key for s in row_spans for p in names_in(s, code)[0] if (key := code.path_key(p))]
            for span in row_spans:
                if not names_in(span, code)[0] and span not in keys:
                    problems += problems_of_span(span, code, row_paths, bare_too=True)
    return sorted(set(problems))


def direction_keys() -> set[str]:
    """Every key a section's direction table can hold: the schema's numbers and the keys it checks."""
    tree = ast.parse(SCHEMA.read_text(encoding="utf-8"))
    keys: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "DIRECTION_KEYS" for t in node.targets):
            keys.update(ast.literal_eval(node.value))
        if isinstance(node, ast.FunctionDef) and node.name == "check_direction":
            for compare in ast.walk(node):
                if isinstance(compare, ast.Compare) and isinstance(compare.left, ast.Constant):
                    keys.add(compare.left.value)
    return keys


def record_format_direction_keys() -> set[str]:
    text = RECORD_FORMAT.read_text(encoding="utf-8")
    section = text.split("### `[sections.read]`", 1)[1].split("\n### ", 1)[0]
    keys = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            keys.update(BACKTICKED.findall(line.split(" | ")[0]))
    return keys


def uncomputed_keys(text: str, keys: set[str]) -> list[str]:
    """Direction keys no figure-table row names with its module and function."""
    named = set()
    for figure, module, function in (cells[:3] for cells in _table_rows(text, "Where each figure is computed")):
        if BACKTICKED.search(module) and BACKTICKED.search(function):
            named.update(BACKTICKED.findall(figure))
    return sorted(keys - named)


@pytest.fixture(scope="module")
def code() -> Code:
    return Code.read()


def test_every_name_in_the_architecture_page_exists(code: Code) -> None:
    problems = doc_problems(ARCHITECTURE.read_text(encoding="utf-8"), code)
    assert problems == [], "docs/architecture.md names what the code lacks:\n" + "\n".join(problems)


def test_the_check_finds_a_made_up_name(code: Code) -> None:
    made_up = (
        "## Where each figure is computed\n\n| Figure | Module | Function |\n|---|---|---|\n"
        "| `iops` | `core/fio/sections.py` | `copied_direction`, `direction_summaries` |\n"
        "| b | `core/fio/nowhere.py` | `merged_direction` |\n\n"
        "## Where each part lives\n\n| Job | Modules |\n|---|---|\n"
        "| c | `core/host/targets.py` (`inspect_target`, `NoSuchTarget`) |\n\n"
        "Prose: `core/fio/summary.py job_summaries`, `HostSampler.no_such_method`, `no_such_function()`,\n"
        "`cli_common.no_such_helper`, and real ones: `HostSampler.sample`, `cli_common.make_session`.\n"
    )
    assert doc_problems(made_up, code) == [
        "`HostSampler.no_such_method` is not defined",
        "`NoSuchTarget` is not defined",
        "`NoSuchTarget` is not defined in iotui/core/host/targets.py",
        "`cli_common.no_such_helper` is not defined",
        "`core/fio/nowhere.py` names no module",
        "`direction_summaries` is not defined",
        "`direction_summaries` is not defined in iotui/core/fio/sections.py",
        "`job_summaries` is not defined in iotui/core/fio/summary.py",
        "`merged_direction` is not defined in any module its row names",
        "`no_such_function` is not defined",
    ]


def test_a_name_after_a_fenced_block_is_read(code: Code) -> None:
    """A fence's three backticks do not turn the prose after it inside out."""
    page = (
        "## Where each figure is computed\n\n| Figure | Module | Function |\n|---|---|---|\n\n"
        "## Where each part lives\n\n| Job | Modules |\n|---|---|\n\n"
        "```\ncore/fio/sections.py  copied_direction\n```\n\n"
        "Prose: `commands/history.py HistoryOptions`, `commands/history.py NoSuchOptions`, `Any`, `setup.py`.\n"
    )
    assert doc_problems(page, code) == ["`NoSuchOptions` is not defined in iotui/commands/history.py"]


def test_the_figure_table_says_where_every_direction_figure_is_computed() -> None:
    keys = direction_keys()
    # The schema and the record format agree on the keys, so neither list can drift alone.
    assert keys == record_format_direction_keys()
    assert {"iops", "lat_p99_ns", "lat_source", "missing", "fio"} <= keys
    assert uncomputed_keys(ARCHITECTURE.read_text(encoding="utf-8"), keys) == []


def test_a_key_left_out_of_the_figure_table_is_found() -> None:
    table = (
        "## Where each figure is computed\n\n| Figure | Module | Function |\n|---|---|---|\n"
        "| `iops`, `bw_bytes` | `core/fio/sections.py` | `copied_direction` |\n"
        "| `io_bytes` | somewhere | nobody |\n"
    )
    assert uncomputed_keys(table, {"iops", "bw_bytes", "io_bytes", "total_ios"}) == ["io_bytes", "total_ios"]
