"""fio's messages (stderr, stray stdout) and iotui's own warnings, newest at the bottom."""

from __future__ import annotations

from textual.widgets import Log

MAX_LOG_LINES = 500

_PREFIX = {"stderr": "fio: ", "stdout": "fio: ", "iotui": ""}


class LogPanel(Log):
    """A bounded log: old lines drop off, so a chatty fio cannot grow memory."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(max_lines=MAX_LOG_LINES, auto_scroll=True, id=id)

    def add(self, source: str, text: str) -> None:
        """Append one message, marked with where it came from."""
        self.write_line(_PREFIX.get(source, f"{source}: ") + text)
