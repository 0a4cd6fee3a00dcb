"""``iotui remedy``: the same workload as it is and under each remedy this machine offers.

Each point is a normal run record with every probe (start-up included); together they are one
sweep record whose one axis is ``remedy`` (``as-is``, ``scheduler=NAME``, ``prioclass=3``).
A scheduler is changed only on the disk under the target, only as root, never on the disk that
holds ``/`` or ``$HOME`` without ``--allow-system-disk``, and always put back: after each point,
on SIGINT/SIGTERM/SIGHUP, and after a SIGKILL at the next iotui command
(:mod:`iotui.core.remedy.schedulers`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from iotui.cli_common import (
    CommandError,
    add_run_options,
    load_preset_from_args,
    lock_refusal,
    parse_set_options,
    resolve_runs_dir,
    runtime_arg,
)
from iotui.cli_options import RunOptions, add_wide_option, flag, output_width
from iotui.commands import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from iotui.commands.remedy_words import print_table, skipped_sentence
from iotui.core.table import wrap
from iotui.commands.run_remote import hosts_start_refusal, run_request
from iotui.core.records.files import load_record
from iotui.core.remedy.plan import REMEDY_KEY, plan_remedies
from iotui.core.remedy.run import DEFAULT_POINT_RUNTIME, RemedyRun, RemedyWorkload
from iotui.core.remedy.table import device_of_sweep, remedy_rows, rows_as_dicts, sweep_verdict
from iotui.core.runs.lock import RunLockHeld
from iotui.core.sweep.record import SweepRecord, SweepRecordError
from iotui.core.sweep.runner import (
    PointFinished, PointStarted,
)



def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "remedy",
        help="run a workload as it is and under each remedy (I/O scheduler, idle class, cgroup weight); name the one that helps",
        description="Run the workload once as it is and once under each remedy this machine offers (each other "
        "I/O scheduler of the target's disk, as root; fio's jobs in the idle I/O class; fio in a private cgroup of "
        "a low I/O weight, as root), each with every "
        "responsiveness probe, then print one table and name the remedy that keeps the desktop responsive "
        f"at the least cost to fio. --runtime is per remedy (default {DEFAULT_POINT_RUNTIME} s). Every "
        "scheduler changed is put back and the cgroup removed. Exit 0 when every point completed, 130 when interrupted, 1 otherwise.",
    )
    parser.add_argument("preset", nargs="?", help="preset name or path to a preset .toml")
    add_run_options(parser)
    parser.add_argument("--allow-system-disk", action="store_true",
                        help="also change the scheduler of a disk that holds / or $HOME (often the disk that needs it)")
    parser.add_argument("--json", action="store_true", help="print the table and the verdict as JSON")
    add_wide_option(parser)
    parser.set_defaults(handler=handle)


def _print(text: str, *, json_output: bool, width: int | None = None) -> None:
    """A line of progress (on stderr when stdout carries JSON), wrapped between words to ``width``."""
    for line in wrap(text, width):
        print(line, file=sys.stderr if json_output else sys.stdout, flush=True)


async def _run(options: RunOptions, allow_system_disk: bool, json_output: bool, width: int | None = None) -> int:
    if options.hosts.wanted:
        raise CommandError("iotui remedy runs on this machine only; drop --hosts.")
    if options.no_save:
        raise CommandError("A remedy run keeps its records (that is how its table is made); drop --no-save.")
    if options.runtime is None:
        options = replace(options, runtime=DEFAULT_POINT_RUNTIME)
    preset = load_preset_from_args(options)
    target = Path(options.target or ".").expanduser().resolve()
    runs_dir = resolve_runs_dir(options.runs_dir)
    workload = RemedyWorkload(preset, target, runs_dir, runtime_arg(options) or float(DEFAULT_POINT_RUNTIME), preset_name=options.preset,
                              job_file=options.job_file, size=options.size, sets=parse_set_options(options.sets),
                              allow_system_disk=allow_system_disk)
    plan = plan_remedies(target, allow_system_disk=allow_system_disk)
    for skipped in plan.skipped:
        _print(skipped_sentence(skipped), json_output=json_output, width=width)
    _print(f"Trying {len(plan.values)} ways on {target}: {', '.join(plan.values)} "
           f"({options.runtime} s of fio each, plus the baseline).", json_output=json_output, width=width)

    def progress(event: object) -> None:
        if isinstance(event, PointStarted):
            _print(f"[{event.number}/{event.total}] {event.point.params[REMEDY_KEY]}: running", json_output=json_output)
        elif isinstance(event, PointFinished):
            _print(f"[{event.number}/{event.total}] {event.point.params[REMEDY_KEY]}: {event.point.status}"
                   + (f" ({event.point.error})" if event.point.error else ""), json_output=json_output, width=width)

    remedy = RemedyRun(workload, run_request(options, preset, runs_dir=runs_dir), on_event=progress,
                       word=hosts_start_refusal, force=options.force, plan=plan)
    loop = asyncio.get_running_loop()
    interrupted = False

    def on_signal(signum: int) -> None:
        nonlocal interrupted
        remedy.undo.all()  # first of all: the machine as it was
        if not interrupted:
            print("\nStopping: the scheduler is back as it was and iotui's cgroup is removed; the partial records "
                  "are kept.", file=sys.stderr)
        interrupted = True
        remedy.stop(f"signal:{signal.Signals(signum).name}")

    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for signum in signals:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        sweep = await remedy.run()
    except SweepRecordError as error:
        raise CommandError(str(error)) from None
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
    show_remedy(sweep, json_output, width)
    if interrupted or sweep.status == "stopped":
        return EXIT_INTERRUPTED
    return EXIT_OK if all(point.status == "completed" for point in sweep.points) else EXIT_FAILED


def show_remedy(sweep: SweepRecord, json_output: bool, width: int | None = None) -> None:
    """The table and the verdict (``iotui remedy`` at its end, and ``iotui show`` of its record), the table
    fitted to ``width`` (None: every column in full)."""
    rows = remedy_rows(sweep, load_record)
    found = sweep_verdict(sweep, rows)
    if json_output:
        doc = {"sweep": str(sweep.path) if sweep.path else None, "device": device_of_sweep(sweep),
               "rows": rows_as_dicts(rows), "verdict": {k: v for k, v in vars(found).items() if v is not None}}
        print(json.dumps(doc, indent=2))
        return
    print_table(rows, found, sweep, width)


@dataclass(frozen=True)
class RemedyOptions:
    """``iotui remedy``'s options: the run options every point shares, and its own."""

    run: RunOptions
    allow_system_disk: bool = False
    json_output: bool = False
    width: int | None = None
    """The table's width: the terminal's, ``$COLUMNS``, or None (every column) with ``--wide`` or a pipe."""

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> RemedyOptions:
        values = vars(namespace)
        return cls(RunOptions.from_namespace(namespace), flag(values, "allow_system_disk"), flag(values, "json"),
                   output_width(values))


def handle(args: argparse.Namespace) -> int:
    options = RemedyOptions.from_namespace(args)
    try:
        return asyncio.run(_run(options.run, options.allow_system_disk, options.json_output, options.width))
    except CommandError as error:
        print(f"iotui: {error}", file=sys.stderr)
        return EXIT_FAILED
    except RunLockHeld as error:
        print(f"iotui: {lock_refusal(error)}", file=sys.stderr)
        return EXIT_FAILED
