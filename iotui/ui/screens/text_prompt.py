"""A small dialog to type one line (a run's note, its tags), prefilled with the current value."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label


class TextPromptScreen(ModalScreen[str | None]):
    """Returns the typed text (possibly empty), or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="text-dialog", classes="dialog"):
            yield Label(self.question, markup=False)
            yield Input(value=self.value, placeholder=self.placeholder, id="text-input")
            yield Label("enter saves, escape cancels", classes="dialog-hint")
        yield Footer()  # this dialog's keys, not those of the screen under it

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
