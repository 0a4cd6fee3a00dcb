# PYTHON_ARGCOMPLETE_OK  (argcomplete's marker: this command completes in bash, zsh and fish)
"""The ``iotui`` command: the app with no subcommand, headless subcommands otherwise."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from iotui import __version__
from iotui.cli_options import AppOptions, add_common_options
from iotui.commands import COMMAND_MODULES


def _top_level_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iotui",
        description="A terminal console for storage benchmarking with real fio. "
        "With no subcommand, opens the app.",
    )
    parser.add_argument("--version", action="version", version=f"iotui {__version__}")
    parser.add_argument("--target", help="directory (or read-only raw device) to test; default: the current directory")
    parser.add_argument("--preset", help="preset to select in the app")
    parser.add_argument(
        "--metrics", metavar="ADDR:PORT",
        help="serve the app's live figures for Prometheus at http://ADDR:PORT/metrics (PORT alone: on 127.0.0.1)",
    )
    add_common_options(parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = _top_level_parser()
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
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
    if any(word in COMMAND_MODULES or word in ("-h", "--help", "--version") for word in argv):
        return None
    args, unknown = _top_level_parser().parse_known_args(argv)
    if unknown:
        return None
    args.command = None
    return args


def main(argv: list[str] | None = None) -> int:
    if "_ARGCOMPLETE" in os.environ:
        # The shell asks for completions: only then is argcomplete imported (it exits when done).
        from iotui.completion import complete

        complete(build_parser())
    words = sys.argv[1:] if argv is None else list(argv)
    from iotui.commands.remedy_restore import restore_schedulers_left_behind

    restore_schedulers_left_behind()  # a remedy killed with SIGKILL left a scheduler changed
    args = app_arguments(words)
    if args is None:
        args = build_parser().parse_args(words)
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
