"""One run, start to record: the orchestration shared by the CLI and the app.

A :class:`RunSession` creates iotui's own test file, starts fio through a
runner, turns its documents into interval samples, samples the host once a
second beside it, watches responsiveness, and builds the run record. It emits
events to a callback and never draws anything: the CLI prints them, the app
posts them as messages. Runner, sampler and probe are injected so tests can
replay recorded fio output.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import platform
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from iotui import __version__
from iotui.core.runs.cache_check import suspicious_results
from iotui.core.host.device_facts import cpu_governor
from iotui.core.host.watch import responsiveness_row
from iotui.core.fio.intervals import IntervalDeriver, IntervalSample
from iotui.core.runs.findings import annotate_record
from iotui.core.runs.record import RunRecord
from iotui.core.runs.recorder import EventCallback, HostUpdate, LogLine, RunFinished, RunRecorder
from iotui.core.fio.runner import FioExited, FioNotFoundError, FioRunner, StderrLine
from iotui.core.fio.status import FioDocument, FioText
from iotui.core.fio.sections import SectionTracker, fio_sections
from iotui.core.fio.summary import sample_row
from iotui.core.runs.pauses import PauseLog, unpause_sections
from iotui.core.runs.section_figures import assign_sections, section_host_figures
from iotui.core.runs import test_dir
from iotui.core.runs.runs_dir import RunsDirError, check_runs_dir

TEST_FILE_PREFIX = test_dir.PRIVATE_DIR_PREFIX
TEST_FILE_SUFFIX = ".fio-test"
# fio stopped from outside (SIGSTOP) this long, not by iotui's pause: a stall.
STALL_AFTER_S = 3.0


class Runner(Protocol):
    """The tool's process (``FioRunner``; tests: a replay of recorded documents)."""

    stderr_lines: list[str]

    @property
    def pid(self) -> int | None: ...

    async def start(self) -> None: ...
    def events(self) -> Any: ...
    def pause(self) -> bool: ...
    def resume(self) -> bool: ...
    async def stop(self) -> int | None: ...


@dataclass
class RunPlan:
    """Everything decided before fio starts."""

    preset_name: str
    argv: list[str]
    options: dict[str, str]
    target_path: Path
    test_file: Path | None
    target: dict[str, Any]
    warnings: list[tuple[str, str]] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    numjobs: int | None = None
    # Every file fio will use (nrfiles=N gives N numbered files); empty: just test_file.
    test_files: list[Path] = field(default_factory=list)
    estimated_duration_s: float | None = None
    title: str = ""
    # iotui's private test directory inside the target (mode 0700, random name), removed after the run.
    private_dir: Path | None = None
    # Directories inside it that the job's own relative names need.
    private_subdirs: list[Path] = field(default_factory=list)


# -- events -----------------------------------------------------------------


@dataclass(frozen=True)
class IntervalUpdate:
    """A new interval from fio, with the latest host figures beside it."""

    interval: IntervalSample
    host: Any | None
    row: dict[str, Any]
    elapsed_s: float


__all__ = ["EventCallback", "HostUpdate", "IntervalUpdate", "LogLine", "RunFinished", "RunPlan", "RunSession"]


def host_identity() -> dict[str, Any]:
    """The ``[host]`` table."""
    import psutil

    cpu_model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    identity: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "system": platform.system(),
        "kernel": platform.release(),
        "cpu_model": cpu_model or platform.machine() or "unknown",
        "cpu_count": os.cpu_count() or 1,
        "mem_total_bytes": int(psutil.virtual_memory().total),
    }
    governor = cpu_governor()
    if governor:
        identity["cpu_governor"] = governor
    return identity


def new_test_file_path(directory: Path, run_id: str) -> Path:
    """The shared test file, inside a new private directory of ``directory`` (see test_dir)."""
    return test_dir.new_private_dir(directory) / test_dir.SHARED_FILE_NAME


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
        sampler: Any | None = None,
        probe: Any | None = None,
        monitor: Any | None = None,
        io_probe: Any | None = None,
        baseline_s: float = 0.0,
        host_interval_s: float = 1.0,
        run_id: str | None = None,
    ) -> None:
        super().__init__(
            on_event=on_event, sampler=sampler, probe=probe, monitor=monitor, host_interval_s=host_interval_s,
            io_probe=io_probe,
        )
        self.plan = plan
        self.fio_version = fio_version
        self.runs_dir = runs_dir
        self.runner_factory = runner_factory or (
            lambda argv: FioRunner(argv, cwd=str(plan.private_dir) if plan.private_dir else None,
                                   cleanup_dir=plan.private_dir)
        )
        self.baseline_s = baseline_s
        self.run_id = run_id or uuid.uuid4().hex
        self.runner: Runner | None = None
        self.deriver = IntervalDeriver()
        self.rows: list[dict[str, Any]] = []
        self.section_tracker = SectionTracker()
        # Per sample row: fio's groupid then, and the host's busy cores (for IOPS per busy core).
        self.row_groupids: list[int | None] = []
        self.row_busy_cores: list[float | None] = []
        self.pause_log = PauseLog()
        self._last_row_monotonic = 0.0
        self.last_document: dict | None = None
        # Extra [run] keys the caller decides (repeat_group and repeat_index of --repeat N).
        self.run_keys: dict[str, Any] = {}
        self.stop_requested = False
        self._stop_asked = asyncio.Event()  # ends the baseline at once
        self.paused = False
        self._created_test_files: list[Path] = []
        self._created_private_dir: Path | None = None
        self._started_monotonic = 0.0
        # Why the run ended other than by itself: user | signal:SIGHUP | stall | target-vanished | ...
        self.ended_by: str | None = None
        self.stalled_s = 0.0
        self.target_vanished = False

    # -- control ------------------------------------------------------------
    def request_stop(self, ended_by: str = "user") -> None:
        """Stop fio (SIGINT, then SIGTERM, then SIGKILL); the record is kept.

        ``ended_by``: who asked (``user``, ``signal:SIGHUP``...), kept as the
        record's ``run.ended_by`` (the first reason wins).
        """
        self.stop_requested = True
        if self.ended_by is None:
            self.ended_by = ended_by
        self._stop_asked.set()
        if self.runner is not None:
            asyncio.ensure_future(self.runner.stop())

    def pause(self) -> bool:
        if self.runner is not None and self.runner.pause():
            self.paused = True
            now = time.monotonic()
            fio_t_s = self.rows[-1]["t_s"] + (now - self._last_row_monotonic) if self.rows else 0.0
            self.pause_log.pause(now, fio_t_s)
        return self.paused

    def resume(self) -> bool:
        if self.runner is not None and self.runner.resume():
            self.paused = False
            self.pause_log.resume(time.monotonic())
        return not self.paused

    # -- the run ------------------------------------------------------------
    def _planned_test_files(self) -> list[Path]:
        if self.plan.test_file is None:
            return []
        if self.plan.private_dir is not None:
            return list(self.plan.test_files)
        return list(self.plan.test_files) or [self.plan.test_file]

    def _create_test_file(self) -> None:
        """The private test directory (exclusive, 0700) with its marker, subdirectories and shared file."""
        private_dir = self.plan.private_dir
        if private_dir is not None:
            for removed in test_dir.remove_leftovers(private_dir.parent):
                self._log("iotui", f"Removed {removed}, a test directory left behind by an earlier run that did "
                          "not end (power loss or a killed iotui).")
            try:
                test_dir.create_private_dir(private_dir, self.plan.private_subdirs)
            except test_dir.TestDirError as error:
                raise RunError(str(error)) from None
            self._created_private_dir = private_dir
        for test_file in self._planned_test_files():
            try:
                # Exclusive create: never take over a file that already exists.
                descriptor = os.open(test_file, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                raise RunError(
                    f"{test_file} already exists; iotui will not overwrite a file it did not create."
                ) from None
            except OSError as error:
                raise RunError(
                    f"Cannot create the test file in {test_file.parent} ({error.strerror}); "
                    "choose a directory you can write to with --target."
                ) from None
            os.close(descriptor)
            self._created_test_files.append(test_file)

    def _remove_test_file(self) -> None:
        for test_file in self._created_test_files:
            try:
                test_file.unlink()
            except FileNotFoundError:
                pass
            except OSError as error:
                self._log("iotui", f"Could not remove the test file {test_file}: {error.strerror}.")
        self._created_test_files = []
        private_dir, self._created_private_dir = self._created_private_dir, None
        if private_dir is not None:
            problem = test_dir.remove_private_dir(private_dir)
            if problem:
                self._log("iotui", problem)

    def _sample_host(self) -> None:
        super()._sample_host()
        self._watch_fio(self.host_interval_s)

    def _watch_fio(self, interval_s: float) -> None:
        """Stalls (fio stopped from outside) and a target that disappeared."""
        pid = self.runner.pid if self.runner is not None else None
        if pid is None or self.stop_requested:
            return
        if not self.paused and _process_stopped(pid):
            self.stalled_s += interval_s
        private_dir = self.plan.private_dir
        if private_dir is not None and not self.target_vanished and not os.path.isdir(private_dir):
            self.target_vanished = True
            self._log("iotui", f"The target {self.plan.target_path} (or iotui's test directory in it) vanished "
                      "during the run; fio was stopped.")
            self.request_stop("target-vanished")

    def _tool_running(self) -> bool:
        return self.runner is not None and self.runner.pid is not None

    async def run(self) -> RunRecord:
        """Run fio and return the record; :class:`RunLockHeld` when another run holds the machine."""
        lock = self._take_run_lock(self.plan.preset_name, str(self.plan.target_path))
        try:
            return await self._run_locked()
        finally:
            lock.release()

    async def _run_locked(self) -> RunRecord:
        started = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        self._started_monotonic = time.monotonic()
        exit_event: FioExited | None = None
        failure: str | None = None
        cancelled = False
        try:
            if self.runs_dir is not None:
                try:
                    check_runs_dir(self.runs_dir)
                except RunsDirError as error:
                    raise RunError(str(error)) from None
            self._create_test_file()
            self._start_watch()
            if self.baseline_s > 0:
                # A few quiet seconds before fio starts: what "normal" is here (a stop ends them).
                try:
                    await asyncio.wait_for(self._stop_asked.wait(), self.baseline_s)
                except asyncio.TimeoutError:
                    pass
                self.watch.take_baseline()
                self._sample_host()
            # Stopped during the baseline: fio never starts (status "stopped").
            if not self.stop_requested:
                exit_event = await self._run_fio()
        except FioNotFoundError as error:
            failure = str(error)
        except RunError as error:
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
            self._remove_test_file()
        record = self._finish(started, exit_event, failure)
        if cancelled:
            raise asyncio.CancelledError
        return record

    async def _run_fio(self) -> FioExited | None:
        self.runner = self.runner_factory(self.plan.argv)
        await self.runner.start()
        if self.stop_requested:
            # A stop that came while fio was starting.
            asyncio.ensure_future(self.runner.stop())
        self.watch.watch_pid(self.runner.pid)
        exit_event: FioExited | None = None
        host_task = asyncio.create_task(self._host_loop())
        try:
            async for event in self.runner.events():
                self._handle(event)
                if isinstance(event, FioExited):
                    exit_event = event
        finally:
            host_task.cancel()
        return exit_event

    def _handle(self, event: object) -> None:
        if isinstance(event, FioDocument):
            self.last_document = event.doc
            groupid = self.section_tracker.feed(event.doc)
            interval = self.deriver.feed(event.doc)
            paused_row = self.pause_log.feed(event.doc, made_row=interval is not None)
            if interval is None:
                return
            row = sample_row(interval, self.latest_host)
            if paused_row:
                row["paused"] = True  # a pause fell in this interval: left out of every figure
            self._last_row_monotonic = time.monotonic()
            self.row_groupids.append(groupid)
            self.row_busy_cores.append(getattr(self.latest_host, "busy_cores", None))
            row.update(responsiveness_row(self.latest_assessment, self.latest_probe, self.latest_io_probe))
            self.rows.append(row)
            self._emit(
                IntervalUpdate(interval, self.latest_host, row, time.monotonic() - self._started_monotonic)
            )
        elif isinstance(event, FioText):
            self._log("stdout", event.line)
        elif isinstance(event, StderrLine):
            self._log("stderr", event.line)

    def _status(self, exit_event: FioExited | None, failure: str | None) -> str:
        if failure is None and exit_event is None and self.stop_requested:
            return "stopped"
        if failure is not None or exit_event is None:
            return "failed"
        if self.stop_requested or exit_event.stopped_by_user:
            return "stopped"
        return "completed" if exit_event.returncode == 0 else "failed"

    def _finish(self, started: dt.datetime, exit_event: FioExited | None, failure: str | None) -> RunRecord:
        status = self._status(exit_event, failure)
        if status == "failed" and failure is None:
            stderr_tail = "; ".join((self.runner.stderr_lines if self.runner else [])[-3:])
            code = exit_event.returncode if exit_event else "unknown"
            failure = f"fio exited with code {code}" + (f": {stderr_tail}" if stderr_tail else ".")
        if status == "failed" and self.last_document is None and exit_event is not None and exit_event.returncode == 0:
            failure = "fio exited without writing a report."
        final_doc = self.last_document or {}
        sections = fio_sections(final_doc)
        assign_sections(sections, self.rows, self.row_groupids)
        self.pause_log.finish(time.monotonic())
        unpause_sections(sections, self.rows, self.pause_log, final_doc)
        for index, section in enumerate(sections):
            picked = [(row, busy) for row, busy in zip(self.rows, self.row_busy_cores) if row.get("section") == index]
            section_host_figures(section, [row for row, _ in picked], [busy for _, busy in picked])
        pressure = self.watch.pressure_summary()
        record = RunRecord(
            run={
                "id": self.run_id,
                "preset": self.plan.preset_name,
                "title": self.plan.title or None,
                "status": status,
                "started": started,
                "duration_s": round(time.monotonic() - self._started_monotonic, 3),
                "tool": "fio",
                "tool_version": self.fio_version,
                "argv": list(self.plan.argv),
                "report": "",
                "exit_code": exit_event.returncode if exit_event else None,
                "iotui_version": __version__,
                "paused_s": round(self.pause_log.paused_s, 3) if self.pause_log.pauses else None,
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


def _process_stopped(pid: int) -> bool:
    """Is the process stopped (state T: SIGSTOP from someone)? Linux /proc; False elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat_file:
            text = stat_file.read()
    except OSError:
        return False
    return text.rpartition(")")[2].split()[:1] == ["T"]


class RunError(Exception):
    """A run that cannot start or go on; str() says what to do."""
