"""The yardstick for first paint: a bare Textual app that shows one line (ctrl+q quits)."""

from textual.app import App, ComposeResult
from textual.widgets import Static


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("bare textual app ready")


if __name__ == "__main__":
    BareApp().run()
