"""Helpers for the Pilot tests: read what the screen shows, wait for the run worker."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot


def screen_text(app: App) -> str:
    """Every line the current screen shows (toasts included), as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def widget_text(app: App, widget) -> str:
    """What ``widget`` shows on the current screen, its lines joined by spaces (a wrapped text reads whole)."""
    x, y, width, height = widget.region
    lines = app.screen._compositor.render_strips()[y : y + height]
    return " ".join(" ".join(strip.text[x : x + width] for strip in lines).split())


class Bare(App):
    """An app that shows one widget and nothing else, for a widget's own tests."""

    def __init__(self, widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def settle(pilot: Pilot) -> None:
    """Let the run worker finish and every message it posted be handled."""
    await pilot.app.workers.wait_for_complete()
    for _ in range(3):
        await pilot.pause()


class MessageLog:
    """A ``message_hook`` that keeps every message, for assertions on what was posted."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        # Ids of the kept messages: each stays alive in ``messages``, so its id is its own.
        self._kept_ids: set[int] = set()

    def __call__(self, message: Message) -> None:
        # A bubbling message is seen once per node it visits: keep it once.
        if id(message) not in self._kept_ids:
            self._kept_ids.add(id(message))
            self.messages.append(message)

    def of(self, kind: type) -> list:
        """The messages of one type, in order."""
        return [message for message in self.messages if isinstance(message, kind)]

    def notifications(self) -> list[str]:
        """The text of every notification (toast) posted."""
        from textual.notifications import Notify

        return [message.notification.message for message in self.of(Notify)]

    def toasts(self) -> list[tuple[str, str]]:
        """(title, message) of every notification posted."""
        from textual.notifications import Notify

        return [(message.notification.title, message.notification.message) for message in self.of(Notify)]
