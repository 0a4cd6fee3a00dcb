"""Asks before quitting while fio runs: quitting stops fio and keeps the partial record."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label


class ConfirmQuitScreen(ModalScreen[bool]):
    """True when the user wants to stop the run and quit."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes, stop and quit"),
        Binding("n,escape", "answer(False)", "No, keep running"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-dialog", classes="dialog"):
            yield Label("A run is in progress.")
            yield Label("Stop fio, keep the partial record and quit? (y / n)")
        yield Footer()  # this dialog's keys, not those of the screen under it

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
