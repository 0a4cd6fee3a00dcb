"""``iotui run``: one fio run, headless, one line per interval, then a summary."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iotui.core.host.counters import HostSample
from iotui.core import format as fmt
from iotui.cli_common import (
    CommandError,
    add_run_options,
    load_preset_from_args,
    lock_refusal,
    make_session,
    resolve_runs_dir,
)
from iotui.core.runs.lock import RunLockHeld
from iotui.core.records.record import RunRecord
from iotui.core.compare.repeat import new_repeat_group, repeat_keys, spreads
from iotui.core.runs.events import HostUpdate, IntervalUpdate, LogLine, RunFinished
from iotui.commands import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, STREAM_CLOSED
from iotui.commands.run_remote import run_remote
from iotui.cli_options import RunOptions, add_live_options, add_wide_option, count, flag, output_width
from iotui.commands.run_summary import print_summary
from iotui.core.table import wrap
from iotui.cli_options import text
from iotui.core.presets.model import Preset

if TYPE_CHECKING:
    from iotui.commands.stream_out import JsonStreamOut


@dataclass(frozen=True)
class RunCommandOptions:
    """``iotui run``'s options: the run's own, and how this command reports it."""

    run: RunOptions
    json_output: bool = False
    repeat: int = 1
    width: int | None = None
    """The width the summary is fitted to (None: every column in full)."""
    json_stream: bool = False
    metrics: str | None = None

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> RunCommandOptions:
        values = vars(namespace)
        return cls(
            run=RunOptions.from_namespace(namespace), json_output=flag(values, "json"),
            repeat=count(values, "repeat", 1), width=output_width(values), json_stream=flag(values, "json_stream"),
            metrics=text(values, "metrics"),
        )

    @property
    def quiet(self) -> bool:
        """Whether standard output is for JSON (the human lines go to standard error)."""
        return self.json_output or self.json_stream


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a preset or a fio job file headless and save a record",
        description="Run a preset (or --job-file) with real fio, print one line per interval, "
        "save a run record. Exit 0 when completed, 130 when interrupted, 1 on failure.",
    )
    parser.add_argument("preset", nargs="?", help="preset name or path to a preset .toml")
    add_run_options(parser)
    parser.add_argument("--json", action="store_true", help="print the record as JSON at the end")
    add_live_options(parser, "the run")
    parser.add_argument(
        "--repeat", type=int, default=1, metavar="N",
        help="run N times in a row and report the spread between the runs (records share run.repeat_group)",
    )
    add_wide_option(parser)
    parser.set_defaults(handler=handle)


class LinePrinter:
    """Prints the live lines; the record is built by the session."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.printed_header = False
        self.latest_host: HostSample | None = None

    def __call__(self, event: object) -> None:
        out = sys.stderr if self.quiet else sys.stdout
        if isinstance(event, HostUpdate):
            self.latest_host = event.host
            return
        if isinstance(event, LogLine):
            print(event.text, file=sys.stderr)
            return
        if isinstance(event, IntervalUpdate):
            if not self.printed_header:
                print(f"{'time':>7} {'dir':5} {'IOPS':>8} {'bandwidth':>11} {'p99':>9} {'cpu usr/sys/io':>16} {'ctx/s':>7}", file=out)
                self.printed_header = True
            host = event.host
            cpu = "-"
            ctx = "-"
            if host is not None:
                cpu = "/".join(
                    f"{value:.0f}" if value is not None else "-"
                    for value in (host.cpu_user_pct, host.cpu_system_pct, host.cpu_iowait_pct)
                ) + "%"
                ctx = fmt.rate(host.ctx_switches_per_s)
            for direction, figures in event.interval.directions.items():
                print(
                    f"{event.interval.t_s:>6.1f}s {direction:5} {fmt.iops(figures.iops):>8} "
                    f"{fmt.bytes_per_s(figures.bw_bytes):>11} "
                    f"{fmt.latency_ns(figures.lat_percentiles_ns.get('p99')):>9} {cpu:>16} {ctx:>7}",
                    file=out,
                    flush=True,
                )


async def _run_once(
    options: RunCommandOptions, preset: Preset, run_keys: Mapping[str, object], stream: JsonStreamOut | None = None,
) -> tuple[RunRecord, int]:
    """One run; the record and the exit code it alone would give (``stream``: its lines and metrics)."""
    printer = LinePrinter(quiet=options.quiet)
    finished: list[RunFinished] = []

    def on_event(event: object) -> None:
        if isinstance(event, RunFinished):
            finished.append(event)
        printer(event)
        if stream is not None:
            stream(event)

    runs_dir = None if options.run.no_save else resolve_runs_dir(options.run.runs_dir)
    session = await make_session(options.run, preset, runs_dir=runs_dir, on_event=on_event)
    session.run_keys = dict(run_keys)
    if stream is not None:
        stream.begin(stream.translator.run_start(session), lambda: session.request_stop(STREAM_CLOSED))
    loop = asyncio.get_running_loop()
    interrupted = False

    def on_signal(signum: int) -> None:
        nonlocal interrupted
        if not interrupted:
            print("\nStopping fio (the partial record is kept)...", file=sys.stderr)
        interrupted = True
        session.request_stop(f"signal:{signal.Signals(signum).name}")

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        record = await session.run()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(signum)
    saved = finished[-1].saved_path if finished else None
    error = finished[-1].error if finished else None
    if finished and finished[-1].refused:
        # fio refused its options before any job started: its sentence alone, no summary of nothing.
        print(f"iotui: {error}", file=sys.stderr)
        return record, EXIT_FAILED
    out = sys.stderr if options.quiet else sys.stdout
    print_summary(record, saved, out, options.width)
    if error:
        print(f"iotui: {error}", file=sys.stderr)
    if record.status == "stopped" or interrupted:
        return record, EXIT_INTERRUPTED
    if record.status == "completed" and not (error and saved is None and runs_dir is not None):
        return record, EXIT_OK
    return record, EXIT_FAILED


async def _run(options: RunCommandOptions) -> int:
    preset = load_preset_from_args(options.run)
    if options.json_stream and options.json_output:
        raise CommandError("--json-stream and --json both write on standard output; keep one.")
    if options.json_stream and options.repeat != 1:
        raise CommandError("--json-stream streams one run; drop --repeat (or run the repeats one by one).")
    if options.run.hosts.wanted:
        if options.repeat != 1:
            raise CommandError("--repeat runs on this machine only; drop --repeat or the hosts.")
        runs_dir = None if options.run.no_save else resolve_runs_dir(options.run.runs_dir)
        with _live_out(options) as stream:
            return await run_remote(options.run, preset, runs_dir, json_output=options.json_output, stream=stream,
                                    width=options.width)
    if options.repeat < 1:
        raise CommandError(f"--repeat should be a whole number of at least 1, found {options.repeat}.")
    if options.repeat == 1:
        with _live_out(options) as stream:
            record, code = await _run_once(options, preset, {}, stream)
        if options.json_output:
            print(json.dumps(record.to_json_dict(), indent=2))
        return code
    group = new_repeat_group()
    records: list[RunRecord] = []
    code = EXIT_OK
    out = sys.stderr if options.json_output else sys.stdout
    for index in range(1, options.repeat + 1):
        print(f"\nRun {index} of {options.repeat} (repeat group {group[:8]})", file=out, flush=True)
        record, code = await _run_once(options, preset, repeat_keys(group, index))
        records.append(record)
        if code != EXIT_OK:
            print(f"iotui: run {index} of {options.repeat} did not complete; no more repeats.", file=sys.stderr)
            break
    completed = [record for record in records if record.status == "completed"]
    found = spreads(completed)
    if len(completed) >= 2:
        print(f"\nSpread over {len(completed)} runs (standard deviation, and its share of the mean):", file=out)
        for spread in found:
            print("\n".join(wrap(spread.sentence(), options.width, "    ", "  ")), file=out)
    if options.json_output:
        print(json.dumps({
            "repeat_group": group,
            "runs": [record.to_json_dict() for record in records],
            "spread": [spread.to_json() for spread in found] if len(completed) >= 2 else [],
        }, indent=2))
    return code


@contextlib.contextmanager
def _live_out(options: RunCommandOptions) -> Iterator[JsonStreamOut | None]:
    """The stream's outputs ``--json-stream`` and ``--metrics`` ask for (None: neither), closed after the run."""
    if not (options.json_stream or options.metrics):
        yield None
        return
    # Only a run that streams loads the stream's machinery (its translator brings the sweep's).
    from iotui.commands.stream_out import JsonStreamOut, open_metrics

    stream = JsonStreamOut(write_json=options.json_stream, metrics=open_metrics(options.metrics))
    try:
        yield stream
    finally:
        stream.close()


def handle(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(RunCommandOptions.from_namespace(args)))
    except CommandError as error:
        print(f"iotui: {error}", file=sys.stderr)
        return EXIT_FAILED
    except RunLockHeld as error:
        print(f"iotui: {lock_refusal(error)}", file=sys.stderr)
        return EXIT_FAILED
