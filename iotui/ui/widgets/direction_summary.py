"""One section's figures per direction: IOPS, bandwidth and the latency distribution."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.records.record import RunRecord, section_directions, section_metric

ROWS: tuple[tuple[str, str, object], ...] = (
    ("iops", "IOPS", fmt.iops),
    ("bw_bytes", "bandwidth", fmt.bytes_per_s),
    ("lat_mean_ns", "lat mean", fmt.latency_ns),
    ("lat_p50_ns", "lat p50", fmt.latency_ns),
    ("lat_p99_ns", "lat p99", fmt.latency_ns),
    ("lat_p99_9_ns", "lat p99.9", fmt.latency_ns),
    ("lat_max_ns", "lat max", fmt.latency_ns),
)
_LAT_NOTES = {
    "bins-unpaused": "latency: the unpaused seconds' bins",
    "derived": "latency count derived from IOPS × runtime",
}


def direction_table(section: dict[str, Any] | None) -> Table | Text:
    """Figures down, directions across, so two directions fit in 80 columns."""
    directions = section_directions(section) if section else []
    if not section or not directions:
        return Text("fio reported no I/O.", style="italic")
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column("")
    for direction in directions:
        table.add_column(direction, justify="right")
    for key, label, formatter in ROWS:
        table.add_row(label, *(formatter(section_metric(section, direction, key)) for direction in directions))  # type: ignore[operator]
    notes = sorted({_LAT_NOTES[s] for d in directions if (s := section[d].get("lat_source")) in _LAT_NOTES})
    for note in notes:
        table.add_row(Text(note, style="dim italic"), *([""] * len(directions)))
    return table


class DirectionSummary(Static):
    """Shows one section's per-direction figures (the first section until another is picked)."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(direction_table(record.sections[0] if record.sections else None), id=id)

    def show_section(self, section: dict[str, Any] | None) -> None:
        self.update(direction_table(section))
