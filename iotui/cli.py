# PYTHON_ARGCOMPLETE_OK  (argcomplete's marker: this command completes in bash, zsh and fish)
"""The ``iotui`` command: the app with no subcommand, headless subcommands otherwise."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Collection
from typing import NoReturn

from iotui import __version__
from iotui.cli_options import AppOptions, add_common_options
from iotui.commands import COMMANDS


class _NotSure(Exception):
    """The narrow parser cannot read the words as given: the full parser reads them, with its own messages."""


class _NarrowParser(argparse.ArgumentParser):
    """A parser that, instead of printing an error and exiting, hands the words to the full parser."""

    def error(self, message: str) -> NoReturn:
        raise _NotSure(message)


class _FullHelp(argparse.Action):
    """``--help`` before any subcommand: the top-level help lists every subcommand, so the full parser gives it."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: object, values: object,
                 option_string: str | None = None) -> None:
        raise _NotSure("help")


def _top_level_parser(parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> argparse.ArgumentParser:
    narrow = issubclass(parser_class, _NarrowParser)
    parser = parser_class(
        prog="iotui",
        description="A terminal console for storage benchmarking with real fio. "
        "With no subcommand, opens the app.",
        add_help=not narrow,
    )
    if narrow:
        parser.add_argument("-h", "--help", action=_FullHelp, nargs=0, default=argparse.SUPPRESS)
    parser.add_argument("--version", action="version", version=f"iotui {__version__}")
    parser.add_argument("--target", help="directory (or read-only raw device) to test; default: the current directory")
    parser.add_argument("--preset", help="preset to select in the app")
    parser.add_argument(
        "--metrics", metavar="ADDR:PORT",
        help="serve the app's live figures for Prometheus at http://ADDR:PORT/metrics (PORT alone: on 127.0.0.1)",
    )
    add_common_options(parser)
    return parser


def build_parser(
    words: Collection[str] | None = None, parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
) -> argparse.ArgumentParser:
    """The command line's parser; with ``words``, only the subcommands named among them are registered."""
    parser = _top_level_parser(parser_class)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for word, module_name in COMMANDS.items():
        if words is None or word in words:
            module = importlib.import_module(f"iotui.commands.{module_name}")
            module.register(subparsers)
    return parser


def app_arguments(argv: list[str]) -> argparse.Namespace | None:
    """The app's options when ``argv`` plainly opens the app, without importing any subcommand.

    The subcommands' modules (and the run machinery they import) would cost the app's
    first paint a third of its time; anything that is not plainly the app's own
    options (a word that names a subcommand, help, an unknown option) returns None,
    and the full parser decides, with its usual messages.
    """
    if any(word in COMMANDS or word in ("-h", "--help", "--version") for word in argv):
        return None
    args, unknown = _top_level_parser().parse_known_args(argv)
    if unknown:
        return None
    args.command = None
    return args


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """``argv`` read as the full parser reads it, importing only the subcommands it names.

    Each subcommand's module imports what it runs with (``run`` the whole run machinery, about
    0.3 s of CPU): ``iotui show`` or ``iotui history`` need none of the others'. The parser built
    with only the subcommands named among the words reads a valid command line exactly as the
    full one does, since the word argparse takes as the subcommand is then among those it knows.
    Anything it cannot read (an unknown word or option, the top-level help) goes to the full
    parser, which gives its usual message and usage.
    """
    args = app_arguments(argv)
    if args is not None:
        return args
    named = {word for word in argv if word in COMMANDS}
    if named:
        try:
            return build_parser(named, _NarrowParser).parse_args(argv)
        except _NotSure:
            pass
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    if "_ARGCOMPLETE" in os.environ:
        # The shell asks for completions: only then is argcomplete imported (it exits when done).
        from iotui.completion import complete

        complete(build_parser())
    words = sys.argv[1:] if argv is None else list(argv)
    from iotui.commands.remedy_restore import restore_schedulers_left_behind

    restore_schedulers_left_behind()  # a remedy killed with SIGKILL left a scheduler changed
    args = parse_arguments(words)
    handler = vars(args).get("handler")  # each subcommand sets its own (set_defaults); the app has none
    if not callable(handler):
        from iotui.commands.app import run_app

        return run_app(AppOptions.from_namespace(args))
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
