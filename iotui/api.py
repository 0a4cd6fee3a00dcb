"""iotui from Python: run a preset or a sweep and read its events as they happen, load and compare records.

``run(...)`` and ``sweep(...)`` are generators: they yield the stream's events
(:mod:`iotui.core.stream.events`, the frozen values ``--json-stream`` writes as lines)
as the run goes, and last the saved record (a :class:`RunRecord`, or a
:class:`SweepRecord` for a sweep). The run goes on in a thread of its own while the
caller reads; a caller that stops reading early (``break``, closing the generator)
stops the run as a stop would, the record saved with ``ended_by = "stream-closed"``.

    from iotui import api

    for event in api.run("quick", runtime="5s", size="16M"):
        if isinstance(event, api.Second):
            print(event.sample["t_s"], event.sample.get("read_iops"))

A run that cannot start raises :class:`IotuiError` with the sentence the command line
would print (it names the command line's flags: ``target`` is ``--target`` there).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import cast

from iotui.cli_common import CommandError, load_preset_from_args, lock_refusal, make_session, parse_set_options, resolve_runs_dir, runtime_arg
from iotui.cli_options import HostOptions, RunOptions
from iotui.commands.run_remote import hosts_start_refusal, remote_session, run_request
from iotui.commands.sweep import worded
from iotui.core.compare.compare import Comparison, compare_records
from iotui.core.records.files import load_record
from iotui.core.records.record import RunRecord
from iotui.core.remote.session import MultiHostSession
from iotui.core.runs.lock import RunLockHeld
from iotui.core.runs.session import RunSession
from iotui.core.stream.events import End, Host, Point, RunWarning, Second, Section, Start, StreamEvent, to_json, to_line
from iotui.core.stream.translate import StreamTranslator
from iotui.core.sweep.plan import SweepPlanError, make_base
from iotui.core.sweep.prepare import fresh_sweep_record, point_starter, prepare_sweep
from iotui.core.sweep.record import SweepRecord, SweepRecordError, load_sweep
from iotui.core.sweep.runner import SweepRunner
from iotui.core.sysbench.session import find_sysbench

__all__ = [
    "Comparison", "End", "Host", "IotuiError", "Point", "RunRecord", "RunWarning", "Second", "Section", "Start",
    "StreamEvent", "SweepRecord",
    "compare", "load", "run", "sweep", "to_json", "to_line",
]

STREAM_CLOSED = "stream-closed"

RunItem = StreamEvent | RunRecord
SweepItem = StreamEvent | SweepRecord


class IotuiError(Exception):
    """A run, sweep or record that iotui refused; str() is one sentence that says what to do."""


def _options(
    preset: str, *, target: str | Path | None, runtime: str | float | None, size: str | None,
    sets: Mapping[str, object] | None, runs_dir: str | Path | None, save: bool, baseline_s: float,
    hosts: Sequence[str], fio: str | None, force: bool,
) -> RunOptions:
    return RunOptions(
        preset=str(preset), target=str(target) if target is not None else None,
        runtime=str(runtime) if runtime is not None else None, size=size,
        sets=tuple(f"{key}={value}" for key, value in (sets or {}).items()), no_save=not save,
        baseline_s=baseline_s, runs_dir=str(runs_dir) if runs_dir is not None else None, fio=fio, force=force,
        hosts=HostOptions(hosts=",".join(hosts) or None), lock_by="iotui.api",
    )


Start_ = Callable[[Callable[[object], None], Callable[[Callable[[], None]], None]], Awaitable[object]]


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


_DONE = object()


def _drive(body: Start_) -> Iterator[object]:
    """Run ``body`` on an event loop in a thread; yield what it puts, then what it returns.

    ``body(put, on_stop)``: ``put`` hands an item to the caller, ``on_stop`` registers how to stop
    the run when the caller stops reading.
    """
    items: queue.Queue[object] = queue.Queue()
    stops: list[Callable[[], None]] = []
    loops: list[asyncio.AbstractEventLoop] = []

    def thread_main() -> None:
        loop = asyncio.new_event_loop()
        loops.append(loop)
        try:
            items.put(loop.run_until_complete(body(items.put, stops.append)))
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread, raised there
            items.put(_Failed(error))
        finally:
            loop.close()
            items.put(_DONE)

    thread = threading.Thread(target=thread_main, name="iotui-api", daemon=True)
    thread.start()
    try:
        while True:
            item = items.get()
            if item is _DONE:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item
    finally:
        if thread.is_alive() and stops and loops:
            try:
                loops[0].call_soon_threadsafe(stops[-1])
            except RuntimeError:  # the loop ended meanwhile
                pass
        thread.join()


def _worded(error: Exception) -> IotuiError:
    if isinstance(error, RunLockHeld):
        return IotuiError(lock_refusal(error))
    return IotuiError(str(error))


def run(
    preset: str, *, target: str | Path | None = None, runtime: str | float | None = None, size: str | None = None,
    sets: Mapping[str, object] | None = None, runs_dir: str | Path | None = None, save: bool = True,
    baseline_s: float = 2.0, hosts: Sequence[str] = (), fio: str | None = None, force: bool = False,
) -> Iterator[RunItem]:
    """Run ``preset`` (a name or a .toml path) as ``iotui run`` would; yields the stream's events, then the record.

    ``runtime`` (``10``, ``"10s"``, ``"2m"``), ``size`` and ``sets`` (fio options) override the
    preset's; ``hosts`` runs it on each host over ssh at once.
    """
    options = _options(preset, target=target, runtime=runtime, size=size, sets=sets, runs_dir=runs_dir, save=save,
                       baseline_s=baseline_s, hosts=hosts, fio=fio, force=force)

    async def body(put: Callable[[object], None], on_stop: Callable[[Callable[[], None]], None]) -> object:
        translator = StreamTranslator()
        started = False
        waiting: list[object] = []

        def on_event(event: object) -> None:
            if not started:
                waiting.append(event)
                return
            for item in translator.translate(event):
                put(item)

        try:
            preset_value = load_preset_from_args(options)
            runs = None if options.no_save else resolve_runs_dir(options.runs_dir)
            session: RunSession | MultiHostSession
            if options.hosts.wanted:
                session = await remote_session(options, preset_value, runs_dir=runs, on_event=on_event)
            else:
                session = await make_session(options, preset_value, runs_dir=runs, on_event=on_event)
        except CommandError as error:
            raise IotuiError(str(error)) from None
        on_stop(lambda: session.request_stop(STREAM_CLOSED))
        for item in translator.run_start(session):
            put(item)
        started = True
        for event in waiting:
            on_event(event)
        try:
            return await session.run()
        except RunLockHeld as error:
            raise _worded(error) from None

    return cast(Iterator[RunItem], _drive(body))


def sweep(
    preset: str, vary: Mapping[str, Sequence[object]], *, target: str | Path | None = None,
    runtime: str | float | None = None, size: str | None = None, sets: Mapping[str, object] | None = None,
    runs_dir: str | Path | None = None, baseline_s: float = 2.0, hosts: Sequence[str] = (), fio: str | None = None,
    force: bool = False,
) -> Iterator[SweepItem]:
    """Run ``preset`` at every combination of ``vary`` (``{"iodepth": [1, 4, 16]}``), as ``iotui sweep``
    would; yields each point's events and a ``Point`` as it ends, then the sweep record."""
    options = _options(preset, target=target, runtime=runtime, size=size, sets=sets, runs_dir=runs_dir, save=True,
                       baseline_s=baseline_s, hosts=hosts, fio=fio, force=force)
    varied = tuple(f"{key}={','.join(str(value) for value in values)}" for key, values in vary.items())

    async def body(put: Callable[[object], None], on_stop: Callable[[Callable[[], None]], None]) -> object:
        translator = StreamTranslator(sweep=True)
        try:
            preset_value = load_preset_from_args(options)
            base = make_base(
                preset_name=options.preset, job_file=None, target=options.target, runtime_s=runtime_arg(options),
                size=options.size, sets=parse_set_options(options.sets),
            )
            preparation = prepare_sweep(
                preset_value, vary=varied, targets=None, target=options.target, base=base,
                sysbench_available=find_sysbench() is not None, baseline_s=options.baseline_s,
            )
            if preparation.space_refusal is not None:
                raise IotuiError(worded(preparation.space_refusal))
            runs = resolve_runs_dir(options.runs_dir)
            record = fresh_sweep_record(preparation)
            record.estimated_duration_s = preparation.estimate.duration_s
            record.estimated_disk_bytes = preparation.estimate.disk_bytes
            request = run_request(options, preparation.plan.preset, runs_dir=runs)
        except SweepPlanError as error:
            raise IotuiError(worded(error)) from None
        except CommandError as error:
            raise IotuiError(str(error)) from None

        def on_event(event: object) -> None:
            for item in translator.translate(event):
                put(item)

        runner = SweepRunner(
            record, start_point=point_starter(preparation.plan, request, word=hosts_start_refusal), runs_dir=runs,
            on_event=on_event, estimates_s=preparation.estimate.point_duration_s, force=options.force,
            lock_by="iotui.api sweep", on_hosts=bool(request.hosts),
        )
        on_stop(lambda: runner.request_stop(STREAM_CLOSED))
        for item in translator.sweep_start(record, list(request.hosts)):
            put(item)
        try:
            return await runner.run()
        except (RunLockHeld, SweepRecordError) as error:
            raise _worded(error) from None

    return cast(Iterator[SweepItem], _drive(body))


def load(path: str | Path) -> RunRecord | SweepRecord:
    """The record at ``path``, typed (a ``.sweep.toml`` file is a :class:`SweepRecord`); IotuiError when
    it cannot be read or does not validate (the sentence names the file and the key)."""
    target = Path(path)
    try:
        if target.name.endswith(".sweep.toml"):
            return load_sweep(target)
        return load_record(target)
    except Exception as error:  # noqa: BLE001 - the records' own errors each say the file and the key
        raise IotuiError(str(error)) from None


def compare(a: RunRecord | str | Path, b: RunRecord | str | Path) -> Comparison:
    """``b`` against ``a``, section by section, as ``iotui compare`` does (``.to_json_dict()`` for its figures)."""
    records = []
    for item in (a, b):
        loaded = item if isinstance(item, RunRecord) else load(item)
        if not isinstance(loaded, RunRecord):
            raise IotuiError(f"{item} is a sweep record; compare two run records (a sweep point's record is named in it).")
        records.append(loaded)
    return compare_records(records)
