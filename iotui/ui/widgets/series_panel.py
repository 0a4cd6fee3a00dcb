"""A column of rolling figures (fio's or the host's), one line per figure, drawn by the panel itself.

Each sparkline cell is one sample (one second; one point in a sweep's panel), the
newest on the right, and the figure printed beside it is that newest cell. The
panel's title says the span its width shows ("last 58 s"), set when the width
changes. When the screen's revision moves, only the lines whose sparkline or
value changed are repainted (Textual's line API): a flat series costs nothing,
and a panel of eleven figures is one widget's work, not eleven.
"""

from __future__ import annotations

from typing import Callable, Protocol

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from iotui.core.series import Ring
from iotui.ui.live import SeriesSpec, span_text, sparkline

LABEL_WIDTH = 9
VALUE_WIDTH = 10


class SeriesSource(Protocol):
    """Where the panel reads its figures: one ring per spec key."""

    def ring(self, key: str) -> Ring: ...


def spark_width(panel_width: int) -> int:
    """How many sparkline cells a line of ``panel_width`` columns holds (label and value beside)."""
    return max(0, panel_width - LABEL_WIDTH - VALUE_WIDTH - 2)


class SeriesPanel(Widget):
    """One line per ``specs()`` figure: label, sparkline (one cell per sample), newest value.

    The layout follows the number of figures (a direction seen for the first time adds three).
    ``placeholder`` is the dim line shown while there is no figure yet; ``legend()`` an
    optional dim line under the figures (a wide and a narrow wording, picked by the width).
    """

    COMPONENT_CLASSES = {"series-row--spark", "series-row--label", "series-row--note"}

    revision: reactive[int] = reactive(0, repaint=False)
    """Bumped by the screen when the rings gained a value; the changed lines repaint."""

    def __init__(
        self,
        live: SeriesSource,
        specs: Callable[[], list[SeriesSpec]],
        *,
        title: str,
        span: Callable[[int], str] = span_text,
        placeholder: str = "",
        legend: Callable[[], tuple[str, str] | None] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.live = live
        self.specs = specs
        self.title = title
        self.span = span
        self.placeholder = placeholder
        self.legend = legend or (lambda: None)
        self.border_title = title
        self._keys: list[str] = [spec.key for spec in specs()]
        self._legend = self.legend()
        self._shown: dict[int, tuple[str, str]] = {}
        # Lines worked out by watch_revision and not drawn yet: render_line takes them as they are.
        self._pending: dict[int, tuple[str, str]] = {}
        self._styles_for: str | None = None
        self._base_style = Style()
        self._label_style = Style()
        self._spark_style = Style()
        self._note_style = Style()

    def _note_lines(self) -> int:
        """Lines after the figures: the placeholder (no figure yet) or the legend."""
        if not self._keys:
            return 1 if self.placeholder else 0
        return 1 if self._legend else 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._keys) + self._note_lines()

    def on_resize(self, event: events.Resize) -> None:
        self._shown.clear()
        self._pending.clear()
        cells = spark_width(self.size.width)
        self.border_title = f"{self.title} · {self.span(cells)}" if cells else self.title

    def watch_revision(self, _revision: int) -> None:
        specs = self.specs()
        keys = [spec.key for spec in specs]
        if keys != self._keys:
            self._keys = keys
            self._legend = self.legend()
            self._shown.clear()
            self._pending.clear()
            self.refresh(layout=True)
            return
        width = self.size.width
        changed: list[Region] = []
        for y, spec in enumerate(specs):
            parts = self._parts(spec, width)
            if parts != self._shown.get(y):
                self._pending[y] = parts
                changed.append(Region(0, y, width, 1))
        if changed:
            self.refresh(*changed)  # one call for all the lines (each call has its own cost)

    def _parts(self, spec: SeriesSpec, width: int) -> tuple[str, str]:
        """The sparkline and the newest value of one figure, as drawn at ``width``."""
        cells = spark_width(width)
        values = self.live.ring(spec.key).last(cells)
        newest = values[-1] if values else None
        return sparkline(values, cells, spec.scale_max), f"{spec.format(newest):>{VALUE_WIDTH}}"

    def notify_style_update(self) -> None:
        # The panel's or an ancestor's styles changed (theme, classes): look them up again.
        self._styles_for = None
        super().notify_style_update()

    def _row_styles(self) -> tuple[Style, Style, Style, Style]:
        """The panel's own style, and the label, sparkline and note styles on it, looked up once per style change.

        ``rich_style`` walks every ancestor for the background; per repainted line each
        second, that walk was the panel's largest cost.
        """
        if self._styles_for != self.app.theme:
            base = self._base_style = self.rich_style
            # Kept combined with the panel's own: each drawn line uses them as they are.
            self._label_style = base + self.get_component_rich_style("series-row--label")
            self._spark_style = base + self.get_component_rich_style("series-row--spark")
            self._note_style = base + self.get_component_rich_style("series-row--note")
            self._styles_for = self.app.theme
        return self._base_style, self._label_style, self._spark_style, self._note_style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        specs = self.specs()
        base, label_style, spark_style, note_style = self._row_styles()
        if y >= len(specs):
            note = self._note(y - len(specs), bool(specs), width)
            return Strip([Segment(note, note_style)] if note else []).crop_extend(0, width, base)
        spec = specs[y]
        parts = self._pending.pop(y, None)
        spark, value = self._shown[y] = parts if parts is not None else self._parts(spec, width)
        segments = [
            Segment(f"{spec.label:<{LABEL_WIDTH}}", label_style),
            Segment(spark, spark_style),
            Segment(f" {value} ", base),
        ]
        return Strip(segments).crop_extend(0, width, base)

    def _note(self, index: int, has_figures: bool, width: int) -> str:
        if index != 0:
            return ""
        if not has_figures:
            return self.placeholder
        if self._legend is None:
            return ""
        wide, narrow = self._legend
        return wide if len(wide) <= width else narrow
