"""The ``iotui`` command: the app with no subcommand, headless subcommands otherwise."""

from __future__ import annotations

import argparse
import importlib
import sys

from iotui import __version__
from iotui.cli_common import add_common_options
from iotui.commands import COMMAND_MODULES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iotui",
        description="A terminal console for storage benchmarking with real fio. "
        "With no subcommand, opens the app.",
    )
    parser.add_argument("--version", action="version", version=f"iotui {__version__}")
    parser.add_argument("--target", help="directory (or read-only raw device) to test; default: the current directory")
    parser.add_argument("--preset", help="preset to select in the app")
    add_common_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(f"iotui.commands.{module_name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        from iotui.commands.app import run_app

        return run_app(args)
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
