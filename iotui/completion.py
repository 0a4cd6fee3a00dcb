"""Shell completion for bash, zsh and fish, generated from the argument parser by argcomplete.

Imported only while a shell asks for completions (argcomplete sets ``_ARGCOMPLETE``),
so the app's start never pays for it. Subcommands and options come from the parser
itself; preset names and record files are added here by the arguments' names, so a
new subcommand with a ``preset`` or ``records`` argument completes them too.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from iotui.cli_options import text
from typing import Iterable

# Arguments (by dest) that take a preset name, and those that take record files.
PRESET_ARGUMENTS = ("preset",)
RECORD_ARGUMENTS = ("record", "records", "files")
# Subcommands whose file arguments are fio's own output (any name), never records.
FIO_OUTPUT_COMMANDS = ("import",)
SHELLS = ("bash", "zsh", "fish")


def preset_names(prefix: str, **_: object) -> list[str]:
    from iotui.core.presets.dirs import preset_dirs, preset_files

    names = {path.stem for path in preset_files(preset_dirs())}
    return sorted(name for name in names if name.startswith(prefix))


def _runs_dir(parsed_args: argparse.Namespace | None) -> Path:
    value = text(vars(parsed_args), "runs_dir") if parsed_args is not None else None
    if value:
        return Path(value).expanduser()
    from iotui.core.runs.paths import default_runs_dir

    return default_runs_dir()


def record_files(prefix: str, parsed_args: argparse.Namespace | None = None, **_: object) -> list[str]:
    """Files named as a prefix (paths), and the runs directory's records by file name."""
    import argcomplete

    found: list[str] = list(argcomplete.FilesCompleter(allowednames=("toml",))(prefix))
    runs_dir = _runs_dir(parsed_args)
    if os.sep not in prefix and runs_dir.is_dir():
        found += sorted(path.name for path in runs_dir.glob("*.toml") if path.name.startswith(prefix))
    return found


def any_files(prefix: str, **_: object) -> list[str]:
    """Every file and directory under the prefix: fio's output has no fixed suffix."""
    import argcomplete

    return list(argcomplete.FilesCompleter()(prefix))


def _actions(parser: argparse.ArgumentParser, command: str = "") -> Iterable[tuple[str, argparse.Action]]:
    """Each action with the subcommand it belongs to ("" for the top level)."""
    for action in parser._actions:
        yield command, action
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                yield from _actions(subparser, name)


def add_completers(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    for command, action in _actions(parser):
        if action.dest in PRESET_ARGUMENTS:
            action.completer = preset_names  # type: ignore[attr-defined]
        elif action.dest in RECORD_ARGUMENTS and command in FIO_OUTPUT_COMMANDS:
            action.completer = any_files  # type: ignore[attr-defined]
        elif action.dest in RECORD_ARGUMENTS:
            action.completer = record_files  # type: ignore[attr-defined]
    return parser


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request and exit (argcomplete does both)."""
    import argcomplete

    argcomplete.autocomplete(add_completers(parser))


def shell_code(shell: str) -> str:
    """The hook a shell sources to complete ``iotui`` (argcomplete's own, for that shell)."""
    import argcomplete

    return argcomplete.shellcode(["iotui"], shell=shell)
