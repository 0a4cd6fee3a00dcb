"""A probe's child process: how its report lines are read, and how it is ended.

A local run has two probes, each read by a daemon thread (the app's loop never blocks on
them). A run on 128 hosts has 256: as threads they fought the event loop for the interpreter's
lock, and on two busy cores the release of the hosts (one line to each) took 16 s and iotui's
process 22 to 29% of a core. There each child's pipe is watched by the loop itself
(``add_reader``) and its lines are handled there, between the hosts' documents.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from typing import IO, Callable

# A report line is under a few KiB; a child that writes this much without a newline is cut off.
MAX_LINE_BYTES = 256 * 1024


class ReportReader:
    """Hands each line the child writes on stdout to ``take_line``, until end of file."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        take_line: Callable[[bytes], None],
        name: str,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        assert process.stdout is not None
        self._take_line = take_line
        self._loop = loop
        self._fd: int | None = None
        self._pending = bytearray()
        self._thread: threading.Thread | None = None
        if loop is None:
            self._thread = threading.Thread(target=self._read_all, args=(process.stdout,), name=name, daemon=True)
            self._thread.start()
        else:
            self._fd = process.stdout.fileno()
            os.set_blocking(self._fd, False)
            loop.add_reader(self._fd, self._readable)

    def _read_all(self, stream: IO[bytes]) -> None:
        for raw_line in stream:
            self._take_line(raw_line)

    def _readable(self) -> None:
        if self._fd is None:
            return
        try:
            chunk = os.read(self._fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.detach()
            return
        self._pending += chunk
        *lines, rest = self._pending.split(b"\n")
        self._pending = bytearray(rest if len(rest) <= MAX_LINE_BYTES else b"")
        for line in lines:
            self._take_line(bytes(line))

    @property
    def watching(self) -> bool:
        """Whether the event loop still watches the child's pipe (until its end or :meth:`detach`)."""
        return self._fd is not None

    def detach(self) -> None:
        """Stop watching the pipe (the loop's reader; call it on the loop's thread)."""
        if self._fd is not None and self._loop is not None:
            fd, self._fd = self._fd, None
            if not self._loop.is_closed():
                self._loop.remove_reader(fd)

    def join(self, timeout_s: float) -> None:
        """Wait for a thread reader to finish (the child has ended)."""
        if self._thread is not None:
            self._thread.join(timeout=timeout_s)


def end_probe_child(process: subprocess.Popen[bytes], timeout_s: float) -> None:
    """Close the child's stdin (EOF: it exits by itself), wait, kill it if late, close its stdout."""
    try:
        if process.stdin is not None:
            process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()
