"""Asks before running past another run that holds the machine (both records will say so)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label


class ConfirmForceScreen(ModalScreen[bool]):
    """True when the user wants to run anyway beside the run named by ``holder``."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes, run anyway"),
        Binding("n,escape", "answer(False)", "No, wait"),
    ]

    def __init__(self, holder: str) -> None:
        super().__init__()
        self.holder = holder

    def compose(self) -> ComposeResult:
        with Vertical(id="force-dialog", classes="dialog"):
            yield Label("Another run is in progress on this machine:", markup=False)
            yield Label(self.holder, markup=False)
            yield Label("Two runs at once disturb each other's figures.", markup=False)
            yield Label("Run anyway (both records will say so)? (y / n)", markup=False)
        yield Footer()  # this dialog's keys, not those of the screen under it

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
