"""What the screens and the command palette call on the app, as a type of its own.

The screens are imported by the app; naming the app's class in them (even for type checking
only) would tie each screen and the app into one circle. They reach the app as this protocol,
which :class:`iotui.ui.app.IotuiApp` satisfies (mypy checks it where the app is defined).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.theme import Theme

    from iotui.core.records.record import RunRecord


class IotuiAppCalls(Protocol):
    """The app's calls a screen makes (attributes go down, these few calls go up)."""

    quit_when_run_ends: bool

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    @property
    def available_themes(self) -> dict[str, Theme]: ...

    def show_results(self, record: RunRecord, saved_path: Path | None) -> None: ...

    def run_gone(self) -> None: ...

    def cancel_run(self) -> None: ...

    def run_in_progress(self) -> bool: ...

    async def action_back(self) -> None: ...

    def action_open_history(self) -> None: ...

    def compare_last_two(self) -> None: ...

    def sweep_from_anywhere(self) -> None: ...

    def run_preset_from_anywhere(self, name: str) -> None: ...

    def choose_target_from_anywhere(self, path: str) -> None: ...
