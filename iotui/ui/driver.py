"""Textual's Linux driver with an input thread that sleeps until there is something to read.

Textual's input thread wakes ten times a second whether or not a key came, to
check for its exit and to finish a lone Escape (the parser waits a moment to
tell it from the start of a key sequence). During a run that is a tenth of the
app's CPU. This driver's thread waits for input, for the parser's deadline when
one is pending, for a stop (a pipe it watches is written when input is
disabled: on quit and on suspend), or at most
``IDLE_WAIT_S``. Keys and Escape behave as with Textual's own driver.

Textual is pinned to one version (pyproject.toml); the loop below is its
``run_input_thread`` with the wait changed.
"""

from __future__ import annotations

import os
import selectors
import time
from codecs import getincrementaldecoder
from typing import Any

from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

# Textual's own wait: while a key sequence may be incomplete, and for a moment after a stop is asked.
SHORT_WAIT_S = 0.1
# Otherwise: a backstop only, nothing waits on it.
IDLE_WAIT_S = 5.0
# After a wake-up through the pipe, the exit flag is set a moment later (by the thread that wrote it).
STOPPING_WINDOW_S = 1.0


def input_wait_s(escape_pending: bool, stopping: bool) -> float:
    """How long the input thread may wait for the terminal before it must look again."""
    return SHORT_WAIT_S if escape_pending or stopping else IDLE_WAIT_S


def _escape_pending(parser: XTermParser) -> bool:
    # The parser's deadline for an incomplete sequence (a lone Escape); unknown means pending,
    # which is Textual's own behaviour.
    return getattr(parser, "_timeout_time", 0) is not None


class QuietLinuxDriver(LinuxDriver):
    """LinuxDriver whose input thread does not wake while nothing happens."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)

    def disable_input(self) -> None:
        # Wake the thread first: the base class then sets the exit flag and waits for it.
        if self._wake_write >= 0:
            try:
                os.write(self._wake_write, b"x")
            except OSError:
                pass
        super().disable_input()

    def close(self) -> None:
        super().close()
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
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        # This can occur if the stdin is piped
                        break
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                wait_s = input_wait_s(_escape_pending(parser), time.monotonic() < stopping_until)
                process_selector_events(selector.select(wait_s))
            selector.unregister(self.fileno)
            selector.unregister(wake_read)
            process_selector_events(selector.select(SHORT_WAIT_S), final=True)
        finally:
            selector.close()
            try:
                for _event in feed(""):
                    pass
            except (EOFError, ParseError):
                pass
