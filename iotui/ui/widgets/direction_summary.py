"""A finished run's figures per direction: IOPS, bandwidth and the latency distribution."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.runs.record import RunRecord

ROWS: tuple[tuple[str, str, object], ...] = (
    ("iops", "IOPS", fmt.iops),
    ("bw_bytes", "bandwidth", fmt.bytes_per_s),
    ("lat_mean_ns", "lat mean", fmt.latency_ns),
    ("lat_p50_ns", "lat p50", fmt.latency_ns),
    ("lat_p99_ns", "lat p99", fmt.latency_ns),
    ("lat_p99_9_ns", "lat p99.9", fmt.latency_ns),
    ("lat_max_ns", "lat max", fmt.latency_ns),
)


def direction_table(record: RunRecord) -> Table | Text:
    """Figures down, directions across, so two directions fit in 80 columns."""
    directions = record.directions()
    if not directions:
        return Text("fio reported no I/O.", style="italic")
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column("")
    for direction in directions:
        table.add_column(direction, justify="right")
    for key, label, formatter in ROWS:
        table.add_row(label, *(formatter(record.metric(direction, key)) for direction in directions))  # type: ignore[operator]
    return table


class DirectionSummary(Static):
    """Shows one record's per-direction summary."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(direction_table(record), id=id)
