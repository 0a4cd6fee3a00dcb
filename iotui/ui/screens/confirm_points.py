"""Asks before a sweep of more than 10,000 points starts (the command line's --yes)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label


class ConfirmPointsScreen(ModalScreen[bool]):
    """True when the user wants to run every point of a very large sweep."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes, run them all"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, points: int) -> None:
        super().__init__()
        self.points = points

    def compose(self) -> ComposeResult:
        with Vertical(id="points-dialog", classes="dialog"):
            yield Label(f"This sweep has {self.points:,} points.")
            yield Label("Run them all? (y / n)")
        yield Footer()  # this dialog's keys, not those of the screen under it

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
