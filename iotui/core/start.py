"""The one way to start a run: a typed request in, a ready session out.

The command line (``iotui run``, ``iotui sweep``) and the app both call
:func:`start_run`, which starts a local fio run, or a run on every host of
``request.hosts`` (:func:`start_fio_run` and :func:`start_hosts_run` are the
same two, typed for a caller that needs the concrete session), and
:func:`start_sysbench_run` for a sysbench point. Every kind passes the same
pre-flight here: the runs directory can take the record; the target has room
(this machine's, or each host's); the run lock is taken when a session that
runs on this machine starts running. A run that cannot start raises
:class:`StartError`, which carries a code and the underlying facts; each
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
from iotui.core.host.targets import TargetInfo
from iotui.core.host.wakeup_probe import WakeupProbe
from iotui.core.runs.events import EventCallback, LogLine
from iotui.core.runs.plan import PlanError, RunPlan, make_plan
from iotui.core.runs.recorder import RunRecorder
from iotui.core.runs.runs_dir import RunsDirError, check_runs_dir
from iotui.core.remote.plan import AskLeftOut, make_remote_plan
from iotui.core.remote.session import MultiHostSession
from iotui.core.remote.transport import RemoteError, ssh_command
from iotui.core.runs.session import RunSession
from iotui.core.sysbench.session import SysbenchSession, find_sysbench

if TYPE_CHECKING:
    from iotui.core.presets.model import Preset
    from iotui.core.runs.protocols import Session


@dataclass(frozen=True)
class StartRequest:
    """A run asked for by a user: the preset (overrides applied) and where and how to run it."""

    preset: Preset
    target: TargetInfo | str | None = None
    """The directory (or read-only raw device) to test, in one form: as chosen (the app's TargetInfo,
    inspected once when chosen; the plan reads only its free space again) or the user's text (the
    plan inspects it once); None: the current directory. With hosts: the directory on each host."""
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
    hosts: tuple[str, ...] = ()
    """ssh destinations to run on at once; empty: this machine."""
    ssh: str | None = None
    """The ssh command as the user gave it; None: ``$IOTUI_SSH`` or ``ssh``."""
    min_hosts: int | None = None
    """How many hosts must pass the pre-flight check for the run to start; None: all of them."""
    host_probes: bool = True
    """Run the wake-up and I/O probes on each host."""
    ask_left_out: AskLeftOut | None = None
    """Asked, where given, when fewer hosts than ``min_hosts`` pass but some do (the app's question)."""


class StartError(Exception):
    """A run that cannot start. ``code`` names the fact; str() is the sentence.

    Codes: ``fio-missing`` (no fio binary), ``refused`` (the plan refused the
    preset or the target; ``cause`` is the core's own error, ``key`` its code such as
    ``target-missing`` or ``size-unknown``), ``sysbench-missing``,
    ``sysbench-hosts`` (sysbench runs on this machine only), ``runs-dir`` (the runs
    directory cannot take a record; checked before any tool starts), ``hosts-refused``
    (a host failed the pre-flight check and nothing started; ``key`` is the
    RemoteError's code, such as ``ssh-timeout`` or ``target-read-only``, and ``host``
    names the host where one is to blame).
    """

    def __init__(
        self, message: str, *, code: str, cause: Exception | None = None, key: str | None = None, host: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.cause = cause
        self.key = key
        self.host = host


def resolve_fio_binary(fio: str | None) -> str:
    """The fio binary to run, or StartError ``fio-missing``."""
    try:
        return resolve_fio(fio)
    except FioNotFoundError as error:
        raise StartError(str(error), code="fio-missing", cause=error) from None


def plan_run(request: StartRequest, fio_binary: str) -> RunPlan:
    """The request's plan, or StartError ``refused`` with the plan's sentence."""
    try:
        return make_plan(
            request.preset, request.target, fio_binary=fio_binary, allow_cache=request.allow_cache,
        )
    except PlanError as error:
        raise StartError(str(error), code="refused", cause=error, key=error.code) from None


def host_target(target: TargetInfo | str | None) -> str | None:
    """The directory on each host: a path there, never resolved on this machine."""
    return str(target.path) if isinstance(target, TargetInfo) else target


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


async def start_run(request: StartRequest, on_event: EventCallback) -> Session:
    """The one entry: a ready session on every host of ``request.hosts``, else a local fio session."""
    if request.hosts:
        return await start_hosts_run(request, on_event)
    return await start_fio_run(request, on_event)


async def start_fio_run(request: StartRequest, on_event: EventCallback) -> RunSession:
    """A ready-to-run fio session on this machine; the plan's warnings are emitted as log lines first."""
    check_runs_dir_for(request)
    fio_binary = resolve_fio_binary(request.fio)
    try:
        version = await fio_version(fio_binary)
    except FioNotFoundError as error:  # a binary that does not answer as fio: the one given, if any
        cause = FioNotFoundError(str(error), given=request.fio)
        raise StartError(str(error), code="fio-missing", cause=cause) from None
    plan = plan_run(request, fio_binary)
    for code, message in plan.warnings:
        on_event(LogLine("iotui", f"warning [{code}]: {message}"))
    return _equipped(functools.partial(RunSession, fio_version=version), plan, request, on_event)


async def start_hosts_run(request: StartRequest, on_event: EventCallback) -> MultiHostSession:
    """A ready-to-run session on every host, each checked first (its target, free space, fio, ssh).

    The plan's warnings and each host left out are emitted as log lines. No run lock is taken:
    it guards this machine's disks, and fio runs on the hosts.
    """
    check_runs_dir_for(request)
    try:
        plan = await make_remote_plan(
            request.preset, list(request.hosts), ssh_command(request.ssh), host_target(request.target),
            allow_cache=request.allow_cache, min_hosts=request.min_hosts, ask_left_out=request.ask_left_out,
        )
    except RemoteError as error:
        raise StartError(str(error), code="hosts-refused", cause=error, key=error.code, host=error.host or None) from None
    plan.host_probes = request.host_probes
    for code, message in plan.warnings:
        on_event(LogLine("iotui", f"warning [{code}]: {message}"))
    for host, message in plan.left_out:
        on_event(LogLine("iotui", f"left out [{host}]: {message}"))
    if plan.left_out:
        required = f" (at least {request.min_hosts} must pass)" if request.min_hosts is not None else ""
        on_event(LogLine("iotui", f"Starting on {len(plan.hosts)} of {len(request.hosts)} hosts{required}."))
    return MultiHostSession(plan, runs_dir=request.runs_dir, on_event=on_event)


def start_sysbench_run(request: StartRequest, on_event: EventCallback, sysbench: str | None = None) -> SysbenchSession:
    """A ready-to-run sysbench session on the same plan a fio run would have (this machine only)."""
    if request.hosts:
        raise StartError("sysbench runs on this machine only, not on the hosts.", code="sysbench-hosts")
    check_runs_dir_for(request)
    binary = find_sysbench(sysbench)
    if binary is None:
        raise StartError("sysbench is not installed; install it or drop tool=sysbench.", code="sysbench-missing")
    plan = plan_run(request, resolve_fio_binary(request.fio))
    return _equipped(functools.partial(SysbenchSession, sysbench_binary=binary), plan, request, on_event)
