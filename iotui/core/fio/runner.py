"""The fio child process: started without a shell, in its own process group.

Stop is SIGINT (fio writes its final report), then SIGTERM, then SIGKILL, each
after a grace period, always to the whole group so no fio job process outlives
iotui. Every live group is also killed when the interpreter exits.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import signal
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, AsyncIterator, Mapping

if TYPE_CHECKING:
    import subprocess

from iotui.core.fio.status import FioDocument, FioText, LineChunker, StatusSplitter

READ_CHUNK_BYTES = 64 * 1024
STDERR_LINES_KEPT = 200

# Process groups started and not yet reaped; killed at interpreter exit.
_LIVE_GROUPS: set[int] = set()


def _kill_live_groups() -> None:
    for group in list(_LIVE_GROUPS):
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
        _LIVE_GROUPS.discard(group)


atexit.register(_kill_live_groups)


class FioNotFoundError(Exception):
    """fio is not installed or not at the given path; str() says how to fix it.

    ``given``: the path the caller named (the command line's option), when the missing fio is
    that one; a front end then has no reason to suggest naming a path.
    """

    def __init__(self, message: str, *, given: str | None = None) -> None:
        super().__init__(message)
        self.given = given


@dataclass(frozen=True)
class StderrLine:
    line: str


@dataclass(frozen=True)
class FioExited:
    returncode: int
    stopped_by_user: bool


RunnerEvent = FioDocument | FioText | StderrLine | FioExited

INSTALL_WAYS = (
    "install it with 'sudo apt-get install fio' (Debian/Ubuntu), 'sudo dnf install fio' "
    "(Fedora), 'sudo pacman -S fio' (Arch), 'brew install fio' (macOS) or 'pkg install fio' "
    "(FreeBSD)"
)
INSTALL_HINT = f"{INSTALL_WAYS}, or point iotui at it with IOTUI_FIO=PATH"


def resolve_fio(explicit: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The fio binary: ``explicit`` (the command line's --fio), else $IOTUI_FIO, else 'fio' on PATH."""
    env = os.environ if env is None else env
    candidate = explicit or env.get("IOTUI_FIO") or "fio"
    found = shutil.which(candidate)
    if found is None and explicit:
        # The path the user gave: say what is there, not where else fio could be named.
        # (IOTUI_FIO is not suggested: the path given goes before it.)
        if os.sep not in explicit:
            what = "is not a program on PATH"
        else:
            what = "is not an executable file" if os.path.exists(os.path.expanduser(explicit)) else "does not exist"
        raise FioNotFoundError(
            f"The fio given, {explicit}, {what}: give the path of the fio binary, or {INSTALL_WAYS}.",
            given=explicit,
        )
    if found is None:
        if os.sep in candidate:
            raise FioNotFoundError(f"fio was not found at {candidate}: {INSTALL_HINT}.")
        raise FioNotFoundError(f"fio was not found on PATH: {INSTALL_HINT}.")
    return found


async def fio_version(fio_binary: str) -> str:
    """``fio --version`` (e.g. 'fio-3.33'), or raise FioNotFoundError."""
    try:
        process = await asyncio.create_subprocess_exec(
            fio_binary,
            "--version",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as error:
        raise FioNotFoundError(f"fio could not be started ({error.strerror or error}): {INSTALL_HINT}.") from None
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout=10)
    except asyncio.TimeoutError:
        process.kill()
        raise FioNotFoundError(f"{fio_binary} --version did not answer within 10 s; is it really fio?") from None
    version = out.decode("utf-8", "replace").strip()
    return version or "unknown"


# A tiny guard process per run, outside fio's process group: it waits for EOF
# on a pipe from iotui. A clean end writes "done" first; EOF without it means
# iotui died (even by SIGKILL), and the guard ends fio's whole group. fio does
# not always honour one SIGTERM, so the guard escalates to SIGKILL.
_GUARD_SOURCE = r"""
import os, shutil, signal, sys, time
group = int(sys.argv[1])
cleanup_dir = sys.argv[2] if len(sys.argv) > 2 else ""
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
data = b""
while True:
    chunk = os.read(0, 64)
    if not chunk:
        break
    data += chunk
if b"done" in data:
    sys.exit(0)

def end_group():
    for signum, grace_s in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(group, signum)
        except OSError:
            return
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            try:
                os.killpg(group, 0)
            except OSError:
                return
            time.sleep(0.05)

end_group()
if cleanup_dir and os.path.basename(cleanup_dir).startswith(".iotui-"):
    shutil.rmtree(cleanup_dir, ignore_errors=True)
"""


def _child_setup() -> None:  # pragma: no cover - runs in the child
    # Ask the kernel to end fio when iotui dies without a chance to clean up.
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
        except OSError:
            pass


def _join_cgroup(procs_file: str) -> None:  # pragma: no cover - runs in the child
    """Start fio inside a cgroup (``iotui remedy``'s weight): every job it forks is inside too."""
    with open(procs_file, "w", encoding="ascii") as handle:
        handle.write(str(os.getpid()))


class FioRunner:
    """Runs one fio command and yields its output as events, in order."""

    def __init__(
        self,
        argv: list[str],
        *,
        cwd: str | None = None,
        sigint_grace_s: float = 10.0,
        sigterm_grace_s: float = 5.0,
        cleanup_dir: os.PathLike[str] | str | None = None,
        cgroup_procs: str | None = None,
    ) -> None:
        """``cwd``: fio's working directory (iotui's private test directory, so a stray relative
        write lands there); ``cleanup_dir``: what the guard removes if iotui dies during the run;
        ``cgroup_procs``: a cgroup's ``cgroup.procs`` that fio is started inside."""
        self.cgroup_procs = cgroup_procs
        self.argv = list(argv)
        self.cwd = cwd
        self.cleanup_dir = str(cleanup_dir) if cleanup_dir else ""
        self.sigint_grace_s = sigint_grace_s
        self.sigterm_grace_s = sigterm_grace_s
        self.process: asyncio.subprocess.Process | None = None
        self.stderr_lines: list[str] = []
        self.paused = False
        self._stop_requested = False
        self._queue: asyncio.Queue[RunnerEvent | None] = asyncio.Queue()
        self._guard: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def start(self) -> None:
        from subprocess import SubprocessError

        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                start_new_session=True,
                preexec_fn=self._child_setup,
            )
        except FileNotFoundError:
            raise FioNotFoundError(f"fio was not found at {self.argv[0]}: {INSTALL_HINT}.") from None
        except PermissionError:
            raise FioNotFoundError(f"{self.argv[0]} is not executable: {INSTALL_HINT}.") from None
        except SubprocessError:  # only the cgroup's write runs in the child and can fail
            raise FioNotFoundError(f"fio could not be started inside the cgroup of {self.cgroup_procs}.") from None
        _LIVE_GROUPS.add(self.process.pid)
        self._start_guard(self.process.pid)

    def _child_setup(self) -> None:  # pragma: no cover - runs in the child
        _child_setup()
        if self.cgroup_procs:
            _join_cgroup(self.cgroup_procs)

    def _start_guard(self, group: int) -> None:
        import subprocess

        try:
            self._guard = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _GUARD_SOURCE, str(group), self.cleanup_dir],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            self._guard = None  # the parent-death signal still covers most cases

    def _release_guard(self) -> None:
        """fio is gone: tell the guard to exit without touching the group."""
        guard, self._guard = self._guard, None
        if guard is None or guard.stdin is None:
            return
        try:
            guard.stdin.write(b"done")
            guard.stdin.close()
        except OSError:
            pass

    async def events(self) -> AsyncIterator[RunnerEvent]:
        """Documents, stdout text, stderr lines, then exactly one FioExited."""
        assert self.process is not None, "start() first"
        readers = [
            asyncio.create_task(self._read_stdout()),
            asyncio.create_task(self._read_stderr()),
        ]
        open_streams = len(readers)
        try:
            while open_streams:
                event = await self._queue.get()
                if event is None:
                    open_streams -= 1
                    continue
                yield event
            returncode = await self.process.wait()
        finally:
            for reader in readers:
                reader.cancel()
            if self.process.returncode is None:
                await self.stop()
            _LIVE_GROUPS.discard(self.process.pid)
            self._release_guard()
        yield FioExited(returncode=returncode, stopped_by_user=self._stop_requested)

    async def _read_stdout(self) -> None:
        assert self.process and self.process.stdout
        splitter = StatusSplitter(live=True)
        try:
            while chunk := await self.process.stdout.read(READ_CHUNK_BYTES):
                for item in splitter.feed(chunk):
                    self._queue.put_nowait(item)
            for item in splitter.close():
                self._queue.put_nowait(item)
        finally:
            self._queue.put_nowait(None)

    async def _read_stderr(self) -> None:
        assert self.process and self.process.stderr
        # Fixed-size reads, not readline(): a line over 64 KiB (a long option value fio echoes
        # in an error) must not end the reader with LimitOverrunError.
        chunker = LineChunker()
        try:
            while True:
                chunk = await self.process.stderr.read(READ_CHUNK_BYTES)
                for raw in chunker.feed(chunk) if chunk else chunker.close():
                    line = raw.decode("utf-8", "replace").rstrip()
                    if not line:
                        continue
                    if len(self.stderr_lines) < STDERR_LINES_KEPT:
                        self.stderr_lines.append(line)
                    self._queue.put_nowait(StderrLine(line))
                if not chunk:
                    break
        finally:
            self._queue.put_nowait(None)

    def _signal_group(self, signum: int) -> bool:
        if self.process is None or self.process.returncode is not None:
            return False
        try:
            os.killpg(self.process.pid, signum)
            return True
        except ProcessLookupError:
            return False

    def pause(self) -> bool:
        """SIGSTOP the whole group (fio and its job processes)."""
        if self._signal_group(signal.SIGSTOP):
            self.paused = True
        return self.paused

    def resume(self) -> bool:
        if self._signal_group(signal.SIGCONT):
            self.paused = False
        return not self.paused

    def request_stop(self) -> None:
        """Begin a stop without waiting: fio gets SIGINT and writes its report."""
        self._stop_requested = True
        if self.paused:
            self.resume()
        self._signal_group(signal.SIGINT)

    async def stop(self) -> int | None:
        """SIGINT, then SIGTERM, then SIGKILL to the group; returns the exit code."""
        if self.process is None:
            return None
        self._stop_requested = True
        if self.paused:
            self.resume()
        for signum, grace_s in (
            (signal.SIGINT, self.sigint_grace_s),
            (signal.SIGTERM, self.sigterm_grace_s),
            (signal.SIGKILL, 5.0),
        ):
            if not self._signal_group(signum):
                break
            try:
                await asyncio.wait_for(asyncio.shield(self.process.wait()), timeout=grace_s)
                break
            except asyncio.TimeoutError:
                continue
        # Job processes may linger after the parent exits: end the group.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
        _LIVE_GROUPS.discard(self.process.pid)
        self._release_guard()
        return self.process.returncode
