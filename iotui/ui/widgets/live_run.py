"""The live part of a run: the latest interval's figures beside the responsiveness chip.

One widget for the Run screen and the Sweep screen (its current point), so both
show the same clock (fio's own, from its status reports) and both name the likely
cause when the machine stops responding. The screen owns the phase and binds it
down; the screen's message handlers hand the widget each interval and assessment.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import var

from iotui.core import format as fmt
from iotui.core.fio.intervals import IntervalSample
from iotui.core.host.advice import run_shape
from iotui.core.host.levels import Assessment, Level
from iotui.core.host.verdict import unresponsive_notice
from iotui.core.presets.estimate import PlannedSection
from iotui.core.records.desktop_table import test_label
from iotui.core.records.steady import LiveSteady
from iotui.ui.phases import RunPhase
from iotui.ui.widgets.figures_panel import FiguresPanel
from iotui.ui.widgets.responsiveness_chip import ResponsivenessChip


# What the clock line says while another program's I/O shares the device.
INTERFERENCE_WORDS = "another program's I/O on the device"
# The chip never narrower than this (a shorter form of its text fits within it).
CHIP_MIN_WIDTH = 20


def section_label(name: str) -> str:
    """A desktop test's section as its table names it (``seq1m-q1t1-read`` -> ``SEQ1M Q1T1 read``)."""
    named = test_label(name)
    return f"{named[0]} {named[1]}" if named else name


def section_line(sections: Sequence[PlannedSection], index: int | None, in_section_s: float | None) -> str:
    """``3/8 SEQ1M Q1T1 read · 4 s left``; "" for a run of one section or a section not known."""
    if len(sections) < 2 or index is None or not 0 <= index < len(sections):
        return ""
    planned = sections[index]
    text = f"{index + 1}/{len(sections)} {section_label(planned.name)}"
    if planned.seconds is not None and in_section_s is not None:
        # Its planned time is up but fio has not moved on (file layout, the last second's report): "ending".
        left_s = max(0, math.ceil(planned.seconds - in_section_s - 1e-6))
        if left_s == 0:
            text += " · ending"
        else:
            text += f" · {left_s} s left" if left_s < 60 else f" · {fmt.duration_s(left_s)} left"
    return text


def section_options(options: Mapping[str, object], name: str) -> dict[str, object]:
    """One section's options from a run's (global keys, then ``<name>.<key>`` over them)."""
    own = {key: value for key, value in options.items() if "." not in key}
    prefix = name + "."
    own.update({key[len(prefix):]: value for key, value in options.items() if key.startswith(prefix)})
    return own


class LiveRun(Horizontal):
    """Figures and chip of the run under way; ``phase`` is bound from the screen."""

    interval: var[IntervalSample | None] = var(None, always_update=True)
    """fio's latest interval (None until fio reported)."""
    elapsed_s: var[float | None] = var(None)
    """Seconds since fio started, on fio's own clock."""
    estimated_s: var[float | None] = var(None)
    """fio's expected running time, for the time remaining."""
    phase: var[RunPhase] = var(RunPhase.STARTING)
    assessment: var[Assessment | None] = var(None, always_update=True)
    """The latest responsiveness assessment."""
    measuring: var[bool] = var(True)
    """True until the first assessment: the chip says it is measuring."""
    steady: var[str] = var("")
    """The current section's steady-state judgement, live ("steady after 8 s")."""
    section: var[str] = var("")
    """Which section runs, of how many, and its time left; empty for a run of one section."""

    def __init__(self, *, figures_id: str, chip_id: str, estimated_s: float | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._figures_id = figures_id
        self._chip_id = chip_id
        self._steady = LiveSteady()
        self.set_reactive(LiveRun.estimated_s, estimated_s)
        self.sections: Sequence[PlannedSection] = ()
        """The run's sections as planned (the screen sets them when the run starts)."""
        self._section_index: int | None = None
        self._section_started_s: dict[int, float] = {}

    def compose(self) -> ComposeResult:
        yield FiguresPanel(id=self._figures_id).data_bind(
            interval=LiveRun.interval,
            elapsed_s=LiveRun.elapsed_s,
            estimated_s=LiveRun.estimated_s,
            phase=LiveRun.phase,
            steady=LiveRun.steady,
            section=LiveRun.section,
        )
        yield ResponsivenessChip(id=self._chip_id).data_bind(
            assessment=LiveRun.assessment, measuring=LiveRun.measuring
        )

    def on_resize(self) -> None:
        # The chip gets what the figures leave at their widest (3-line digits on a tall terminal)
        # and shows a shorter form of its text there rather than wrap or push the figures out.
        chip = self.query_one(f"#{self._chip_id}", ResponsivenessChip)
        figures = self.query_one(f"#{self._figures_id}", FiguresPanel)
        room = max(CHIP_MIN_WIDTH, self.content_region.width - figures.widest_columns())
        chip.styles.max_width = room
        chip.set_room(room)

    def begin(self, estimated_s: float | None) -> None:
        """A new run (a sweep's next point): no figures yet, its own estimate."""
        self.interval = None
        self.elapsed_s = None
        self.estimated_s = estimated_s
        self._steady = LiveSteady()
        self.steady = ""
        self._section_index = None
        self._section_started_s = {}
        self.section = ""

    def show_interval(
        self, interval: IntervalSample, *, paused: bool = False, groupid: int | None = None, interference: bool = False
    ) -> None:
        """The latest second; while another program's I/O shares the device the steady line says so instead."""
        if interval.directions:
            # A new reporting group is a new section (where fio's groupid is unknown, a new set of
            # directions); a paused second, or one shared with another program's I/O, is left out of
            # the steady judgement, as the record leaves it out.
            iops = sum(figures.iops for figures in interval.directions.values())
            section = groupid if groupid is not None else interval.groupid
            key = section if section is not None else frozenset(interval.directions)
            planned_s = self.sections[section].seconds if section is not None and 0 <= section < len(self.sections) else None
            state = self._steady.add(interval.t_s, interval.dt_s, iops, key, paused=paused or interference,
                                     section_s=planned_s)
            self.steady = INTERFERENCE_WORDS if interference else state.sentence()
        if groupid is not None:
            self._section_index = groupid
            started_s = self._section_started_s.setdefault(groupid, interval.t_s - interval.dt_s)
            self.section = section_line(self.sections, groupid, interval.t_s - started_s)
        self.interval = interval
        self.elapsed_s = interval.t_s

    def show_assessment(
        self, assessment: Assessment, *, numjobs: int | None, cpu_count: int, keys: str,
        options: Mapping[str, object] | None = None,
    ) -> None:
        """Show the level; when it has just become unresponsive, say what crossed, what to try and ``keys``.

        The suggestion fits the run: its options (``options``, the plan's) and job count; without
        the options there is none, rather than one that may not fit.
        """
        self.assessment = assessment
        self.measuring = False
        if assessment.changed and assessment.level is Level.UNRESPONSIVE:
            index = self._section_index
            if options is not None and index is not None and 0 <= index < len(self.sections) and len(self.sections) > 1:
                # The section running now: its own iodepth and jobs, not the run's largest.
                options = section_options(options, self.sections[index].name)
            shape = run_shape(options, cpu_count, numjobs) if options is not None else None
            self.notify(
                unresponsive_notice(assessment, shape, keys),
                title="The machine is not responding",
                severity="error",
                timeout=15,
                markup=False,
            )
