"""The options the app and the headless commands share (light: the app's start imports it)."""

from __future__ import annotations

import argparse


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
