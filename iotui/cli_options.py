"""The command line's options, typed: parsers add them, each command reads them once at its entry.

Light on purpose (argparse and dataclasses only): the app's start imports it. A command turns
argparse's Namespace into one of the frozen option objects below as it starts and hands that
object to its helpers, so no helper guesses at a Namespace's attributes (``--runs-dir`` given
before the subcommand, an option a subcommand does not have) and mypy checks every read.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field


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


def text(values: Mapping[str, object], name: str) -> str | None:
    """An option's words as given, None when not given."""
    value = values.get(name)
    return None if value is None else str(value)


def texts(values: Mapping[str, object], name: str) -> tuple[str, ...]:
    """A repeatable option's words (``action="append"``), in the order given."""
    value = values.get(name)
    if isinstance(value, (list, tuple)):
        return tuple(str(item) for item in value)
    return ()


def flag(values: Mapping[str, object], name: str) -> bool:
    return bool(values.get(name, False))


def whole_number(values: Mapping[str, object], name: str) -> int | None:
    """A ``type=int`` option, None when not given."""
    value = values.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def count(values: Mapping[str, object], name: str, default: int) -> int:
    """A ``type=int`` option with a default (``--repeat``, ``--port``)."""
    found = whole_number(values, name)
    return default if found is None else found


def seconds(values: Mapping[str, object], name: str, default: float) -> float:
    """A number of seconds (``type=float``); a negative one counts as none."""
    value = values.get(name, default)
    return max(0.0, float(value)) if isinstance(value, (int, float)) else 0.0


@dataclass(frozen=True)
class AppOptions:
    """What the app opens with: ``iotui [--target DIR] [--preset NAME] [--runs-dir DIR] [--fio PATH]``."""

    target: str | None = None
    preset: str | None = None
    runs_dir: str | None = None
    fio: str | None = None
    metrics: str | None = None
    """``--metrics ADDR:PORT``: serve each run's live figures for Prometheus."""

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> AppOptions:
        values = vars(namespace)
        return cls(
            target=text(values, "target"), preset=text(values, "preset"),
            runs_dir=text(values, "runs_dir"), fio=text(values, "fio"), metrics=text(values, "metrics"),
        )


@dataclass(frozen=True)
class HostOptions:
    """Many hosts over ssh (``--hosts``, ``--hosts-file``, ``--min-hosts``, ``--no-host-probes``, ``--ssh``)."""

    hosts: str | None = None
    hosts_file: str | None = None
    min_hosts: int | None = None
    host_probes: bool = True
    ssh: str | None = None

    @property
    def wanted(self) -> bool:
        """Whether the run goes to hosts over ssh rather than to this machine."""
        return bool(self.hosts or self.hosts_file)

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> HostOptions:
        values = vars(namespace)
        return cls(
            hosts=text(values, "hosts"), hosts_file=text(values, "hosts_file"),
            min_hosts=whole_number(values, "min_hosts"), host_probes=not flag(values, "no_host_probes"),
            ssh=text(values, "ssh"),
        )


@dataclass(frozen=True)
class RunOptions:
    """The options of ``iotui run`` that sweeps share: what to run, where, and how."""

    preset: str | None = None
    job_file: str | None = None
    target: str | None = None
    runtime: str | None = None
    """``--runtime`` as written (10, 10s, 2m); read by the option editor's own function."""
    size: str | None = None
    sets: tuple[str, ...] = ()
    """Each ``--set KEY=VALUE`` as written, in order."""
    no_save: bool = False
    allow_cache: bool = False
    force: bool = False
    baseline_s: float = 2.0
    runs_dir: str | None = None
    fio: str | None = None
    hosts: HostOptions = field(default_factory=HostOptions)
    lock_by: str = "iotui run"
    """Who holds the machine's run lock, as another run's refusal names it."""

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> RunOptions:
        values = vars(namespace)
        return cls(
            preset=text(values, "preset"), job_file=text(values, "job_file"), target=text(values, "target"),
            runtime=text(values, "runtime"), size=text(values, "size"), sets=texts(values, "set"),
            no_save=flag(values, "no_save"), allow_cache=flag(values, "allow_cache"), force=flag(values, "force"),
            baseline_s=seconds(values, "baseline", 2.0), runs_dir=text(values, "runs_dir"), fio=text(values, "fio"),
            hosts=HostOptions.from_namespace(namespace),
        )


def add_wide_option(parser: argparse.ArgumentParser) -> None:
    """``--wide``: print every column in full, whatever the terminal's width."""
    parser.add_argument("--wide", action="store_true", help="print every column in full, however wide the terminal")


def output_width(values: Mapping[str, object]) -> int | None:
    """The width tables are fitted to: ``$COLUMNS``, else the terminal's when stdout is one; None (every
    column in full) with ``--wide`` or when stdout is a pipe or file and ``$COLUMNS`` is not set."""
    if flag(values, "wide"):
        return None
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns if sys.stdout.isatty() else None
    except (OSError, ValueError, AttributeError):
        return None


def add_live_options(parser: argparse.ArgumentParser, what: str) -> None:
    """``--json-stream`` and ``--metrics`` on a command that runs fio (commands/stream_out.py serves them)."""
    parser.add_argument(
        "--json-stream", action="store_true",
        help=f"write {what} as it happens, one JSON object a line, on standard output (docs/stream.md)",
    )
    parser.add_argument(
        "--metrics", metavar="ADDR:PORT",
        help="serve the live figures for Prometheus at http://ADDR:PORT/metrics (PORT alone: on 127.0.0.1)",
    )
