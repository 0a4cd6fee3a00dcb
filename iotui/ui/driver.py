"""Textual's Linux driver with an input thread that sleeps until there is something to read.

Textual's input thread wakes ten times a second whether or not a key came, to
check for its exit and to finish a lone Escape (the parser waits a moment to
tell it from the start of a key sequence). During a run that is a tenth of the
app's CPU. This driver's thread waits for input, for the parser's deadline when
one is pending, for a stop (a pipe it watches is written when input is
disabled: on quit and on suspend), or at most
``IDLE_WAIT_S``. Keys and Escape behave as with Textual's own driver.

The driver also outlives its terminal. When the terminal is gone (a dropped SSH
connection, a killed tmux pane: a read or write fails with EIO, EPIPE or EBADF,
or SIGHUP came), nothing waits on it again: the output is dropped, shutdown does
not try to restore it, and the app hears of it once (:class:`TerminalLost`) to
stop a run, keep its record and leave. Textual's writer thread puts every write
into a bounded queue that only the terminal drains; here the writes reach the
terminal through :class:`TerminalOutput`, which never raises, so the queue always
drains, and once shutdown has begun a write waits at most ``SHUTDOWN_WRITE_WAIT_S``.

Textual is pinned to one version (pyproject.toml); the loop below is its
``run_input_thread`` with the wait changed and a failed read ending it.
"""

from __future__ import annotations

import os
import queue
import select
import selectors
import threading
import time
from codecs import getincrementaldecoder
from typing import TYPE_CHECKING, Callable

from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App

# Textual's own wait: while a key sequence may be incomplete, and for a moment after a stop is asked.
SHORT_WAIT_S = 0.1
# Otherwise: a backstop only, nothing waits on it.
IDLE_WAIT_S = 5.0
# After a wake-up through the pipe, the exit flag is set a moment later (by the thread that wrote it).
STOPPING_WINDOW_S = 1.0
# Once shutdown has begun, a write waits this long for a terminal that takes nothing (then it is gone).
SHUTDOWN_WRITE_WAIT_S = 0.5


class TerminalLost(Message, bubble=False):
    """The terminal is gone (its reads or writes fail): stop a run, keep its record, leave."""


class TerminalOutput:
    """The terminal's file for Textual's writer thread: writes that never raise.

    Bytes go straight to the descriptor (no Python buffer whose lock a stuck
    thread could hold at exit). A failed write marks the terminal lost and every
    later one is dropped; a write waits for room only until shutdown has begun
    and ``SHUTDOWN_WRITE_WAIT_S`` passed.
    """

    def __init__(self, fd: int, on_lost: Callable[[], None]) -> None:
        self.fd = fd
        self.lost = threading.Event()
        self.stopping = threading.Event()
        self._on_lost = on_lost

    def fileno(self) -> int:
        return self.fd

    def flush(self) -> None:
        """Nothing is buffered here."""

    def mark_lost(self) -> None:
        if not self.lost.is_set():
            self.lost.set()
            self._on_lost()

    def write(self, text: str) -> int:
        data = memoryview(text.encode("utf-8", "replace"))
        waited_since: float | None = None
        while data and not self.lost.is_set():
            try:
                writable = select.select([], [self.fd], [], SHORT_WAIT_S)[1]
                if not writable:
                    if self.stopping.is_set():
                        waited_since = waited_since or time.monotonic()
                        if time.monotonic() - waited_since >= SHUTDOWN_WRITE_WAIT_S:
                            self.mark_lost()
                    continue
                data = data[os.write(self.fd, data[:4096]):]
            except InterruptedError:
                continue
            except (OSError, ValueError):  # EIO, EPIPE, EBADF...: the terminal is gone
                self.mark_lost()
        return len(text)


def input_wait_s(escape_pending: bool, stopping: bool) -> float:
    """How long the input thread may wait for the terminal before it must look again."""
    return SHORT_WAIT_S if escape_pending or stopping else IDLE_WAIT_S


def _escape_pending(parser: XTermParser) -> bool:
    # The parser's deadline for an incomplete sequence (a lone Escape); unknown means pending,
    # which is Textual's own behaviour.
    return getattr(parser, "_timeout_time", 0) is not None


class QuietLinuxDriver(LinuxDriver):
    """LinuxDriver whose input thread does not wake while nothing happens, and that lets go of a
    terminal that is gone."""

    def __init__(
        self, app: App[object], *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        # Textual's writer thread writes here (the base class hands it ``self._file``).
        fd = self._file.fileno() if self._file is not None else 2
        self._output = TerminalOutput(fd, self._tell_app_terminal_lost)
        self._file = self._output  # type: ignore[assignment]

    @property
    def terminal_lost(self) -> bool:
        return self._output.lost.is_set()

    def mark_terminal_lost(self) -> None:
        """The terminal is gone (SIGHUP, a failed read): nothing is written to it or waited on again."""
        self._output.mark_lost()

    def _tell_app_terminal_lost(self) -> None:
        self._app.post_message(TerminalLost())  # thread-safe

    def start_application_mode(self) -> None:
        self._output.stopping.clear()  # started again after a suspend (Ctrl+Z)
        super().start_application_mode()

    def write(self, data: str) -> None:
        writer = self._writer_thread
        if writer is None or self.terminal_lost:
            return
        if not self._output.stopping.is_set():
            writer.write(data)  # a live terminal that is slow holds the app back, as with Textual's driver
            return
        try:
            writer._queue.put(data, timeout=SHUTDOWN_WRITE_WAIT_S)
        except queue.Full:
            self.mark_terminal_lost()

    def disable_input(self) -> None:
        self._output.stopping.set()
        # Wake the thread first: the base class then sets the exit flag and waits for it.
        if self._wake_write >= 0:
            try:
                os.write(self._wake_write, b"x")
            except OSError:
                pass
        super().disable_input()

    def stop_application_mode(self) -> None:
        self._output.stopping.set()
        if self.terminal_lost:
            # Nothing to restore: only stop the input thread.
            self.attrs_before = None
        super().stop_application_mode()

    def close(self) -> None:
        self._output.stopping.set()
        writer = self._writer_thread
        if writer is not None:
            # Textual's stop() waits for the thread without end; the thread drains (its writes never
            # raise and wait a bounded time), so a bounded wait is enough.
            try:
                writer._queue.put(None, timeout=SHUTDOWN_WRITE_WAIT_S)
            except queue.Full:
                self.mark_terminal_lost()
            writer.join(SHUTDOWN_WRITE_WAIT_S * 2)
        for fd in (self._wake_read, self._wake_write):
            try:
                os.close(fd)
            except OSError:
                pass
        # Never write to the numbers again: another file may get them.
        self._wake_read = self._wake_write = -1

    def run_input_thread(self) -> None:
        """Wait for input and dispatch events (Textual's loop, waiting as ``input_wait_s`` says)."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(self._wake_read, selectors.EVENT_READ)

        fileno = self.fileno
        wake_read = self._wake_read
        EVENT_READ = selectors.EVENT_READ
        parser = XTermParser(self._debug)
        feed = parser.feed
        tick = parser.tick
        decode = getincrementaldecoder("utf-8")().decode
        read = os.read
        stopping_until = 0.0

        def process_selector_events(
            selector_events: list[tuple[selectors.SelectorKey, int]], final: bool = False
        ) -> None:
            nonlocal stopping_until
            terminal_events = []
            for key, mask in selector_events:
                if key.fd == wake_read:
                    try:
                        while read(wake_read, 64):
                            pass
                    except OSError:
                        pass
                    stopping_until = time.monotonic() + STOPPING_WINDOW_S
                else:
                    terminal_events.append((key, mask))
            for last, (_selector_key, mask) in loop_last(terminal_events):
                if mask & EVENT_READ:
                    try:
                        received = read(fileno, 1024 * 4)
                    except OSError:  # EIO once the terminal hangs up, EBADF...: nothing to read again
                        self.mark_terminal_lost()
                        return
                    if not received and self.input_tty:
                        # A terminal in raw mode reads nothing only once it hung up.
                        self.mark_terminal_lost()
                        return
                    unicode_data = decode(received, final=final and last)
                    if not unicode_data:
                        # This can occur if the stdin is piped
                        break
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set() and not self.terminal_lost:
                wait_s = input_wait_s(_escape_pending(parser), time.monotonic() < stopping_until)
                process_selector_events(selector.select(wait_s))
            selector.unregister(self.fileno)
            selector.unregister(wake_read)
            if not self.terminal_lost:
                process_selector_events(selector.select(SHORT_WAIT_S), final=True)
        finally:
            selector.close()
            try:
                for _event in feed(""):
                    pass
            except (EOFError, ParseError):
                pass
