"""The desktop benchmark table on Results: MiB/s and IOPS per test and direction, mean and p99 beside,
a bar per row scaled to the best row, and whether each row settled."""

from __future__ import annotations

from rich.table import Table
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.runs.desktop_table import bar, best_bw, desktop_rows
from iotui.core.runs.record import RunRecord


def desktop_table(record: RunRecord) -> Table:
    rows = desktop_rows(record.sections)
    best = best_bw(rows)
    table = Table(box=None, pad_edge=False, expand=False)
    for header, justify in (("test", "left"), ("", "left"), ("MiB/s", "right"), ("IOPS", "right"),
                            ("mean", "right"), ("p99", "right"), ("", "left"), ("", "left")):
        table.add_column(header, justify=justify, no_wrap=True)
    previous_test = None
    for row in rows:
        table.add_row(
            row.test if row.test != previous_test else "",
            row.direction,
            fmt.mib_per_s(row.bw_bytes),
            fmt.count(row.iops),
            fmt.latency_ns(row.lat_mean_ns),
            fmt.latency_ns(row.lat_p99_ns),
            f"[cyan]{bar(row.bw_bytes, best)}[/]" if row.direction == "read" else f"[magenta]{bar(row.bw_bytes, best)}[/]",
            f"[dim]{row.steady or ''}[/]",
        )
        previous_test = row.test
    return table


class DesktopTable(Static):
    """One record's desktop table (shown only for records whose sections are desktop tests)."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(desktop_table(record), id=id)
