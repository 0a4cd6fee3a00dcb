"""The list of presets: name and one-line description; highlighting one chooses it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option


def preset_prompt(preset: Any) -> Text:
    """``name  description`` (the title when a preset has no description)."""
    text = Text()
    text.append(f"{preset.name:<14}", style="bold")
    text.append(" " + (getattr(preset, "description", "") or getattr(preset, "title", "") or ""))
    return text


class PresetList(OptionList):
    """Presets to choose from."""

    @dataclass
    class PresetChosen(Message):
        """The highlighted preset changed."""

        preset: Any  # Preset

    def __init__(self, presets: list[Any], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.presets: list[Any] = []
        self.set_presets(presets)

    def set_presets(self, presets: list[Any]) -> None:
        """Replace the list (nothing highlighted until the screen says so)."""
        self.presets = list(presets)
        self.clear_options()
        self.add_options(Option(preset_prompt(p), id=f"preset-{i}") for i, p in enumerate(self.presets))

    def index_of(self, name: str | None) -> int | None:
        """Where the preset called ``name`` is listed, or None."""
        return next((i for i, preset in enumerate(self.presets) if preset.name == name), None)

    @on(OptionList.OptionHighlighted)
    def _on_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.presets):
            self.post_message(self.PresetChosen(self.presets[event.option_index]))
