"""The permanent chip: how responsive the machine is and which signal says so.

The level is spelled out in words (not only a colour), so it reads the same
with NO_COLOR and on a monochrome terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from textual.reactive import reactive, var
from textual.widget import Widget

from iotui.core.host.levels import Assessment, Level

_LEVEL_WORDS = {Level.OK: "OK", Level.SLUGGISH: "SLUGGISH", Level.UNRESPONSIVE: "UNRESPONSIVE"}


def chip_forms(assessment: Assessment | None, measuring: bool) -> list[str]:
    """The chip's text, longest first: each next one shorter, for a narrow terminal.

    ``SLUGGISH · io write p99 697 ms > 101 ms``, then without the threshold (the tooltip
    keeps the whole sentence), then without "p99", then the signal's first part ("easing off"),
    then the level alone.
    """
    if assessment is None:
        return ["responsive: measuring…", "measuring…"] if measuring else ["responsive: no figures", "no figures"]
    words = _LEVEL_WORDS.get(assessment.level, str(assessment.level))
    if assessment.level is Level.OK:
        return [f"responsive: {words}", words]
    if not assessment.signal:
        return [words]
    signal = assessment.signal
    without_threshold = signal.split(" > ", 1)[0]
    forms = [signal, without_threshold, without_threshold.replace(" p99", ""), signal.split(" · ", 1)[0]]
    shown = [f"{words} · {form}" for index, form in enumerate(forms) if form not in forms[:index]]
    return shown + [words]


def chip_text(assessment: Assessment | None, measuring: bool, room: int | None = None) -> str:
    """``responsive: OK`` or ``SLUGGISH · io some 34%``: the longest form within ``room`` cells (None: the whole)."""
    forms = chip_forms(assessment, measuring)
    if room is None:
        return forms[0]
    return next((form for form in forms if len(form) <= room), forms[-1])


def worst_host_assessment(levels: Mapping[str, Assessment | None]) -> Assessment | None:
    """A multi-host run's chip: the least responsive measured host, its signal named by the host
    (this machine is not probed when fio runs on the hosts); None while no host is measured."""
    measured = [(host, assessment) for host, assessment in levels.items() if assessment is not None]
    if not measured:
        return None
    host, worst = max(measured, key=lambda item: item[1].level.rank)
    if worst.level is Level.OK:
        return worst
    return replace(worst, signal=f"{host} {worst.signal}" if worst.signal else host)


class ResponsivenessChip(Widget):
    """Shows the latest assessment; its CSS class follows the level."""

    # A var, not a reactive: an assessment arrives every second, and the chip is
    # repainted only when what it shows changes (a frame costs the band of screen it spans).
    assessment: var[Assessment | None] = var(None, always_update=True)
    measuring: reactive[bool] = reactive(True, layout=True)

    # The widest text shown at this level: the chip keeps that width while the level
    # stays, so a figure a digit shorter (io some 10% -> 9%) costs a repaint, not a
    # re-layout of the whole screen every second.
    _width = 0
    _shown: str | None = None
    # The cells the text may take (the chip's room less its padding); None: no limit. The chip
    # never wraps: a shorter form of the text is shown instead (chip_forms).
    _room: int | None = None

    def set_room(self, cells: int | None) -> None:
        """The chip's widest, padding included; its text takes a form that fits on one line."""
        room = None if cells is None else max(1, cells - 2)
        if room != self._room:
            self._room = room
            self._width = 0
            self.refresh(layout=True)

    def watch_assessment(self, old: Assessment | None, assessment: Assessment | None) -> None:
        level = assessment.level if assessment is not None else None
        old_level = old.level if old is not None else None
        shown_length = max(self._width, len(chip_text(old, self.measuring, self._room)))
        new_length = len(chip_text(assessment, self.measuring, self._room))
        if level != old_level:
            self._width = 0
        if new_length > shown_length or (level != old_level and new_length != shown_length):
            self.refresh(layout=True)
        self.set_class(level is Level.OK, "-ok")
        self.set_class(level is Level.SLUGGISH, "-sluggish")
        self.set_class(level is Level.UNRESPONSIVE, "-unresponsive")
        sentence = assessment.sentence if assessment is not None else None
        if sentence != self.tooltip:
            self.tooltip = sentence
        if chip_text(assessment, self.measuring, self._room) != self._shown or self._width == 0:
            self.refresh()

    def render(self) -> str:
        text = chip_text(self.assessment, self.measuring, self._room)
        self._shown = text
        self._width = max(self._width, len(text))
        return f" {text:<{self._width}} "
