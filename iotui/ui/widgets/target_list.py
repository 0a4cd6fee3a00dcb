"""The list of targets: mounted filesystems, the current directory first, and "another directory...".

Each target shows where it is, what it is and how much room it has; a risky
target carries its warning inline, under it, so no one picks a tmpfs by accident.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from iotui.core import format as fmt

if TYPE_CHECKING:
    from iotui.core.host.targets import TargetInfo

OTHER_DIRECTORY_ID = "another-directory"


def target_prompt(target: TargetInfo, width: int | None = None) -> Text:
    """Path, filesystem, device, model, SSD/HDD and free space on one line (cut to ``width``),
    then each warning on its own line(s)."""
    text = Text()
    text.append(str(target.path), style="bold")
    # Most telling first: a narrow terminal cuts the model and the mount point.
    details = [target.filesystem or "?"]
    if target.rotational is not None:
        details.append("HDD" if target.rotational else "SSD")
    if target.free_bytes is not None:
        details.append(f"{fmt.size_bytes(target.free_bytes)} free")
    details.append(target.device or "?")
    if target.model:
        details.append(target.model)
    mount_point = target.mount_point
    if mount_point and str(mount_point) != str(target.path):
        details.append(f"on {mount_point}")
    text.append("  " + "  ".join(details))
    if width:
        text.truncate(width, overflow="ellipsis")
    for _code, sentence in target.warnings:
        text.append("\n  ⚠ " + sentence, style="italic")
    return text


class TargetList(OptionList):
    """Targets to choose from; highlighting one chooses it."""

    @dataclass
    class TargetChosen(Message):
        """The highlighted target changed."""

        target: TargetInfo

    @dataclass
    class OtherDirectoryRequested(Message):
        """The user picked "another directory..." and wants to type a path."""

    def __init__(self, targets: list[TargetInfo], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.targets: list[TargetInfo] = []
        self.set_targets(targets)

    def set_targets(self, targets: list[TargetInfo], select_path: str | None = None) -> None:
        """Replace the list; highlight ``select_path`` when given (else the first)."""
        self.targets = list(targets)
        self.clear_options()
        for index, target in enumerate(self.targets):
            self.add_option(Option(self._prompt(target), id=f"target-{index}"))
        self.add_option(Option(Text("another directory...", style="italic"), id=OTHER_DIRECTORY_ID))
        wanted = next(
            (index for index, target in enumerate(self.targets) if str(target.path) == select_path), 0
        )
        self.highlighted = wanted if self.targets else None

    def _prompt(self, target: TargetInfo) -> Text:
        return target_prompt(target, max(0, self.scrollable_content_region.width - 2) or None)

    def on_resize(self) -> None:
        for index, target in enumerate(self.targets):
            self.replace_option_prompt_at_index(index, self._prompt(target))

    def add_target(self, target: TargetInfo) -> None:
        """Put a typed target at the top (or highlight it when it is already listed)."""
        others = [t for t in self.targets if str(t.path) != str(target.path)]
        self.set_targets([target, *others], select_path=str(target.path))

    @on(OptionList.OptionHighlighted)
    def _on_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.targets):
            self.post_message(self.TargetChosen(self.targets[index]))

    @on(OptionList.OptionSelected)
    def _on_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == OTHER_DIRECTORY_ID:
            self.post_message(self.OtherDirectoryRequested())
