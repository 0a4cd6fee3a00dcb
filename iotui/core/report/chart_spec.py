"""What each chart of a report shows, as plain data (drawing it is :mod:`iotui.core.report.charts`).

Kept apart from the drawing so the figures a chart holds are decided in one
place without the plotting library, and a test can read them back from the
drawn SVG and hold them against the record, never against this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SeriesStyle = Literal["line", "points"]


@dataclass(frozen=True)
class Series:
    """One line (or set of marked points) of a chart, in the chart's units."""

    key: str  # a name safe in an SVG id: "read", "write-sweet-spot"
    label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    style: SeriesStyle = "line"


@dataclass(frozen=True)
class LevelSpan:
    """A stretch of seconds at one responsiveness level (drawn as a strip under a chart)."""

    start_s: float
    end_s: float
    level: str


@dataclass(frozen=True)
class Bar:
    """One bar of a comparison: a run's figure, with its verdict against the baseline."""

    key: str  # "a", "b"...
    label: str
    value: float
    verdict: str = ""


@dataclass(frozen=True)
class ChartSpec:
    """One chart. ``name`` is unique in a report and names the SVG ids and the chart's file."""

    name: str
    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...] = ()
    # Value labels on the x axis at positions 0, 1, ...: a sweep's varied values, in order.
    x_categories: tuple[str, ...] = ()
    levels: tuple[LevelSpan, ...] = ()
    bars: tuple[Bar, ...] = ()
    # A comparison: the baseline's noise band (low, high) and what it is.
    band: tuple[float, float] | None = None
    band_label: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
