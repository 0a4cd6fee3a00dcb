"""The command line reads argparse's Namespace once, at each command's entry, into typed options."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

import iotui
from iotui.cli import build_parser
from iotui.cli_options import AppOptions, HostOptions, RunOptions
from iotui.commands.compare import CompareOptions
from iotui.commands.completion import CompletionOptions
from iotui.commands.export import ExportOptions
from iotui.commands.history import HistoryOptions
from iotui.commands.importer import ImportOptions
from iotui.commands.presets import PresetsOptions
from iotui.commands.report import ReportOptions
from iotui.commands.run import RunCommandOptions
from iotui.commands.serve import ServeOptions
from iotui.commands.show import ShowOptions
from iotui.commands.sweep import SweepOptions
from tests.source_trees import parsed_module

PACKAGE_DIR = Path(iotui.__file__).parent
COMMAND_LINE_FILES = sorted([*PACKAGE_DIR.glob("cli*.py"), *(PACKAGE_DIR / "commands").glob("*.py")])


def _namespace_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The names of ``function``'s parameters whose annotation names argparse's Namespace."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    return [
        argument.arg for argument in every
        if argument is not None and argument.annotation is not None
        and re.search(r"\bNamespace\b", ast.unparse(argument.annotation))
    ]


def _functions_taking_a_namespace(path: Path) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Each function in ``path`` with a Namespace parameter, as (where it is, the function)."""
    tree = parsed_module(path)
    found = []
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and _namespace_parameters(child):
                where = "module" if isinstance(node, ast.Module) else "class" if isinstance(node, ast.ClassDef) else "nested"
                found.append((where, child))
    return found


def test_only_a_commands_handle_and_the_options_take_a_namespace() -> None:
    entries = strays = 0
    wrong = []
    for path in COMMAND_LINE_FILES:
        name = f"{path.relative_to(PACKAGE_DIR.parent)}"
        for where, function in _functions_taking_a_namespace(path):
            is_handle = where == "module" and function.name == "handle" and path.parent.name == "commands"
            is_options = where == "class" and function.name == "from_namespace"
            if is_handle or is_options:
                entries += 1
            else:
                strays += 1
                wrong.append(f"{name}:{function.lineno} {function.name}")
    assert len(COMMAND_LINE_FILES) > 15 and entries > 20  # the scan saw the command line
    assert wrong == [] and strays == 0


def test_a_handle_reads_its_namespace_only_to_make_its_options() -> None:
    """The Namespace goes into ``from_namespace`` and nowhere else: no ``args.x``, no helper handed it."""
    wrong = []
    handles = 0
    for path in sorted((PACKAGE_DIR / "commands").glob("*.py")):
        for where, function in _functions_taking_a_namespace(path):
            if where != "module" or function.name != "handle":
                continue
            handles += 1
            (parameter,) = _namespace_parameters(function)
            handed = {
                id(argument) for call in ast.walk(function) if isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute) and call.func.attr == "from_namespace"
                for argument in call.args
            }
            for node in ast.walk(function):
                if isinstance(node, ast.Name) and node.id == parameter and id(node) not in handed:
                    wrong.append(f"{path.name}:{node.lineno}")
    assert handles >= 11  # every command module's entry
    assert wrong == []


def test_the_scan_finds_a_helper_that_takes_a_namespace(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text(
        "import argparse\n"
        "def handle(args: argparse.Namespace) -> int:\n    return _helper(args)\n"
        "def _helper(args: 'argparse.Namespace | None') -> int:\n    return 0\n"
        "class Options:\n    @classmethod\n    def from_namespace(cls, namespace: argparse.Namespace): ...\n",
        encoding="utf-8",
    )
    found = [(where, function.name) for where, function in _functions_taking_a_namespace(source)]
    assert found == [("module", "handle"), ("module", "_helper"), ("class", "from_namespace")]


def test_no_helper_reaches_into_a_namespace_by_name() -> None:
    found = [
        f"{path.relative_to(PACKAGE_DIR.parent)}:{number}"
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"getattr\(\s*args\b", line)
    ]
    assert len(list(PACKAGE_DIR.rglob("*.py"))) > 100  # the scan saw the package
    assert found == []


def test_runs_dir_before_or_after_the_subcommand_reaches_the_options() -> None:
    parser = build_parser()
    before = RunOptions.from_namespace(parser.parse_args(["--runs-dir", "/r", "--fio", "/f", "run", "quick"]))
    after = RunOptions.from_namespace(parser.parse_args(["run", "quick", "--runs-dir", "/r", "--fio", "/f"]))
    assert before == after
    assert (after.runs_dir, after.fio, after.preset) == ("/r", "/f", "quick")


def test_run_options_carry_every_flag_as_typed() -> None:
    argv = ["run", "quick", "--target", "/t", "--runtime", "2m", "--size", "1G", "--set", "bs=64k", "--set",
            "iodepth=4", "--no-save", "--allow-cache", "--force", "--baseline", "-3", "--hosts", "h1,h2",
            "--hosts-file", "hosts.txt", "--min-hosts", "1", "--no-host-probes", "--ssh", "ssh -p 2222",
            "--json", "--repeat", "3"]
    options = RunCommandOptions.from_namespace(build_parser().parse_args(argv))
    assert options == RunCommandOptions(
        run=RunOptions(
            preset="quick", target="/t", runtime="2m", size="1G", sets=("bs=64k", "iodepth=4"), no_save=True,
            allow_cache=True, force=True, baseline_s=0.0,
            hosts=HostOptions(hosts="h1,h2", hosts_file="hosts.txt", min_hosts=1, host_probes=False, ssh="ssh -p 2222"),
        ),
        json_output=True,
        repeat=3,
    )
    assert options.run.hosts.wanted


def test_defaults_are_the_flags_own() -> None:
    options = RunCommandOptions.from_namespace(build_parser().parse_args(["run"]))
    assert options == RunCommandOptions(run=RunOptions(), json_output=False, repeat=1)
    assert options.run.baseline_s == 2.0 and options.run.lock_by == "iotui run"
    assert not options.run.hosts.wanted


def test_sweep_and_app_options() -> None:
    sweep = SweepOptions.from_namespace(build_parser().parse_args(
        ["sweep", "quick", "--vary", "bs=4k,64k", "--vary", "iodepth=1,8", "--format", "json", "--slo",
         "read p99<=1ms", "--dry-run", "--resume", "--yes", "--targets", "/a,/b"]
    ))
    assert (sweep.vary, sweep.output_format, sweep.slo, sweep.targets) == (
        ("bs=4k,64k", "iodepth=1,8"), "json", "read p99<=1ms", "/a,/b")
    assert sweep.dry_run and sweep.resume and sweep.yes and sweep.run.preset == "quick"
    app = AppOptions.from_namespace(build_parser().parse_args(["--target", "/t", "--preset", "quick"]))
    assert app == AppOptions(target="/t", preset="quick")


# Each command's options through the real parser: (argv, what they read as). The first argv of each
# command is its defaults, the next gives every flag it has.
PARSED_OPTIONS = [
    (["compare"], CompareOptions()),
    (["--runs-dir", "/r", "compare", "a", "b.toml", "ref:x:1", "--format", "json", "--plot", "--per-host",
      "--list-references"],
     CompareOptions(records=("a", "b.toml", "ref:x:1"), output_format="json", plot=True, per_host=True,
                    list_references=True, runs_dir="/r")),
    (["export"], ExportOptions()),
    (["export", "a", "ref:x", "--format", "csv", "-o", "t.csv", "--per-host", "--list-references", "--runs-dir", "/r"],
     ExportOptions(records=("a", "ref:x"), output_format="csv", output="t.csv", per_host=True, list_references=True,
                   runs_dir="/r")),
    (["import", "f.json"], ImportOptions(files=("f.json",))),
    (["import", "f.json", "dir", "--runs-dir", "/r"], ImportOptions(files=("f.json", "dir"), runs_dir="/r")),
    (["history"], HistoryOptions()),
    (["history", "quick", "nvme", "--preset", "p", "--status", "stopped", "--tag", "t", "--older-than", "30d",
      "--limit", "5", "--prune", "--yes", "--json", "--runs-dir", "/r", "--fio", "/f"],
     HistoryOptions(words=("quick", "nvme"), preset="p", status="stopped", tag="t", older_than="30d", limit=5,
                    prune=True, yes=True, json_output=True, runs_dir="/r")),
    (["report", "a.toml"], ReportOptions(files=("a.toml",))),
    (["report", "a.toml", "b", "-o", "out", "--format", "svg", "--runs-dir", "/r"],
     ReportOptions(files=("a.toml", "b"), output="out", file_format="svg", runs_dir="/r")),
    (["show", "a.toml"], ShowOptions(records=("a.toml",))),
    (["show", "a.toml", "s.sweep.toml", "--json"], ShowOptions(records=("a.toml", "s.sweep.toml"), json_output=True)),
    (["presets"], PresetsOptions()),
    (["presets", "--json"], PresetsOptions(json_output=True)),
    (["serve"], ServeOptions()),
    (["--fio", "/f", "serve", "--host", "0.0.0.0", "--port", "0", "--target", "/t", "--preset", "quick",
      "--runs-dir", "/r"],
     ServeOptions(host="0.0.0.0", port=0, app=AppOptions(target="/t", preset="quick", runs_dir="/r", fio="/f"))),
    (["completion", "zsh"], CompletionOptions(shell="zsh")),
    ([], AppOptions()),
    (["--target", "/t", "--preset", "quick", "--runs-dir", "/r", "--fio", "/f"],
     AppOptions(target="/t", preset="quick", runs_dir="/r", fio="/f")),
]


@pytest.mark.parametrize(("argv", "expected"), PARSED_OPTIONS, ids=lambda value: " ".join(value) if isinstance(value, list) else "")
def test_each_commands_options_through_the_real_parser(argv: list[str], expected: object) -> None:
    options = type(expected).from_namespace(build_parser().parse_args(argv))  # type: ignore[attr-defined]
    assert options == expected


def test_the_defaults_are_the_parsers_own() -> None:
    """What the parser fills in when a flag is not given reaches the options unchanged."""
    parser = build_parser()
    assert CompareOptions.from_namespace(parser.parse_args(["compare"])).output_format == "text"
    assert ExportOptions.from_namespace(parser.parse_args(["export"])).output_format == "markdown"
    assert ReportOptions.from_namespace(parser.parse_args(["report", "a"])).file_format == "html"
    served = ServeOptions.from_namespace(parser.parse_args(["serve"]))
    assert (served.host, served.port) == ("127.0.0.1", 8000)
    # An empty --host is the caller's (every interface), not the default.
    assert ServeOptions.from_namespace(parser.parse_args(["serve", "--host", ""])).host == ""


def test_every_options_class_is_frozen() -> None:
    classes = {type(expected) for _, expected in PARSED_OPTIONS} | {RunOptions, HostOptions, RunCommandOptions, SweepOptions}
    assert len(classes) == 14
    for options_class in classes:
        assert dataclasses.is_dataclass(options_class) and options_class.__dataclass_params__.frozen, options_class  # type: ignore[attr-defined]
