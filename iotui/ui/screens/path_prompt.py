"""A small dialog to type a directory to test ("another directory...")."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label


class PathPromptScreen(ModalScreen[str | None]):
    """Returns the typed path, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog", classes="dialog"):
            yield Label("Directory to test (enter to choose, escape to cancel):")
            yield Input(placeholder="/path/to/a/directory", id="path-input")
        yield Footer()  # this dialog's keys, not those of the screen under it

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
