"""``iotui sweep``: run a preset over every combination of varied values, then analyse.

Headless and without prompts: it prints the number of points, the estimated
time and the disk space first, refuses when the space is not there, then runs
the points one after another (one line each), and ends with a table and the
sweet spot, the balanced point and, for several keys, the ranking. Ctrl-C
stops the current point (its partial record is kept), saves the sweep record
and exits 130; the same command with ``--resume`` goes on where it stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

from iotui.core import format as fmt
from iotui.cli_common import (
    CommandError,
    add_run_options,
    load_preset_from_args,
    lock_refusal,
    parse_set_options,
    runtime_arg,
    resolve_runs_dir,
)
from iotui.core.runs.lock import RunLockHeld
from iotui.core.sweep.output import sweep_json, sweep_markdown, sweep_text
from iotui.core.sweep.plan import CONFIRM_POINTS, SweepPlanError, describe_estimate, make_base
from iotui.core.sweep.prepare import SweepPreparation, fresh_sweep_record, point_starter, prepare_sweep
from iotui.core.sweep.analysis import analyze
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.slo import Slo, SloError, parse_slo
from iotui.core.sweep.record import SweepPointState, SweepRecord, SweepRecordError, find_resumable
from iotui.core.sweep.runner import PointFinished, PointStarted, SweepRunner
from iotui.core.runs.events import LogLine
from iotui.commands.run_remote import hosts_start_refusal, run_request
from iotui.commands.stream_out import JsonStreamOut, open_metrics
from iotui.core.sysbench.session import find_sysbench
from iotui.commands import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, STREAM_CLOSED
from iotui.cli_options import RunOptions, add_live_options, add_wide_option, flag, output_width, text, texts
from iotui.core.table import wrap

OutputFormat = Literal["text", "markdown", "json"]


@dataclass(frozen=True)
class SweepOptions:
    """``iotui sweep``'s options: the run options every point shares, and the sweep's own."""

    run: RunOptions
    vary: tuple[str, ...] = ()
    targets: str | None = None
    resume: bool = False
    output_format: OutputFormat = "text"
    dry_run: bool = False
    slo: str | None = None
    yes: bool = False
    width: int | None = None
    """The width the table and the progress lines are fitted to (None: every column in full)."""
    json_stream: bool = False
    metrics: str | None = None

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> SweepOptions:
        values = vars(namespace)
        chosen = text(values, "format")
        output_format: OutputFormat = "json" if chosen == "json" else "markdown" if chosen == "markdown" else "text"
        return cls(
            run=RunOptions.from_namespace(namespace), vary=texts(values, "vary"), targets=text(values, "targets"),
            resume=flag(values, "resume"), output_format=output_format, dry_run=flag(values, "dry_run"),
            slo=text(values, "slo"), yes=flag(values, "yes"), width=output_width(values),
            json_stream=flag(values, "json_stream"), metrics=text(values, "metrics"),
        )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sweep",
        help="run a preset over several values of fio options (or targets) and find the sweet spot",
        description="Run the cartesian product of --vary values (and --targets), each point a normal "
        "run record, plus a sweep record; then print the table, the sweet spot, the balanced point "
        "and, for several keys, each value's average placing. Without --vary, the preset's [sweep] "
        "defaults are used. Exit 0 when every point completed, 130 when interrupted, 1 otherwise.",
    )
    parser.add_argument("preset", nargs="?", help="preset name or path to a preset .toml")
    add_run_options(parser)
    parser.add_argument(
        "--vary", action="append", metavar="KEY=V1,V2", default=[],
        help="a fio option and the values to try (repeatable; 'tool=fio,sysbench' runs sysbench too)",
    )
    parser.add_argument("--targets", metavar="DIR1,DIR2", help="run every point in each directory (one more varied key)")
    parser.add_argument("--resume", action="store_true", help="go on with the unfinished sweep made by the same command")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="how to print the results")
    parser.add_argument("--dry-run", action="store_true", help="print the points and the estimate, run nothing")
    parser.add_argument(
        "--slo", metavar="TARGET",
        help='a latency target such as "read p99<=1ms" (read/write/trim; p50, p90, p99, p99.9 or mean): '
        "names the point with the most IOPS that meets it",
    )
    add_live_options(parser, "every point's seconds and results")
    parser.add_argument(
        "--yes", action="store_true",
        help=f"run a sweep of more than {CONFIRM_POINTS:,} points without asking",
    )
    add_wide_option(parser)
    parser.set_defaults(handler=handle)


class ProgressPrinter:
    """One line per point; warnings once each. Goes to stderr when stdout carries JSON."""

    def __init__(self, out: TextIO, width: int | None = None) -> None:
        self.out = out
        self.width = width
        self.seen_messages: set[str] = set()

    def _print(self, line: str) -> None:
        print("\n".join(wrap(line, self.width, "    ", "")), file=self.out, flush=True)

    def __call__(self, event: object) -> None:
        if isinstance(event, PointStarted):
            left = f", about {fmt.duration_s(event.time_left_s)} left" if event.time_left_s is not None else ""
            self._print(f"[{event.number}/{event.total}] {_params(event.point.params)}: running{left}")
        elif isinstance(event, PointFinished):
            self._print(f"[{event.number}/{event.total}] {_params(event.point.params)}: {_outcome(event.point)}")
        elif isinstance(event, LogLine) and event.source in ("iotui", "stderr"):
            text = event.text if event.source == "iotui" else f"fio: {event.text}"
            if text not in self.seen_messages:
                self.seen_messages.add(text)
                print(f"  {text}", file=sys.stderr, flush=True)


def worded(error: SweepPlanError) -> str:
    """The core's sentence in the command line's terms: the options by their flags."""
    if error.code == "target-and-targets":
        return "Give either --target or --targets, not both."
    if error.code == "nothing-to-vary":
        return (
            "Nothing to vary: give --vary KEY=V1,V2 (for example --vary numjobs=1,2,4,8); "
            f"the preset {error.entry} has no [sweep] defaults."
        )
    if error.source in ("vary", "targets"):
        return f"--{error.source} {error}"
    if error.code == "size-unknown":
        return f"{error} Give the sweep a size with --size."
    return str(error)


def _params(params: dict[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in params.items())


def _outcome(point: SweepPointState) -> str:
    if point.status == "failed":
        return f"failed: {point.error or 'see its record'}"
    if point.status == "pending":
        return "stopped before fio started (it runs again with --resume)"
    result = point.point_result()
    if result.by_section:  # each section's own figures, never one total
        return "; ".join([point.status, *(f"{part.section}: {_figures(part)}" for part in result.by_section)])
    return ", ".join([point.status, _figures(result)]).rstrip(", ")


def _figures(result: PointResult) -> str:
    parts = []
    for direction in ("read", "write"):
        iops = getattr(result, f"{direction}_iops")
        if iops is not None:
            p99 = getattr(result, f"{direction}_lat_p99_ns")
            parts.append(f"{direction} {fmt.iops(iops)} IOPS p99 {fmt.latency_ns(p99)}")
    if result.responsiveness:
        parts.append(f"responsiveness {result.responsiveness_detail or result.responsiveness}")
    return ", ".join(parts)


def _prepare(options: SweepOptions) -> SweepPreparation:
    run = options.run
    if run.no_save:
        raise CommandError("A sweep keeps its records (that is how it resumes and compares); drop --no-save.")
    preset = load_preset_from_args(run)
    base = make_base(
        preset_name=run.preset,
        job_file=run.job_file,
        target=run.target,
        runtime_s=runtime_arg(run),
        size=run.size,
        sets=parse_set_options(run.sets),
    )
    try:
        return prepare_sweep(
            preset,
            vary=options.vary,
            targets=options.targets,
            target=run.target,
            base=base,
            sysbench_available=find_sysbench() is not None,
            baseline_s=run.baseline_s,
        )
    except SweepPlanError as error:
        raise CommandError(worded(error)) from None


def _sweep_record(options: SweepOptions, preparation: SweepPreparation, runs_dir: Path, out: TextIO) -> SweepRecord:
    fresh = fresh_sweep_record(preparation)
    if not options.resume:
        return fresh
    found = find_resumable(
        runs_dir, fresh.signature(), lambda problem: print(f"Skipping a sweep record that cannot be read: {problem}", file=out)
    )
    if found is None:
        _say(f"No earlier sweep made by this command in {runs_dir}; starting a new one.", options.width, out)
        return fresh
    done = len(found.points) - len(found.pending())
    _say(f"Resuming {found.path}: {done} of {len(found.points)} points already completed.", options.width, out)
    return found


def _say(sentence: str, width: int | None, out: TextIO, indent: str = "") -> None:
    """A sentence broken between words to fit ``width`` (its lines after the first indented)."""
    for paragraph in sentence.splitlines() or [""]:
        print("\n".join(wrap(paragraph, width, indent + "  ", indent)), file=out, flush=True)


def _slo(options: SweepOptions) -> Slo | None:
    if not options.slo:
        return None
    try:
        return parse_slo(options.slo)
    except SloError as error:
        raise CommandError(f"--slo: {error}") from None


def _print_results(options: SweepOptions, sweep: SweepRecord, out: TextIO) -> None:
    analysis = analyze(sweep.results(), sweep.axes, _slo(options))
    if options.output_format == "json":
        print(json.dumps(sweep_json(sweep, analysis), indent=2), file=out)
    elif options.output_format == "markdown":
        print(sweep_markdown(sweep, analysis), file=out)
    else:
        print(file=out)
        print(sweep_text(sweep, analysis, options.width), file=out)


async def _run(options: SweepOptions) -> int:
    out = sys.stderr if options.output_format == "json" or options.json_stream else sys.stdout
    if options.json_stream and options.output_format == "json":
        raise CommandError("--json-stream and --format json both write on standard output; keep one.")
    _slo(options)  # a target that does not read is refused before anything runs
    preparation = _prepare(options)
    plan, estimate = preparation.plan, preparation.estimate
    for note in plan.notes:
        _say(note, options.width, out)
    if plan.needs_confirmation and not options.dry_run and not options.yes and not _confirmed(len(plan.params), out):
        raise CommandError(
            f"The sweep has {len(plan.params):,} points (more than {CONFIRM_POINTS:,}); nothing was run. "
            "Give --yes to run it anyway, or vary fewer values."
        )
    if preparation.space_refusal is not None:
        raise CommandError(worded(preparation.space_refusal))
    runs_dir = resolve_runs_dir(options.run.runs_dir)
    sweep = _sweep_record(options, preparation, runs_dir, out)
    sweep.estimated_duration_s = estimate.duration_s
    sweep.estimated_disk_bytes = estimate.disk_bytes
    pending = [point.index for point in sweep.pending()]
    _say(describe_estimate(plan, estimate, pending), options.width, out)
    if options.dry_run:
        for point in sweep.points:
            _say(f"{point.index + 1}. {_params(point.params)} ({point.status})", options.width, out, "  ")
        return EXIT_OK
    request = run_request(options.run, plan.preset, runs_dir=runs_dir)
    printer = ProgressPrinter(out, options.width)
    metrics = open_metrics(options.metrics)
    stream = JsonStreamOut(sweep=True, write_json=options.json_stream, metrics=metrics) if options.json_stream or metrics else None

    def on_event(event: object) -> None:
        printer(event)
        if stream is not None:
            stream(event)

    runner = SweepRunner(
        sweep,
        start_point=point_starter(plan, request, word=hosts_start_refusal),
        runs_dir=runs_dir,
        on_event=on_event,
        estimates_s=estimate.point_duration_s,
        force=options.run.force,
        lock_by="iotui sweep",
        on_hosts=bool(request.hosts),  # a sysbench point with hosts is refused, so none runs here
    )
    loop = asyncio.get_running_loop()
    interrupted = False

    def on_signal(signum: int) -> None:
        nonlocal interrupted
        if not interrupted:
            print("\nStopping the current point (its partial record is kept); resume with --resume.", file=sys.stderr)
        interrupted = True
        runner.request_stop(f"signal:{signal.Signals(signum).name}")

    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for signum in signals:
        loop.add_signal_handler(signum, on_signal, signum)
    if stream is not None:
        stream.begin(stream.translator.sweep_start(sweep, list(request.hosts)), lambda: runner.request_stop(STREAM_CLOSED))
    try:
        sweep = await runner.run()
    except SweepRecordError as error:
        raise CommandError(str(error)) from None
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
        if stream is not None:
            stream.close()
    _print_results(options, sweep, out if options.json_stream else sys.stdout)
    if interrupted or (stream is not None and stream.write_json and stream.closed):
        return EXIT_INTERRUPTED
    if interrupted or sweep.status == "stopped":
        return EXIT_INTERRUPTED
    failed = [point for point in sweep.points if point.status == "failed"]
    if failed:
        first = failed[0]
        print(
            f"iotui: {len(failed)} of {len(sweep.points)} points failed; the first, {_params(first.params)}: "
            f"{first.error or 'see its record'} (run the same command with --resume to retry them).",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


def _confirmed(points: int, out: TextIO) -> bool:
    """Ask on a terminal; without one (a script, a pipe) the answer is no."""
    if not sys.stdin.isatty():
        return False
    print(f"Run all {points:,} points? [y/N] ", end="", file=out, flush=True)
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def handle(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(SweepOptions.from_namespace(args)))
    except CommandError as error:
        print(f"iotui: {error}", file=sys.stderr)
        return EXIT_FAILED
    except RunLockHeld as error:
        print(f"iotui: {lock_refusal(error)}", file=sys.stderr)
        return EXIT_FAILED
