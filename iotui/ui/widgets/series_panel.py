"""A column of rolling figures (fio's or the host's), redrawn when the screen's revision moves."""

from __future__ import annotations

from typing import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive

from iotui.ui.live import LiveSeries, SeriesSpec
from iotui.ui.widgets.series_row import SeriesRow


class SeriesPanel(Vertical):
    """Rows for ``specs()``; recomposes when the set of figures changes (a new direction)."""

    revision: reactive[int] = reactive(0)

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
        self._shown_keys: list[str] = []

    def compose(self) -> ComposeResult:
        specs = self.specs()
        self._shown_keys = [spec.key for spec in specs]
        for spec in specs:
            yield SeriesRow(spec, self.live)

    def watch_revision(self, _revision: int) -> None:
        if [spec.key for spec in self.specs()] != self._shown_keys:
            self.refresh(recompose=True)
            return
        for row in self.query(SeriesRow):
            row.refresh_if_changed()
