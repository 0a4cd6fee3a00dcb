"""The ``iotui`` command: the app with no subcommand, headless subcommands otherwise."""

from __future__ import annotations

import argparse
import importlib
import sys

from iotui import __version__
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


def add_common_options(parser: argparse.ArgumentParser, *, subcommand: bool = False) -> None:
    """Options the app and the headless commands share.

    On a subcommand the defaults are suppressed, so ``iotui --runs-dir X run``
    and ``iotui run --runs-dir X`` both work: a subparser's default would
    otherwise overwrite the value given before the subcommand.
    """
    default = argparse.SUPPRESS if subcommand else None
    parser.add_argument(
        "--runs-dir",
        default=default,
        help="where run records are saved (default: $IOTUI_RUNS_DIR or ~/.local/share/iotui/runs)",
    )
    parser.add_argument("--fio", default=default, help="the fio binary (default: $IOTUI_FIO or fio on PATH)")


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
