"""``iotui run PRESET --hosts ...``: one run on many hosts over ssh, headless."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from iotui.cli_common import TARGET_ADVICE, CommandError, start_refusal, start_request
from iotui.cli_options import HostOptions, RunOptions
from iotui.commands import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, STREAM_CLOSED
from iotui.commands.remote_summary import print_remote_summary
from iotui.core import format as fmt
from iotui.core.remote.session import AggregateUpdate, HostFailed, MultiHostSession
from iotui.core.remote.transport import RemoteError, parse_hosts, read_hosts_file
from iotui.core.presets.model import Preset
from iotui.core.runs.events import EventCallback, LogLine, RunFinished
from iotui.core.start import StartError, StartRequest, start_hosts_run

if TYPE_CHECKING:
    from iotui.commands.stream_out import JsonStreamOut


def hosts_from_args(options: HostOptions) -> list[str]:
    hosts: list[str] = []
    try:
        if options.hosts:
            hosts += parse_hosts(options.hosts)
        if options.hosts_file:
            hosts += [h for h in read_hosts_file(Path(options.hosts_file)) if h not in hosts]
    except RemoteError as error:
        raise CommandError(remote_refusal(error)) from None
    if not hosts:
        raise CommandError("No hosts were given. " + REMOTE_ADVICE["no-hosts"])
    return hosts


# What to do about a refusal, in the command line's terms (the core's RemoteError says what happened).
REMOTE_ADVICE = {
    "target-read-only": TARGET_ADVICE["target-read-only"],
    "target-memory": TARGET_ADVICE["target-memory"],
    "size-unknown": TARGET_ADVICE["size-unknown"],
    "no-hosts": "Name them with --hosts h1,h2 or --hosts-file FILE.",
    "ssh-command": "Give one with --ssh or IOTUI_SSH.",
    "ssh-timeout": "Check that the host is up, or start without it with --min-hosts.",
    "ssh-failed": "Check that `ssh HOST true` works without a password, or start without it with --min-hosts.",
    "target-path": "Give --target a directory whose real path has no control characters.",
    "facts-twice": "Make the host's shell start-up print nothing for a command (ssh HOST true prints nothing), "
    "or start without it with --min-hosts.",
}


def remote_refusal(error: RemoteError) -> str:
    """The core's sentence and, where the command line has one, what to do."""
    advice = REMOTE_ADVICE.get(error.code)
    return f"{error} {advice}" if advice else str(error)


def hosts_start_refusal(error: StartError) -> str:
    """A start refused with hosts, in the command line's terms."""
    if error.code == "hosts-refused":
        advice = REMOTE_ADVICE.get(error.key or "")
        return f"{error}{' ' + advice if advice else ''} The run did not start on any host."
    return start_refusal(error)


def min_hosts_refusal(min_hosts: int | None, hosts_given: int) -> str | None:
    """``--min-hosts 3`` with one host given, or 0: said before any host is asked."""
    if min_hosts is None or 1 <= min_hosts <= hosts_given:
        return None
    given = f"the {hosts_given} host{'' if hosts_given == 1 else 's'} given"
    if min_hosts < 1:
        return f"--min-hosts {min_hosts} asks for no host; give a number from 1 to {hosts_given} ({given})."
    return f"--min-hosts {min_hosts} is more than {given}; give more hosts or a smaller --min-hosts."


def run_request(options: RunOptions, preset: Preset, *, runs_dir: Path | None, target: str | None = None) -> StartRequest:
    """The core's request for this command line: with its hosts (and how to reach them) where it names some."""
    request = start_request(options, preset, runs_dir=runs_dir, target=target)
    if not options.hosts.wanted:
        return request
    hosts = hosts_from_args(options.hosts)
    min_hosts_problem = min_hosts_refusal(options.hosts.min_hosts, len(hosts))
    if min_hosts_problem:
        raise CommandError(min_hosts_problem)
    return replace(
        request,
        hosts=tuple(hosts),
        ssh=options.hosts.ssh,
        min_hosts=options.hosts.min_hosts,
        host_probes=options.hosts.host_probes,
    )


async def remote_session(
    options: RunOptions, preset: Preset, *, runs_dir: Path | None, on_event: EventCallback, target: str | None = None
) -> MultiHostSession:
    """Check every host and build the session (the core's one entry); a refusal is a CommandError naming the host."""
    request = run_request(options, preset, runs_dir=runs_dir, target=target)
    try:
        return await start_hosts_run(request, on_event)
    except StartError as error:
        raise CommandError(hosts_start_refusal(error)) from None


class AggregatePrinter:
    """A line a second: the aggregate and how many hosts it holds."""

    def __init__(self, quiet: bool) -> None:
        self.out = sys.stderr if quiet else sys.stdout
        self.printed_header = False

    def __call__(self, event: object) -> None:
        if isinstance(event, LogLine):
            print(event.text, file=sys.stderr)
        elif isinstance(event, HostFailed):
            print(f"iotui: {event.reason} (at {event.at_s:.1f} s); the other hosts go on.", file=sys.stderr)
        elif isinstance(event, AggregateUpdate):
            if not self.printed_header:
                print(f"{'time':>7} {'dir':5} {'IOPS':>8} {'bandwidth':>11} {'p99':>9}  hosts", file=self.out)
                self.printed_header = True
            aggregate = event.aggregate
            for direction, figures in aggregate.sample.directions.items():
                print(
                    f"{aggregate.t_s:>6.1f}s {direction:5} {fmt.iops(figures.iops):>8} "
                    f"{fmt.bytes_per_s(figures.bw_bytes):>11} "
                    f"{fmt.latency_ns(figures.lat_percentiles_ns.get('p99')):>9}  {aggregate.hosts_label}",
                    file=self.out,
                    flush=True,
                )


async def run_remote(
    options: RunOptions, preset: Preset, runs_dir: Path | None, *, json_output: bool, stream: JsonStreamOut | None = None,
    width: int | None = None,
) -> int:
    """One run on every host; ``json_output`` prints the record as JSON, ``stream`` takes the stream's events
    (its JSON lines and metrics); with JSON on stdout the human lines go to stderr. ``width``: the
    summary's (None: every column in full)."""
    json_stream = stream is not None and stream.write_json
    printer = AggregatePrinter(quiet=json_output or json_stream)
    finished: list[RunFinished] = []

    def on_event(event: object) -> None:
        if isinstance(event, RunFinished):
            finished.append(event)
        printer(event)
        if stream is not None:
            stream(event)

    loop = asyncio.get_running_loop()
    interrupted = False
    session: MultiHostSession | None = None

    def on_signal(signum: int) -> None:
        nonlocal interrupted
        if not interrupted:
            print("\nStopping fio on every host (the partial record is kept)...", file=sys.stderr)
        interrupted = True
        if session is not None:
            session.request_stop(f"signal:{signal.Signals(signum).name}")

    def at_signal(signum: int, frame: object) -> None:
        # Python runs this at once in the main thread, not behind what the event loop has
        # queued (at 128 hosts on a busy machine that was seconds): every host's stop line goes
        # out here, the rest (the message, the session's own stop) from the loop.
        if session is not None:
            session.stop_lines_now()
        loop.call_soon_threadsafe(on_signal, signum)

    # Handlers before the pre-flight: a signal then means no host starts.
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {signum: signal.signal(signum, at_signal) for signum in signals}
    try:
        session = await remote_session(options, preset, runs_dir=runs_dir, on_event=on_event)
        if interrupted:
            await session.plan.close()
            print("iotui: stopped before any host started; nothing was saved.", file=sys.stderr)
            return EXIT_INTERRUPTED
        if stream is not None:
            started = session
            stream.begin(stream.translator.run_start(session), lambda: started.request_stop(STREAM_CLOSED))
        record = await session.run()
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
    saved = finished[-1].saved_path if finished else None
    error = finished[-1].error if finished else None
    print_remote_summary(record, saved, sys.stderr if json_output or json_stream else sys.stdout, width)
    if json_output:
        print(json.dumps(record.to_json_dict(), indent=2))
    if error:
        print(f"iotui: {error}", file=sys.stderr)
    if record.status == "stopped" or interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if record.status == "completed" and not error else EXIT_FAILED
