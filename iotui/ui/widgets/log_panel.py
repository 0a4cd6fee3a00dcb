"""fio's messages (stderr, stray stdout) and iotui's own warnings, newest at the bottom."""

from __future__ import annotations

from textual.widgets import Log

MAX_LOG_LINES = 500

_PREFIX = {"stderr": "fio: ", "stdout": "fio: ", "iotui": ""}


class LogPanel(Log):
    """A bounded log: old lines drop off, so a chatty fio cannot grow memory.

    Until the first message it shows ``placeholder`` (dim, class ``-empty``), so an
    empty panel says what will appear in it.
    """

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        super().__init__(max_lines=MAX_LOG_LINES, auto_scroll=True, id=id)
        self.placeholder = placeholder
        self.empty = True
        """True until the first message: the placeholder is the only line."""

    def on_mount(self) -> None:
        if self.empty and self.placeholder:
            self.add_class("-empty")
            self.write_line(self.placeholder)

    def add(self, source: str, text: str) -> None:
        """Append one message, marked with where it came from."""
        if self.empty:
            self.empty = False
            self.clear()
            self.remove_class("-empty")
        self.write_line(_PREFIX.get(source, f"{source}: ") + text)
