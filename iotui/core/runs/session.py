"""One fio run, start to record: the orchestration shared by the CLI and the app.

A :class:`RunSession` creates iotui's own test files (:mod:`iotui.core.runs.test_files`),
starts fio through a runner, turns its documents into interval samples, and
builds the run record. What every session shares (events, log, host sampling
beside the tool, the lock, saving) is :class:`~iotui.core.runs.recorder.RunRecorder`.
It emits events to a callback and never draws anything: the CLI prints them,
the app posts them as messages. Runner, sampler and probes are injected so tests
can replay recorded fio output.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import time
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Callable

from iotui.core.fio.parse_refusal import ParseRefusal, accepted_values, find_parse_refusal
from iotui.core.fio.runner import FioExited, FioNotFoundError, FioRunner, StderrLine
from iotui.core.fio.section_seconds import SectionSecondsDeriver
from iotui.core.fio.sections import fio_sections
from iotui.core.fio.status import FioDocument, FioText
from iotui.core.heap import hold_for_run, release_after_run
from iotui.core.numbers import number
from iotui.core.host.identity import host_identity
from iotui.core.host.processes import process_stopped
from iotui.core.host.protocols import IoProbe, Monitor, Sampler, WakeupProbe
from iotui.core.host.watch import responsiveness_row
from iotui.core.records.cache_check import suspicious_results
from iotui.core.runs.events import EventCallback, IntervalUpdate, SampleSettled
from iotui.core.runs.outside_io import OutsideIoWatch
from iotui.core.records.findings import annotate_record
from iotui.core.runs.plan import RunPlan
from iotui.core.runs.protocols import Runner
from iotui.core.records.record import RunRecord
from iotui.core.runs.recorder import RunRecorder
from iotui.core.runs.runs_dir import RunsDirError, check_runs_dir
from iotui.core.runs.second_rows import SecondRows
from iotui.core.runs.test_files import TestFileError, TestFiles

# fio stopped from outside (SIGSTOP) this long, not by iotui's pause: a stall.
STALL_AFTER_S = 3.0
# fio reports every second, while it lays out files and during a startdelay too: this long without a
# word from a fio that is neither paused nor stopped from outside means it hangs inside itself.
STUCK_AFTER_S = 30.0


class RunSession(RunRecorder):
    """Runs one plan. ``await run()`` returns the record (saved unless told not)."""

    def __init__(
        self,
        plan: RunPlan,
        *,
        fio_version: str,
        runs_dir: Path | None,
        on_event: EventCallback | None = None,
        runner_factory: Callable[[list[str]], Runner] | None = None,
        sampler: Sampler | None = None,
        probe: WakeupProbe | None = None,
        monitor: Monitor | None = None,
        io_probe: IoProbe | None = None,
        baseline_s: float = 0.0,
        host_interval_s: float = 1.0,
        run_id: str | None = None,
    ) -> None:
        super().__init__(
            plan, runs_dir=runs_dir, on_event=on_event, sampler=sampler, probe=probe, monitor=monitor,
            io_probe=io_probe, baseline_s=baseline_s, host_interval_s=host_interval_s, run_id=run_id,
        )
        self.fio_version = fio_version
        self.runner_factory = runner_factory or (
            lambda argv: FioRunner(argv, cwd=str(plan.private_dir) if plan.private_dir else None,
                                   cleanup_dir=plan.private_dir)
        )
        self.runner: Runner | None = None
        self.deriver = SectionSecondsDeriver()
        # The run's seconds, as every fio run keeps them (core/runs/second_rows.py); ``rows`` are theirs.
        self.seconds = SecondRows()
        self.rows = self.seconds.rows
        self.pause_log = self.seconds.pause_log
        self._last_row_monotonic = 0.0
        self.last_document: dict | None = None
        self._last_item: FioDocument | None = None  # the last document, to be read whole once the run ends
        # Extra [run] keys the caller decides (repeat_group and repeat_index of --repeat N).
        self.run_keys: dict[str, object] = {}
        self.paused = False
        self.test_files = TestFiles(plan, lambda text: self._log("iotui", text))
        self.stalled_s = 0.0
        self.target_vanished = False
        self.fio_stuck = False
        self._fio_heard_monotonic = 0.0
        # Another program's I/O on the target's device, made at fio's first document.
        self.outside_io: OutsideIoWatch | None = None
        self._outside_unwatched = False
        # Rows shown live but whose interference mark a later second may still change; each goes
        # out as a SampleSettled once final, so the stream's seconds are the record's rows.
        self._unsettled: deque[IntervalUpdate] = deque()
        self._released_rows = 0
        # fio refused its options before any job started: nothing ran, nothing is saved.
        self.parse_refusal: ParseRefusal | None = None

    # -- control ------------------------------------------------------------
    def request_stop(self, ended_by: str = "user") -> None:
        """Stop fio (SIGINT, then SIGTERM, then SIGKILL); the record is kept.

        ``ended_by``: who asked (``user``, ``signal:SIGHUP``...), kept as the
        record's ``run.ended_by`` (the first reason wins).
        """
        self._note_stop(ended_by)
        if self.runner is not None:
            asyncio.ensure_future(self.runner.stop())

    def pause(self) -> bool:
        if self.runner is not None and self.runner.pause():
            self.paused = True
            now = time.monotonic()
            last_t_s = number(self.rows[-1].get("t_s")) if self.rows else None
            fio_t_s = last_t_s + (now - self._last_row_monotonic) if last_t_s is not None else 0.0
            self.pause_log.pause(now, fio_t_s)
        return self.paused

    def resume(self) -> bool:
        if self.runner is not None and self.runner.resume():
            self.paused = False
            self.pause_log.resume(time.monotonic())
        return not self.paused

    # -- the run ------------------------------------------------------------
    def _sample_host(self) -> None:
        super()._sample_host()
        self._watch_fio(self.host_interval_s)

    def _watch_fio(self, interval_s: float) -> None:
        """Stalls (fio stopped from outside) and a target that disappeared."""
        pid = self.runner.pid if self.runner is not None else None
        if pid is None or self.stop_requested:
            return
        now = time.monotonic()
        if self.paused or process_stopped(pid):
            self._fio_heard_monotonic = now
            if not self.paused:
                self.stalled_s += interval_s
        elif now - self._fio_heard_monotonic >= STUCK_AFTER_S and not self.fio_stuck:
            self.fio_stuck = True
            self._log("iotui", self._stuck_sentence())
            self.request_stop("stuck")
        private_dir = self.plan.private_dir
        if private_dir is not None and not self.target_vanished and not os.path.isdir(private_dir):
            self.target_vanished = True
            self._log("iotui", f"The target {self.plan.target_path} (or iotui's test directory in it) vanished "
                      "during the run; fio was stopped.")
            self.request_stop("target-vanished")

    def _tool_running(self) -> bool:
        return self.runner is not None and self.runner.pid is not None

    async def _run_locked(self) -> RunRecord:
        started = self._begin()
        exit_event: FioExited | None = None
        failure: str | None = None
        cancelled = False
        try:
            if self.runs_dir is not None:
                try:
                    check_runs_dir(self.runs_dir)
                except RunsDirError as error:
                    raise RunError(str(error)) from None
            self.test_files.create()
            self._start_watch()
            if self.baseline_s > 0:
                await self._wait_baseline()
                self._sample_host()
            # Stopped during the baseline: fio never starts (status "stopped").
            if not self.stop_requested:
                exit_event = await self._run_fio()
                self.parse_refusal = await self._read_parse_refusal(exit_event)
        except FioNotFoundError as error:
            failure = str(error)
        except (RunError, TestFileError) as error:
            failure = str(error)
        except asyncio.CancelledError:
            # The caller went away (the app is leaving): end fio, remove the files, and keep what
            # fio measured as a stopped record before passing the cancellation on.
            self.stop_requested = True
            self.ended_by = self.ended_by or "user"
            if self.runner is None:
                raise
            cancelled = True
            try:
                await asyncio.shield(self.runner.stop())
            except BaseException:  # noqa: BLE001 - the cleanup below must still run
                pass
        finally:
            self.watch.stop()
            self.test_files.remove()
        record = self._finish(started, exit_event, failure)
        if cancelled:
            raise asyncio.CancelledError
        return record

    async def _read_parse_refusal(self, exit_event: FioExited | None) -> ParseRefusal | None:
        """fio's refusal of its options, where it ended that way: a failure before any status document
        or row, not stopped, with fio's parse errors among its lines; what fio accepts asked of fio."""
        if (exit_event is None or exit_event.returncode == 0 or exit_event.stopped_by_user or self.stop_requested
                or self.last_document is not None or self.rows or self.runner is None):
            return None
        stdout = [message["text"] for message in self.messages if message["source"] == "stdout"]
        refusal = find_parse_refusal(self.runner.stderr_lines, stdout)
        if refusal is None or refusal.option is None or refusal.accepted is not None or not self.plan.argv:
            return refusal
        return replace(refusal, accepted=await accepted_values(self.plan.argv[0], refusal.option))

    async def _run_fio(self) -> FioExited | None:
        runner = self.runner = self.runner_factory(self.plan.argv)
        await runner.start()
        # The app and everything made before fio started are not walked by the collector
        # while fio runs (iotui/core/heap.py).
        hold_for_run()
        try:
            return await self._watch_fio_events(runner)
        finally:
            release_after_run()

    async def _watch_fio_events(self, runner: Runner) -> FioExited | None:
        self._fio_heard_monotonic = time.monotonic()
        if self.stop_requested:
            # A stop that came while fio was starting.
            asyncio.ensure_future(runner.stop())
        self.watch.watch_pid(runner.pid)
        exit_event: FioExited | None = None
        host_task = asyncio.create_task(self._host_loop())
        try:
            async for event in runner.events():
                self._handle(event)
                if isinstance(event, FioExited):
                    exit_event = event
        finally:
            host_task.cancel()
        return exit_event

    def _handle(self, event: object) -> None:
        self._fio_heard_monotonic = time.monotonic()
        if isinstance(event, FioDocument):
            self.last_document = event.doc
            self._last_item = event
            # One walk of the document: one sample per section that ran in the interval.
            first_row = len(self.rows)
            intervals = self.deriver.feed(event.doc)
            self._observe_outside(len(intervals))
            intervals = self.seconds.take(event.doc, intervals, whole=self.deriver.whole, host=self.latest_host)
            if not intervals:
                return
            self._last_row_monotonic = time.monotonic()
            responsiveness = responsiveness_row(self.latest_assessment, self.latest_probe, self.latest_io_probe)
            for row in self.rows[first_row:]:
                row.update(responsiveness)
            settled_rows = self.outside_io.settle(self.rows) if self.outside_io is not None else len(self.rows)
            for index, interval in enumerate(intervals, start=first_row):
                update = IntervalUpdate(
                    interval, self.latest_host, self.rows[index], time.monotonic() - self._started_monotonic,
                    groupid=interval.groupid,
                )
                self._emit(update)
                self._unsettled.append(update)
            self._release_settled(settled_rows)
        elif isinstance(event, FioText):
            self._log("stdout", event.line)
        elif isinstance(event, StderrLine):
            self._log("stderr", event.line)

    def _observe_outside(self, rows_made: int) -> None:
        """The device's counters beside fio's bytes at this document: another program's I/O, if any."""
        if self.outside_io is None:
            if self._outside_unwatched:
                return
            own = {os.getpid()} | {pid for probe in (self.watch.probe, self.watch.io_probe)
                                   if isinstance(pid := getattr(probe, "pid", None), int)}
            self.outside_io = OutsideIoWatch.for_sampler(
                self.watch.sampler, own, self.runner.pid if self.runner is not None else None)
            if self.outside_io is None:
                self._outside_unwatched = True  # no device counted (a fake sampler, no /proc)
                return
        self.outside_io.observe(self.deriver.whole, range(len(self.rows), len(self.rows) + rows_made),
                                self.latest_io_probe)

    def _release_settled(self, settled_rows: int) -> None:
        """Emit a :class:`SampleSettled` for each row, in order, below ``settled_rows``."""
        while self._unsettled and self._released_rows < settled_rows:
            self._emit(SampleSettled(self._unsettled.popleft()))
            self._released_rows += 1

    def _stuck_sentence(self) -> str:
        hint = (" fio 3.33 hangs this way with io_submit_mode=offload (fixed in fio 3.42): run the job without "
                "it, or with a newer fio." if "--io_submit_mode=offload" in self.plan.argv else
                " Run the job with fio directly to see where it hangs, or try a newer fio.")
        return (f"fio stopped reporting: no word from it for {STUCK_AFTER_S:.0f} s while it was neither paused nor "
                f"stopped from outside, so it hangs inside fio; iotui ended it.{hint}")

    def _status(self, exit_event: FioExited | None, failure: str | None) -> str:
        if self.fio_stuck:
            return "failed"
        if failure is None and exit_event is None and self.stop_requested:
            return "stopped"
        if failure is not None or exit_event is None:
            return "failed"
        if self.stop_requested or exit_event.stopped_by_user:
            return "stopped"
        return "completed" if exit_event.returncode == 0 else "failed"

    def _finish(self, started: dt.datetime, exit_event: FioExited | None, failure: str | None) -> RunRecord:
        status = self._status(exit_event, failure)
        if self._last_item is not None:
            # fio's final report (its last document), every field: a large one was read live with
            # only the per-second fields (core/fio/live_decode.py).
            self.last_document = self._last_item.whole()
        if self.parse_refusal is not None and failure is None:
            failure = self.parse_refusal.sentence()
        if self.fio_stuck and failure is None:
            failure = self._stuck_sentence()
        if status == "failed" and failure is None:
            # fio's error lines: on stderr, or among its text on stdout ("fio: pid=..., error=...").
            said = (self.runner.stderr_lines if self.runner else []) or [
                m["text"] for m in self.messages if m["source"] == "stdout" and m["text"].startswith("fio:")]
            stderr_tail = "; ".join(said[-3:])
            code = exit_event.returncode if exit_event else "unknown"
            failure = f"fio exited with code {code}" + (f": {stderr_tail}" if stderr_tail else ".")
        if status == "failed" and self.last_document is None and exit_event is not None and exit_event.returncode == 0:
            failure = "fio exited without writing a report."
        final_doc = self.last_document or {}
        sections = fio_sections(final_doc)
        if status == "completed" and not sections:
            status, failure = "failed", NOTHING_RAN
        self.pause_log.finish(time.monotonic())
        self.seconds.file_under(sections, final_doc)
        self.seconds.add_host_figures(sections)
        pressure = self.watch.pressure_summary()
        record = RunRecord(
            run={
                **self._run_table(
                    status, started, title=self.plan.title or None, tool="fio", tool_version=self.fio_version,
                    argv=self.plan.argv,
                    exit_code=exit_event.returncode if exit_event else None,
                    paused_s=round(self.pause_log.paused_s, 3) if self.pause_log.pauses else None,
                ),
                **self.run_keys,
            },
            host=host_identity(),
            target=dict(self.plan.target),
            options=dict(self.plan.options),
            samples=self.rows,
            messages=self.messages,
            sections=sections,
            pressure=pressure or {},
            pauses=list(self.pause_log.pauses),
        )
        if self.outside_io is not None:
            self.outside_io.apply(record)
        self._release_settled(len(self.rows))
        annotate_record(record, final_doc)
        ended_by = self._ended_by(status)
        if ended_by is not None:
            record.run["ended_by"] = ended_by
        if self.stalled_s >= STALL_AFTER_S:
            record.add_warning(
                "stall",
                f"fio made no progress for about {self.stalled_s:.0f} s while iotui had not paused it (stopped "
                "from outside, e.g. by SIGSTOP): the figures include that time.",
            )
        if self.target_vanished:
            record.add_warning(
                "target-vanished",
                f"The target {self.plan.target_path} vanished during the run; fio was stopped and its figures "
                "stop there.",
            )
        for code, message in self.plan.warnings:
            record.add_warning(code, message)
        for code, message in suspicious_results(record):
            record.add_warning(code, message)
        self._add_responsiveness(record, self.plan.options, self.plan.numjobs)
        if failure:
            record.add_warning("failed", failure)
        fio_errors = [m["text"] for m in self.messages if m["source"] == "stderr"]
        for text in fio_errors[:5]:
            record.add_warning("fio-message", text)
        if self.parse_refusal is not None:
            # Nothing ran: no record to keep, History stays as it was.
            self._save_and_announce(record, None, failure, refused=True)
            return record
        self._save_and_announce(record, self.runs_dir, failure, fio_report=self.last_document)
        return record

    def _ended_by(self, status: str) -> str | None:
        """``run.ended_by``: why the run ended other than by itself (schema 2), or None."""
        if self.target_vanished:
            return "target-vanished"
        if self.ended_by is not None and status != "completed":
            return self.ended_by
        if self.stalled_s >= STALL_AFTER_S:
            return "stall"
        if status == "failed":
            return "error"
        return None


NOTHING_RAN = (
    "fio ran no job: its report has no section, so nothing was measured. Check the job names and options "
    "(fio reads a job whose name starts with 'global' as its [global] section), then run again."
)


class RunError(Exception):
    """A run that cannot start or go on; str() says what to do."""
