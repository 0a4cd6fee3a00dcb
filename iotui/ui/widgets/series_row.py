"""One rolling figure on one line: label, sparkline of the last minute or more, latest value."""

from __future__ import annotations

from rich.style import Style
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
        self._styles_for: str | None = None
        self._label_style: Style = Style()
        self._spark_style: Style = Style()
        self._shown: tuple[str, str] | None = None

    def _row_styles(self) -> tuple[Style, Style]:
        """The label and sparkline styles, looked up once per theme (a row redraws every second)."""
        if self._styles_for != self.app.theme:
            self._label_style = self.get_component_rich_style("series-row--label")
            self._spark_style = self.get_component_rich_style("series-row--spark")
            self._styles_for = self.app.theme
        return self._label_style, self._spark_style

    def _parts(self) -> tuple[str, str]:
        """The sparkline and the latest value, as drawn at the current width."""
        ring = self.live.ring(self.spec.key)
        spark_width = max(0, self.size.width - LABEL_WIDTH - VALUE_WIDTH - 2)
        spark = sparkline(ring.values(), spark_width, self.spec.scale_max, show_lowest=self.spec.higher_is_better)
        return spark, f"{self.spec.format(ring.latest()):>{VALUE_WIDTH}}"

    def refresh_if_changed(self) -> None:
        """Repaint only when the row would look different (a flat series costs nothing)."""
        if self._parts() != self._shown:
            self.refresh()

    def render(self) -> Text:
        label_style, spark_style = self._row_styles()
        spark, value = self._shown = self._parts()
        text = Text(no_wrap=True, overflow="crop")
        text.append(f"{self.spec.label:<{LABEL_WIDTH}}", style=label_style)
        text.append(spark, style=spark_style)
        text.append(" " + value + " ")
        return text
