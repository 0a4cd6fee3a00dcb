"""Textual's web driver (``iotui serve``: one app process per browser tab) for a tab that closes.

textual-serve tells the app a tab closed with a "quit" packet, on which Textual's
driver ends the app at once: a run in progress was cancelled as if its user had
stopped it. Here a closed tab is the terminal going away, as for the terminal
driver (:mod:`iotui.ui.driver`): the app hears :class:`~iotui.ui.driver.TerminalLost`,
stops the run, keeps its record as stopped by ``terminal-lost``, removes its test
directory and leaves. A write to a server that is gone (its pipe closed) does the
same instead of raising.
"""

from __future__ import annotations

import os
import threading
from functools import partial
from typing import TYPE_CHECKING

from textual.drivers.web_driver import WebDriver

from iotui.ui.driver import TerminalLost

if TYPE_CHECKING:
    from textual.app import App


class TabDriver(WebDriver):
    """WebDriver whose closed tab or vanished server stops the app the way a lost terminal does."""

    def __init__(
        self, app: App[object], *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._lost = threading.Event()
        # Every packet (screen data, meta, files) goes out through this one function.
        self._write = partial(TabDriver._write_to_server, self)

    @property
    def terminal_lost(self) -> bool:
        return self._lost.is_set()

    def mark_terminal_lost(self) -> None:
        """The tab (or the server) is gone: nothing is written to it again; the app hears it once."""
        if not self._lost.is_set():
            self._lost.set()
            self._app.post_message(TerminalLost())  # thread-safe

    def _write_to_server(self, data: bytes) -> int:
        view = memoryview(data)
        while view and not self._lost.is_set():
            try:
                view = view[os.write(self.fileno, view):]
            except InterruptedError:
                continue
            except OSError:  # EPIPE, EBADF: the server is gone
                self.mark_terminal_lost()
        return len(data)

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "quit":  # the tab closed
            self.mark_terminal_lost()
            return
        super().on_meta(packet_type, payload)
