"""The lifeline: a small POSIX sh script that runs fio on a host, tied to ssh's stdin.

On the host it makes a private directory (``mktemp -d``, mode 0700) inside the
target, lays the test files out there (``fio --create_only=1``), starts fio with
``--thread`` in that directory holding each job in a prerun (after fio's start-up,
before the job's clock), says ``IOTUI-READY`` and waits for ``go`` on stdin (the
start barrier), which opens the gate the jobs wait at. Any other line on stdin
but ``clock``, ``pause`` and ``resume`` stops fio with SIGINT (fio writes its final
report); if fio is still there 1.5 s later it is killed. SIGINT, SIGTERM or SIGHUP
to the lifeline do the same. The end of stdin kills fio at once (nobody is left
to read its report). Writes to a closed ssh
channel fail instead of killing the shell, so the clean-up always runs. In every
ending the directory and the test files in it are removed before ``IOTUI-EXIT
status`` is said. Markers go to stderr so they never land inside a JSON document.

``pause`` and ``resume`` on stdin stop and continue fio (SIGSTOP, SIGCONT; with
``--thread`` fio is one process) and are acknowledged with ``IOTUI-PAUSED`` and
``IOTUI-RESUMED``; a stop continues a paused fio so that it can write its report.
``clock`` is answered with the host's time, for its clock offset.

So when iotui dies, even by SIGKILL, ssh's stdin closes, the remote shell
reads end-of-file and kills fio: no remote fio outlives iotui.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import AsyncIterator, Awaitable, Callable

from iotui.core.fio.status import FioDocument, FioText, LineChunker, StatusSplitter
from iotui.core.input_files import MAX_INPUT_BYTES, size_text
from iotui.core.remote.connections import parent_death_signal
from iotui.core.remote.lifeline_script import (
    CLOCK_EXCHANGES,
    CLOCK_MARK,
    ERROR_MARK,
    EXIT_MARK,
    FIO_MARK,
    HOLD_BEFORE_BARRIER,
    PAUSED_MARK,
    READY_MARK,
    RESUMED_MARK,
    STOP_GRACE_S,
    can_hold,
    clock_offset,
    is_prerun_note,
    lifeline_program,
)
from iotui.core.remote.transport import ssh_argv
from iotui.core.terminal_text import terminal_safe

KILL_AFTER_TERM_S = 2.0
READ_CHUNK_BYTES = 64 * 1024


# -- events ---------------------------------------------------------------------


@dataclass(frozen=True)
class HostReady:
    directory: str


@dataclass(frozen=True)
class HostLine:
    """A line of the host's stderr (fio's or ssh's), or fio's plain stdout."""

    text: str


@dataclass(frozen=True)
class HostPaused:
    """The lifeline says fio is stopped (``paused``) or running again (not ``paused``)."""

    paused: bool


@dataclass(frozen=True)
class HostEnded:
    """The ssh process ended; ``exit_status`` is fio's, when the lifeline said it."""

    returncode: int | None
    exit_status: int | None


HostEvent = HostReady | FioDocument | FioText | HostLine | HostPaused | HostEnded


def over_limit_line(host: str, stream: str) -> str:
    return (
        f"{host} sent more than {size_text(MAX_INPUT_BYTES)} on its {stream}, over iotui's limit for a remote "
        "stream; its ssh was ended"
    )


class HostRunner:
    """One host's ssh process running the lifeline; yields its events in order."""

    def __init__(self, ssh: list[str], host: str, target: str | None, fio_args: list[str]) -> None:
        self.host = host
        self.held = HOLD_BEFORE_BARRIER and can_hold(fio_args)
        self.program = lifeline_program(target, fio_args, self.held)
        self.argv = ssh_argv(ssh, host, self.program.command)
        self.process: asyncio.subprocess.Process | None = None
        self.exit_status: int | None = None
        self.fio_pid: int | None = None
        self.stderr_lines: list[str] = []
        self.released = False
        self._queue: asyncio.Queue[HostEvent | None] = asyncio.Queue()
        # Where the events go: this runner's queue (read with :meth:`events`), or a callback
        # that takes each one at once (None last). A session of 128 hosts takes them at once:
        # the queue, the generator and the session's own queue were three task wake-ups a
        # document, about 65 us each.
        self.sink: Callable[[HostEvent | None], None] | None = None
        self._stopping = False
        self._bounding = False
        # The host's clock against iotui's (ms) from the clock exchange with the shortest round
        # trip, and that round trip; None until the host answered one (or where it cannot).
        self.clock_offset_ms: float | None = None
        self.clock_rtt_ms: float | None = None
        self._clock_asked_s: float | None = None
        self._clock_exchanges = 0
        # The exchanges are over: CLOCK_EXCHANGES answered, or one that cannot be used.
        self.clock_settled = False

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            preexec_fn=parent_death_signal,
        )
        # The program first, whole, before any line of the protocol (a fresh pipe takes it at once).
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(self.program.payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # ssh ended at once: its end and its words come through the pump
        asyncio.create_task(self._pump())

    async def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        splitter = StatusSplitter()
        received = 0
        while True:
            chunk = await self.process.stdout.read(READ_CHUNK_BYTES)
            if not chunk:
                break
            received += len(chunk)
            if received > MAX_INPUT_BYTES:
                self._over_limit("stdout")
                return
            for item in splitter.feed(chunk):
                self._take_stdout_item(item)
        for item in splitter.close():
            self._take_stdout_item(item)

    def _take_stdout_item(self, item: FioDocument | FioText) -> None:
        if isinstance(item, FioText) and self.held and is_prerun_note(item.line):
            return  # fio's word about the lifeline's own prerun, not the job's
        self._put(item)

    def _over_limit(self, stream: str) -> None:
        line = over_limit_line(self.host, stream)
        self.stderr_lines.append(line)
        self._put(HostLine(line))
        self.kill()

    async def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        chunker = LineChunker()
        received = 0
        while True:
            chunk = await self.process.stderr.read(READ_CHUNK_BYTES)
            received += len(chunk)
            if received > MAX_INPUT_BYTES:
                self._over_limit("stderr")
                return
            for raw in chunker.feed(chunk) if chunk else chunker.close():
                self._take_stderr_line(raw)
            if not chunk:
                return

    def _take_stderr_line(self, raw: bytes) -> None:
        line = terminal_safe(raw.decode("utf-8", "replace")).rstrip()
        if line.startswith(READY_MARK):
            self._put(HostReady(line[len(READY_MARK):].strip()))
        elif line.startswith(FIO_MARK):
            value = line[len(FIO_MARK):].strip()
            self.fio_pid = int(value) if value.isascii() and value.isdigit() and len(value) <= 10 else None
        elif line.startswith(CLOCK_MARK):
            self._take_clock(line[len(CLOCK_MARK):])
        elif line in (PAUSED_MARK, RESUMED_MARK):
            self._put(HostPaused(line == PAUSED_MARK))
        elif line.startswith(EXIT_MARK):
            value = line[len(EXIT_MARK):].strip()
            self.exit_status = int(value) if value.isascii() and value.isdigit() and len(value) <= 3 else None
        elif line:
            if line.startswith(ERROR_MARK):
                line = line[len(ERROR_MARK):].strip()
            if len(self.stderr_lines) < 200:
                self.stderr_lines.append(line)
            self._put(HostLine(line))

    async def _guarded(self, reader: Callable[[], Awaitable[None]], stream: asyncio.StreamReader | None) -> None:
        """Run one reader; whatever ends it, read its stream to the end, so the pipe closes.

        asyncio's ``wait()`` returns only once every pipe is closed: a reader that stopped early
        (over the limit, or failed) would leave a full pipe and the host's ssh waiting on it.
        """
        try:
            await reader()
        except Exception as error:  # noqa: BLE001 - a reader that fails must still end the host, not hang it
            self._put(HostLine(f"iotui could not read {self.host}'s output ({error!r}); its ssh was ended"))
            self.kill()
        while stream is not None and await stream.read(READ_CHUNK_BYTES):
            pass

    async def _pump(self) -> None:
        assert self.process is not None
        try:
            await asyncio.gather(
                self._guarded(self._read_stdout, self.process.stdout), self._guarded(self._read_stderr, self.process.stderr)
            )
        finally:
            returncode = await self.process.wait()
            self._put(HostEnded(returncode, self.exit_status))
            self._put(None)

    def _put(self, item: HostEvent | None) -> None:
        if self.sink is not None:
            self.sink(item)
        else:
            self._queue.put_nowait(item)

    async def events(self) -> AsyncIterator[HostEvent]:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            yield item

    def release(self) -> None:
        """The start barrier: one line, written the same moment for every host."""
        if self.process is None or self.process.stdin is None or self._stopping:
            return
        try:
            self.process.stdin.write(b"go\n")
            self.released = True
        except (BrokenPipeError, ConnectionResetError):
            pass

    def ask_clock(self) -> None:
        """Ask the host for its clock (before the barrier); the answer is :attr:`clock_offset_ms`."""
        if self.process is None or self.process.stdin is None or self._stopping or self.released:
            return
        try:
            self.process.stdin.write(b"clock\n")
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            return
        self._clock_asked_s = time.time()

    def _take_clock(self, text: str) -> None:
        answered_s = time.time()
        asked_s, self._clock_asked_s = self._clock_asked_s, None
        if asked_s is None:
            return
        self._clock_exchanges += 1
        measured = clock_offset(text, asked_s, answered_s)
        if measured is None:
            self.clock_settled = True
            return
        offset_ms, rtt_ms = measured
        if self.clock_rtt_ms is None or rtt_ms < self.clock_rtt_ms:
            self.clock_offset_ms, self.clock_rtt_ms = offset_ms, rtt_ms
        if self._clock_exchanges < CLOCK_EXCHANGES:
            self.ask_clock()
        else:
            self.clock_settled = True

    def pause(self) -> bool:
        """Ask the lifeline to stop fio; whether the line was written (its word comes as :class:`HostPaused`)."""
        return self._say(b"pause\n")

    def resume(self) -> bool:
        return self._say(b"resume\n")

    def _say(self, line: bytes) -> bool:
        # Only between the barrier and the stop: before it fio is not running, after it any line ends the run.
        if self.process is None or self.process.stdin is None or self._stopping or not self.released:
            return False
        if self.process.returncode is not None:
            return False
        try:
            self.process.stdin.write(line)
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            return False
        return True

    def begin_stop(self) -> None:
        """The stop line (after release) and end-of-file on stdin, written now.

        Not at the event loop's next turn: at 128 hosts on a loaded machine the loop's queue of
        the hosts' output held the stop coroutines back 10 s after SIGINT.
        """
        process = self.process
        if process is None or self._stopping:
            return
        self._stopping = True
        if process.stdin is not None:
            try:
                if self.released:
                    process.stdin.write(b"stop\n")
                process.stdin.close()
            except (BrokenPipeError, ConnectionResetError, RuntimeError):
                pass

    def stop_line_now(self) -> None:
        """The stop line, written straight to ssh's stdin pipe: safe inside a signal handler.

        A handler of the event loop's own (``add_signal_handler``) runs after what the loop has
        queued: at 128 hosts on two busy cores that was 9 to 24 s of the hosts' output, with
        every fio still running. This touches no asyncio object but the pipe's descriptor, and
        the line means stop to the lifeline whether or not the barrier has been released.
        """
        process = self.process
        if process is None or process.stdin is None or self._stopping or process.returncode is not None:
            return
        transport = process.stdin.transport
        if transport.get_write_buffer_size():
            return  # the program is not all written yet: a line now would land inside it
        pipe = transport.get_extra_info("pipe")
        try:
            os.write(pipe.fileno(), b"stop\n")
        except (OSError, ValueError, AttributeError):
            pass  # a full or closed pipe: the loop's own stop follows

    async def stop(self, grace_s: float = STOP_GRACE_S + 1.0) -> None:
        """:meth:`begin_stop`, then ssh ended if it lingers (SIGTERM, then SIGKILL)."""
        self.begin_stop()
        process = self.process
        if process is None or self._bounding:
            return
        self._bounding = True
        try:
            await asyncio.wait_for(process.wait(), grace_s)
        except asyncio.TimeoutError:
            # The host does not answer: end our side; its lifeline sees end-of-file.
            try:
                process.terminate()
            except ProcessLookupError:
                pass
            # An ssh that outlives SIGTERM too is killed: the run's end waits on every host's
            # pipes, and one lingering ssh held it (and the record) for good.
            try:
                await asyncio.wait_for(process.wait(), KILL_AFTER_TERM_S)
            except asyncio.TimeoutError:
                self.kill()

    async def ended(self, limit_s: float) -> None:
        """Wait for ssh's end (a stop begun earlier may still be under way); killed after ``limit_s``."""
        if self.process is not None and self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), limit_s)
            except asyncio.TimeoutError:
                self.kill()

    def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            try:
                self.process.kill()
            except ProcessLookupError:
                pass
