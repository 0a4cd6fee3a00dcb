"""Where a report's charts go: drawn inline as SVG for the page, or only collected to be written as files."""

from __future__ import annotations

from iotui.core.report.chart_spec import ChartSpec
from iotui.core.report.charts import draw_svg
from iotui.core.report.html_page import chart_html


class ChartCollector:
    """Takes every chart a report has; ``inline`` draws each into the page as it comes."""

    def __init__(self, *, inline: bool = True) -> None:
        self.inline = inline
        self.specs: list[ChartSpec] = []

    def add(self, spec: ChartSpec, caption_html: str = "") -> str:
        """The chart's HTML for the page (empty when only collecting); ``caption_html`` is already escaped."""
        self.specs.append(spec)
        return chart_html(draw_svg(spec), caption_html) if self.inline else ""
