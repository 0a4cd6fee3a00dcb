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
from iotui.cli_options import RunOptions, flag
from iotui.commands import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from iotui.commands.remedy_words import print_table, skipped_sentence
from iotui.commands.run_remote import hosts_start_refusal, run_request
from iotui.core.records.files import load_record
from iotui.core.remedy.plan import REMEDY_KEY, RemedyPlan, fio_overrides, plan_remedies, scheduler_of
from iotui.core.remedy.schedulers import SchedulerChanges, SchedulerError
from iotui.core.remedy.table import device_of_sweep, remedy_rows, rows_as_dicts, verdict
from iotui.core.presets.model import Preset
from iotui.core.records.record import RunRecord
from iotui.core.runs.events import EventCallback
from iotui.core.runs.lock import RunLockHeld
from iotui.core.start import StartError, start_run
from iotui.core.sweep.plan import make_base, preset_for_point
from iotui.core.sweep.record import SweepPointState, SweepRecord, SweepRecordError
from iotui.core.sweep.runner import (
    PointFinished, PointSession, PointStarted, StartPoint, SweepPointError, SweepRunner,
)

DEFAULT_POINT_RUNTIME = "15"  # seconds of fio per remedy: enough for the level's 3 s rise and a few starts


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "remedy",
        help="run a workload as it is and under each remedy (I/O scheduler, idle class); name the one that helps",
        description="Run the workload once as it is and once under each remedy this machine offers (each other "
        "I/O scheduler of the target's disk, as root; fio's jobs in the idle I/O class), each with every "
        "responsiveness probe, then print one table and name the remedy that keeps the desktop responsive "
        f"at the least cost to fio. --runtime is per remedy (default {DEFAULT_POINT_RUNTIME} s). Every "
        "scheduler changed is put back. Exit 0 when every point completed, 130 when interrupted, 1 otherwise.",
    )
    parser.add_argument("preset", nargs="?", help="preset name or path to a preset .toml")
    add_run_options(parser)
    parser.add_argument("--allow-system-disk", action="store_true",
                        help="also change the scheduler of a disk that holds / or $HOME (often the disk that needs it)")
    parser.add_argument("--json", action="store_true", help="print the table and the verdict as JSON")
    parser.set_defaults(handler=handle)


def _print(*parts: object, json_output: bool) -> None:
    print(*parts, file=sys.stderr if json_output else sys.stdout, flush=True)


class _RestoringSession:
    """A point's session whose scheduler change is undone as soon as the point ends, however it ends."""

    def __init__(self, session: PointSession, changes: SchedulerChanges) -> None:
        self.session = session
        self.changes = changes
        self.runner = getattr(session, "runner", "no runner attribute")

    async def run(self) -> RunRecord:
        try:
            return await self.session.run()
        finally:
            self.changes.restore()

    def request_stop(self, ended_by: str = "user") -> None:
        self.session.request_stop(ended_by)


def _start_point(options: RunOptions, preset: Preset, plan: RemedyPlan, changes: SchedulerChanges,
                 runs_dir: Path) -> StartPoint:
    request = run_request(options, preset, runs_dir=runs_dir)

    async def start_point(point: SweepPointState, emit: EventCallback) -> PointSession:
        value = point.params[REMEDY_KEY]
        point_preset = preset_for_point(preset, fio_overrides(value)) if fio_overrides(value) else preset
        scheduler = scheduler_of(value)
        if scheduler is not None and plan.device is not None:
            try:
                changes.change(plan.device, scheduler)
            except (SchedulerError, OSError) as error:
                raise SweepPointError(f"the scheduler could not be set: {error}") from None
        try:
            session = await start_run(replace(request, preset=point_preset), emit)
        except StartError as error:
            changes.restore()
            raise SweepPointError(hosts_start_refusal(error)) from None
        return _RestoringSession(session, changes)

    return start_point


async def _run(options: RunOptions, allow_system_disk: bool, json_output: bool) -> int:
    if options.hosts.wanted:
        raise CommandError("iotui remedy runs on this machine only; drop --hosts.")
    if options.no_save:
        raise CommandError("A remedy run keeps its records (that is how its table is made); drop --no-save.")
    if options.runtime is None:
        options = replace(options, runtime=DEFAULT_POINT_RUNTIME)
    preset = load_preset_from_args(options)
    target = Path(options.target or ".").expanduser().resolve()
    plan = plan_remedies(target, allow_system_disk=allow_system_disk)
    for skipped in plan.skipped:
        _print(skipped_sentence(skipped), json_output=json_output)
    runs_dir = resolve_runs_dir(options.runs_dir)
    base = make_base(preset_name=options.preset, job_file=options.job_file, target=str(target),
                     runtime_s=runtime_arg(options), size=options.size, sets=parse_set_options(options.sets))
    base["remedy_device"] = plan.device.name if plan.device is not None else ""
    sweep = SweepRecord.new(preset.name, preset.title, [plan.axis], [{REMEDY_KEY: value} for value in plan.values], base)
    _print(f"Trying {len(plan.values)} ways on {target}: {', '.join(plan.values)} "
           f"({options.runtime} s of fio each, plus the baseline).", json_output=json_output)
    changes = SchedulerChanges()

    def progress(event: object) -> None:
        if isinstance(event, PointStarted):
            _print(f"[{event.number}/{event.total}] {event.point.params[REMEDY_KEY]}: running", json_output=json_output)
        elif isinstance(event, PointFinished):
            _print(f"[{event.number}/{event.total}] {event.point.params[REMEDY_KEY]}: {event.point.status}"
                   + (f" ({event.point.error})" if event.point.error else ""), json_output=json_output)

    runner = SweepRunner(sweep, start_point=_start_point(options, preset, plan, changes, runs_dir), runs_dir=runs_dir,
                         on_event=progress, force=options.force, lock_by="iotui remedy")
    loop = asyncio.get_running_loop()
    interrupted = False

    def on_signal(signum: int) -> None:
        nonlocal interrupted
        changes.restore()  # first of all: the machine as it was
        if not interrupted:
            print("\nStopping: the scheduler is back as it was; the partial records are kept.", file=sys.stderr)
        interrupted = True
        runner.request_stop(f"signal:{signal.Signals(signum).name}")

    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for signum in signals:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        sweep = await runner.run()
    except SweepRecordError as error:
        raise CommandError(str(error)) from None
    finally:
        changes.restore()
        for signum in signals:
            loop.remove_signal_handler(signum)
    show_remedy(sweep, json_output)
    if interrupted or sweep.status == "stopped":
        return EXIT_INTERRUPTED
    return EXIT_OK if all(point.status == "completed" for point in sweep.points) else EXIT_FAILED


def show_remedy(sweep: SweepRecord, json_output: bool) -> None:
    """The table and the verdict (``iotui remedy`` at its end, and ``iotui show`` of its record)."""
    rows = remedy_rows(sweep, load_record)
    found = verdict(rows, device_of_sweep(sweep))
    if json_output:
        doc = {"sweep": str(sweep.path) if sweep.path else None, "device": device_of_sweep(sweep),
               "rows": rows_as_dicts(rows), "verdict": {k: v for k, v in vars(found).items() if v is not None}}
        print(json.dumps(doc, indent=2))
        return
    print_table(rows, found, sweep)


@dataclass(frozen=True)
class RemedyOptions:
    """``iotui remedy``'s options: the run options every point shares, and its own."""

    run: RunOptions
    allow_system_disk: bool = False
    json_output: bool = False

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> RemedyOptions:
        values = vars(namespace)
        return cls(RunOptions.from_namespace(namespace), flag(values, "allow_system_disk"), flag(values, "json"))


def handle(args: argparse.Namespace) -> int:
    options = RemedyOptions.from_namespace(args)
    try:
        return asyncio.run(_run(options.run, options.allow_system_disk, options.json_output))
    except CommandError as error:
        print(f"iotui: {error}", file=sys.stderr)
        return EXIT_FAILED
    except RunLockHeld as error:
        print(f"iotui: {lock_refusal(error)}", file=sys.stderr)
        return EXIT_FAILED
