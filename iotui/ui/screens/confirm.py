"""Asks before something that cannot be undone (deleting runs): y or n."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """True when the user answers y."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, *lines: str) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            for line in self.lines:
                yield Static(line, markup=False)  # wraps at words: a path or a sentence is never cut
            yield Label("(y / n)")
        yield Footer()  # this dialog's keys, not those of the screen under it

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
