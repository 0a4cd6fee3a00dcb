"""The one way to start a run: a typed request in, a ready session out.

The command line (``iotui run``, ``iotui sweep``) and the app both call
:func:`start_run` (and :func:`start_sysbench_run` for a sysbench point), so a
run is planned and equipped with the real host sampler, wake-up and I/O probes
and responsiveness monitor in one place. A run that cannot start raises
:class:`StartError`, which carries a code and the underlying error; each
caller words it for its own users.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar

from iotui.core.fio.runner import FioNotFoundError, fio_version, resolve_fio
from iotui.core.host import protocols
from iotui.core.host.counters import HostSampler
from iotui.core.host.io_probe import IoProbe
from iotui.core.host.levels import ResponsivenessMonitor
from iotui.core.host.wakeup_probe import WakeupProbe
from iotui.core.runs.events import EventCallback, LogLine
from iotui.core.runs.plan import PlanError, RunPlan, make_plan
from iotui.core.runs.recorder import RunRecorder
from iotui.core.runs.runs_dir import RunsDirError, check_runs_dir
from iotui.core.runs.session import RunSession
from iotui.core.sysbench.session import SysbenchSession, find_sysbench

if TYPE_CHECKING:
    from iotui.core.presets.model import Preset


@dataclass(frozen=True)
class StartRequest:
    """A run asked for by a user: the preset (overrides applied) and where and how to run it."""

    preset: Preset
    target: str | None = None
    """The directory (or read-only raw device) to test; None: the current directory."""
    runs_dir: Path | None = None
    """Where the record is saved; None: not saved."""
    fio: str | None = None
    """The fio binary the user named; None: ``$IOTUI_FIO`` or ``fio`` on PATH."""
    allow_cache: bool = False
    """Allow tmpfs/ramfs targets (the results then measure memory)."""
    baseline_s: float = 2.0
    """Quiet seconds of responsiveness baseline before the tool starts."""
    force: bool = False
    """Run even while another run holds the machine's run lock (both records then say so)."""
    lock_by: str = "iotui"
    """How this run is named in the run lock: "iotui run", "the app", "the app in a browser"."""


class StartError(Exception):
    """A run that cannot start. ``code`` names the fact; str() is the sentence.

    Codes: ``fio-missing`` (no fio binary), ``refused`` (the plan refused the
    preset or the target; ``cause`` is the core's own error), ``sysbench-missing``,
    ``runs-dir`` (the runs directory cannot take a record; checked before fio starts).
    """

    def __init__(self, message: str, *, code: str, cause: Exception | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.cause = cause


def resolve_fio_binary(fio: str | None) -> str:
    """The fio binary to run, or StartError ``fio-missing``."""
    try:
        return resolve_fio(fio)
    except FioNotFoundError as error:
        raise StartError(str(error), code="fio-missing", cause=error) from None


def plan_run(request: StartRequest, fio_binary: str) -> RunPlan:
    """The request's plan, or StartError ``refused`` with the plan's sentence."""
    try:
        return make_plan(request.preset, request.target, fio_binary=fio_binary, allow_cache=request.allow_cache)
    except PlanError as error:
        raise StartError(str(error), code="refused", cause=error) from None


def check_runs_dir_for(request: StartRequest) -> None:
    """The runs directory can take the record (created, writable, room), or StartError ``runs-dir``."""
    if request.runs_dir is None:
        return
    try:
        check_runs_dir(request.runs_dir)
    except RunsDirError as error:
        raise StartError(str(error), code="runs-dir", cause=error) from None


SessionT = TypeVar("SessionT", bound=RunRecorder)


def _equipped(make: Callable[..., SessionT], plan: RunPlan, request: StartRequest, on_event: EventCallback) -> SessionT:
    """A session of either tool on ``plan``, with the real host sampler, probes and monitor."""
    # Typed by the Protocols the sessions hold, so mypy checks that the real parts fit them.
    sampler: protocols.Sampler = HostSampler(plan.devices)
    probe: protocols.WakeupProbe = WakeupProbe()
    io_probe: protocols.IoProbe = IoProbe(plan.target_path)
    monitor: protocols.Monitor = ResponsivenessMonitor()
    session = make(
        plan,
        runs_dir=request.runs_dir,
        on_event=on_event,
        sampler=sampler,
        probe=probe,
        io_probe=io_probe,
        monitor=monitor,
        baseline_s=max(0.0, request.baseline_s),
    )
    session.force, session.lock_by = request.force, request.lock_by
    return session


async def start_run(request: StartRequest, on_event: EventCallback) -> RunSession:
    """A ready-to-run fio session; the plan's warnings are emitted as log lines first."""
    check_runs_dir_for(request)
    fio_binary = resolve_fio_binary(request.fio)
    try:
        version = await fio_version(fio_binary)
    except FioNotFoundError as error:
        raise StartError(str(error), code="fio-missing", cause=error) from None
    plan = plan_run(request, fio_binary)
    for code, message in plan.warnings:
        on_event(LogLine("iotui", f"warning [{code}]: {message}"))
    return _equipped(functools.partial(RunSession, fio_version=version), plan, request, on_event)


def start_sysbench_run(request: StartRequest, on_event: EventCallback, sysbench: str | None = None) -> SysbenchSession:
    """A ready-to-run sysbench session on the same plan a fio run would have."""
    binary = find_sysbench(sysbench)
    if binary is None:
        raise StartError("sysbench is not installed; install it or drop tool=sysbench.", code="sysbench-missing")
    plan = plan_run(request, resolve_fio_binary(request.fio))
    return _equipped(functools.partial(SysbenchSession, sysbench_binary=binary), plan, request, on_event)
