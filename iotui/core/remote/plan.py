"""Preset + hosts -> what every host runs, decided and checked before any starts.

The job goes through the same option policy as a local run. Each host's
target is checked from its pre-flight facts the way a local target is: it
exists, is a writable directory, is not memory (unless the caller allows cache)
and has room for the test files plus the same margin.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable

from iotui.core.presets import argv as command
from iotui.core.fio import policy
from iotui.core.host import targets as target_checks
from iotui.core.host.memory import buffers_problem
from iotui.core.remote.connections import HostConnections
from iotui.core.remote.host_probes import HostProbeSet
from iotui.core.remote.transport import HostFacts, RemoteError
from iotui.core.presets.estimate import buffer_estimate, disk_estimate, estimate, file_estimate
from iotui.core.runs.plan import effective_options
from iotui.core.presets.model import Preset, PresetPolicyError

# Asked (by the app) when some hosts failed the check: (each left-out host and why, how many
# passed) -> whether to start without them.
AskLeftOut = Callable[[list[tuple[str, str]], int], Awaitable[bool]]

# fio runs inside the lifeline's private directory, so the file name is relative.
REMOTE_TEST_FILE = Path("iotui.fio-test")


@dataclass
class RemotePlan:
    preset_name: str
    title: str
    hosts: list[str]
    ssh: list[str]
    target: str | None
    fio_args: list[str]
    options: dict[str, str]
    facts: dict[str, HostFacts] = field(default_factory=dict)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    estimated_duration_s: float | None = None
    numjobs: int | None = None
    connections: HostConnections | None = None
    # Hosts that failed the pre-flight and were left out (``--min-hosts``): (host, what happened).
    left_out: list[tuple[str, str]] = field(default_factory=list)
    # The wake-up and I/O probes on each host that has python3 (``--no-host-probes``: off).
    host_probes: bool = True

    @functools.cached_property
    def probes(self) -> HostProbeSet:
        """Each host's probes (none with ``host_probes`` off), over its shared connection."""
        return HostProbeSet.for_plan(self.hosts, self.ssh_for, self.facts, self.target, on=self.host_probes)

    def ssh_for(self, host: str) -> list[str]:
        """ssh's words for a session on the host: over its shared connection where there is one."""
        return self.connections.argv(host) if self.connections is not None else list(self.ssh)

    async def close(self) -> None:
        """End the hosts' probes, then their shared connections (after the run, or when it does not start)."""
        if "probes" in self.__dict__:
            self.probes.detach()  # the loop's readers go here, on its thread; the waits in a thread
            await asyncio.to_thread(self.probes.stop)
        if self.connections is not None:
            await self.connections.close()


def fio_args_for(preset: Preset) -> list[str]:
    """fio's arguments after the binary: the same argv a local run builds, relative file."""
    return command.build_fio_argv(command.checked_preset(preset), test_file=REMOTE_TEST_FILE, fio_binary="fio")[1:]


def check_host_target(
    facts: HostFacts, *, needs_bytes: int | None, allow_cache: bool, needs_files: int | None = None, files_how: str = ""
) -> list[tuple[str, str]]:
    """Refuse (RemoteError) or return warnings, as the local target check does."""
    host = facts.name
    if not facts.writable:
        raise RemoteError(
            "target-read-only", host,
            f"{host}: cannot write to the target {facts.path}.",
        )
    if facts.filesystem in target_checks.MEMORY_FILESYSTEMS and not allow_cache:
        raise RemoteError(
            "target-memory", host,
            f"{host}: the target {facts.path} is on {facts.filesystem}, which is memory: the results would not be "
            "storage numbers.",
        )
    margin = target_checks.FREE_SPACE_MARGIN_BYTES
    if needs_bytes and facts.free_bytes is not None and needs_bytes + margin > facts.free_bytes:
        raise RemoteError(
            "target-full", host,
            f"{host}: not enough free space in {facts.path}: the run needs {needs_bytes >> 20} MiB plus a "
            f"{margin >> 20} MiB margin and {facts.free_bytes >> 20} MiB is free.",
        )
    problem = target_checks.files_problem(needs_files, files_how, facts.free_inodes, facts.path)
    if problem:
        raise RemoteError("target-full", host, f"{host}: {problem}")
    return []


async def make_remote_plan(
    preset: Preset,
    hosts: list[str],
    ssh: list[str],
    target: str | None,
    *,
    allow_cache: bool = False,
    min_hosts: int | None = None,
    connections: HostConnections | None = None,
    ask_left_out: AskLeftOut | None = None,
) -> RemotePlan:
    """Check the job and every host (a few connections at a time).

    ``min_hosts`` (default: all of them) hosts must pass; the others are left
    out and named in ``left_out``. With fewer, the first refusal is raised,
    naming every host that failed. The plan holds the hosts' connections: call
    :meth:`RemotePlan.close` when done (the session does at its end).
    ``ask_left_out(left_out, passed)``, where given, is asked instead of refusing
    when fewer pass but some do (the app's question); True starts without the others.
    """
    if not hosts:
        raise RemoteError("no-hosts", "", "No hosts were given.")
    needed = len(hosts) if min_hosts is None else min_hosts
    if needed < 1 or needed > len(hosts):
        given = f"{len(hosts)} host{'' if len(hosts) == 1 else 's'} given"
        raise RemoteError("min-hosts", "", f"{needed} hosts must pass, more than the {given}." if needed > len(hosts)
                          else f"{needed} hosts must pass: at least 1 must, of the {given}.")
    try:
        preset = command.checked_preset(preset)
        fio_args = fio_args_for(preset)
    except (policy.PolicyError, PresetPolicyError) as error:
        raise RemoteError("policy", "", str(error)) from None
    needs_bytes, unknown = disk_estimate(preset)
    if needs_bytes is None:
        raise RemoteError("size-unknown", "", f"{unknown}, so iotui cannot check the hosts' free space before the run.")
    needs_files, files_how = file_estimate(preset)
    if needs_files is None:
        raise RemoteError("size-unknown", "", f"{files_how}, so iotui cannot check the files the run creates.")
    # Over the cap on every host alike: refused before any connection.
    too_many = target_checks.files_problem(needs_files, files_how, None, "")
    if too_many:
        raise RemoteError("too-many-files", "", too_many)
    buffers_bytes, how = buffer_estimate(preset)
    if buffers_bytes is None:
        raise RemoteError("size-unknown", "", f"{how}, so iotui cannot check the memory the run's I/O buffers take.")
    connections = connections or HostConnections(ssh)
    try:
        return await _checked_plan(
            preset, hosts, ssh, target, fio_args, connections, needed, allow_cache, ask_left_out,
            needs_bytes=needs_bytes, buffers=(buffers_bytes, how), files=(needs_files, files_how),
        )
    except BaseException:
        await connections.close()
        raise


async def _checked_plan(
    preset: Preset, hosts: list[str], ssh: list[str], target: str | None, fio_args: list[str],
    connections: HostConnections, needed: int, allow_cache: bool, ask_left_out: AskLeftOut | None,
    *, needs_bytes: int, buffers: tuple[int, str], files: tuple[int, str],
) -> RemotePlan:
    results = await asyncio.gather(*(connections.preflight(host, target) for host in hosts), return_exceptions=True)
    facts: dict[str, HostFacts] = {}
    failures: list[RemoteError] = []
    warnings: list[tuple[str, str]] = []
    for host, result in zip(hosts, results):
        if isinstance(result, BaseException) and not isinstance(result, Exception):
            raise result
        try:
            if isinstance(result, RemoteError):
                raise result
            if isinstance(result, BaseException):
                raise RemoteError("ssh-failed", host, f"{host}: the pre-flight check failed ({result!r}).")
            host_warnings = check_host_target(
                result, needs_bytes=needs_bytes, allow_cache=allow_cache, needs_files=files[0], files_how=files[1]
            )
            memory_problem = buffers_problem(buffers[0], buffers[1], result.mem_available_bytes, host)
            if memory_problem:
                raise RemoteError("memory", host, f"{host}: {memory_problem}")
            warnings += host_warnings
            facts[host] = result
        except RemoteError as error:
            failures.append(error)
    if len(facts) < needed:
        left_out = [(failure.host, str(failure)) for failure in failures]
        if not facts or ask_left_out is None or not await ask_left_out(left_out, len(facts)):
            raise _refusal(failures, len(hosts), needed)
    for failure in failures:
        await connections.forget(failure.host)
    duration_s, _ = estimate(preset)
    return RemotePlan(
        preset_name=preset.name,
        title=preset.title,
        hosts=[host for host in hosts if host in facts],
        ssh=list(ssh),
        target=target,
        fio_args=fio_args,
        options=effective_options(preset),
        facts=facts,
        warnings=warnings,
        estimated_duration_s=duration_s,
        connections=connections,
        left_out=[(failure.host, str(failure)) for failure in failures],
    )


def _refusal(failures: list[RemoteError], total: int, needed: int) -> RemoteError:
    """The first failure's own sentence; with several, every failed host named after it."""
    first = failures[0]
    if len(failures) == 1:
        return first
    others = ", ".join(failure.host for failure in failures[1:])
    passed = total - len(failures)
    return RemoteError(
        first.code, first.host,
        f"{first} {len(failures)} of {total} hosts failed the pre-flight check (also {others}); "
        f"{passed} passed and {needed} are needed.",
    )
