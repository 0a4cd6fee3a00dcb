"""Preset + hosts -> what every host runs, decided and checked before any starts.

The job goes through the same option policy as a local run. Each host's
target is checked from its pre-flight facts the way a local target is: it
exists, is a writable directory, is not memory (unless the caller allows cache)
and has room for the test files plus the same margin.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from iotui.core.presets import argv as command
from iotui.core.fio import policy
from iotui.core.host import targets as target_checks
from iotui.core.remote.transport import HostFacts, RemoteError, preflight
from iotui.core.presets.estimate import estimate
from iotui.core.runs.plan import effective_options
from iotui.core.presets.model import Preset, PresetPolicyError

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


def fio_args_for(preset: Preset) -> list[str]:
    """fio's arguments after the binary: the same argv a local run builds, relative file."""
    origin = str(preset.source) if preset.source else preset.name
    policy.check_options(dict(preset.options), origin)
    for section in preset.jobs:
        policy.check_options(dict(section.options), f"{origin} [{section.name}]")
    return command.build_fio_argv(preset, test_file=REMOTE_TEST_FILE, fio_binary="fio")[1:]


def check_host_target(facts: HostFacts, *, needs_bytes: int | None, allow_cache: bool) -> list[tuple[str, str]]:
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
    return []


async def make_remote_plan(
    preset: Preset, hosts: list[str], ssh: list[str], target: str | None, *, allow_cache: bool = False
) -> RemotePlan:
    """Check the job and every host (concurrently); the first refusal is raised."""
    if not hosts:
        raise RemoteError("no-hosts", "", "No hosts were given.")
    try:
        fio_args = fio_args_for(preset)
    except (policy.PolicyError, PresetPolicyError) as error:
        raise RemoteError("policy", "", str(error)) from None
    results = await asyncio.gather(*(preflight(ssh, host, target) for host in hosts), return_exceptions=True)
    facts: dict[str, HostFacts] = {}
    for host, result in zip(hosts, results):
        if isinstance(result, RemoteError):
            raise result
        if isinstance(result, BaseException):
            raise RemoteError("ssh-failed", host, f"{host}: the pre-flight check failed ({result!r}).")
        facts[host] = result
    needs_bytes = command.required_bytes(preset)
    warnings: list[tuple[str, str]] = []
    for host in hosts:
        warnings += check_host_target(facts[host], needs_bytes=needs_bytes, allow_cache=allow_cache)
    duration_s, _ = estimate(preset)
    return RemotePlan(
        preset_name=preset.name,
        title=preset.title,
        hosts=list(hosts),
        ssh=list(ssh),
        target=target,
        fio_args=fio_args,
        options=effective_options(preset),
        facts=facts,
        warnings=warnings,
        estimated_duration_s=duration_s,
    )
