"""Where a report's charts go: drawn inline as SVG for the page, or only collected to be written as files.

Without matplotlib (a plain install has none) the page still holds every table, and a sentence in
place of each chart naming it and how to add matplotlib.
"""

from __future__ import annotations

from html import escape

from iotui.core.report.chart_spec import ChartSpec
from iotui.core.report.charts import INSTALL_HINT, available, draw_svg
from iotui.core.report.html_page import chart_html


def missing_chart_html(spec: ChartSpec) -> str:
    """The sentence a page holds where a chart would be, when matplotlib is not installed."""
    return (
        f'<p class="no-chart" data-chart="{escape(spec.name)}">The chart "{escape(spec.title)}" is not drawn: '
        f"matplotlib is not installed here; add it with {escape(INSTALL_HINT)} and make the report again.</p>"
    )


class ChartCollector:
    """Takes every chart a report has; ``inline`` draws each into the page as it comes (or, without
    matplotlib, puts a sentence in its place)."""

    def __init__(self, *, inline: bool = True, drawn: bool | None = None) -> None:
        self.inline = inline
        self.drawn = available() if drawn is None else drawn
        self.specs: list[ChartSpec] = []

    def add(self, spec: ChartSpec, caption_html: str = "") -> str:
        """The chart's HTML for the page (empty when only collecting); ``caption_html`` is already escaped."""
        self.specs.append(spec)
        if not self.inline:
            return ""
        return chart_html(draw_svg(spec), caption_html) if self.drawn else missing_chart_html(spec)
