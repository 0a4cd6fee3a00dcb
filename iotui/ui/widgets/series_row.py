"""One rolling figure on one line: label, sparkline of the last minute or more, latest value."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from iotui.ui.live import LiveSeries, SeriesSpec, sparkline

LABEL_WIDTH = 9
VALUE_WIDTH = 10


class SeriesRow(Widget):
    """Reads its ring from the screen's LiveSeries whenever it is refreshed."""

    COMPONENT_CLASSES = {"series-row--spark", "series-row--label"}

    def __init__(self, spec: SeriesSpec, live: LiveSeries) -> None:
        super().__init__(classes="series-row")
        self.spec = spec
        self.live = live

    def render(self) -> Text:
        ring = self.live.ring(self.spec.key)
        spark_width = max(0, self.size.width - LABEL_WIDTH - VALUE_WIDTH - 2)
        text = Text(no_wrap=True, overflow="crop")
        text.append(f"{self.spec.label:<{LABEL_WIDTH}}", style=self.get_component_rich_style("series-row--label"))
        text.append(
            sparkline(ring.values(), spark_width, self.spec.scale_max, show_lowest=self.spec.higher_is_better),
            style=self.get_component_rich_style("series-row--spark"),
        )
        text.append(" " + f"{self.spec.format(ring.latest()):>{VALUE_WIDTH}}" + " ")
        return text
