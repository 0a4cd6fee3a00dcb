"""What the chosen preset tells, the exact fio command, the estimates and every warning."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from iotui.core import format as fmt
from iotui.ui.service_types import PlanPreview

if TYPE_CHECKING:
    from iotui.core.presets.model import Preset


def preview_text(preset: Preset | None, preview: PlanPreview | None, problem: str | None) -> Text:
    """The preview as text; a refusal or a bad option is the last, loudest line."""
    text = Text()
    if preset is None:
        text.append("Choose a preset.", style="italic")
        return text
    text.append(preset.title or preset.name, style="bold")
    description = preset.description
    if description:
        text.append(f": {description}")
    if problem:
        text.append(f"\n✖ {problem}", style="bold")
    if preview is None:
        text.append("\nChoose a target.", style="italic")
    else:
        estimate = []
        if preview.duration_s is not None:
            estimate.append(f"about {fmt.duration_s(preview.duration_s)}")
        if preview.disk_bytes is not None:
            estimate.append(f"{fmt.size_bytes(preview.disk_bytes)} on disk")
        if estimate:
            text.append("\n" + " · ".join(estimate))
        if preview.error:
            text.append(f"\n✖ {preview.error}", style="bold")
        for _code, sentence in preview.warnings:
            text.append(f"\n⚠ {sentence}", style="italic")
        if preview.command:
            text.append("\n$ ", style="dim")
            text.append(preview.command, style="bold")
    tells = preset.tells
    if tells:
        text.append(f"\n{tells}", style="dim")
    return text


class CommandPreview(Widget):
    """Follows the chosen preset, the target and the edited options."""

    # Each change may change the number of lines (the height is auto): lay out again.
    # They change when the user changes the choice, never on a timer.
    preset: reactive[Preset | None] = reactive(None, always_update=True, layout=True)
    preview: reactive[PlanPreview | None] = reactive(None, always_update=True, layout=True)
    problem: reactive[str | None] = reactive(None, layout=True)
    ready: reactive[bool] = reactive(True, layout=True)

    def render(self) -> Text:
        if not self.ready:
            return Text("working out the fio command…", style="italic")
        return preview_text(self.preset, self.preview, self.problem)
