"""Options and set-up shared by ``iotui run``, ``iotui sweep`` and the app."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

# Kept in a light module of its own: the app's start reads these options without this module's imports.
from iotui.cli_options import RunOptions, add_common_options
from iotui.core.fio.policy import PolicyError
from iotui.core.fio.runner import FioNotFoundError
from iotui.core.presets.job_file import load_job_file
from iotui.core.runs.lock import RunLockHeld
from iotui.core.presets.overrides import with_overrides
from iotui.core.runs.paths import default_runs_dir
from iotui.core.presets.files import find_preset, load_preset_file
from iotui.core.presets.model import Preset, PresetError
from iotui.core.runs.events import EventCallback
from iotui.core.runs.session import RunSession
from iotui.core.start import StartError, StartRequest, start_fio_run


class CommandError(Exception):
    """A failure to report as one sentence, exit code 1."""


def parse_set_options(pairs: Sequence[str] | None) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs or []:
        key, separator, value = pair.partition("=")
        key = key.strip().lstrip("-")
        if not key:
            raise CommandError(f"--set {pair!r} should look like KEY=VALUE (for example --set bs=64k).")
        options[key] = value.strip() if separator else ""
    return options


def add_run_options(parser: argparse.ArgumentParser, *, target: bool = True) -> None:
    """The options of ``iotui run`` (sweeps reuse them)."""
    parser.add_argument("--job-file", help="run an existing fio job file through the same model")
    if target:
        parser.add_argument("--target", help="directory to test (default: the current directory)")
    parser.add_argument("--runtime", help="seconds per job section (10, 10s, 2m)")
    parser.add_argument("--size", help="test file size (fio syntax, e.g. 1G)")
    parser.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="set any fio option (repeatable)"
    )
    parser.add_argument("--no-save", action="store_true", help="do not save a run record")
    parser.add_argument(
        "--allow-cache", action="store_true", help="allow tmpfs/ramfs targets (the results measure memory)"
    )
    parser.add_argument(
        "--force", action="store_true",
        help="run even while another run holds this machine (both records say so: run.forced)",
    )
    parser.add_argument(
        "--baseline", type=float, default=2.0, metavar="SECONDS",
        help="seconds of responsiveness baseline before fio starts (default 2)",
    )
    add_host_options(parser)
    add_common_options(parser, subcommand=True)


def add_host_options(parser: argparse.ArgumentParser) -> None:
    """Many hosts over ssh (docs/multi-host.md)."""
    parser.add_argument("--hosts", metavar="H1,H2", help="run on these ssh destinations at once ([user@]host, comma-separated)")
    parser.add_argument("--hosts-file", metavar="FILE", help="run on the ssh destinations in FILE (one a line)")
    parser.add_argument(
        "--min-hosts", type=int, metavar="N",
        help="start once at least N hosts pass the pre-flight check, leaving the others out (default: all hosts)",
    )
    parser.add_argument(
        "--no-host-probes", action="store_true",
        help="with --hosts: do not run the wake-up and I/O probes on the hosts (each host's responsiveness is then not measured)",
    )
    parser.add_argument(
        "--ssh", metavar="CMD", help="the ssh command, split like a shell (default: $IOTUI_SSH or ssh); BatchMode=yes is always added"
    )


# How the command line names each change of with_overrides in its sentences.
OVERRIDE_FLAGS = {
    "runtime": "--runtime", "size": "--size", "bs": "--bs", "iodepth": "--iodepth", "numjobs": "--numjobs",
    "direct": "--direct", "set": "--set",
}


def load_preset_from_args(options: RunOptions) -> Preset:
    """The preset (or job file) the options name, with ``--runtime``, ``--size`` and ``--set`` applied."""
    job_file = options.job_file
    preset_name = options.preset
    try:
        if job_file and preset_name:
            raise CommandError("Give either a preset or --job-file, not both.")
        if job_file:
            preset = load_job_file(Path(job_file))
        elif preset_name:
            if preset_name.endswith(".toml") or os.sep in preset_name:
                preset = load_preset_file(Path(preset_name))
            else:
                preset = find_preset(preset_name)
        else:
            raise CommandError("Name a preset (see 'iotui presets') or give --job-file FILE.fio.")
        return with_overrides(
            preset,
            runtime_s=runtime_arg(options),
            size=options.size,
            sets=parse_set_options(options.sets),
            names=OVERRIDE_FLAGS,
        )
    except (PresetError, PolicyError) as error:
        raise CommandError(str(error)) from None


def runtime_arg(options: RunOptions) -> float | None:
    """``--runtime`` in seconds, checked by the app's option editor's own function (None when not given)."""
    from iotui.core.fio.values import runtime_problem, runtime_seconds

    runtime = options.runtime
    if runtime is None:
        return None
    problem = runtime_problem(runtime)
    if problem:
        raise CommandError(f"--runtime {problem}.")
    return runtime_seconds(runtime)


def resolve_runs_dir(runs_dir: str | None) -> Path:
    """``--runs-dir`` when given (before or after the subcommand), else the default."""
    return Path(runs_dir).expanduser() if runs_dir else default_runs_dir()


# What to do about a refused target or run, in the command line's terms (the core's TargetError,
# PlanError and RemoteError say what happened and carry these codes; the app has its own words).
TARGET_ADVICE = {
    "target-missing": "Give an existing directory with --target.",
    "target-memory": "Choose a directory on a disk, or pass --allow-cache to measure memory anyway.",
    "target-read-only": "Choose a directory you can write to with --target.",
    "target-space": "Use --size to make the test file smaller, free some space, or choose another target.",
    "size-unknown": "Give the run a size with --size.",
}


def start_refusal(error: StartError) -> str:
    """The core's sentence, with what to do in the command line's terms where it has its own."""
    if error.code == "fio-missing":
        if isinstance(error.cause, FioNotFoundError) and error.cause.given:
            return str(error)  # the path given with --fio is the one that is not fio
        return f"{error} The command line also takes it as --fio PATH."
    if error.code == "refused" and error.key in TARGET_ADVICE:
        return f"{error} {TARGET_ADVICE[error.key]}"
    if error.code == "runs-dir":
        return f"{error} Choose another with --runs-dir (or run with --no-save)."
    if error.code == "sysbench-hosts":
        return "sysbench points run on this machine only; drop --hosts for them."
    return str(error)


def start_request(
    options: RunOptions, preset: Preset, *, runs_dir: Path | None, target: str | None = None
) -> StartRequest:
    """The command line's options as the core's typed request."""
    return StartRequest(
        preset=preset,
        target=target if target is not None else options.target,
        runs_dir=runs_dir,
        fio=options.fio,
        allow_cache=options.allow_cache,
        baseline_s=options.baseline_s,
        force=options.force,
        lock_by=options.lock_by,
    )


def lock_refusal(error: RunLockHeld) -> str:
    """The sentence the command line prints when another run holds the machine."""
    return (
        f"Another run is in progress on this machine: {error.holder.describe()}. "
        "Wait for it to end, or add --force to run anyway (both records will say so)."
    )


async def make_session(
    options: RunOptions,
    preset: Preset,
    *,
    runs_dir: Path | None,
    on_event: EventCallback,
    target: str | None = None,
) -> RunSession:
    """Plan the run on this machine and build its session (the core's one entry), errors as CommandError."""
    try:
        return await start_fio_run(start_request(options, preset, runs_dir=runs_dir, target=target), on_event)
    except StartError as error:
        raise CommandError(start_refusal(error)) from None
