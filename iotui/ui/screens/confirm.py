"""The one yes/no dialog: its words, its keys and their footer labels are arguments.

Deleting runs, running past another run that holds the machine, a sweep of more than 10,000 points
and quitting during a run all ask through it; the builders below keep each question's own words.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static


@dataclass(frozen=True)
class Answer:
    """One answer: the keys that give it (Textual's comma list) and its words in the footer."""

    keys: str
    label: str

    @property
    def first_key(self) -> str:
        return self.keys.split(",")[0].strip()


YES = Answer("y", "Yes")
NO = Answer("n,escape", "No")


class ConfirmScreen(ModalScreen[bool]):
    """True when the user gives the yes answer, False for the no answer.

    The keys are shown as ``(y / n)``: on a line of their own, or ending the last line when the
    question reads as one sentence with them (``ask_inline``).
    """

    def __init__(
        self,
        *lines: str,
        yes: Answer = YES,
        no: Answer = NO,
        ask_inline: bool = False,
        dialog_id: str = "confirm-dialog",
    ) -> None:
        super().__init__()
        self.lines = lines
        self.yes = yes
        self.no = no
        self.ask_inline = ask_inline
        self.dialog_id = dialog_id
        # Bound on this instance, so each question's footer names its own answers.
        self._bindings.bind(yes.keys, "answer(True)", yes.label)
        self._bindings.bind(no.keys, "answer(False)", no.label)

    @property
    def keys_hint(self) -> str:
        return f"({self.yes.first_key} / {self.no.first_key})"

    def compose(self) -> ComposeResult:
        lines = list(self.lines)
        if self.ask_inline and lines:
            lines[-1] = f"{lines[-1]} {self.keys_hint}"
        with Vertical(id=self.dialog_id, classes="dialog"):
            for line in lines:
                yield Static(line, markup=False)  # wraps at words: a path or a sentence is never cut
            if not self.ask_inline:
                yield Label(self.keys_hint)
        yield Footer()  # this dialog's keys, not those of the screen under it

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


def confirm_force(holder: str) -> ConfirmScreen:
    """Run anyway beside the run named by ``holder`` (both records will say so)?"""
    return ConfirmScreen(
        "Another run is in progress on this machine:",
        holder,
        "Two runs at once disturb each other's figures.",
        "Run anyway (both records will say so)?",
        yes=Answer("y", "Yes, run anyway"),
        no=Answer("n,escape", "No, wait"),
        ask_inline=True,
        dialog_id="force-dialog",
    )


def confirm_points(points: int) -> ConfirmScreen:
    """Run every point of a very large sweep (the command line's --yes)?"""
    return ConfirmScreen(
        f"This sweep has {points:,} points.",
        "Run them all?",
        yes=Answer("y", "Yes, run them all"),
        ask_inline=True,
        dialog_id="points-dialog",
    )


def confirm_quit() -> ConfirmScreen:
    """Quitting while fio runs stops fio and keeps the partial record."""
    return ConfirmScreen(
        "A run is in progress.",
        "Stop fio, keep the partial record and quit?",
        yes=Answer("y", "Yes, stop and quit"),
        no=Answer("n,escape", "No, keep running"),
        ask_inline=True,
        dialog_id="quit-dialog",
    )
