"""A subcommand's command line is read as the full parser reads it, importing only that subcommand."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

from iotui.cli import build_parser, parse_arguments
from iotui.commands import COMMANDS

VALID = [
    ["run", "quick", "--runtime", "3", "--set", "bs=64k", "--json"],
    ["run", "--hosts", "h1,h2", "quick", "--min-hosts", "1"],
    ["--target", "run", "show", "a.toml"],  # a directory named like a subcommand, then the subcommand
    ["--runs-dir", "runs", "history", "--limit", "3", "--status", "failed"],
    ["show", "a.toml", "b.toml", "--json"],
    ["import", "out.json", "--runs-dir", "r"],
    ["compare", "a", "b", "--format", "markdown"],
    ["serve", "--port", "0", "--idle-timeout", "5"],
    ["sweep", "quick", "--vary", "iodepth=1,8"],
    ["completion", "bash"],
    ["--target", "presets"],  # the app, on a directory named like a subcommand
]

INVALID = [
    ["run", "--no-such-option"],
    ["history", "--limit", "many"],
    ["serve", "--idle-timeout", "0"],
    ["completion", "tcsh"],
    ["--target", "show", "shwo"],  # an unknown subcommand after a word that names one
    ["show"],  # the record is required
]


def full_reading(argv: list[str]) -> tuple[int | None, str, str, dict | None]:
    return _reading(lambda: build_parser().parse_args(argv))


def narrow_reading(argv: list[str]) -> tuple[int | None, str, str, dict | None]:
    return _reading(lambda: parse_arguments(argv))


def _reading(parse) -> tuple[int | None, str, str, dict | None]:
    out, err = io.StringIO(), io.StringIO()
    code, values = None, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            values = vars(parse())
        except SystemExit as stop:
            code = stop.code
    if values is not None:
        # The handler is the same function either way; compare it by name.
        values = {key: getattr(value, "__qualname__", value) for key, value in values.items()}
    return code, out.getvalue(), err.getvalue(), values


@pytest.mark.parametrize("argv", VALID, ids=" ".join)
def test_a_valid_command_line_reads_as_the_full_parser_reads_it(argv: list[str]) -> None:
    narrow = narrow_reading(argv)
    assert narrow[3] is not None, narrow
    assert narrow == full_reading(argv)


@pytest.mark.parametrize("argv", INVALID, ids=" ".join)
def test_a_refused_command_line_gets_the_full_parsers_message(argv: list[str]) -> None:
    narrow = narrow_reading(argv)
    assert narrow[0] == 2 and "error:" in narrow[2], narrow
    assert narrow == full_reading(argv)


def test_help_before_a_subcommand_lists_every_subcommand() -> None:
    code, out, _, _ = narrow_reading(["--target", "run", "--help"])
    assert code == 0
    assert all(word in out for word in COMMANDS), out


def test_a_subcommands_help_is_the_full_parsers() -> None:
    narrow = narrow_reading(["run", "--help"])
    assert narrow[0] == 0 and "--runtime" in narrow[1]
    assert narrow == full_reading(["run", "--help"])


def loaded_after_parsing(argvs: list[list[str]], heavy: tuple[str, ...], *, imports: tuple[str, ...] = ()) -> list[str]:
    """In a fresh interpreter: the subcommand ``parse_arguments`` reads from each command line (after
    importing ``imports``), then which of the ``heavy`` modules are loaded, as printed lines."""
    code = (
        "import sys\n"
        "from iotui.cli import parse_arguments\n"
        + "".join(f"import {module}\n" for module in imports)
        + f"for argv in {argvs!r}:\n"
        "    print(parse_arguments(argv).command)\n"
        f"print(sorted(name for name in {heavy!r} if name in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_show_and_history_start_without_the_run_machinery() -> None:
    heavy = ("iotui.cli_common", "iotui.core.runs.session", "iotui.core.start", "iotui.commands.run",
             "iotui.commands.run_remote", "iotui.core.remote.session", "asyncio")
    lines = loaded_after_parsing([["show", "a.toml"], ["history"], ["presets"]], heavy)
    assert lines == ["show", "history", "presets", "[]"]


def test_a_run_without_json_stream_or_metrics_loads_none_of_the_stream_machinery() -> None:
    # The stream's translator brings the sweep's runner and analysis: only a run that streams needs them.
    heavy = ("iotui.commands.stream_out", "iotui.core.stream.translate", "iotui.core.sweep.runner")
    lines = loaded_after_parsing([["run", "quick"]], heavy, imports=("iotui.commands.run", "iotui.commands.run_remote"))
    assert lines == ["run", "[]"]
