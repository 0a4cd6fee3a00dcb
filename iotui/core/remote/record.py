"""Each host's state during a run, and the one record of a multi-host run.

The record's top-level ``sections`` hold the aggregate of the hosts that completed; ``hosts`` holds
one entry per host with its own sections and samples (see
docs/record-schema-2.md and docs/multi-host.md).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from iotui import __version__
from iotui.core.remote.aggregate import aggregate_sections, host_sections, version_warning
from iotui.core.remote.alignment import RUNTIME_SLACK_S, HostDeriver, job_runtimes_ms, jobs_have_run
from iotui.core.remote.plan import RemotePlan
from iotui.core.remote.transport import HostFacts
from iotui.core.runs.pauses import PauseLog
from iotui.core.runs.second_rows import SecondRows
from iotui.core.records.record import RunRecord
from iotui.core.host.identity import host_identity

if TYPE_CHECKING:
    from iotui.core.remote.lifeline import HostRunner

STALL_S = 10.0  # a released host with no document this long is failed (and its run goes on)


@dataclass
class HostState:
    name: str
    facts: HostFacts | None
    runner: HostRunner | None = None
    deriver: HostDeriver = field(init=False)
    last_document: dict[str, object] | None = None
    last_arrival_s: float | None = None
    first_start_s: float | None = None
    first_start_remote_ms: float | None = None
    clock_offset_ms: float | None = None
    # Its seconds, kept as a local run keeps its own (with its pauses, counted from when its
    # lifeline was told, as a local run counts its own).
    seconds: SecondRows = field(default_factory=lambda: SecondRows(drop_empty=True))
    lines: list[str] = field(default_factory=list)
    ended: bool = False
    returncode: int | None = None
    exit_status: int | None = None
    failed_at_s: float | None = None
    # Failed for silence: how long nothing came from it (not for an exit of its own).
    silent_s: float | None = None

    def __post_init__(self) -> None:
        self.deriver = HostDeriver(self.name)

    @property
    def pause_log(self) -> PauseLog:
        return self.seconds.pause_log

    def take_document(self, doc: dict[str, object], arrived_monotonic: float, at_s: float) -> None:
        self.last_document = doc
        self.last_arrival_s = at_s
        timestamp_ms = doc.get("timestamp_ms")
        if self.first_start_s is None and jobs_have_run(doc):
            # When its jobs started: on its own clock (report time minus the jobs'
            # runtime) when it says its time, else arrival minus runtime on ours.
            # (A status begun while the jobs were held says a runtime from before their start.)
            runtime_s = max(job_runtimes_ms(doc, (at_s + RUNTIME_SLACK_S) * 1000.0), default=0) / 1000.0
            self.first_start_s = at_s - runtime_s
            if isinstance(timestamp_ms, (int, float)):
                self.first_start_remote_ms = float(timestamp_ms) - runtime_s * 1000.0
        if isinstance(timestamp_ms, (int, float)):
            # Its clock against ours at arrival; the largest value had the least delay.
            offset = float(timestamp_ms) - (time.time() - (time.monotonic() - arrived_monotonic)) * 1000.0
            if self.clock_offset_ms is None or offset > self.clock_offset_ms:
                self.clock_offset_ms = offset

    @property
    def offset_ms(self) -> float | None:
        """Its clock less iotui's, where both measures of it agree.

        The clock exchange before the barrier puts it within half its round trip of the
        exchange's middle; a document's timestamp less its arrival is below it by the
        document's delay (which a busy machine makes seconds), so the true offset is not below
        the documents' largest. The middle of what both allow; the documents' alone where the
        host answered no exchange.
        """
        runner = self.runner
        if runner is None or runner.clock_offset_ms is None or runner.clock_rtt_ms is None:
            return self.clock_offset_ms
        low_ms = runner.clock_offset_ms - runner.clock_rtt_ms / 2
        high_ms = runner.clock_offset_ms + runner.clock_rtt_ms / 2
        if self.clock_offset_ms is not None and low_ms < self.clock_offset_ms <= high_ms:
            low_ms = self.clock_offset_ms
        return (low_ms + high_ms) / 2

    def start_ms(self) -> float | None:
        """Its jobs' start on iotui's wall clock (its own clock less its offset)."""
        offset_ms = self.offset_ms
        if self.first_start_remote_ms is not None and offset_ms is not None:
            return self.first_start_remote_ms - offset_ms
        return self.first_start_s * 1000.0 if self.first_start_s is not None else None

    @property
    def completed(self) -> bool:
        return self.failed_at_s is None and self.last_document is not None


def _host_entry(state: HostState) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The host's record entry, and its sections (in the entry too) for the aggregate."""
    facts = state.facts
    entry: dict[str, object] = {"name": state.name}
    if facts is not None:
        entry.update(tool_version=facts.tool_version, kernel=facts.kernel, filesystem=facts.filesystem,
                     target=facts.path, device=facts.device)
    if state.exit_status is not None:
        entry["exit_status"] = state.exit_status
    if state.failed_at_s is not None:
        entry["failed_at_s"] = state.failed_at_s
    if state.offset_ms is not None:
        entry["clock_offset_ms"] = round(state.offset_ms, 1)
    if state.runner is not None and state.runner.clock_offset_ms is not None and state.runner.clock_rtt_ms is not None:
        entry["clock_rtt_ms"] = round(state.runner.clock_rtt_ms, 1)
    sections = host_sections(state.last_document) if state.last_document else []
    # Its figures leave the paused time out, fio's own kept under each direction's "fio".
    state.seconds.file_under(sections, state.last_document or {})
    entry["sections"], entry["samples"] = sections, state.seconds.copy_rows()
    if state.pause_log.pauses:
        entry["paused_s"] = round(state.pause_log.paused_s, 3)
        entry["pauses"] = [dict(pause) for pause in state.pause_log.pauses]
    return entry, sections


def build_record(
    plan: RemotePlan,
    states: dict[str, HostState],
    *,
    run_id: str,
    started: dt.datetime,
    duration_s: float,
    stop_requested: bool,
    failure: str | None,
    aggregate: SecondRows,
    messages: list[dict[str, str]],
    release_spread_ms: float | None,
    ended_by: str | None = None,
    pauses: list[dict[str, float]] | None = None,
) -> RunRecord:
    failed = [s.name for s in states.values() if s.failed_at_s is not None]
    completed = {s.name: s.last_document for s in states.values() if s.completed and s.last_document is not None}
    if failure is not None:
        status = "failed"
    elif stop_requested:
        status = "stopped"
    elif not completed:
        status = "failed"
    elif any(states[name].silent_s is None for name in failed):
        # A host that went silent is left out and named; the run goes on and completes
        # with the others. A host whose fio failed fails the run.
        status = "failed"
    else:
        status = "completed"
    versions = {s.name: s.facts.tool_version for s in states.values() if s.facts is not None}
    first_version = next(iter(versions.values()), "unknown")
    built = {name: _host_entry(state) for name, state in states.items()}
    entries = [entry for entry, _sections in built.values()]
    own_sections = {name: sections for name, (_entry, sections) in built.items() if name in completed}
    pause_logs = {name: states[name].pause_log for name in completed}
    sections = aggregate_sections(completed, own_sections, pause_logs) if completed else []
    aggregate.file_under(sections, {})
    starts = [start for start in (s.start_ms() for s in states.values()) if start is not None]
    exit_statuses = [s.exit_status for s in states.values() if s.exit_status is not None]
    run: dict[str, object] = {
        "id": run_id,
        "preset": plan.preset_name,
        "title": plan.title or None,
        "status": status,
        "started": started,
        "duration_s": duration_s,
        "tool": "fio",
        "tool_version": first_version,
        "argv": ["fio", *plan.fio_args],
        "report": "",
        "exit_code": max(exit_statuses) if exit_statuses else None,
        "iotui_version": __version__,
    }
    if stop_requested:
        run["ended_by"] = ended_by or "user"
    if pauses:
        run["paused_s"] = round(sum(pause["duration_s"] for pause in pauses), 3)
    if len(starts) > 1:
        run["start_spread_ms"] = round(max(starts) - min(starts), 1)
    if release_spread_ms is not None:
        run["release_spread_ms"] = round(release_spread_ms, 3)
    filesystems = sorted({s.facts.filesystem for s in states.values() if s.facts is not None})
    target = {
        "path": plan.target or next((s.facts.path for s in states.values() if s.facts), "~"),
        "filesystem": ",".join(filesystems) or "unknown",
        "device": "remote",
        "mount_options": "",
    }
    record = RunRecord(
        run=run,
        host=host_identity(),
        target=target,
        options=dict(plan.options),
        samples=aggregate.copy_rows(),
        messages=messages,
        sections=sections,
        hosts=entries,
        pauses=[dict(pause) for pause in pauses or []],
    )
    for code, message in plan.warnings:
        record.add_warning(code, message)
    for _host, message in plan.left_out:
        record.add_warning("host-left-out", f"Left out of the run: {message}")
    warning = version_warning(versions)
    if warning:
        record.add_warning("fio-versions", warning)
    for name in failed:
        state = states[name]
        silent_s = state.silent_s
        what = "failed" if silent_s is None else f"sent nothing for {silent_s:.0f} s and was marked failed"
        record.add_warning(
            "host-failed",
            f"{name} {what} at {state.failed_at_s:.1f} s; the aggregate holds the {len(completed)} of "
            f"{len(states)} hosts that ran to the end.",
        )
    if failure:
        record.add_warning("failed", failure)
    return record
