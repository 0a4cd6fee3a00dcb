"""The key bar at the foot of every screen: Textual's Footer, rebuilt only when its keys change.

Textual's Footer rebuilds all its key widgets after every change of focus or of
the bindings, even when it would show the very same keys, and each key it builds
is restyled twice (its ``compact`` flag is bound to the footer's, which flips a
CSS class). On Home that was a third of the work between the first frame and the
presets showing, and during a run every focus change paid it again. This bar
keeps Textual's look, keys and clicks; it rebuilds only when the keys it would
show differ, and builds each key with its final style at once. Textual is pinned
(pyproject.toml), and tests/ui/test_key_bar.py checks the keys shown against
the screen's bindings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the key widget itself, so the bar looks and clicks the same

if TYPE_CHECKING:
    from textual.screen import Screen

# What the bar shows for one key: key, its display, description, action, enabled, tooltip,
# and whether it is the palette's key (drawn on the right).
ShownKey = tuple[str, str, str, str, bool, str, bool]

# The cells a key takes beside its key and description: one each side of the key, one after the
# description (Textual's footer styles); the palette's key has its left border and one space.
KEY_PADDING_CELLS = 3
PALETTE_EXTRA_CELLS = -1


def keys_width(keys: tuple[ShownKey, ...]) -> int:
    """The cells ``keys`` take in the bar."""
    return sum(
        cell_len(display) + cell_len(description) + KEY_PADDING_CELLS + (PALETTE_EXTRA_CELLS if is_palette else 0)
        for _key, display, description, _action, _enabled, _tooltip, is_palette in keys
    )


def fitted_keys(keys: tuple[ShownKey, ...], width: int) -> tuple[ShownKey, ...]:
    """The keys that fit ``width`` cells: the palette's key gives way first (ctrl+p still opens
    the palette, and the keys panel lists it), so every key of the screen stays shown."""
    if not width or keys_width(keys) <= width:
        return keys
    return tuple(key for key in keys if not key[6])


class KeyBar(Footer):
    """The screen's keys, one line, rebuilt only when they change."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shown: tuple[ShownKey, ...] | None = None

    def shown_keys(self) -> tuple[ShownKey, ...]:
        """The keys the bar shows now, in order (the palette's key last)."""
        keys: list[ShownKey] = []
        seen_actions: set[str] = set()
        active = self.screen.active_bindings
        for _node, binding, enabled, tooltip in active.values():
            # One entry per action, as Textual's footer groups them (the first binding names it).
            if not binding.show or binding.action in seen_actions:
                continue
            seen_actions.add(binding.action)
            display = self.app.get_key_display(binding)
            keys.append((binding.key, display, binding.description, binding.action, enabled, tooltip, False))
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, tooltip = palette
                display = self.app.get_key_display(binding)
                tooltip = binding.tooltip or binding.description
                keys.append((binding.key, display, binding.description, binding.action, enabled, tooltip, True))
        return fitted_keys(tuple(keys), self.size.width)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        keys = self.shown_keys()
        self._shown = keys
        self.styles.grid_size_columns = len(keys)
        for key, display, description, action, enabled, tooltip, is_palette in keys:
            footer_key = FooterKey(
                key, display, description, action, disabled=not enabled, tooltip=tooltip,
                classes="-command-palette" if is_palette else "",
            )
            if not is_palette:
                # Built with the bar's style, so mounting it changes no class; the palette's
                # key keeps its own compact style, as in Textual's footer.
                footer_key.set_reactive(FooterKey.compact, self.compact)
            yield footer_key

    def on_resize(self) -> None:
        # A narrower bar may leave the palette's key out (fitted_keys); a wider one brings it back.
        if self._shown is not None:
            self.call_after_refresh(self._rebuild_if_changed)

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._rebuild_if_changed)

    async def _rebuild_if_changed(self) -> None:
        if not self.is_attached:
            return
        if self.shown_keys() != self._shown:
            await self.recompose()
