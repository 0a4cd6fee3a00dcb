"""The title line at the top of every screen: Textual's Header drawn as one widget.

Textual's Header is four widgets (itself, an icon, the title, the clock's space),
each mounted and styled before the first frame; iotui shows no icon and no clock,
so one widget draws the same line: the screen's title and sub-title centred
between the icon's 8 columns and the clock's 10, in the header's colours.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

# The columns Textual's Header gives its icon (left) and its clock (right).
ICON_COLUMNS = 8
CLOCK_COLUMNS = 10


class TitleBar(Widget):
    """``iotui — what this screen is for``, kept up to date with the screen's titles."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        background: $panel;
        color: $foreground;
        height: 1;
    }
    """

    def on_mount(self) -> None:
        for owner in (self.app, self.screen):
            self.watch(owner, "title", self._retitle, init=False)
            self.watch(owner, "sub_title", self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    def title_content(self) -> Content:
        screen = self.screen
        title = screen.title if screen.title is not None else self.app.title
        sub_title = screen.sub_title if screen.sub_title is not None else self.app.sub_title
        return self.app.format_title(title, sub_title)

    def render(self) -> Content:
        middle = max(0, self.size.width - ICON_COLUMNS - CLOCK_COLUMNS)
        title = self.title_content().truncate(middle, ellipsis=True).center(middle)
        return title.pad(ICON_COLUMNS, CLOCK_COLUMNS)
