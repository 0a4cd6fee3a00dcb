"""Shell completion for bash, zsh and fish, generated from the argument parser by argcomplete.

Imported only while a shell asks for completions (argcomplete sets ``_ARGCOMPLETE``),
so the app's start never pays for it. Subcommands and options come from the parser
itself; preset names and record files are added here by the arguments' names, so a
new subcommand with a ``preset`` or ``records`` argument completes them too.

File names are listed here, not by argcomplete's ``FilesCompleter`` (a ``bash compgen``
decoded strictly as UTF-8): a name that is not UTF-8 completes to its own bytes, a name with a
control character (an escape sequence in a listing) is left out, and only the names that
start with the typed prefix are kept, once each, so a runs directory of 100,000 records
answers in well under a second. Beyond :data:`MAX_CANDIDATES` the shell gets the names'
distinct beginnings instead, with a sentence saying so.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Iterable, TextIO

from iotui.cli_options import text

# Arguments (by dest) that take a preset name, and those that take record files.
PRESET_ARGUMENTS = ("preset",)
RECORD_ARGUMENTS = ("record", "records", "files")
# Subcommands whose file arguments are fio's own output (any name), never records.
FIO_OUTPUT_COMMANDS = ("import",)
SHELLS = ("bash", "zsh", "fish")
RECORD_SUFFIX = ".toml"
MAX_CANDIDATES = 500
"""The most names one TAB lists; more than a screen of them helps nobody choose."""
# C0 and C1 controls and DEL, as characters or (a name that is not UTF-8) as undecodable bytes.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\udc80-\udc9f]")


def _candidates(names: Iterable[str], prefix: str, what: str) -> list[str]:
    """The names a terminal can list and a shell can type back, each once, sorted; beyond MAX_CANDIDATES
    their distinct beginnings (:func:`_beginnings`)."""
    unique = set(names)
    if _CONTROL.search("/".join(unique)) is not None:  # one search for the whole listing; "/" is in no name
        unique = {name for name in unique if _CONTROL.search(name) is None}
    if len(unique) <= MAX_CANDIDATES:
        return sorted(unique)
    return _beginnings(unique, prefix, what)


def preset_names(prefix: str, **_: object) -> list[str]:
    from iotui.core.presets.dirs import preset_dirs, preset_files

    return _candidates((path.stem for path in preset_files(preset_dirs()) if path.stem.startswith(prefix)),
                       prefix, "presets")


def _runs_dir(parsed_args: argparse.Namespace | None) -> Path:
    value = text(vars(parsed_args), "runs_dir") if parsed_args is not None else None
    if value:
        return Path(value).expanduser()
    from iotui.core.runs.paths import default_runs_dir

    return default_runs_dir()


def path_names(prefix: str, suffix: str | None = None) -> list[str]:
    """The directories (with a ``/``) and files under ``prefix`` as typed, files only with ``suffix`` if one is
    given; hidden names only when the prefix's last part starts with a dot, as the shell does."""
    typed_dir, _, start = prefix.rpartition("/")
    typed_dir = typed_dir + "/" if "/" in prefix else ""
    found: list[str] = []
    try:
        with os.scandir(os.path.expanduser(typed_dir) if typed_dir else ".") as entries:
            for entry in entries:
                name = entry.name
                if not name.startswith(start) or (name.startswith(".") and not start.startswith(".")):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    found.append(typed_dir + name + "/")
                elif suffix is None or name.endswith(suffix):
                    found.append(typed_dir + name)
    except OSError:
        return []
    return found


def run_names(runs_dir: Path, prefix: str) -> list[str]:
    """The runs directory's record files whose names start with ``prefix`` (one listing, no stat)."""
    try:
        names = os.listdir(runs_dir)
    except OSError:
        return []
    return [name for name in names if name.startswith(prefix) and name.endswith(RECORD_SUFFIX)]


def record_files(prefix: str, parsed_args: argparse.Namespace | None = None, **_: object) -> list[str]:
    """Files named as a prefix (paths), and the runs directory's records by file name."""
    found = path_names(prefix, RECORD_SUFFIX)
    if os.sep not in prefix:
        found += run_names(_runs_dir(parsed_args), prefix)
    return _candidates(found, prefix, "record files")


def any_files(prefix: str, **_: object) -> list[str]:
    """Every file and directory under the prefix: fio's output has no fixed suffix."""
    return _candidates(path_names(prefix), prefix, "files")


def _beginnings(names: set[str], prefix: str, what: str) -> list[str]:
    """The names' distinct beginnings, as long as a list of at most MAX_CANDIDATES allows, with a sentence: the
    shell still completes what all the names share, and lists where they part."""
    shared = os.path.commonprefix([min(names), max(names)])
    width = len(shared) + 1
    beginnings = {name[:width] for name in names}
    longest = max(len(name) for name in names)
    while width < longest:
        longer = {name[: width + 1] for name in names}
        if len(longer) > MAX_CANDIDATES:
            break
        width, beginnings = width + 1, longer
    from argcomplete import warn

    from iotui.core.terminal_text import terminal_safe

    warn(f"iotui: {len(names):,} {what} start with {terminal_safe(prefix)!r}; these are their first {width} "
         "characters: type more of the name to narrow them.")
    return sorted(beginnings)[:MAX_CANDIDATES]


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


def _output_stream() -> TextIO | None:
    """Where argcomplete writes the candidates (its file or fd 8), writing a name that is not UTF-8 as its own
    bytes; None where neither is open (argcomplete then quits as it would)."""
    encoding = sys.getfilesystemencoding()
    filename = os.environ.get("_ARGCOMPLETE_STDOUT_FILENAME")
    try:
        if filename is not None:
            return open(filename, "w", encoding=encoding, errors="surrogateescape")
        return os.fdopen(8, "w", encoding=encoding, errors="surrogateescape")
    except OSError:
        return None


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request and exit (argcomplete does both)."""
    import argcomplete

    class Finder(argcomplete.CompletionFinder):
        def filter_completions(self, completions: list[str]) -> list[str]:
            """argcomplete's, without its list search per candidate (quadratic in the candidates)."""
            excluded = self.exclude or ()
            return [completion for completion in dict.fromkeys(completions) if completion not in excluded]

    class AnyFiles(argcomplete.completers.BaseCompleter):
        """Options and arguments with no completer of their own: files, as :func:`any_files` lists them."""

        def __call__(self, *, prefix: str, **_: object) -> list[str]:
            return any_files(prefix)

    Finder()(add_completers(parser), output_stream=_output_stream(), default_completer=AnyFiles())


def shell_code(shell: str) -> str:
    """The hook a shell sources to complete ``iotui`` (argcomplete's own, for that shell)."""
    import argcomplete

    return argcomplete.shellcode(["iotui"], shell=shell)
