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

import shlex
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from iotui.core.host.io_probe import PROBE_DIR_PREFIX, IoProbe
from iotui.core.host.levels import Assessment, ResponsivenessMonitor
from iotui.core.host.wakeup_probe import ChildLauncher, WakeupProbe
from iotui.core.remote.connections import parent_death_signal
from iotui.core.remote.transport import ssh_argv

# The child's arguments: the source, then its own; the third of its own is the parent's pid, which
# on the host is the session's (the shell's parent, kept by exec), so an orphan child ends there too.
_WAKEUP_SCRIPT = 'exec python3 "$1" "$2" "$3" "$4" "$5" "$6" "$PPID"'
# The I/O probe's last argument is the directory in which it makes its private one.
_IO_SCRIPT = (
    'd=$(mktemp -d "${12}/' + PROBE_DIR_PREFIX + 'XXXXXX") || exit 1; '
    'exec python3 "$1" "$2" "$3" "$4" "$5" "$6" "$PPID" "$8" "$9" "${10}" "${11}" "$d"'
)
BASELINE_REPORTS = 3
NOT_MEASURED = "{host}: no python3 there, so its responsiveness is not measured."


@dataclass(frozen=True)
class HostLevel:
    """A host's responsiveness this second (its level, cause and sentence)."""

    host: str
    assessment: Assessment


def remote_launcher(ssh: list[str], host: str, script: str) -> ChildLauncher:
    """Runs a probe child's python arguments on ``host`` through ``script`` (a sh program)."""

    def launch(python_args: list[str]) -> tuple[list[str], dict[str, Any]]:
        command = f"sh -c {shlex.quote(script)} iotui-probe {shlex.join(python_args)}"
        # Its own session: the terminal's Ctrl-C is iotui's to handle; it dies with iotui.
        return ssh_argv(ssh, host, command), {"start_new_session": True, "preexec_fn": parent_death_signal}

    return launch


class HostProbes:
    """One host's two probes and the level judged from them, once a second."""

    def __init__(self, ssh: list[str], host: str, target: str) -> None:
        self.host = host
        self.wakeup = WakeupProbe(launcher=remote_launcher(ssh, host, _WAKEUP_SCRIPT))
        self.io = IoProbe(Path(target), probe_home=False, launcher=remote_launcher(ssh, host, _IO_SCRIPT))
        self.monitor: ResponsivenessMonitor | None = None
        self.assessment: Assessment | None = None

    def start(self) -> None:
        self.wakeup.start()
        self.io.start()

    def take_baseline(self) -> None:
        """What "at rest" is on this host: its last reports before its fio starts."""
        self.monitor = ResponsivenessMonitor(self.wakeup.baseline(BASELINE_REPORTS), self.io.baseline(BASELINE_REPORTS))

    def update(self) -> Assessment | None:
        if self.monitor is None:
            return None
        wakeup, io = self.wakeup.read_latest(), self.io.read_latest()
        if wakeup is None and io is None and self.assessment is None:
            return None  # nothing measured yet: no level rather than a made-up OK
        self.assessment = self.monitor.update(None, wakeup, io)
        return self.assessment

    def stop(self) -> None:
        self.wakeup.stop(timeout_s=1.0)
        self.io.stop(timeout_s=2.0)

    def summary(self) -> dict[str, Any] | None:
        """The host entry's ``pressure``: worst level, its cause, each probe figure's maximum."""
        if self.monitor is None or self.assessment is None:
            return None
        return dict(self.monitor.summary())


class HostProbeSet:
    """Every host's probes for one run: ``start()``, ``take_baselines()``, ``tick()``, ``stop()``."""

    def __init__(self, hosts: dict[str, HostProbes], not_measured: list[str]) -> None:
        self.probes = hosts
        self.not_measured = not_measured
        self._next_update_s = 0.0
        self._baselines_taken = False

    @classmethod
    def for_plan(cls, hosts: list[str], ssh_for: Callable[[str], list[str]], facts: dict, default_target: str | None,
                 on: bool = True) -> HostProbeSet:
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

    def start(self, log: Callable[[str], None]) -> None:
        """Start every host's probes (before its fio, so its figures at rest come first)."""
        for line in self.messages():
            log(line)
        for probes in self.probes.values():
            try:
                probes.start()
            except OSError:
                pass  # ssh that cannot start: the run's own session says so for this host

    def tick(self, emit: Callable[[object], None], released: bool, now_s: float | None = None) -> None:
        """Once the hosts are released, each host's level once a second (more often is a no-op)."""
        now_s = time.monotonic() if now_s is None else now_s
        if not released or now_s < self._next_update_s:
            return
        if not self._baselines_taken:
            # Their reports so far came before any fio ran: what "at rest" is on each host.
            self._baselines_taken = True
            for probes in self.probes.values():
                probes.take_baseline()
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

    def add_to(self, host_entries: list[dict[str, Any]]) -> None:
        """Each measured host's ``pressure`` table into its record entry."""
        for entry in host_entries:
            probes = self.probes.get(str(entry.get("name")))
            pressure = probes.summary() if probes is not None else None
            if pressure is not None:
                entry["pressure"] = pressure
