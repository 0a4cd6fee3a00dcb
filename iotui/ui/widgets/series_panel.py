"""A column of rolling figures (fio's or the host's), one line per figure, drawn by the panel itself.

When the screen's revision moves, only the lines whose sparkline or value changed
are repainted (Textual's line API): a flat series costs nothing, and a panel of
eleven figures is one widget's work, not eleven.
"""

from __future__ import annotations

from typing import Callable

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from iotui.ui.live import LiveSeries, SeriesSpec, sparkline

LABEL_WIDTH = 9
VALUE_WIDTH = 10


class SeriesPanel(Widget):
    """One line per ``specs()`` figure: label, sparkline of the last minute or more, latest value.

    The layout follows the number of figures (a direction seen for the first time adds three).
    """

    COMPONENT_CLASSES = {"series-row--spark", "series-row--label"}

    revision: reactive[int] = reactive(0, repaint=False)
    """Bumped by the screen when the rings gained a value; the changed lines repaint."""

    def __init__(
        self,
        live: LiveSeries,
        specs: Callable[[], list[SeriesSpec]],
        *,
        title: str,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.live = live
        self.specs = specs
        self.border_title = title
        self._keys: list[str] = [spec.key for spec in specs()]
        self._shown: dict[int, tuple[str, str]] = {}
        self._styles_for: str | None = None
        self._label_style = Style()
        self._spark_style = Style()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.specs())

    def watch_revision(self, _revision: int) -> None:
        specs = self.specs()
        keys = [spec.key for spec in specs]
        if keys != self._keys:
            self._keys = keys
            self._shown.clear()
            self.refresh(layout=True)
            return
        width = self.size.width
        for y, spec in enumerate(specs):
            if self._parts(spec, width) != self._shown.get(y):
                self.refresh(Region(0, y, width, 1))

    def _parts(self, spec: SeriesSpec, width: int) -> tuple[str, str]:
        """The sparkline and the latest value of one figure, as drawn at ``width``."""
        ring = self.live.ring(spec.key)
        spark_width = max(0, width - LABEL_WIDTH - VALUE_WIDTH - 2)
        spark = sparkline(ring.values(), spark_width, spec.scale_max, show_lowest=spec.higher_is_better)
        return spark, f"{spec.format(ring.latest()):>{VALUE_WIDTH}}"

    def _row_styles(self) -> tuple[Style, Style]:
        """The label and sparkline styles, looked up once per theme."""
        if self._styles_for != self.app.theme:
            self._label_style = self.get_component_rich_style("series-row--label")
            self._spark_style = self.get_component_rich_style("series-row--spark")
            self._styles_for = self.app.theme
        return self._label_style, self._spark_style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        specs = self.specs()
        if y >= len(specs):
            return Strip.blank(width, base)
        spec = specs[y]
        spark, value = self._shown[y] = self._parts(spec, width)
        label_style, spark_style = self._row_styles()
        segments = [
            Segment(f"{spec.label:<{LABEL_WIDTH}}", base + label_style),
            Segment(spark, base + spark_style),
            Segment(f" {value} ", base),
        ]
        return Strip(segments).crop_extend(0, width, base)
