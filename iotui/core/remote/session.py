"""One run on many hosts: start every lifeline, release them together, watch, record.

Like :class:`iotui.core.runs.session.RunSession` it emits events to a
callback and never draws. A host that dies is marked failed with the time and
the others go on; a stop (Ctrl-C, a signal, the app's stop key) ends every
remote fio through its lifeline and the partial record is kept as stopped.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Callable

from iotui.core.fio.status import FioDocument, FioText
from iotui.core.heap import hold_for_run, release_after_run
from iotui.core.remote.connections import CONNECT_CONCURRENCY
from iotui.core.remote.alignment import AggregateSample, Aligner
from iotui.core.remote.document_check import checked_document
from iotui.core.remote.host_events import (
    AggregateUpdate,
    HostFailed,
    HostIntervalUpdate,
    QueuedEvent,
)
from iotui.core.remote.host_events import keep_line as _keep_line
from iotui.core.remote.lifeline import HostEnded, HostEvent, HostLine, HostPaused, HostReady, HostRunner
from iotui.core.remote.plan import RemotePlan
from iotui.core.remote.record import HostState, build_record
from iotui.core.remote.silence import SilenceWatch
from iotui.core.runs.pauses import PauseLog
from iotui.core.runs.second_rows import SecondRows
from iotui.core.records.record import RunRecord
from iotui.core.runs.events import EventLog
from iotui.core.runs.saving import save_and_announce
from iotui.core.terminal_text import terminal_safe

READY_TIMEOUT_S = 60.0  # 128 loopback hosts with probes on, two cores: the first ready took over 30 s
TICK_S = 0.2
CLOCK_WAIT_S = 3.0  # for every host's clock answers before the barrier


class MultiHostSession(EventLog):
    """Runs one remote plan on every host. ``await run()`` returns the record."""

    def __init__(
        self,
        plan: RemotePlan,
        *,
        runs_dir: Path | None,
        on_event: Callable[[object], None] | None = None,
        run_id: str | None = None,
        runner_factory: Callable[[str], HostRunner] | None = None,
    ) -> None:
        self.plan = plan
        self.runs_dir = runs_dir
        self.on_event = on_event or (lambda event: None)
        self.run_id = run_id or uuid.uuid4().hex
        self.runner_factory = runner_factory or (
            lambda host: HostRunner(plan.ssh_for(host), host, plan.target, plan.fio_args)
        )
        self.states = {host: HostState(host, plan.facts.get(host)) for host in plan.hosts}
        self.aligner = Aligner(plan.hosts)
        # The hosts' aggregate seconds, kept as every fio run keeps its seconds.
        self.aggregate = SecondRows(drop_empty=True)
        self.messages: list[dict[str, str]] = []
        self.stop_requested = False
        self.force = False  # the Session protocol's: no run lock is taken for the hosts
        # Who stopped the run (user, signal:SIGHUP, terminal-lost...): the record's run.ended_by.
        self.ended_by: str | None = None
        self.released_at: float | None = None
        self.release_spread_ms: float | None = None
        self._started_monotonic = time.monotonic()
        self._failure: str | None = None
        self._starting_closed = False
        # After the barrier the hosts' events are handled as they are read, not queued.
        self._taking_at_once = False
        self.silence = SilenceWatch()
        # The run's pauses (every host's are its own, in its HostState); while paused, and
        # until a host's first document after the resume, no host is judged silent.
        self.pause_log = PauseLog()
        self.paused = False
        self._resumed_at_s = 0.0

    # -- control ------------------------------------------------------------
    def request_stop(self, ended_by: str = "user") -> None:
        """Stop fio on every host (through each lifeline); the record is kept, ``ended_by``
        (the first reason given) as its ``run.ended_by``."""
        if self.stop_requested:
            return
        self.stop_requested = True
        self.ended_by = ended_by
        runners = [state.runner for state in self.states.values() if state.runner is not None]
        for runner in runners:
            runner.begin_stop()  # every host's line goes out now, whatever the loop has queued
        for runner in runners:
            asyncio.ensure_future(runner.stop())

    def stop_lines_now(self) -> None:
        """Every started host's stop line, written now; safe inside a signal handler (see
        :meth:`HostRunner.stop_line_now`). :meth:`request_stop` must follow from the loop."""
        for state in list(self.states.values()):
            if state.runner is not None:
                state.runner.stop_line_now()

    def pause(self) -> bool:
        """Pause fio on every running host (a line to each lifeline: SIGSTOP there).

        True once the line went to every host still running; each host's pause is counted
        from now in its own log, as a local run counts its own.
        """
        if self.paused or self.released_at is None or self.stop_requested:
            return self.paused
        now = time.monotonic()
        at_s = self.now_s()
        told = False
        for state in self.states.values():
            if state.runner is None or state.ended or state.failed_at_s is not None:
                continue
            if state.runner.pause():
                state.pause_log.pause(now, at_s)
                told = True
        if told:
            self.paused = True
            self.pause_log.pause(now, at_s)
            self._log("iotui", "paused every host")
        return self.paused

    def resume(self) -> bool:
        """Resume every paused host; its pause lasted until now."""
        if not self.paused:
            return True
        now = time.monotonic()
        for state in self.states.values():
            if state.pause_log.is_paused:
                if state.runner is not None:
                    # A host whose ssh is gone cannot be told; its pause ends here all the same.
                    state.runner.resume()
                state.pause_log.resume(now)
        self.paused = False
        self.pause_log.resume(now)
        self._resumed_at_s = self.now_s()
        self._log("iotui", "resumed every host")
        return True

    def now_s(self) -> float:
        """Seconds on iotui's monotonic clock since the hosts were released."""
        base = self.released_at if self.released_at is not None else self._started_monotonic
        return time.monotonic() - base

    # -- the run ------------------------------------------------------------
    async def run(self) -> RunRecord:
        started = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        self._started_monotonic = time.monotonic()
        events: asyncio.Queue[QueuedEvent] = asyncio.Queue()
        pumps: list[asyncio.Task[None]] = []
        # Hosts start a few at a time, each until it is ready: every session runs the login's
        # shell start-up and lays fio's files out, and 128 of those at once on one machine (or
        # one shared filesystem) only make every host slower to get ready.
        gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        self.plan.probes.start(lambda line: self._log("iotui", line), self._emit)  # each host's, ended by plan.close()
        try:
            for host, state in self.states.items():
                state.runner = self.runner_factory(host)
                pumps.append(asyncio.create_task(self._pump(host, state.runner, events, gate)))
            if await self._wait_ready(events) and await self.plan.probes.wait_at_rest(lambda: self.stop_requested):
                await self._ask_clocks()
                self._release()
                # Nothing made before the hosts started is walked by the collector while they run.
                hold_for_run()
                try:
                    await self._watch(events)
                finally:
                    release_after_run()
        except asyncio.CancelledError:
            self.stop_requested = True
            self.ended_by = self.ended_by or "user"
            raise
        finally:
            self._starting_closed = True
            await self._stop_all()
            for task in pumps:
                task.cancel()
            # The shared connections end with the run (their sessions have).
            await self.plan.close()
        return self._finish(started)

    async def _pump(
        self, host: str, runner: HostRunner, events: asyncio.Queue[QueuedEvent], gate: asyncio.Semaphore
    ) -> None:
        held = False
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def take(event: HostEvent | None) -> None:
            nonlocal held
            if event is None:
                if not ended.done():
                    ended.set_result(None)
                return
            if held and isinstance(event, (HostReady, HostEnded)):
                gate.release()
                held = False
            if self._taking_at_once:
                self._handle(host, event, time.monotonic())
            else:
                events.put_nowait((host, event, time.monotonic()))

        try:
            await gate.acquire()
            held = True
            if self._starting_closed or self.stop_requested:
                return
            runner.sink = take
            try:
                await runner.start()
            except OSError as error:
                events.put_nowait((host, HostLine(f"cannot start ssh ({error.strerror or error})"), time.monotonic()))
                return
            await ended
        finally:
            if held:
                gate.release()
            events.put_nowait((host, None, time.monotonic()))

    async def _wait_ready(self, events: asyncio.Queue[QueuedEvent]) -> bool:
        deadline = time.monotonic() + READY_TIMEOUT_S
        waiting = set(self.states)
        while waiting and not self.stop_requested:
            try:
                host, event, arrived = await asyncio.wait_for(events.get(), max(0.01, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                self._failure = (
                    f"{', '.join(sorted(waiting))} did not get ready (no host got ready in the last "
                    f"{READY_TIMEOUT_S:.0f} s)."
                )
                return False
            if isinstance(event, HostReady):
                waiting.discard(host)
                # Many hosts lay their files out on shared storage (or one machine) more slowly
                # than one: the limit is on a stall, READY_TIMEOUT_S with no host getting ready.
                deadline = time.monotonic() + READY_TIMEOUT_S
            elif isinstance(event, HostLine):
                _keep_line(self.states[host], event.text)
                self._log("stderr", f"{host}: {event.text}")
            elif isinstance(event, HostEnded) or event is None:
                if self.stop_requested:
                    return False
                state = self.states[host]
                detail = "; ".join(state.lines[-2:]) or f"ssh exited with code {getattr(event, 'returncode', '?')}"
                self._failure = f"{host} could not start: {detail}"
                return False
        return not waiting

    async def _ask_clocks(self) -> None:
        """Every host's clock, asked once all are ready, just before the barrier.

        The start spread is measured with these offsets. Asked while other hosts still got
        ready, an answer waited behind ssh start-ups (iotui forking) and the hosts' layouts:
        at 128 hosts round trips of 1.6 s, offsets 0.7 s off on loopback, where the true
        offset is 0. Now nothing else is under way (the held fio wait at their gate), and a
        host that has not answered within CLOCK_WAIT_S keeps what it has (or its documents').
        """
        runners = [state.runner for state in self.states.values() if state.runner is not None]
        for runner in runners:
            runner.ask_clock()
        deadline = time.monotonic() + CLOCK_WAIT_S
        while time.monotonic() < deadline and not self.stop_requested:
            if all(runner.clock_settled or runner.process is None or runner.process.returncode is not None
                   for runner in runners):
                return
            await asyncio.sleep(0.01)

    def _release(self) -> None:
        # The barrier: every host gets its line in one pass, microseconds apart.
        first = time.monotonic()
        for state in self.states.values():
            assert state.runner is not None
            state.runner.release()
        last = time.monotonic()
        self.released_at = first
        self.release_spread_ms = (last - first) * 1000.0

    async def _watch(self, events: asyncio.Queue[QueuedEvent]) -> None:
        running = set(self.states)

        def take_queued() -> None:
            while not events.empty():
                host, event, arrived = events.get_nowait()
                if event is None:
                    running.discard(host)
                else:
                    self._handle(host, event, arrived)

        # What came before the barrier first, then every host's events as they come (the pumps
        # hand them to _handle at once); the queue carries only each host's end from here on.
        take_queued()
        self._taking_at_once = True
        try:
            while running:
                # One timer a tick (a wait on the queue with a time limit took five turns of the
                # loop to come back, each behind every host's reading when iotui was short of CPU);
                # a late tick is seen by the silence watch.
                await asyncio.sleep(TICK_S)
                take_queued()
                self._tick()
        finally:
            self._taking_at_once = False

    def _tick(self) -> None:
        now = self.now_s()
        self.plan.probes.tick(self._emit, released=self.released_at is not None)
        self._emit_aggregates(self.aligner.tick(now))
        if self.stop_requested:
            return
        ending_s = self.plan.estimated_duration_s if self.plan.estimated_duration_s is not None else float("inf")
        ending_s += self.pause_log.paused_s
        for host, limit_s in self.silence.silent(self.states, now, ending_s, self._resumed_at_s, paused=self.paused):
            state = self.states[host]
            state.silent_s = limit_s
            self._fail(host, now, f"no report from {host} for {limit_s:.0f} s")
            if state.runner is not None:
                asyncio.ensure_future(state.runner.stop())

    def _handle(self, host: str, event: HostEvent, arrived: float) -> None:
        state = self.states[host]
        at_s = arrived - (self.released_at or arrived)
        if isinstance(event, FioDocument):
            doc, problem = checked_document(event.doc)
            if doc is None:
                self._refuse_document(host, state, at_s, problem or "")
                return
            state.take_document(doc, arrived, at_s)
            # One walk of the document, as a local run's: one second per section that ran in it.
            intervals = state.deriver.feed(doc, at_s)
            first_row = len(state.seconds.rows)
            # Marked paused where a pause fell in this interval: left out of the host's figures.
            kept = state.seconds.take(doc, [i.sample for i in intervals], whole=state.deriver.seconds.whole, t_s=at_s)
            if not intervals:
                return
            for index, (interval, sample) in enumerate(zip(intervals, kept), start=first_row):
                interval = replace(interval, sample=sample)
                self._emit(HostIntervalUpdate(host, interval, state.seconds.rows[index], sample.groupid))
            if state.failed_at_s is None:
                self._emit_aggregates(self.aligner.add(*intervals))
        elif isinstance(event, (FioText, HostLine)):
            text = terminal_safe(event.line) if isinstance(event, FioText) else event.text
            _keep_line(state, text)
            self._log("stderr", f"{host}: {text}")
        elif isinstance(event, HostPaused):
            pass  # the pause is counted from the line's sending, the same moment on every host
        elif isinstance(event, HostEnded):
            state.ended = True
            state.returncode = event.returncode
            state.exit_status = event.exit_status
            if state.failed_at_s is not None:
                return
            if self.stop_requested or event.exit_status == 0:
                self._emit_aggregates(self.aligner.mark_finished(host, at_s))
            else:
                detail = "; ".join(state.lines[-2:])
                code = event.exit_status if event.exit_status is not None else f"ssh {event.returncode}"
                self._fail(host, at_s, f"{host} failed (exit {code})" + (f": {detail}" if detail else ""))

    def _refuse_document(self, host: str, state: HostState, at_s: float, problem: str) -> None:
        # Only this host's figures go: the other hosts' and the record are kept.
        if state.failed_at_s is None:
            self._fail(host, at_s, f"{host}'s fio report cannot be used ({problem}); its figures are left out")
        if state.runner is not None and not state.ended:
            asyncio.ensure_future(state.runner.stop())

    def _fail(self, host: str, at_s: float, reason: str) -> None:
        state = self.states[host]
        state.failed_at_s = round(max(at_s, 0.0), 3)
        self.aligner.mark_failed(host)
        self._log("iotui", reason)
        self._emit(HostFailed(host, state.failed_at_s, reason))

    def _emit_aggregates(self, aggregates: list[AggregateSample]) -> None:
        """The aggregate's rows of a round, one per section, each filed under its own section."""
        for aggregate in aggregates:
            row = self.aggregate.add(aggregate.sample, t_s=aggregate.t_s, extra={"hosts_live": aggregate.live_hosts})
            self._emit(AggregateUpdate(
                aggregate, row, time.monotonic() - self._started_monotonic, aggregate.sample.groupid
            ))

    async def _stop_all(self) -> None:
        runners = [s.runner for s in self.states.values() if s.runner is not None]
        # Every host at once, each bounded: waited one after another, 128 hosts that were slow
        # to end held iotui's exit (and the record) for 2 s each.
        await asyncio.gather(*(runner.stop() for runner in runners), return_exceptions=True)
        await asyncio.gather(*(runner.ended(2.0) for runner in runners), return_exceptions=True)

    def _finish(self, started: dt.datetime) -> RunRecord:
        # A run that ended while paused: every pause lasted until now.
        now = time.monotonic()
        self.pause_log.finish(now)
        for state in self.states.values():
            state.pause_log.finish(now)
        record = build_record(
            self.plan,
            self.states,
            run_id=self.run_id,
            started=started,
            duration_s=round(time.monotonic() - self._started_monotonic, 3),
            stop_requested=self.stop_requested,
            ended_by=self.ended_by,
            failure=self._failure,
            aggregate=self.aggregate,
            messages=self.messages,
            release_spread_ms=self.release_spread_ms,
            pauses=self.pause_log.pauses,
        )
        self.plan.probes.add_to(record.hosts)  # each host's responsiveness
        reports = {host: s.last_document for host, s in self.states.items() if s.last_document}
        # No run lock is held for the hosts: nothing to mark for an overlap on this machine.
        save_and_announce(
            record, runs_dir=self.runs_dir, emit=self._emit, failure=self._failure,
            fio_report={"hosts": reports},
        )
        return record
