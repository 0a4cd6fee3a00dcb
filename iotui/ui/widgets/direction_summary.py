"""One section's figures per direction: IOPS, bandwidth and the latency distribution."""

from __future__ import annotations

from typing import Callable, Mapping

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.records.direction_figures import DirectionFigures, section_figures
from iotui.core.records.record import RunRecord

ROWS: tuple[tuple[str, Callable[[DirectionFigures], float | None], Callable[[float | None], str]], ...] = (
    ("IOPS", lambda figures: figures.iops, fmt.iops),
    ("bandwidth", lambda figures: figures.bw_bytes, fmt.bytes_per_s),
    ("lat mean", lambda figures: figures.lat_mean_ns, fmt.latency_ns),
    ("lat p50", lambda figures: figures.lat_p50_ns, fmt.latency_ns),
    ("lat p99", lambda figures: figures.lat_p99_ns, fmt.latency_ns),
    ("lat p99.9", lambda figures: figures.lat_p99_9_ns, fmt.latency_ns),
    ("lat max", lambda figures: figures.lat_max_ns, fmt.latency_ns),
)
_LAT_NOTES = {
    "bins-unpaused": "latency: the unpaused seconds' bins",
    "derived": "latency count derived from IOPS × runtime",
}


def direction_table(section: Mapping[str, object] | None) -> Table | Text:
    """Figures down, directions across, so two directions fit in 80 columns."""
    directions = section_figures(section) if section else ()
    if not directions:
        return Text("fio reported no I/O.", style="italic")
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column("")
    for direction in directions:
        table.add_column(direction.direction, justify="right")
    for label, figure, formatter in ROWS:
        table.add_row(label, *(formatter(figure(direction)) for direction in directions))
    notes = sorted({note for d in directions if (note := _LAT_NOTES.get(d.lat_source or ""))})
    for note in notes:
        table.add_row(Text(note, style="dim italic"), *([""] * len(directions)))
    return table


class DirectionSummary(Static):
    """Shows one section's per-direction figures (the first section until another is picked)."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(direction_table(record.sections[0] if record.sections else None), id=id)

    def show_section(self, section: Mapping[str, object] | None) -> None:
        self.update(direction_table(section))
