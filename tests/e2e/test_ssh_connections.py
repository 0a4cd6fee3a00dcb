"""The hosts' shared ssh connections, for real, over a private sshd on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import stat
import subprocess
import sys
import time

import pytest

from iotui.core.remote.connections import HostConnections, can_share
from iotui.core.remote.transport import BATCH_MODE, RemoteError
from tests.e2e.private_sshd import HOSTS, missing_reason

pytestmark = [pytest.mark.sshd, pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")]


def _ssh(sshd) -> list[str]:
    words = shlex.split(sshd.ssh_command)
    return [words[0], *BATCH_MODE, *words[1:]]


def _connections_to(port: int) -> int:
    """Established TCP connections to the private sshd's port (both ends are on this machine)."""
    out = subprocess.run(["ss", "-Htn", "state", "established", f"dport = :{port}"], capture_output=True, text=True).stdout
    return len([line for line in out.splitlines() if line.strip()])


def test_the_user_s_own_sharing_options_or_another_ssh_turn_sharing_off():
    assert can_share(["ssh", "-p", "22"])
    assert can_share(["/usr/bin/ssh"])
    assert not can_share(["ssh", "-o", "ControlMaster=auto"])
    assert not can_share(["ssh", "-S", "none", "-o", "controlpath=/x"])
    assert not can_share(["dbclient"])


def test_preflight_and_later_sessions_use_one_connection_per_host_which_ends_on_close(sshd, tmp_path):
    async def scenario() -> None:
        connections = HostConnections(_ssh(sshd))
        assert connections.directory is not None
        assert stat.S_IMODE(os.stat(connections.directory).st_mode) == 0o700
        facts = await asyncio.gather(*(connections.preflight(host, str(tmp_path)) for host in HOSTS))
        assert [f.name for f in facts] == list(HOSTS) and all(f.writable for f in facts)
        assert all(connections.shared(host) for host in HOSTS)
        assert _connections_to(sshd.port) == len(HOSTS)
        # Sessions over the shared connection open no new one.
        sessions = [
            await asyncio.create_subprocess_exec(
                *connections.argv(host), "--", host, "echo shared; sleep 0.5", stdout=asyncio.subprocess.PIPE
            )
            for host in HOSTS
        ]
        await asyncio.sleep(0.2)
        assert _connections_to(sshd.port) == len(HOSTS)
        outputs = [await session.communicate() for session in sessions]
        assert [out for out, _ in outputs] == [b"shared\n"] * len(HOSTS)
        directory = connections.directory
        await connections.close()
        assert not directory.exists()
        for _ in range(50):
            if _connections_to(sshd.port) == 0:
                break
            await asyncio.sleep(0.1)
        assert _connections_to(sshd.port) == 0

    asyncio.run(scenario())


def test_connections_open_at_most_the_bound_at_once_and_a_host_that_does_not_answer_is_named(sshd, tmp_path):
    async def scenario() -> None:
        connections = HostConnections(_ssh(sshd), concurrency=2)
        with pytest.raises(RemoteError) as refused:
            await connections.preflight("127.0.0.9", str(tmp_path))
        assert refused.value.host == "127.0.0.9" and "127.0.0.9" in str(refused.value)
        assert refused.value.code == "ssh-failed"
        # Two at a time: three hosts take two turns, each timed from its own start.
        await asyncio.gather(*(connections.preflight(host, str(tmp_path)) for host in HOSTS))
        assert connections.peak_opening == 2
        assert set(connections.connect_s) == {*HOSTS, "127.0.0.9"}
        await connections.close()

    asyncio.run(scenario())


def test_the_app_s_question_when_hosts_fail_starts_without_them_or_refuses(sshd, tmp_path):
    from iotui.core.presets.files import find_preset
    from iotui.core.remote.plan import make_remote_plan

    asked: list[tuple[list[tuple[str, str]], int]] = []

    async def plan_with(answer: bool):
        async def ask(left_out, passed):
            asked.append((left_out, passed))
            return answer

        return await make_remote_plan(
            find_preset("quick"), ["127.0.0.1", "127.0.0.9", "127.0.0.2"], _ssh(sshd), str(tmp_path), ask_left_out=ask
        )

    plan = asyncio.run(plan_with(True))
    try:
        assert plan.hosts == ["127.0.0.1", "127.0.0.2"]
        assert [host for host, _ in plan.left_out] == ["127.0.0.9"]
        assert asked[0][1] == 2 and "127.0.0.9" in asked[0][0][0][1]
    finally:
        asyncio.run(plan.close())
    with pytest.raises(RemoteError) as refused:
        asyncio.run(plan_with(False))
    assert refused.value.host == "127.0.0.9"


_HOLDER = """
import asyncio, json, sys, time
from iotui.core.remote.connections import HostConnections

async def main():
    connections = HostConnections(json.loads(sys.argv[1]))
    await connections.preflight(sys.argv[2], sys.argv[3])
    print(connections.directory, flush=True)
    time.sleep(60)

asyncio.run(main())
"""


def test_the_socket_directory_goes_when_iotui_is_killed(sshd, tmp_path):
    # SIGKILL gives iotui no chance to remove it: the reaper, waiting on iotui's pipe, does.
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, json.dumps(_ssh(sshd)), HOSTS[0], str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None
        directory = holder.stdout.readline().strip()
        assert directory and os.path.isdir(directory) and os.listdir(directory)  # the master's socket
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        deadline = time.monotonic() + 5
        while os.path.exists(directory) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not os.path.exists(directory)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
