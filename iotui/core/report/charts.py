"""Charts drawn by matplotlib: SVG text for the report's page, SVG or PNG files for a post or a ticket.

matplotlib is an optional extra (``pip install 'iotui[report]'``), imported only
here and only when a chart is drawn. Every figure is its own ``Figure`` object,
never pyplot's global state. Each drawn artist carries an SVG id (its gid):
``<chart>__axes`` on the plotting area, ``<chart>__<series key>`` on each line,
``<chart>__bar-<key>`` on each bar, ``<chart>__band`` on a noise band and
``<chart>__level-<n>-<level>`` on the responsiveness strip, so what the page
shows can be read back from the SVG alone.
"""

from __future__ import annotations

import io
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from iotui.core.report.chart_spec import ChartSpec
from iotui.core.safe_files import write_file

if TYPE_CHECKING:  # matplotlib is optional: imported for drawing only in _matplotlib
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

INSTALL_HINT = "pip install 'iotui[report]' (or: pipx inject iotui matplotlib)"
LEVEL_COLOURS = {"ok": "#4caf50", "sluggish": "#ffb300", "unresponsive": "#e53935"}
SERIES_COLOURS = {"read": "#1f77b4", "write": "#d62728", "trim": "#2ca02c"}
_WIDTH_IN, _HEIGHT_IN, _DPI = 7.5, 3.2, 100


class ChartsUnavailable(Exception):
    """matplotlib is not installed; str() says how to add it."""


@dataclass(frozen=True)
class DrawnChart:
    """A chart drawn as SVG, with the axes' data limits matplotlib settled on."""

    spec: ChartSpec
    svg: str
    x_limits: tuple[float, float]
    y_limits: tuple[float, float]


def _matplotlib() -> tuple[ModuleType, type[Figure]]:
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise ChartsUnavailable(f"The report's charts need matplotlib, which is not installed: {INSTALL_HINT}.") from None
    return matplotlib, Figure


def _figure(spec: ChartSpec) -> tuple[Figure, Axes]:
    """The figure and its main axes drawn from ``spec`` (a strip below for responsiveness levels)."""
    _, Figure = _matplotlib()
    strip = bool(spec.levels)
    figure = Figure(figsize=(_WIDTH_IN, _HEIGHT_IN + (0.45 if strip else 0.0)), dpi=_DPI, layout="constrained")
    if strip:
        axes, strip_axes = figure.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [8, 1]})
    else:
        axes, strip_axes = figure.subplots(), None
    axes.patch.set_gid(f"{spec.name}__axes")
    axes.set_title(spec.title, fontsize=10)
    axes.set_ylabel(spec.y_label)
    axes.grid(True, alpha=0.3)
    for series in spec.series:
        colour = SERIES_COLOURS.get(series.key.split("-")[0])
        if series.style == "points":
            (line,) = axes.plot(series.xs, series.ys, linestyle="none", marker="*" if "sweet" in series.key else "x",
                                markersize=12 if "sweet" in series.key else 9, color=colour or "black", label=series.label)
        else:
            (line,) = axes.plot(series.xs, series.ys, marker="o" if spec.x_categories else None, markersize=4,
                                linewidth=1.4, color=colour, label=series.label)
        line.set_gid(f"{spec.name}__{series.key}")
    if spec.bars:
        positions = list(range(len(spec.bars)))
        drawn = axes.bar(positions, [bar.value for bar in spec.bars], color="#5c6bc0", width=0.6)
        for bar, patch in zip(spec.bars, drawn.patches):
            patch.set_gid(f"{spec.name}__bar-{bar.key}")
            if bar.verdict:
                axes.annotate(bar.verdict, (patch.get_x() + patch.get_width() / 2, patch.get_height()),
                              ha="center", va="bottom", fontsize=8)
        axes.set_xticks(positions, [bar.label for bar in spec.bars])
    if spec.band is not None:
        band = axes.axhspan(spec.band[0], spec.band[1], color="#9e9e9e", alpha=0.3, label=spec.band_label)
        band.set_gid(f"{spec.name}__band")
    if spec.x_categories:
        axes.set_xticks(list(range(len(spec.x_categories))), list(spec.x_categories))
    if not spec.bars:
        axes.set_ylim(bottom=0)
    if spec.levels:
        axes.set_xlim(left=0)
    if spec.series or spec.band is not None:
        axes.legend(fontsize=8, loc="best")
    if strip_axes is not None:
        for number, span in enumerate(spec.levels):
            patch = strip_axes.axvspan(span.start_s, span.end_s, color=LEVEL_COLOURS.get(span.level, "#9e9e9e"))
            patch.set_gid(f"{spec.name}__level-{number}-{span.level}")
        strip_axes.set_yticks([])
        strip_axes.set_ylabel("resp.", rotation=0, ha="right", va="center", fontsize=8)
        strip_axes.set_xlabel(spec.x_label)
    else:
        axes.set_xlabel(spec.x_label)
    return figure, axes


def _settings(spec: ChartSpec) -> AbstractContextManager[None]:
    """matplotlib's settings while one chart is built and saved.

    Text from records is never read as math (a ``$`` in a job name is a dollar sign);
    SVG text stays text (searchable, small); a salt per chart keeps the ids of several
    inline SVGs apart; every sample stays a vertex (no path simplification), so the
    drawn line is the record's figures.
    """
    matplotlib, _ = _matplotlib()
    settings: AbstractContextManager[None] = matplotlib.rc_context(
        {"text.parse_math": False, "svg.fonttype": "none", "svg.hashsalt": spec.name, "path.simplify": False}
    )
    return settings


def _svg_text(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # the XML declaration and doctype do not belong inside HTML


def draw_svg(spec: ChartSpec) -> DrawnChart:
    """``spec`` as inline SVG text, and the data limits its axes ended with."""
    with _settings(spec):
        figure, axes = _figure(spec)
        svg = _svg_text(figure)
    x_limits = tuple(float(v) for v in axes.get_xlim())
    y_limits = tuple(float(v) for v in axes.get_ylim())
    return DrawnChart(spec, svg, (x_limits[0], x_limits[1]), (y_limits[0], y_limits[1]))


def write_chart_file(spec: ChartSpec, path: Path, file_format: str) -> None:
    """``spec`` as an ``svg`` or ``png`` file at ``path``, through the one writer (never through a
    symlink or over anything that is not a regular file)."""
    with _settings(spec):
        figure, _ = _figure(spec)
        if file_format == "svg":
            data = _svg_text(figure).encode("utf-8")
        else:
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png")
            data = buffer.getvalue()
    write_file(path, data)


def available() -> bool:
    try:
        _matplotlib()
    except ChartsUnavailable:
        return False
    return True
