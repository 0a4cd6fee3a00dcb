"""One ssh connection per host, opened a few at a time and shared by the pre-flight and the run.

Opening 128 ssh connections at once makes every handshake compete for the
same cores (and a host's sshd drops unauthenticated connections beyond its
``MaxStartups``), so hosts time out that would have answered. Connections are
therefore opened at most :data:`CONNECT_CONCURRENCY` at a time, each host's
time limit counted from its own start.

Where the user's ssh is OpenSSH and its command does not already choose
``ControlMaster``/``ControlPath`` itself, the pre-flight's ssh becomes the
host's **master** connection (``ControlMaster=yes``, its socket in a private
0700 directory, **no ControlPersist**): after the pre-flight it holds its
session open with ``cat`` on the remote side, and the lifeline (and the probes)
then run over it as multiplexed sessions, with no second handshake. The master
is iotui's child: it ends when iotui closes its stdin, and it gets SIGTERM when
iotui dies (even by SIGKILL), so the shared connection never outlives iotui.
Elsewhere (another ssh, or a socket that did not appear) each session opens
its own connection as before.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from iotui.core.remote.transport import (
    PREFLIGHT_MAX_BYTES,
    PREFLIGHT_SCRIPT,
    PREFLIGHT_TIMEOUT_S,
    HostFacts,
    RemoteError,
    facts_from_output,
    ssh_argv,
)
from iotui.core.remote.remote_program import remote_program

# OpenSSH's sshd starts refusing unauthenticated connections beyond 10 (MaxStartups 10:30:100):
# no more than that are opened at once, even where many hosts share one sshd.
CONNECT_CONCURRENCY = 10
# A busy sshd drops a connection before the key exchange ("kex_exchange_identification:
# Connection reset by peer" or "... closed by remote host"): tried again, a little later.
CONNECT_RETRIES = 2
_DROPPED_BEFORE_KEX = "kex_exchange_identification"
PREFLIGHT_END = "IOTUI-PREFLIGHT-END"
CLOSE_GRACE_S = 2.0
# Once connected, how long the check itself may take (the login's shell start-up included).
CHECK_TIMEOUT_S = 60.0
# A unix socket's path is limited to 108 bytes (104 on some systems); ssh refuses longer ones.
_SOCKET_PATH_MAX = 100
_OWN_SHARING_OPTIONS = ("controlmaster", "controlpath", "controlpersist")


def parent_death_signal() -> None:  # pragma: no cover - runs in the child
    # ssh ends when iotui dies, so the host's sessions end at once.
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)
        except OSError:
            pass


def can_share(ssh: list[str]) -> bool:
    """OpenSSH's ``ssh``, not told by the user how (or whether) to share connections."""
    if os.path.basename(ssh[0]) != "ssh":
        return False
    return not any(option in word.lower() for word in ssh[1:] for option in _OWN_SHARING_OPTIONS)


def _reaper(directory: Path) -> int | None:
    """A small process that removes ``directory`` once iotui's end of its pipe closes.

    iotui removes the directory itself when it closes the connections; a SIGKILL gives it no
    chance, and the masters' sockets went with them but the directory stayed. The pipe's write
    end is iotui's alone (not inherited), so it closes exactly when iotui ends or closes it.
    Returns the pipe's write end (None where the process cannot start).
    """
    read_end, write_end = os.pipe()
    try:
        subprocess.Popen(
            ["sh", "-c", 'read -r _; rm -rf -- "$1"', "iotui-reaper", str(directory)],
            stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return write_end


def _private_directory() -> Path:
    directory = Path(tempfile.mkdtemp(prefix="iotui-ssh-"))
    if len(str(directory)) + 8 > _SOCKET_PATH_MAX and Path("/tmp").is_dir():
        directory.rmdir()
        directory = Path(tempfile.mkdtemp(prefix="iotui-ssh-", dir="/tmp"))
    os.chmod(directory, 0o700)  # mkdtemp makes it 0700; said again because the socket's safety rests on it
    return directory


class HostConnections:
    """The hosts' connections for one run: ``await preflight(host, target)``, ``argv(host)``, ``await close()``."""

    def __init__(self, ssh: list[str], *, concurrency: int = CONNECT_CONCURRENCY, share: bool | None = None) -> None:
        self.ssh = list(ssh)
        self.share = can_share(self.ssh) if share is None else share
        self.directory: Path | None = _private_directory() if self.share else None
        self._reaper_pipe = _reaper(self.directory) if self.directory is not None else None
        self.masters: dict[str, asyncio.subprocess.Process] = {}
        self._sockets: dict[str, Path] = {}
        self._gate = asyncio.Semaphore(max(1, concurrency))
        self.connect_s: dict[str, float] = {}
        self.opening = 0
        self.peak_opening = 0  # the most connections being opened at once (the bound holds it)
        self.closed = False

    def _socket(self, host: str) -> Path:
        assert self.directory is not None
        if host not in self._sockets:
            self._sockets[host] = self.directory / f"h{len(self._sockets)}"
        return self._sockets[host]

    def shared(self, host: str) -> bool:
        """Whether later sessions on the host go over its master connection."""
        return host in self.masters and self._socket(host).exists()

    def argv(self, host: str) -> list[str]:
        """ssh's words for one more session on the host (before the destination)."""
        if not self.shared(host):
            return list(self.ssh)
        return [self.ssh[0], "-o", "ControlMaster=no", "-o", f"ControlPath={self._socket(host)}", *self.ssh[1:]]

    async def preflight(self, host: str, target: str | None, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> HostFacts:
        """Open the host's connection (a few at a time) and check it; RemoteError names what failed."""
        async with self._gate:
            began = time.monotonic()
            self.opening += 1
            self.peak_opening = max(self.peak_opening, self.opening)
            try:
                for attempt in range(CONNECT_RETRIES + 1):
                    try:
                        return await self._preflight(host, target, timeout_s - (time.monotonic() - began), timeout_s)
                    except RemoteError as error:
                        retry = error.code == "ssh-failed" and _DROPPED_BEFORE_KEX in str(error)
                        if not retry or attempt == CONNECT_RETRIES or time.monotonic() - began > timeout_s / 2:
                            raise
                    await asyncio.sleep(0.25 * (attempt + 1))
                raise AssertionError("unreachable")
            finally:
                self.opening -= 1
                self.connect_s[host] = time.monotonic() - began

    async def _preflight(self, host: str, target: str | None, timeout_s: float, limit_s: float) -> HostFacts:
        hold = self.share and not self.closed
        script = PREFLIGHT_SCRIPT + f"echo {PREFLIGHT_END}\n" + ("exec cat >/dev/null\n" if hold else "")
        program = remote_program("iotui-preflight", script, [target or ""])
        words = self.ssh
        if hold:
            words = [
                self.ssh[0], "-o", "ControlMaster=yes", "-o", f"ControlPath={self._socket(host)}",
                "-o", "ControlPersist=no", *self.ssh[1:],
            ]
        try:
            process = await asyncio.create_subprocess_exec(
                *ssh_argv(words, host, program.command),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                preexec_fn=parent_death_signal,
            )
        except OSError as error:
            raise RemoteError("ssh-missing", host, f"Cannot start {self.ssh[0]} ({error.strerror or error}).") from None
        assert process.stdin is not None
        try:
            process.stdin.write(program.payload)
            if not hold:
                process.stdin.close()  # the check reads nothing more; a held one reads until iotui closes it
        except (BrokenPipeError, ConnectionResetError):
            pass  # ssh ended at once: its words say why
        reading = asyncio.ensure_future(_read_until_end(process, host))
        connected = False
        try:
            if hold:
                # The limit is on answering: once the shared connection is up (its socket is
                # there), the check has its own, longer limit (a login's shell start-up can be slow).
                connected = await _until_connected(reading, self._socket(host), timeout_s)
                output, marked = await asyncio.wait_for(reading, CHECK_TIMEOUT_S)
            else:
                output, marked = await asyncio.wait_for(reading, timeout_s)
        except asyncio.TimeoutError:
            reading.cancel()
            await _end(process)
            if connected:
                raise RemoteError(
                    "check-timeout", host,
                    f"{host}: ssh connected, but the pre-flight check (a few shell commands) did not finish "
                    f"within {CHECK_TIMEOUT_S:.0f} s.",
                ) from None
            raise RemoteError("ssh-timeout", host, f"{host}: ssh did not answer within {limit_s:.0f} s.") from None
        except BaseException:
            reading.cancel()
            await _end(process)
            raise
        if not marked or not hold:
            # ssh failed, or the host ran the check and left: its whole answer is there.
            if process.stdin is not None:
                process.stdin.close()
            try:
                stderr = await asyncio.wait_for(_finish(process), CLOSE_GRACE_S)
            except asyncio.TimeoutError:
                await _end(process)
                stderr = b""
            return facts_from_output(host, target, output.decode("utf-8", "replace"), stderr, process.returncode)
        try:
            facts = facts_from_output(host, target, output.decode("utf-8", "replace"), b"", 0)
        except RemoteError:
            await _end(process)
            raise
        self.masters[host] = process
        # ssh's own messages after the check (none, normally) must not fill the pipe and block it.
        asyncio.ensure_future(_drain(process.stderr))
        return facts

    async def forget(self, host: str) -> None:
        """End one host's connection (a host left out of the run)."""
        process = self.masters.pop(host, None)
        if process is not None:
            await _end(process)

    async def close(self) -> None:
        """End every master connection (their sessions have ended) and remove the socket directory."""
        self.closed = True
        masters, self.masters = list(self.masters.values()), {}
        for process in masters:
            if process.stdin is not None:
                try:
                    process.stdin.close()
                except (BrokenPipeError, ConnectionResetError, RuntimeError):
                    pass
        await asyncio.gather(*(_end(process, CLOSE_GRACE_S) for process in masters), return_exceptions=True)
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
        if self._reaper_pipe is not None:
            os.close(self._reaper_pipe)  # the reaper finds nothing left and ends
            self._reaper_pipe = None


async def _until_connected(reading: asyncio.Future[tuple[bytes, bool]], socket: Path, timeout_s: float) -> bool:
    """Wait for the master's socket (connected) or the check's end; TimeoutError after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not reading.done():
        if socket.exists():
            return True
        if time.monotonic() >= deadline:
            raise asyncio.TimeoutError
        await asyncio.wait({reading}, timeout=0.1)
    return True


async def _read_until_end(process: asyncio.subprocess.Process, host: str) -> tuple[bytes, bool]:
    """The check's output up to its end mark, and whether the mark came (not: stdout closed first).

    Read in pieces, not lines (a line over asyncio's 64 KiB limit would raise), and bounded:
    the check prints a few hundred bytes, so more than PREFLIGHT_MAX_BYTES is refused.
    """
    assert process.stdout is not None
    mark = PREFLIGHT_END.encode() + b"\n"
    data = bytearray()
    while chunk := await process.stdout.read(65536):
        data += chunk
        at = data.find(mark)
        if at != -1 and (at == 0 or data[at - 1 : at] == b"\n"):
            return bytes(data[:at]), True
        if len(data) > PREFLIGHT_MAX_BYTES:
            raise RemoteError(
                "ssh-failed", host,
                f"{host}: its pre-flight answer is over {PREFLIGHT_MAX_BYTES >> 10} KiB on stdout; the pre-flight "
                "prints a few lines, so something else answers there (a login banner loop, a shell profile).",
            )
    return bytes(data), False


async def preflight(ssh: list[str], host: str, target: str | None, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> HostFacts:
    """One host's pre-flight check on a connection of its own (not shared, closed at once)."""
    connections = HostConnections(ssh, share=False)
    try:
        return await connections.preflight(host, target, timeout_s)
    finally:
        await connections.close()


async def _finish(process: asyncio.subprocess.Process) -> bytes:
    assert process.stderr is not None
    stderr = await process.stderr.read(64 * 1024)
    await process.wait()
    return stderr


async def _drain(stream: asyncio.StreamReader | None) -> None:
    if stream is None:
        return
    try:
        while await stream.read(64 * 1024):
            pass
    except RuntimeError:  # another reader already drains it
        pass


async def _end(process: asyncio.subprocess.Process, grace_s: float = 0.0) -> None:
    # asyncio's wait() returns once the pipes are closed too: a pipe left unread (a reader that
    # stopped at a limit) would never close, so both are drained while the process ends.
    for stream in (process.stdout, process.stderr):
        if stream is not None and not stream.at_eof():
            asyncio.ensure_future(_drain(stream))
    if process.returncode is None and grace_s > 0:
        try:
            await asyncio.wait_for(process.wait(), grace_s)
        except asyncio.TimeoutError:
            pass
    if process.returncode is None:
        try:
            process.terminate()
        except ProcessLookupError:
            pass
        try:
            await asyncio.wait_for(process.wait(), CLOSE_GRACE_S)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
