"""The wake-up and I/O probes on each host, over the host's own ssh connection.

The probes' children are the same self-contained programs a local run starts
(``python3 -I -S -c``), sent as the remote command over the host's shared
connection. Each ends by itself when its stdin reaches EOF: when iotui stops it,
when its ssh session or the host's connection ends, or when iotui dies (its ssh
processes get SIGTERM then). The I/O probe works in a private directory it makes
in the host's target (``.iotui-probe-XXXXXX``) and removes on the way out. Each
host's level is judged by the local rules (:mod:`iotui.core.host.levels`)
against that host's own figures at rest, taken before its fio is released.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Mapping, MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from iotui.core.host.io_probe import PROBE_DIR_PREFIX, IoProbe, IoProbeStats
from iotui.core.host.levels import Assessment, ResponsivenessMonitor
from iotui.core.host.watch import BASELINE_GRACE_S
from iotui.core.host.wakeup_probe import ChildLauncher, ChildOptions, ProbeStats, WakeupProbe
from iotui.core.remote.connections import parent_death_signal
from iotui.core.remote.remote_program import remote_program
from iotui.core.remote.transport import HostFacts, ssh_argv

# The child's arguments: the source, then its own; the third of its own is the parent's pid, which
# on the host is the session's (the shell's parent, kept by exec), so an orphan child ends there too.
_WAKEUP_SCRIPT = 'exec python3 "$1" "$2" "$3" "$4" "$5" "$6" "$PPID"'
# The I/O probe's last argument is the directory in which it makes its private one.
_IO_SCRIPT = (
    'd=$(mktemp -d "${15}/' + PROBE_DIR_PREFIX + 'XXXXXX") || exit 1; '
    'exec python3 "$1" "$2" "$3" "$4" "$5" "$6" "$PPID" "$8" "$9" "${10}" "${11}" "${12}" "${13}" "${14}" "$d"'
)
BASELINE_REPORTS = 3
NOT_MEASURED = "{host}: no python3 there, so its responsiveness is not measured."
# How long the release waits, once every host is ready, for a probe with no figure at rest yet:
# as long as a local run waits past its baseline seconds for a probe that has not reported.
AT_REST_WAIT_S = BASELINE_GRACE_S
# Each judged figure, as the record's pressure keys and the sentences name it.
_FIGURES = {
    "probe_p99_ms": "the wake-up probe",
    "io_probe_p99_ms": "the I/O probe's reads",
    "io_probe_write_p99_ms": "the I/O probe's writes",
}

PressureTable = dict[str, str | float]


@dataclass(frozen=True)
class HostLevel:
    """A host's responsiveness this second (its level, cause and sentence).

    ``assessment`` is None where it is not measured: ``not_measured`` then says why.
    """

    host: str
    assessment: Assessment | None
    not_measured: str | None = None


@dataclass(frozen=True)
class AtRest:
    """A host's probe figures before its fio started; a figure without one is not judged."""

    wakeup: ProbeStats | None
    io: IoProbeStats | None

    def missing(self) -> list[str]:
        """The figures (``_FIGURES`` keys) with nothing at rest."""
        present = {
            "probe_p99_ms": self.wakeup is not None,
            "io_probe_p99_ms": self.io is not None and self.io.read_p99_ms is not None,
            "io_probe_write_p99_ms": self.io is not None and self.io.write_p99_ms is not None,
        }
        return [name for name, there in present.items() if not there]


def remote_launcher(ssh: list[str], host: str, script: str) -> ChildLauncher:
    """Runs a probe child's python arguments on ``host`` through ``script`` (a sh program)."""

    def launch(python_args: list[str]) -> tuple[list[str], ChildOptions, bytes]:
        program = remote_program("iotui-probe", script, python_args)
        # Its own session: the terminal's Ctrl-C is iotui's to handle; it dies with iotui.
        options: ChildOptions = {"start_new_session": True, "preexec_fn": parent_death_signal}
        return ssh_argv(ssh, host, program.command), options, program.payload

    return launch


class HostProbes:
    """One host's two probes and the level judged from them, once a second."""

    def __init__(self, ssh: list[str], host: str, target: str) -> None:
        self.host = host
        self.wakeup = WakeupProbe(launcher=remote_launcher(ssh, host, _WAKEUP_SCRIPT))
        self.io = IoProbe(Path(target), probe_home=False, launcher=remote_launcher(ssh, host, _IO_SCRIPT))
        self.monitor: ResponsivenessMonitor | None = None
        self.assessment: Assessment | None = None
        # Why some (or all) of its figures are not judged: none of them came before the release.
        self.not_measured: str | None = None
        self._missing: list[str] = []

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Start both children; with ``loop``, their reports are read by it (not two threads)."""
        self.wakeup.loop = self.io.loop = loop
        self.wakeup.start()
        self.io.start()

    def detach(self) -> None:
        """Stop the loop's watch of both children's pipes (on the loop's thread, before :meth:`stop`)."""
        self.wakeup.detach_reader()
        self.io.detach_reader()

    def at_rest(self) -> AtRest:
        return AtRest(self.wakeup.baseline(BASELINE_REPORTS), self.io.baseline(BASELINE_REPORTS))

    def baseline_pending(self) -> bool:
        """Is a probe still running without its figures at rest (its child started late)?"""
        missing = self.at_rest().missing()
        return ("probe_p99_ms" in missing and self.wakeup.running) or (
            any(name.startswith("io_") for name in missing) and self.io.running
        )

    def take_baseline(self, waited_s: float = 0.0) -> None:
        """What "at rest" is on this host: its last reports before its fio starts.

        A figure with nothing at rest is left out of the judging (never judged against
        zero), and ``not_measured`` says which and why.
        """
        at_rest = self.at_rest()
        self._missing = at_rest.missing()
        self.monitor = ResponsivenessMonitor(at_rest.wakeup, at_rest.io)
        if self._missing:
            self.not_measured = f"{_joined([_FIGURES[name] for name in self._missing])}: {self._why(waited_s)}"

    def _why(self, waited_s: float) -> str:
        """Why the missing figures have nothing at rest, in the probe's own words where it has some."""
        io_missing = any(name.startswith("io_") for name in self._missing)
        if io_missing and self.io.error:
            return self.io.error.rstrip(".")
        ended = [name for name, gone in (
            ("the wake-up probe", "probe_p99_ms" in self._missing and not self.wakeup.running),
            ("the I/O probe", io_missing and not self.io.running),
        ) if gone]
        if ended:
            return f"{' and '.join(ended)} ended before reporting"
        return f"nothing at rest came within {waited_s:.0f} s of the hosts being ready"

    @property
    def measured(self) -> bool:
        """Whether any of its figures is judged (False before the baseline)."""
        return self.monitor is not None and len(self._missing) < len(_FIGURES)

    def update(self) -> Assessment | None:
        if not self.measured or self.monitor is None:
            return None
        wakeup, io = self.wakeup.read_latest(), self.io.read_latest()
        # Only the figures that have one at rest are judged.
        if "probe_p99_ms" in self._missing:
            wakeup = None
        if io is not None and "io_probe_p99_ms" in self._missing:
            io = dataclasses.replace(io, read_p99_ms=None)
        if io is not None and "io_probe_write_p99_ms" in self._missing:
            io = dataclasses.replace(io, write_p99_ms=None)
        if wakeup is None and io is None and self.assessment is None:
            return None  # nothing measured yet: no level rather than a made-up OK
        self.assessment = self.monitor.update(None, wakeup, io)
        return self.assessment

    def stop(self) -> None:
        self.wakeup.stop(timeout_s=1.0)
        self.io.stop(timeout_s=2.0)

    def summary(self) -> PressureTable | None:
        """The host entry's ``pressure``: worst level, its cause, each probe figure's maximum;
        ``not_measured`` (why) for the figures left out, alone where none was judged."""
        table: PressureTable = {}
        if self.measured and self.monitor is not None and self.assessment is not None:
            table.update(self.monitor.summary())
        if self.not_measured is not None:
            table["not_measured"] = self.not_measured
        return table or None


def _joined(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


class HostProbeSet:
    """Every host's probes for one run: ``start()``, ``wait_at_rest()``, ``tick()``, ``stop()``."""

    def __init__(self, hosts: dict[str, HostProbes], not_measured: list[str]) -> None:
        self.probes = hosts
        self.not_measured = not_measured
        self._next_update_s = 0.0
        self._baselines_taken = False
        self._log: Callable[[str], None] | None = None
        self._emit: Callable[[object], None] | None = None

    @classmethod
    def for_plan(cls, hosts: list[str], ssh_for: Callable[[str], list[str]], facts: Mapping[str, HostFacts],
                 default_target: str | None, on: bool = True) -> HostProbeSet:
        """A probe pair for each host whose pre-flight found python3; the others named (none when off)."""
        probes: dict[str, HostProbes] = {}
        not_measured: list[str] = []
        for host in hosts if on else []:
            host_facts = facts.get(host)
            if host_facts is None:
                continue  # not checked: nothing known about it
            if not host_facts.python3:
                not_measured.append(host)
                continue
            probes[host] = HostProbes(ssh_for(host), host, host_facts.path or default_target or ".")
        return cls(probes, not_measured)

    def messages(self) -> list[str]:
        return [NOT_MEASURED.format(host=host) for host in self.not_measured]

    def start(self, log: Callable[[str], None], emit: Callable[[object], None] | None = None) -> None:
        """Start every host's probes (before its fio, so its figures at rest come first);
        ``log`` and ``emit`` then carry what is said about each host's responsiveness."""
        self._log, self._emit = log, emit
        for host, line in zip(self.not_measured, self.messages()):
            log(line)
            if emit is not None:
                emit(HostLevel(host, None, "no python3 there"))
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        for probes in self.probes.values():
            try:
                probes.start(loop)
            except OSError:
                pass  # ssh that cannot start: the run's own session says so for this host

    def detach(self) -> None:
        """Stop the event loop's watch of every child's pipe: on the loop's thread, before :meth:`stop`."""
        for probes in self.probes.values():
            probes.detach()

    def pending(self) -> list[str]:
        """The hosts with a running probe that has no figure at rest yet."""
        return [host for host, probes in self.probes.items() if probes.baseline_pending()]

    async def wait_at_rest(self, stopping: Callable[[], bool], wait_s: float = AT_REST_WAIT_S) -> bool:
        """Once every host is ready: wait (up to ``wait_s``) for each probe's figures at rest,
        then take every host's baseline; a host whose figures did not come is named. False
        when the run was stopped meanwhile."""
        deadline = time.monotonic() + wait_s
        while self.pending() and time.monotonic() < deadline and not stopping():
            await asyncio.sleep(0.05)
        self.take_baselines(wait_s)
        return not stopping()

    def take_baselines(self, waited_s: float = 0.0) -> None:
        """Every host's figures so far came before any fio ran: what "at rest" is on each."""
        if self._baselines_taken:
            return
        self._baselines_taken = True
        for host, probes in self.probes.items():
            probes.take_baseline(waited_s)
            if probes.not_measured is None:
                continue
            if self._log is not None:
                judged = "the rest is judged" if probes.measured else "its responsiveness is not measured"
                self._log(f"{host}: {probes.not_measured}, so {judged}.")
            if self._emit is not None and not probes.measured:
                self._emit(HostLevel(host, None, probes.not_measured))

    def tick(self, emit: Callable[[object], None], released: bool, now_s: float | None = None) -> None:
        """Once the hosts are released, each host's level once a second (more often is a no-op)."""
        now_s = time.monotonic() if now_s is None else now_s
        if not released or now_s < self._next_update_s:
            return
        self.take_baselines()  # where the release did not wait for them (a session of its own)
        self._next_update_s = now_s + 1.0
        for host, probes in self.probes.items():
            assessment = probes.update()
            if assessment is not None:
                emit(HostLevel(host, assessment))

    def stop(self) -> None:
        """End every child (blocking: each waits for its ssh), many hosts at once."""
        if not self.probes:
            return
        with ThreadPoolExecutor(max_workers=min(32, len(self.probes))) as pool:
            list(pool.map(lambda probes: probes.stop(), self.probes.values()))

    def add_to(self, host_entries: Sequence[MutableMapping[str, object]]) -> None:
        """Each measured host's ``pressure`` table into its record entry."""
        for entry in host_entries:
            probes = self.probes.get(str(entry.get("name")))
            pressure = probes.summary() if probes is not None else None
            if pressure is not None:
                entry["pressure"] = pressure
