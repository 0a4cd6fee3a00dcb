"""One real ``sysbench fileio`` run (prepare, run, cleanup) made into a run record.

Like :class:`~iotui.core.runs.session.RunSession` it is a
:class:`~iotui.core.runs.recorder.RunRecorder` (for the sysbench-compare study):
the same plan (target checks, devices, options), the host sampled once a
second beside sysbench (context switches and interrupts are the study's
explanation), and a record with the same summary keys. sysbench's files live
in iotui's own hidden directory inside the target, removed afterwards, also
after a failure or a stop.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import shutil
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from iotui.core.host.watch import HostReading, responsiveness_row
from iotui.core.records.record import RunRecord
from iotui.core.runs.recorder import RunRecorder
from iotui.core.host.identity import host_identity
from iotui.core.host.protocols import IoProbe, Monitor, Sampler, WakeupProbe
from iotui.core.runs.events import EventCallback
from iotui.core.runs.plan import RunPlan
from iotui.core.fio.summary import HOST_SAMPLE_KEYS
from iotui.core.sysbench.workload import (
    SysbenchError,
    SysbenchWorkload,
    latency_warnings,
    parse_sysbench_output,
    summary_from_report,
    sysbench_workload,
)

WORK_DIR_PREFIX = ".iotui-sysbench-"
SYSBENCH_INSTALL_HINT = (
    "install it with 'sudo apt-get install sysbench' (Debian/Ubuntu), 'sudo dnf install sysbench' "
    "(Fedora) or 'brew install sysbench' (macOS)"
)


def find_sysbench(explicit: str | None = None) -> str | None:
    """The sysbench binary: an explicit path, ``$IOTUI_SYSBENCH``, or ``sysbench`` on PATH."""
    candidate = explicit or os.environ.get("IOTUI_SYSBENCH") or "sysbench"
    return shutil.which(candidate)


async def sysbench_version(binary: str) -> str:
    """``sysbench 1.0.20`` style, from ``sysbench --version``."""
    process = await asyncio.create_subprocess_exec(
        binary, "--version", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await process.communicate()
    text = output.decode(errors="replace").strip().splitlines()
    return text[0].strip() if text else "sysbench (unknown version)"


class SysbenchSession(RunRecorder):
    """Runs ``plan``'s workload with sysbench; ``await run()`` returns the record (saved unless runs_dir is None)."""

    messages_kept = 200

    def __init__(
        self,
        plan: RunPlan,
        *,
        sysbench_binary: str,
        runs_dir: Path | None,
        on_event: EventCallback | None = None,
        sampler: Sampler | None = None,
        monitor: Monitor | None = None,
        probe: WakeupProbe | None = None,
        io_probe: IoProbe | None = None,
        baseline_s: float = 0.0,
        host_interval_s: float = 1.0,
        stop_grace_s: float = 2.0,
        run_id: str | None = None,
    ) -> None:
        super().__init__(
            plan, runs_dir=runs_dir, on_event=on_event, sampler=sampler, probe=probe, monitor=monitor,
            io_probe=io_probe, baseline_s=baseline_s, host_interval_s=host_interval_s, run_id=run_id,
        )
        self.sysbench_binary = sysbench_binary
        self.stop_grace_s = stop_grace_s
        self.work_dir: Path | None = None
        self.run_argv: list[str] = []
        self._process: asyncio.subprocess.Process | None = None
        self._run_started_monotonic: float | None = None

    # -- control --------------------------------------------------------------------
    def request_stop(self, ended_by: str = "user") -> None:
        """SIGINT to sysbench's process group, then SIGTERM and SIGKILL after a grace period.

        ``ended_by`` (``user``, ``signal:SIGHUP``...) is kept as the record's ``run.ended_by``."""
        self._note_stop(ended_by)
        if self._process is not None and self._process.returncode is None:
            asyncio.ensure_future(self._stop_process(self._process))

    def pause(self) -> bool:
        """sysbench has no pause: never paused (the screen says so)."""
        return False

    def resume(self) -> bool:
        return False

    async def _stop_process(self, process: asyncio.subprocess.Process) -> None:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            if process.returncode is not None:
                return
            try:
                os.killpg(process.pid, signum)
            except (ProcessLookupError, PermissionError):
                return
            try:
                await asyncio.wait_for(process.wait(), self.stop_grace_s)
                return
            except asyncio.TimeoutError:
                continue

    # -- helpers --------------------------------------------------------------------------
    async def _step(self, workload: SysbenchWorkload, command: str) -> tuple[int, str]:
        """Run one sysbench step in the work directory; returns (exit code, stdout+stderr)."""
        argv = workload.argv(self.sysbench_binary, command)
        if command == "run":
            self.run_argv = argv
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=self.work_dir,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        self._process = process
        if command == "run":
            self._run_started_monotonic = time.monotonic()
            self.watch.watch_pid(process.pid)
        if self.stop_requested:
            asyncio.ensure_future(self._stop_process(process))
        try:
            output, _ = await process.communicate()
            if command == "run" and not self.host_samples:
                # A run shorter than the host interval (or one whose first sample came late on a busy
                # machine) still gets its CPU figures: one reading over the whole run, as it ends.
                self._sample_host()
        except asyncio.CancelledError:
            await self._stop_process(process)
            raise
        finally:
            self._process = None
            if process.returncode is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except OSError:
                    pass
        text = output.decode("utf-8", errors="replace")
        return process.returncode if process.returncode is not None else -1, text

    def _tool_running(self) -> bool:
        return self._process is not None and self._run_started_monotonic is not None

    def _on_host_reading(self, reading: HostReading) -> None:
        """sysbench reports no intervals: each host sample is a row of the record."""
        assert self._run_started_monotonic is not None
        t_s = time.monotonic() - self._run_started_monotonic
        row: dict[str, object] = {"t_s": round(t_s, 3), "dt_s": self.host_interval_s}
        row.update({key: getattr(reading.host, key, None) for key in HOST_SAMPLE_KEYS})
        row.update(responsiveness_row(reading.assessment, reading.probe, reading.io_probe))
        self.rows.append({key: value for key, value in row.items() if value is not None})

    def _make_work_dir(self) -> None:
        if self.plan.test_file is None:
            raise SysbenchError("sysbench needs a directory to create its files in, not a raw device; choose a target directory.")
        work_dir = self.plan.target_path / f"{WORK_DIR_PREFIX}{self.run_id[:12]}"  # resolved by the plan
        try:
            work_dir.mkdir(mode=0o700)
        except FileExistsError:
            raise SysbenchError(f"{work_dir} already exists; iotui will not use a directory it did not create.") from None
        except OSError as error:
            raise SysbenchError(
                f"Cannot create sysbench's directory in {work_dir.parent} ({error.strerror}); "
                "choose a target directory you can write to."
            ) from None
        self.work_dir = work_dir

    def _remove_work_dir(self) -> None:
        if self.work_dir is None:
            return
        try:
            shutil.rmtree(self.work_dir)
        except FileNotFoundError:
            pass
        except OSError as error:
            self._log("iotui", f"Could not remove sysbench's directory {self.work_dir}: {error.strerror}.")
        self.work_dir = None

    # -- the run ------------------------------------------------------------------------------
    async def _run_locked(self) -> RunRecord:
        started = self._begin()
        version = "sysbench"
        report_text = ""
        failure: str | None = None
        workload: SysbenchWorkload | None = None
        host_task: asyncio.Task | None = None
        try:
            workload = sysbench_workload(self.plan.options)
            version = await sysbench_version(self.sysbench_binary)
            self._make_work_dir()
            code, text = await self._step(workload, "prepare")
            if code != 0 and not self.stop_requested:
                raise SysbenchError(f"sysbench prepare exited with code {code}: {_last_line(text)}")
            if not self.stop_requested:
                self._start_watch()
                if self.baseline_s > 0:
                    await self._wait_baseline()
                host_task = asyncio.create_task(self._host_loop())
                code, report_text = await self._step(workload, "run")
                for line in report_text.splitlines():
                    if line.strip():
                        self._log("stdout", line.rstrip())
                if code != 0 and not self.stop_requested:
                    raise SysbenchError(f"sysbench run exited with code {code}: {_last_line(report_text)}")
        except SysbenchError as error:
            failure = str(error)
        except FileNotFoundError:
            failure = f"sysbench was not found at {self.sysbench_binary}: {SYSBENCH_INSTALL_HINT}."
        finally:
            if host_task is not None:
                host_task.cancel()
            self.watch.stop()
            if self.work_dir is not None and workload is not None:
                try:
                    code, text = await asyncio.shield(self._step(workload, "cleanup"))
                    if code != 0:
                        self._log("iotui", f"sysbench cleanup exited with code {code}: {_last_line(text)}")
                except OSError as error:  # sysbench gone or not executable any more
                    self._log("iotui", f"sysbench cleanup failed: {error!r}")
            self._remove_work_dir()
        return self._finish(started, version, workload, report_text, failure)

    def _finish(
        self, started: dt.datetime, version: str, workload: SysbenchWorkload | None, report_text: str, failure: str | None
    ) -> RunRecord:
        figures: dict[str, dict[str, float]] = {}
        warnings: list[tuple[str, str]] = list(self.plan.warnings)
        status = "stopped" if self.stop_requested else "completed"
        if failure is None and not self.stop_requested:
            try:
                report = parse_sysbench_output(report_text)
                figures = summary_from_report(report, workload.block_size_bytes if workload else None)
                warnings += [("sysbench-latency", text) for text in latency_warnings(report)]
            except SysbenchError as error:
                failure = str(error)
        if failure is not None:
            status = "failed"
        total_iops = sum(figures.get(d, {}).get("iops", 0.0) for d in ("read", "write"))
        summary: dict[str, Mapping[str, object]] = dict(figures)
        self._add_host_summary(summary, total_iops)
        if workload is not None:
            warnings += [("sysbench-translation", note) for note in workload.notes]
        if workload is not None and workload.not_translated:
            warnings.append(
                ("sysbench-untranslated", "sysbench has no equivalent of these fio options, so it ran without them: "
                 f"{', '.join(workload.not_translated)}.")
            )
        record = RunRecord(
            run=self._run_table(
                status, started, title=(self.plan.title + " (sysbench)") if self.plan.title else None,
                tool="sysbench", tool_version=version, argv=self.run_argv, source="sysbench",
            ),
            host=host_identity(),
            target=dict(self.plan.target),
            options={**self.plan.options, **({f"sysbench.{k}": v for k, v in workload.options.items()} if workload else {})},
            summary=summary,
            samples=self.rows,
            messages=self.messages,
        )
        if status == "stopped" and self.ended_by is not None:
            record.run["ended_by"] = self.ended_by
        for code, message in warnings:
            record.add_warning(code, message)
        self._add_responsiveness(record, self.plan.options, self.plan.numjobs)
        if failure:
            record.add_warning("failed", failure)
        self._save_and_announce(record, self.runs_dir, failure)
        return record


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fatal = next((line for line in lines if line.startswith("FATAL")), None)
    return fatal or (lines[-1] if lines else "no output")


if TYPE_CHECKING:
    from iotui.core.runs.protocols import Session

    def _a_session(session: SysbenchSession) -> Session:
        """mypy holds SysbenchSession to the Session protocol (the app and sweeps run it as one)."""
        return session
