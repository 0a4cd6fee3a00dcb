"""The permanent chip: how responsive the machine is and which signal says so.

The level is spelled out in words (not only a colour), so it reads the same
with NO_COLOR and on a monochrome terminal.
"""

from __future__ import annotations

from typing import Any

from textual.reactive import reactive
from textual.widget import Widget

from iotui.core.host.responsiveness import Level

_LEVEL_WORDS = {Level.OK: "OK", Level.SLUGGISH: "SLUGGISH", Level.UNRESPONSIVE: "UNRESPONSIVE"}


def chip_text(assessment: Any | None, measuring: bool) -> str:
    """``responsive: OK`` or ``SLUGGISH · io some 34%``."""
    if assessment is None:
        return "responsive: measuring…" if measuring else "responsive: no figures"
    words = _LEVEL_WORDS.get(assessment.level, str(assessment.level))
    if assessment.level is Level.OK:
        return f"responsive: {words}"
    return f"{words} · {assessment.signal}" if assessment.signal else words


class ResponsivenessChip(Widget):
    """Shows the latest assessment; its CSS class follows the level."""

    assessment: reactive[Any] = reactive(None, always_update=True)
    measuring: reactive[bool] = reactive(True, layout=True)

    def watch_assessment(self, old: Any, assessment: Any) -> None:
        # The width follows the text; a re-layout only when its length changes.
        if len(chip_text(old, self.measuring)) != len(chip_text(assessment, self.measuring)):
            self.refresh(layout=True)
        level = assessment.level if assessment is not None else None
        self.set_class(level is Level.OK, "-ok")
        self.set_class(level is Level.SLUGGISH, "-sluggish")
        self.set_class(level is Level.UNRESPONSIVE, "-unresponsive")
        self.tooltip = assessment.sentence if assessment is not None else None

    def render(self) -> str:
        return f" {chip_text(self.assessment, self.measuring)} "
