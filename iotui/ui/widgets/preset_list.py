"""The list of presets: name and one-line description; highlighting one chooses it.

Each preset is one line whatever the width: the list's style cuts a long description
with an ellipsis (``text-wrap: nowrap``), so the prompts are built once, before the
list has a width, and the first frame already shows them as they stay (cutting them in
Python needed the width, so the first frame wrapped each description over three lines
and three more frames followed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from rich.text import Text
from textual import on
from textual.geometry import Size
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option


if TYPE_CHECKING:
    from iotui.core.presets.model import Preset
    from iotui.core.presets.titles import PresetTitle

NAME_WIDTH_MAX = 22

# What the list shows: the presets' titles at the first frame, the checked presets right after.
ListedPreset = Union["Preset", "PresetTitle"]


def preset_prompt(preset: ListedPreset, name_width: int = 14) -> Text:
    """``name  description`` (the list shows it on one line)."""
    text = Text()
    text.append(f"{preset.name:<{name_width}}", style="bold")
    text.append(" " + (preset.description or preset.title or ""))
    return text


class PresetList(OptionList):
    """Presets to choose from."""

    DEFAULT_CSS = """
    PresetList {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    @dataclass
    class PresetChosen(Message):
        """The highlighted preset changed."""

        preset: ListedPreset

    def __init__(self, presets: Sequence[ListedPreset], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.presets: list[ListedPreset] = []
        self.set_presets(presets)

    def set_presets(self, presets: Sequence[ListedPreset]) -> None:
        """Replace the list (nothing highlighted until the screen says so).

        The same lines (Home's checked presets after their titles) only swap what each
        line stands for: nothing is redrawn and the highlight stays.
        """
        if [self._line(p) for p in presets] == [self._line(p) for p in self.presets] and presets:
            self.presets = list(presets)
            return
        self.presets = list(presets)
        self.clear_options()
        self.add_options(Option(self._prompt(p), id=f"preset-{i}") for i, p in enumerate(self.presets))

    @staticmethod
    def _line(preset: ListedPreset) -> tuple[str, str, str]:
        return (preset.name, preset.title or "", preset.description or "")

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # The highlighted preset (Home's default) is put in view as soon as the list has its
        # size, in the layout that precedes the first frame: Textual scrolls to it only once
        # the list is shown, so the first frame showed the top of the list and the next the
        # default. (Textual's own hook for a new size; Textual is pinned in pyproject.toml.)
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        if resized and self.highlighted is not None:
            self.scroll_to_highlight()
        return resized

    def _prompt(self, preset: ListedPreset) -> Text:
        name_width = min(NAME_WIDTH_MAX, max((len(p.name) for p in self.presets), default=0))
        return preset_prompt(preset, name_width)

    def index_of(self, name: str | None) -> int | None:
        """Where the preset called ``name`` is listed, or None."""
        return next((i for i, preset in enumerate(self.presets) if preset.name == name), None)

    @on(OptionList.OptionHighlighted)
    def _on_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.presets):
            self.post_message(self.PresetChosen(self.presets[event.option_index]))
