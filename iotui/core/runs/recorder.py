"""What every session shares, whichever tool it runs (fio or sysbench).

A :class:`RunRecorder` sends events to the caller (a failing handler never
loses the run), keeps the run's log, samples the host once a second through
one :class:`~iotui.core.host.watch.HostWatch`, adds the host's figures to the
summary, and saves the record and announces it. The sessions only run their
tool and turn its output into figures.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import time
import uuid
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING

from iotui import __version__
from iotui.core.fio.summary import cpu_summary
from iotui.core.host.advice import run_shape
from iotui.core.host.advice import raised_sections
from iotui.core.host.section_pressure import apply_section_pressure
from iotui.core.host.protocols import IoProbe, Monitor, Sampler, WakeupProbe
from iotui.core.host.signals import missing_signals, missing_signals_sentence
from iotui.core.host.verdict import WARNING_CODE as RESPONSIVENESS_WARNING, pressure_warning
from iotui.core.host.watch import HostReading, HostWatch
from iotui.core.runs.events import EventCallback, EventLog, HostUpdate
from iotui.core.runs.lock import RunLock, acquire_run_lock
from iotui.core.runs.saving import save_and_announce
from iotui.core.records.record import RunRecord

if TYPE_CHECKING:
    from iotui.core.host.counters import HostSample
    from iotui.core.host.io_probe import IoProbeStats
    from iotui.core.host.levels import Assessment
    from iotui.core.host.wakeup_probe import ProbeStats
    from iotui.core.runs.plan import RunPlan


class RunRecorder(EventLog):
    """The shared half of a session; the tool's session subclasses it."""

    def __init__(
        self,
        plan: RunPlan,
        *,
        runs_dir: Path | None,
        on_event: EventCallback | None,
        sampler: Sampler | None,
        probe: WakeupProbe | None,
        monitor: Monitor | None,
        host_interval_s: float,
        io_probe: IoProbe | None = None,
        baseline_s: float = 0.0,
        run_id: str | None = None,
    ) -> None:
        self.plan = plan
        self.runs_dir = runs_dir
        self.baseline_s = baseline_s
        self.run_id = run_id or uuid.uuid4().hex
        self.on_event: EventCallback = on_event or (lambda event: None)
        self.watch = HostWatch(sampler, probe, monitor, io_probe)
        self.host_interval_s = host_interval_s
        self.messages: list[dict[str, str]] = []
        self.rows: list[dict[str, object]] = []
        self.host_samples: list[HostSample] = []
        self.latest_host: HostSample | None = None
        self.latest_probe: ProbeStats | None = None
        self.latest_assessment: Assessment | None = None
        self.latest_io_probe: IoProbeStats | None = None
        self.stop_requested = False
        # Why the run ended other than by itself: user | signal:SIGHUP | terminal-lost | stall | ... (first wins).
        self.ended_by: str | None = None
        self._stop_asked = asyncio.Event()  # ends the baseline at once
        self._started_monotonic = 0.0
        # One run per machine (core.runs.lock): force runs past a live holder; lock_by names us there.
        self.force = False
        self.lock_by = "iotui"
        self.run_lock: RunLock | None = None
        # Whether the first host sample has been checked for missing signals (said once per run).
        self.signals_checked = False

    async def run(self) -> RunRecord:
        """Run the tool and return the record; :class:`RunLockHeld` when another run holds the machine."""
        self.run_lock = acquire_run_lock(
            preset=self.plan.preset_name, target=str(self.plan.target_path), by=self.lock_by, force=self.force
        )
        try:
            return await self._run_locked()
        finally:
            self.run_lock.release()

    async def _run_locked(self) -> RunRecord:
        """The tool's own run, while this session holds the machine's run lock."""
        raise NotImplementedError

    def _begin(self) -> dt.datetime:
        """The run starts now: its ``run.started`` (whole seconds, UTC); ``run.duration_s`` counts from here."""
        self._started_monotonic = time.monotonic()
        return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)

    def _note_stop(self, ended_by: str = "user") -> None:
        """A stop was asked (``ended_by`` says who; the first reason wins): the baseline ends at once,
        the tool is stopped by the session."""
        if self.ended_by is None:
            self.ended_by = ended_by
        self.stop_requested = True
        self._stop_asked.set()

    async def _wait_baseline(self) -> None:
        """A few quiet seconds before the tool starts: what "normal" is here (a stop ends them)."""
        try:
            await asyncio.wait_for(self._stop_asked.wait(), self.baseline_s)
        except asyncio.TimeoutError:
            pass
        if self.baseline_s > 0:
            await self.watch.wait_for_first_reports(self._stop_asked)
        self.watch.take_baseline()

    def _run_table(
        self, status: str, started: dt.datetime, *, title: str | None, tool: str, tool_version: str, argv: list[str],
        **extra: object,
    ) -> dict[str, object]:
        """The record's ``[run]`` table as every tool writes it (``extra``: the tool's own keys)."""
        return {
            "id": self.run_id,
            "preset": self.plan.preset_name,
            "title": title,
            "status": status,
            "started": started,
            "duration_s": round(time.monotonic() - self._started_monotonic, 3),
            "tool": tool,
            "tool_version": tool_version,
            "argv": list(argv),
            "report": "",
            **extra,
            "iotui_version": __version__,
        }


    def _tool_running(self) -> bool:
        """Whether the tool runs now: only then does a host sample count for the summary."""
        return False

    def _on_host_reading(self, reading: HostReading) -> None:
        """A session's own use of each reading (sysbench keeps it as a sample row)."""

    def _sample_host(self) -> None:
        try:
            reading = self.watch.read()
        except Exception as error:  # noqa: BLE001 - an injected sampler may fail any way: dropped by the watch, the run goes on
            self._log("iotui", f"Host sampling failed: {error!r}")
            return
        if reading is None:
            return
        if not self.signals_checked:
            self.signals_checked = True
            sentence = missing_signals_sentence(missing_signals(reading.host))
            if sentence:
                self._log("iotui", sentence)
        self.latest_host = reading.host
        self.latest_probe = reading.probe
        self.latest_assessment = reading.assessment
        self.latest_io_probe = reading.io_probe
        if self._tool_running():
            self.host_samples.append(reading.host)
            self._on_host_reading(reading)
        self._emit(HostUpdate(reading.host, reading.assessment))

    async def _host_loop(self) -> None:
        while True:
            await asyncio.sleep(self.host_interval_s)
            self._sample_host()

    def _add_host_summary(self, summary: dict[str, Mapping[str, object]], total_iops: float) -> None:
        """The ``cpu`` and ``pressure`` tables of the summary, from the samples taken while the tool ran."""
        cpu = cpu_summary(self.host_samples, total_iops)
        if cpu:
            summary["cpu"] = cpu
        pressure = self.watch.pressure_summary()
        if pressure is not None:
            summary["pressure"] = pressure

    def _start_watch(self) -> None:
        """Start the probes; an I/O probe that cannot run is said once and left out."""
        self.watch.start()
        if self.watch.io_probe_error:
            self._log("iotui", self.watch.io_probe_error + " Responsiveness is judged without it.")

    def _add_responsiveness(self, record: RunRecord, options: Mapping[str, object], numjobs: int | None) -> None:
        """Each section's own pressure, and the warning when other programs suffered."""
        apply_section_pressure(record)
        cpu_count = os.cpu_count() or 1
        shape = run_shape(options, cpu_count, numjobs)
        warning = pressure_warning(record.pressure or None, shape, raised_sections(record, cpu_count))
        if warning:
            record.add_warning(RESPONSIVENESS_WARNING, warning)

    def _save_and_announce(
        self, record: RunRecord, runs_dir: Path | None, failure: str | None, fio_report: dict | None = None,
        *, refused: bool = False,
    ) -> Path | None:
        """Save the record (unless runs_dir is None) and emit RunFinished, as every run does
        (:func:`~iotui.core.runs.saving.save_and_announce`); a save error is its error.
        ``refused``: the tool refused its options before anything ran (the caller passes no runs_dir)."""
        return save_and_announce(
            record, runs_dir=runs_dir, emit=self._emit, failure=failure, fio_report=fio_report,
            run_lock=self.run_lock, refused=refused,
        )
